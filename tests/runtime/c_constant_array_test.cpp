// c_constant of arrays (issue 43, item 2): the `{...}` initialiser of a C-ordered array, compared
// with what grunnur's own c_constant renders for the same numpy arrays (data/grunnur_c_constant,
// written by tests/template/peer/grunnur_constants.py and checked against grunnur by the
// template_peers test), and with a CPU reference on fresh random data.

#include <gtest/gtest.h>

#include "kjarni/dtype.hpp"
#include "kjarni/error.hpp"
#include "kjarni/template.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;

// A constant as a list of tokens: "{", "}", "," and the elements, each element reduced to what it
// means, so that grunnur's spelling and kjarni's compare: a complex constructor becomes "c(" or "z("
// (grunnur: COMPLEX_CTR(float2)( / COMPLEX_CTR(double2)(; kjarni: COMPLEX64_CTR( / COMPLEX128_CTR(),
// an integer its digits without the suffix (grunnur: L / UL; kjarni: u / l / ul), a float32 the
// float it denotes (grunnur writes the double repr of the float, kjarni the shortest float digits),
// a float64 the double.
std::vector<std::string> meaning(const std::string& text) {
    std::vector<std::string> out;
    std::size_t i = 0;
    const auto skip = [&](const std::string& prefix, const char* as) {
        if (text.compare(i, prefix.size(), prefix) != 0) return false;
        out.emplace_back(as);
        i += prefix.size();
        return true;
    };
    while (i < text.size()) {
        const char c = text[i];
        if (c == ' ') {
            ++i;
        } else if (c == '{' || c == '}' || c == ',' || c == ')') {
            out.emplace_back(1, c);
            ++i;
        } else if (skip("COMPLEX_CTR(float2)(", "c(") || skip("COMPLEX64_CTR(", "c(") ||
                   skip("COMPLEX_CTR(double2)(", "z(") || skip("COMPLEX128_CTR(", "z(")) {
        } else {
            const std::size_t end = text.find_first_of(",}) ", i);
            std::string number = text.substr(i, end - i);
            i = end == std::string::npos ? text.size() : end;
            if (number.find_first_of(".e") != std::string::npos) {
                char* stop = nullptr;
                if (number.back() == 'f') {
                    const float v = std::strtof(number.c_str(), &stop);
                    std::uint32_t bits;
                    std::memcpy(&bits, &v, sizeof bits);
                    out.push_back("f" + std::to_string(bits));
                } else {
                    const double v = std::strtod(number.c_str(), &stop);
                    std::uint64_t bits;
                    std::memcpy(&bits, &v, sizeof bits);
                    out.push_back("d" + std::to_string(bits));
                }
            } else {
                while (!number.empty() &&
                       (number.back() == 'u' || number.back() == 'U' || number.back() == 'l' || number.back() == 'L'))
                    number.pop_back();
                out.push_back("i" + number);
            }
        }
    }
    return out;
}

std::vector<std::byte> from_hex(const std::string& hex) {
    std::vector<std::byte> out;
    if (hex == "-") return out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<std::byte>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

TEST(CConstantArray, MatchesGrunnur) {
    std::ifstream table(std::string(KJARNI_RUNTIME_DATA_DIR) + "/grunnur_c_constant/arrays.txt");
    ASSERT_TRUE(table) << "missing grunnur_c_constant/arrays.txt";
    std::map<std::string, DType> names;
    for (const DType& d :
         {DType(int8), DType(uint8), DType(int16), DType(uint16), DType(int32), DType(uint32), DType(int64),
          DType(uint64), DType(float16), DType(float32), DType(float64), DType(complex64), DType(complex128)})
        names.emplace(d.name(), d);
    std::size_t checked = 0, elements = 0;
    for (std::string line; std::getline(table, line);) {
        std::istringstream fields(line);
        std::string dtype, shape_text, hex, expected;
        std::getline(fields, dtype, '\t');
        std::getline(fields, shape_text, '\t');
        std::getline(fields, hex, '\t');
        std::getline(fields, expected);
        std::vector<std::size_t> shape;
        std::istringstream extents(shape_text);
        for (std::string e; std::getline(extents, e, ',');) shape.push_back(std::stoul(e));
        const auto bytes = from_hex(hex);
        const std::string got = c_constant(bytes, names.at(dtype), shape);
        EXPECT_EQ(meaning(got), meaning(expected))
            << dtype << " (" << shape_text << "):\n kjarni:  " << got << "\n grunnur: " << expected;
        ++checked;
        elements += bytes.size() / names.at(dtype).itemsize();
    }
    EXPECT_EQ(checked, 13u * 8u);                            // every dtype and shape of grunnur_constants.py
    EXPECT_EQ(elements, 13u * (1u + 7u + 12u + 12u + 12u));  // the shapes with elements
}

TEST(CConstantArray, NestsBracesAsTheCpuReference) {
    // A reference written independently of the library's recursion: element k of a C-ordered
    // array opens one brace for each trailing index that is 0 and closes one for each that is at
    // its last value.
    std::mt19937_64 rng(std::random_device{}());
    for (int round = 0; round < 20; ++round) {
        std::vector<std::size_t> shape(1 + rng() % 4);
        std::size_t n = 1;
        for (auto& e : shape) n *= (e = 1 + rng() % 4);
        std::vector<std::int32_t> values(n);
        for (auto& v : values) v = static_cast<std::int32_t>(rng());
        std::string expected;
        std::vector<std::size_t> index(shape.size(), 0);
        for (std::size_t k = 0; k < n; ++k) {
            if (k != 0) expected += ", ";
            for (std::size_t d = shape.size(); d-- > 0 && index[d] == 0;) expected += '{';
            expected += std::to_string(values[k]);
            for (std::size_t d = shape.size(); d-- > 0;) {
                if (++index[d] < shape[d]) break;
                index[d] = 0;
                expected += '}';
            }
        }
        // Braces of dimensions that start together come first (`{{1`), so the count above is right.
        EXPECT_EQ(c_constant(std::span<const std::int32_t>(values), shape), expected);
    }
    // A 0-d array is its element; a struct element keeps its own braces.
    const std::vector<float> one{2.5f};
    EXPECT_EQ(c_constant(std::span<const float>(one), std::vector<std::size_t>{}), "2.5f");
    const DType s = DType::struct_({{"a", int32}, {"b", float32}}, {.aligned = true});
    struct Pair {
        std::int32_t a;
        float b;
    };
    const std::vector<Pair> pairs{{1, 0.5f}, {-2, 4.0f}};
    EXPECT_EQ(c_constant(std::as_bytes(std::span(pairs)), s, std::vector<std::size_t>{2}), "{{1, 0.5f}, {-2, 4.0f}}");
}

TEST(CConstantArray, RefusesDataOfAnotherSize) {
    const std::vector<double> six(6, 1.0);
    const std::vector<std::size_t> shape{2, 4};
    try {
        (void)c_constant(std::span<const double>(six), shape);
        FAIL() << "6 elements for a 2x4 array";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "data");
        EXPECT_NE(std::string(e.what()).find("8 elements"), std::string::npos) << e.what();
    }
    const std::vector<double> nan{std::numeric_limits<double>::quiet_NaN()};
    EXPECT_THROW((void)c_constant(std::span<const double>(nan), std::vector<std::size_t>{1}), ArgumentError);
}

// The initialisers compile as kernel code and hold the values (on every test device, and with NVRTC
// through the suite's cross-check): a program-scope constant table of int32, a function-scope
// float table and a function-scope complex one (CUDA's complex constructor is a function call,
// which a __constant__ initialiser may not hold), all on fresh random data.
class CConstantArrayKernel : public DeviceTest {};

TEST_P(CConstantArrayKernel, InitialisersHoldTheValues) {
    const std::vector<std::int32_t> ints = random_vector<std::int32_t>(12, -1000000, 1000000);
    const std::vector<float> floats = random_vector<float>(6, -1000.0f, 1000.0f);
    const std::vector<float> parts = random_vector<float>(4, -10.0f, 10.0f);
    const std::vector<std::complex<float>> complexes{{parts[0], parts[1]}, {parts[2], parts[3]}};
    const std::string source = R"SRC(
CONSTANT_MEM_DECL int32_t table[3][4] = ${ints};
KERNEL void read_tables(GLOBAL_MEM int32_t* out_i, GLOBAL_MEM float* out_f, GLOBAL_MEM ${c64}* out_c)
{
    const float ftable[2][3] = ${floats};
    const ${c64} ctable[2] = ${complexes};
    const SIZE_T i = get_global_id(0);
    if (i < 12) out_i[i] = table[i / 4][i % 4];
    if (i < 6) out_f[i] = ftable[i / 3][i % 3];
    if (i < 2) out_c[i] = ctable[i];
}
)SRC";
    const std::vector<std::size_t> s34{3, 4}, s23{2, 3}, s2{2};
    const Program program(bound_device(), TemplateSource{source}, {},
                          {{"ints", c_constant(std::span<const std::int32_t>(ints), s34)},
                           {"floats", c_constant(std::span<const float>(floats), s23)},
                           {"complexes", c_constant(std::span<const std::complex<float>>(complexes), s2)},
                           {"c64", ctype(complex64)}});
    const Buffer bi = Buffer::allocate(bound_device(), 12 * sizeof(std::int32_t));
    const Buffer bf = Buffer::allocate(bound_device(), 6 * sizeof(float));
    const Buffer bc = Buffer::allocate(bound_device(), 2 * sizeof(std::complex<float>));
    const std::byte poison{0x7f};
    for (const Buffer* b : {&bi, &bf, &bc}) b->fill(queue(), std::span(&poison, 1));
    program.kernel("read_tables")(queue(), {12}, std::nullopt, bi, bf, bc);
    std::vector<std::int32_t> got_i(12);
    std::vector<float> got_f(6);
    std::vector<std::complex<float>> got_c(2);
    bi.get(queue(), std::span<std::int32_t>(got_i));
    bf.get(queue(), std::span<float>(got_f));
    bc.get(queue(), std::span<std::complex<float>>(got_c));
    EXPECT_EQ(got_i, ints);
    // Exact: the constants are the shortest digits that read back as the same float.
    EXPECT_EQ(got_f, floats);
    EXPECT_EQ(got_c, complexes);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(CConstantArrayKernel);

}  // namespace
}  // namespace kjarni::test
