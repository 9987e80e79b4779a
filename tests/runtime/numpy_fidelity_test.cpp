// Classes of differences from numpy found by trying kjarni as a new user would (issue 38), each
// checked against numpy itself or an exact reference, on PoCL and every device: integer
// comparisons across signedness (exact, as numpy's ufunc loops compare, although the promoted type
// is float64), the same_kind rule of assign() and the equal-dtype rule of the other entry points,
// float -> integer conversions (numpy's x86-64 results, undefined in C), and float16 conversions
// to and from every dtype (one rounding, to nearest even). The numpy tables are written by numpy
// itself (data/make_numpy_fidelity.py).

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/expression_node.hpp"
#include "algorithms/scalar_value.hpp"
#include "dtype/half.hpp"
#include "kjarni/device_specifier.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/fusion.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"
#include "support/numpy_tables.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;

class NumpyFidelityTest : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(NumpyFidelityTest);

DType dtype_named(const std::string& name) {
    for (const DType& d : all_scalars())
        if (d.name() == name) return d;
    throw std::invalid_argument("no dtype " + name);
}

// ---- Comparisons ----------------------------------------------------------------------------

enum class Cmp { eq, ne, lt, le, gt, ge };

// Every int64 and uint64 value, exactly (GCC's and Clang's 128-bit integer).
__extension__ typedef __int128 wide_int;

Expr compare(Cmp c, const Expr& a, const Expr& b) {
    switch (c) {
    case Cmp::eq: return a == b;
    case Cmp::ne: return a != b;
    case Cmp::lt: return a < b;
    case Cmp::le: return a <= b;
    case Cmp::gt: return a > b;
    case Cmp::ge: return a >= b;
    }
    return a == b;
}

bool exact(Cmp c, wide_int a, wide_int b) {
    switch (c) {
    case Cmp::eq: return a == b;
    case Cmp::ne: return a != b;
    case Cmp::lt: return a < b;
    case Cmp::le: return a <= b;
    case Cmp::gt: return a > b;
    case Cmp::ge: return a >= b;
    }
    return false;
}

constexpr Cmp all_comparisons[] = {Cmp::eq, Cmp::ne, Cmp::lt, Cmp::le, Cmp::gt, Cmp::ge};

// All six comparisons of a and b in one kernel: bit k of each uint8 result is comparison k.
std::vector<std::uint8_t> comparison_bits(const Queue& queue, const Expr& a, const Expr& b) {
    Expr bits = astype(compare(Cmp::eq, a, b), dtypes::uint8);
    for (std::size_t k = 1; k < 6; ++k)
        bits = bits + astype(compare(all_comparisons[k], a, b), dtypes::uint8) * static_cast<int>(1u << k);
    return evaluate(queue, bits).get(queue).to_vector<std::uint8_t>();
}

// Element k of an integer host array as an exact integer.
wide_int integer_at(const HostArray& a, std::size_t k) {
    const std::byte* p = a.data() + k * a.dtype().itemsize();
    const auto get = [p]<class T>(T) {
        T v;
        std::memcpy(&v, p, sizeof(T));
        return static_cast<wide_int>(v);
    };
    switch (a.dtype().kind()) {
    case DType::Kind::int8: return get(std::int8_t{});
    case DType::Kind::uint8: return get(std::uint8_t{});
    case DType::Kind::int16: return get(std::int16_t{});
    case DType::Kind::int32: return get(std::int32_t{});
    case DType::Kind::int64: return get(std::int64_t{});
    case DType::Kind::uint64: return get(std::uint64_t{});
    default: throw std::logic_error("integer_at");
    }
}

// Values where float64 comparisons go wrong: around 2^53 and 2^63 (and their negatives), 0, and
// pairs of equal values, written into an array of `dtype` (wrapping to its width).
HostArray tricky_integers(const DType& dtype, std::size_t n, const std::vector<std::uint64_t>& partner) {
    auto& rng = random_engine();
    const std::uint64_t centres[] = {0,
                                     std::uint64_t{1} << 53,
                                     (std::uint64_t{1} << 63) - 1,
                                     std::uint64_t{1} << 63,
                                     ~std::uint64_t{0},
                                     static_cast<std::uint64_t>(-(std::int64_t{1} << 53))};
    HostArray a(dtype, {n});
    for (std::size_t k = 0; k < n; ++k) {
        std::uint64_t v = centres[rng() % 6] + (rng() % 9) - 4;
        if (!partner.empty() && rng() % 3 == 0) v = partner[k] + (rng() % 3) - 1;  // equal or a neighbour
        std::memcpy(a.data() + k * dtype.itemsize(), &v, dtype.itemsize());        // little-endian low bytes
    }
    return a;
}

TEST_P(NumpyFidelityTest, IntegerComparisonsAreExactAcrossSignedness) {
    constexpr std::size_t n = 3000;
    // uint64 against every signed type: numpy's promoted type is float64, its loops compare exactly.
    const HostArray u = tricky_integers(uint64, n, {});
    const std::vector<std::uint64_t> u_values = u.to_vector<std::uint64_t>();
    const Array ud = Array::from_host(queue(), u);
    for (const DType& signed_type : {DType(int64), DType(int32), DType(int8)}) {
        const HostArray s = tricky_integers(signed_type, n, u_values);
        const Array sd = Array::from_host(queue(), s);
        for (const bool swapped : {false, true}) {
            SCOPED_TRACE(fmt::format("{} vs uint64{}", signed_type.name(), swapped ? " swapped" : ""));
            const auto g = swapped ? comparison_bits(queue(), ud, sd) : comparison_bits(queue(), sd, ud);
            for (std::size_t k = 0; k < n; ++k) {
                const wide_int a = integer_at(s, k);
                const wide_int b = integer_at(u, k);
                for (std::size_t c = 0; c < 6; ++c)
                    ASSERT_EQ(((g[k] >> c) & 1) != 0,
                              swapped ? exact(all_comparisons[c], b, a) : exact(all_comparisons[c], a, b))
                        << "element " << k << ", comparison " << c << ": " << static_cast<long long>(a) << " and "
                        << static_cast<unsigned long long>(b);
            }
        }
    }
    // Weak (Python-style) integers that the array's type cannot hold compare exactly too (numpy 2:
    // uint8 == 300 is false, uint64 > -1 true, int64 < 2^64 - 1 true), where arithmetic refuses them.
    struct WeakCase {
        DType dtype;
        std::variant<std::int64_t, std::uint64_t> scalar;
    };
    const std::vector<WeakCase> weak_cases{
        {uint8, std::int64_t{300}},
        {uint8, std::int64_t{-1}},
        {int8, std::int64_t{-129}},
        {uint64, std::int64_t{-1}},
        {uint64, std::int64_t{-(std::int64_t{1} << 53)}},
        {int64, ~std::uint64_t{0}},
        {int64, std::uint64_t{1} << 63},
        {int32, std::uint64_t{1} << 63},
        {uint32, std::int64_t{1} << 40},
    };
    for (const WeakCase& w : weak_cases) {
        const HostArray h = tricky_integers(w.dtype, 64, {});
        const Array d = Array::from_host(queue(), h);
        const wide_int scalar = std::visit([](auto v) { return static_cast<wide_int>(v); }, w.scalar);
        const Expr s = std::visit([](auto v) { return Expr(v); }, w.scalar);
        SCOPED_TRACE(fmt::format("{} vs weak {}", w.dtype.name(), static_cast<long long>(scalar)));
        const auto left = comparison_bits(queue(), d, s);
        const auto right = comparison_bits(queue(), s, d);
        for (std::size_t k = 0; k < h.size(); ++k) {
            const wide_int a = w.dtype.kind() == DType::Kind::uint32 ? static_cast<wide_int>(h.span<std::uint32_t>()[k])
                                                                     : integer_at(h, k);
            for (std::size_t c = 0; c < 6; ++c) {
                ASSERT_EQ(((left[k] >> c) & 1) != 0, exact(all_comparisons[c], a, scalar))
                    << "element " << k << ", comparison " << c;
                ASSERT_EQ(((right[k] >> c) & 1) != 0, exact(all_comparisons[c], scalar, a))
                    << "element " << k << ", comparison " << c;
            }
        }
    }
    // Arithmetic with such a scalar stays numpy's error (NEP 50).
    EXPECT_THROW((void)evaluate(queue(), Expr(Array::from_host(queue(), tricky_integers(uint8, 4, {}))) + 300),
                 ArgumentError);
}

// ---- Casting rules ----------------------------------------------------------------------------

TEST_P(NumpyFidelityTest, AssignFollowsNumpysSameKindRuleAndTheOthersEqualDtypes) {
    // assign(): numpy's same_kind, the whole table (written by np.can_cast). Empty arrays: the
    // rule is checked before anything is compiled.
    std::size_t checked = 0;
    for (const auto& row : numpy_table_rows("numpy_same_kind.txt")) {
        const DType from = dtype_named(row.at(0));
        const DType to = dtype_named(row.at(1));
        const bool castable = row.at(2) == "1";
        const Array input = Array::empty(bound_device(), {0}, from);
        const Array out = Array::empty(bound_device(), {0}, to);
        if (castable) EXPECT_NO_THROW(assign(queue(), out, input)) << from.name() << " into " << to.name();
        else EXPECT_THROW(assign(queue(), out, input), ArgumentError) << from.name() << " into " << to.name();
        ++checked;
    }
    EXPECT_EQ(checked, 14u * 14u);
    // int32 into uint32 is refused with a message naming out (numpy: "Cannot cast ufunc 'add' output").
    const HostArray i = tricky_integers(int32, 5, {});
    const Array ints = Array::from_host(queue(), i);
    const Array uints = Array::zeros(queue(), {5}, uint32);
    try {
        assign(queue(), uints, Expr(ints) + ints);
        FAIL() << "int32 into uint32";
    } catch (const ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("out"), std::string::npos) << e.what();
    }
    // uint32 into int64 and int32 into float64 go (same_kind), and convert.
    const Array wide = Array::zeros(queue(), {5}, int64);
    assign(queue(), wide, ints);
    const auto w = wide.get(queue()).to_vector<std::int64_t>();
    for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(w[k], i.span<std::int32_t>()[k]);
    // fill() converts whatever the kinds (numpy's `a[...] = value` with unsafe casting).
    EXPECT_NO_THROW(fill(queue(), uints, Expr(ints)));
    // Reductions' and scans' out take any dtype, cast into unsafely as numpy's (their values:
    // numpy_reduction_out_test.cpp), nan* reductions of floats too; std refuses an integer out as
    // numpy's sqrt does; the reductions of expressions and Array::set want the dtype equal.
    EXPECT_NO_THROW((void)sum(queue(), ints, {std::nullopt, false, Array::zeros(queue(), {}, uint64)}));
    EXPECT_NO_THROW((void)sum(queue(), ints, {std::nullopt, false, Array::zeros(queue(), {}, int32)}));
    EXPECT_NO_THROW((void)sum(queue(), ints, {std::nullopt, false, Array::zeros(queue(), {}, int64)}));
    EXPECT_NO_THROW((void)cumsum(queue(), ints, 0, std::nullopt, Array::zeros(queue(), {5}, uint64)));
    EXPECT_NO_THROW((void)nansum(queue(), Array::zeros(queue(), {5}, float32),
                                 {std::nullopt, false, Array::zeros(queue(), {}, float64)}));
    EXPECT_THROW((void)kjarni::std(queue(), Array::zeros(queue(), {5}, float32),
                                   {std::nullopt, false, Array::zeros(queue(), {}, int32)}),
                 ArgumentError);
    EXPECT_THROW((void)sum(queue(), Expr(ints) + 1, {std::nullopt, false, Array::zeros(queue(), {}, int32)}),
                 ArgumentError);
    EXPECT_THROW(uints.set(queue(), ints), ArgumentError);
}

// ---- Conversions ------------------------------------------------------------------------------

std::uint64_t parse_hex(const std::string& s) { return std::stoull(s, nullptr, 16); }

// One array of `dtype` from hex bit patterns ("re:im" for complex values).
HostArray from_bits(const DType& dtype, const std::vector<std::string>& bits) {
    HostArray a(dtype, {bits.size()});
    const std::size_t item = dtype.itemsize();
    for (std::size_t k = 0; k < bits.size(); ++k) {
        if (is_complex(dtype)) {
            const auto colon = bits[k].find(':');
            const std::uint64_t re = parse_hex(bits[k].substr(0, colon));
            const std::uint64_t im = parse_hex(bits[k].substr(colon + 1));
            std::memcpy(a.data() + k * item, &re, item / 2);
            std::memcpy(a.data() + k * item + item / 2, &im, item / 2);
        } else {
            const std::uint64_t v = parse_hex(bits[k]);
            std::memcpy(a.data() + k * item, &v, item);
        }
    }
    return a;
}

bool is_nan_bits(const DType& dtype, std::uint64_t bits) {
    switch (dtype.kind()) {
    case DType::Kind::float16: return (bits & 0x7c00U) == 0x7c00U && (bits & 0x3ffU) != 0;
    case DType::Kind::float32: return (bits & 0x7f800000U) == 0x7f800000U && (bits & 0x7fffffU) != 0;
    case DType::Kind::float64:
        return (bits & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL && (bits & 0xfffffffffffffULL) != 0;
    default: return false;
    }
}

// Checks `got` against numpy's bits; any NaN matches any NaN (payloads are not numpy's promise).
void expect_bits(const HostArray& got, const std::vector<std::string>& expected, const std::vector<std::string>& inputs,
                 const std::string& what) {
    const HostArray g = got.copy();
    const DType& d = got.dtype();
    const std::size_t item = d.itemsize();
    const std::size_t parts = is_complex(d) ? 2 : 1;
    const DType part = is_complex(d) ? real_for(d) : d;
    std::size_t bad = 0;
    for (std::size_t k = 0; k < expected.size(); ++k) {
        for (std::size_t p = 0; p < parts; ++p) {
            std::string e = expected[k];
            if (parts == 2) e = p == 0 ? e.substr(0, e.find(':')) : e.substr(e.find(':') + 1);
            std::uint64_t want = parse_hex(e);
            if (d.kind() == DType::Kind::bool_) want = want != 0 ? 1 : 0;
            std::uint64_t have = 0;
            std::memcpy(&have, g.data() + k * item + p * (item / parts), item / parts);
            if (have == want || (is_nan_bits(part, have) && is_nan_bits(part, want))) continue;
            if (++bad <= 5)
                ADD_FAILURE() << what << ": element " << k << " (input bits " << inputs[k] << ") gives bits "
                              << fmt::format("{:x}", have) << ", numpy " << fmt::format("{:x}", want);
        }
    }
    EXPECT_EQ(bad, 0u) << what;
}

// Converts the inputs of every (from, to) group of a numpy table by Array::astype (an expression's
// astype, the same kernel) and fill() into a contiguous array (an assignment conversion: the same
// kernel again, so one compile per group); `strided` groups also through fill() between reversed
// views (the strided kernel). Each must give numpy's bits.
using ConversionGroups =
    std::map<std::pair<std::string, std::string>, std::pair<std::vector<std::string>, std::vector<std::string>>>;

void check_conversion_table(const Queue& queue, const BoundDevice& device, const ConversionGroups& groups,
                            const std::set<std::pair<std::string, std::string>>& strided) {
    for (const auto& [types, values] : groups) {
        const DType from = dtype_named(types.first);
        const DType to = dtype_named(types.second);
        const std::string what = from.name() + " -> " + to.name();
        SCOPED_TRACE(what);
        const Array input = Array::from_host(queue, from_bits(from, values.first));
        expect_bits(input.astype(queue, to).get(queue), values.second, values.first, what + " (Array::astype)");
        const Array filled = Array::empty(device, {values.first.size()}, to);
        fill(queue, filled, Expr(input));
        expect_bits(filled.get(queue), values.second, values.first, what + " (fill)");
        if (strided.count(types) != 0) {
            const Slice reverse{std::nullopt, std::nullopt, -1};
            const Array again = Array::empty(device, {values.first.size()}, to);
            fill(queue, again[{reverse}], Expr(input[{reverse}]));
            expect_bits(again.get(queue), values.second, values.first, what + " (fill, reversed views)");
        }
    }
}

TEST_P(NumpyFidelityTest, TanhOfLargeMagnitudesIsExactlyOne) {
    // Past 9.01 (float32) or 19.06 (float64) the exact tanh rounds to +-1, numpy's result; a device's
    // own tanh may stop an ulp short (PoCL's float tanh(-31333) was -(1 - 2^-24)), which a power of
    // a negative base then turns into NaN where numpy gives a number.
    const std::vector<double> xs = {-31333, -9.2, 9.2, 19.2, -19.2, 20, -1e30, 1e300, 44.5, -88};
    for (const bool wide : {false, true}) {
        SCOPED_TRACE(wide ? "float64" : "float32");
        std::vector<double> got;
        got.reserve(xs.size());
        if (wide) {
            const Array x = Array::from_host(queue(), std::span<const double>(xs), {xs.size()});
            got = evaluate(queue(), tanh(x)).get(queue()).to_vector<double>();
        } else {
            std::vector<float> narrow;
            narrow.reserve(xs.size());
            for (const double v : xs) narrow.push_back(static_cast<float>(v));
            const Array x = Array::from_host(queue(), std::span<const float>(narrow), {narrow.size()});
            for (const float v : evaluate(queue(), tanh(x)).get(queue()).to_vector<float>()) got.push_back(v);
        }
        for (std::size_t k = 0; k < xs.size(); ++k) {
            if (!wide && std::fabs(xs[k]) < 9.1) continue;  // float32's own rounding point
            if (wide && std::fabs(xs[k]) < 19.1) continue;
            EXPECT_EQ(got[k], xs[k] < 0 ? -1.0 : 1.0) << "tanh(" << xs[k] << ")";
        }
    }
    // The power of a negative base with that exponent is numpy's number, not NaN.
    const std::vector<std::int16_t> base = {-31333, 4};
    const Array b = Array::from_host(queue(), std::span<const std::int16_t>(base), {2});
    const auto p = evaluate(queue(), pow(b, tanh(b))).get(queue()).to_vector<float>();
    EXPECT_FLOAT_EQ(p[0], -1.0f / 31333.0f);
}

TEST_P(NumpyFidelityTest, FloatsIntoAnIntegerDtypeOfASumOrScanConvertAsNumpysAstype) {
    // sum / cumsum with dtype= an integer type convert each float element as numpy's astype does on
    // x86-64 (through int32 for the narrow types: -1.0 into uint8 is 255, 300.7 is 44), as kjarni's
    // expressions do; a plain C cast differs by device (CUDA saturates -1.0 into uint8 to 0).
    const std::vector<double> xs = {-1.0, -3.5, 300.7, 2.2, 70000.5, -0.25, 1.0};
    const auto as_u8 = [](double x) { return static_cast<std::uint8_t>(static_cast<std::int32_t>(x)); };
    const auto as_i16 = [](double x) { return static_cast<std::int16_t>(static_cast<std::int32_t>(x)); };
    for (const DType& from : {DType(dtypes::float64), DType(dtypes::float32)}) {
        SCOPED_TRACE(from.name());
        const Array x64 = Array::from_host(queue(), std::span<const double>(xs), {xs.size()});
        const Array x = evaluate(queue(), astype(Expr(x64), from));
        std::uint8_t want_u8 = 0;
        std::int16_t want_i16 = 0;
        std::vector<std::uint8_t> running;
        for (const double v : xs) {
            want_u8 = static_cast<std::uint8_t>(want_u8 + as_u8(v));
            want_i16 = static_cast<std::int16_t>(want_i16 + as_i16(v));
            running.push_back(want_u8);
        }
        EXPECT_EQ(sum(queue(), x, {}, DType(dtypes::uint8)).get(queue()).to_vector<std::uint8_t>()[0], want_u8);
        EXPECT_EQ(sum(queue(), x, {}, DType(dtypes::int16)).get(queue()).to_vector<std::int16_t>()[0], want_i16);
        EXPECT_EQ(cumsum(queue(), x, 0, DType(dtypes::uint8)).get(queue()).to_vector<std::uint8_t>(), running);
    }
    // A complex's real part likewise (numpy drops the imaginary part): into uint32 through int64,
    // -6.5 is 2^32 - 6 (np.sum of complex128 with dtype=uint32, the Python fuzzer's seed 9).
    const std::vector<std::complex<double>> zs = {{-0.75, 0.0}, {-6.5, 0.5}, {-1.04, -0.5}, {3.9, 2.0}};
    const Array z = Array::from_host(queue(), std::span<const std::complex<double>>(zs), {zs.size()});
    std::uint32_t want = 0;
    for (const auto& v : zs) want += static_cast<std::uint32_t>(static_cast<std::int64_t>(v.real()));
    EXPECT_EQ(sum(queue(), z, {}, DType(dtypes::uint32)).get(queue()).to_vector<std::uint32_t>()[0], want);
    // Into bool a complex is nonzero where either part is (numpy's astype): the product and the
    // running sum of {0.0 + 2j, -0.5 - 0j} in bool are true, and of {0.0 + 0j, 1.0} false.
    const std::vector<std::complex<float>> ws = {{0.0f, 2.0f}, {-0.5f, -0.0f}, {0.0f, 0.0f}, {1.0f, 0.0f}};
    const Array w = Array::from_host(queue(), std::span<const std::complex<float>>(ws), {2, 2});
    const DType as_bool(dtypes::bool_);
    EXPECT_EQ(prod(queue(), w, ReduceOptions{std::vector<int>{1}}, as_bool).get(queue()).to_vector<std::uint8_t>(),
              (std::vector<std::uint8_t>{1, 0}));
    EXPECT_EQ(cumsum(queue(), w, 1, as_bool).get(queue()).to_vector<std::uint8_t>(),
              (std::vector<std::uint8_t>{1, 1, 0, 1}));
}

TEST_P(NumpyFidelityTest, AScalarExponentOfOneHalfIsSqrtAsInNumpysLoops) {
    // numpy 2.4's float32 and float64 power loops take a scalar exponent of 0.5 as sqrt: -0.0 stays
    // -0.0 and -inf gives NaN (C's pow: +0.0 and inf); with an exponent array, and in float16, pow.
    const std::vector<double> xs = {-0.0, -INFINITY, 4.0, 2.0, 0.25};
    for (const DType& dtype : {DType(dtypes::float32), DType(dtypes::float64), DType(dtypes::float16)}) {
        SCOPED_TRACE(dtype.name());
        const Array x64 = Array::from_host(queue(), std::span<const double>(xs), {xs.size()});
        const Array x = evaluate(queue(), astype(Expr(x64), dtype));
        const Array halves =
            evaluate(queue(), astype(Expr(Array::zeros(queue(), {xs.size()}, dtypes::float64)) + 0.5, dtype));
        const auto scalar_power = evaluate(queue(), astype(pow(x, Expr(0.5)), dtypes::float64)).get(queue());
        const auto array_power = evaluate(queue(), astype(pow(x, halves), dtypes::float64)).get(queue());
        const auto s = scalar_power.to_vector<double>(), a = array_power.to_vector<double>();
        const bool loop_sqrt = dtype != DType(dtypes::float16);
        EXPECT_EQ(std::signbit(s[0]), loop_sqrt) << s[0];
        EXPECT_EQ(std::isnan(s[1]), loop_sqrt) << s[1];
        EXPECT_TRUE(a[0] == 0.0 && !std::signbit(a[0])) << a[0];
        EXPECT_EQ(a[1], INFINITY);
        for (std::size_t k = 2; k < xs.size(); ++k) {
            EXPECT_NEAR(s[k], std::sqrt(xs[k]), 1e-3 * std::sqrt(xs[k]));
            EXPECT_NEAR(a[k], std::sqrt(xs[k]), 1e-3 * std::sqrt(xs[k]));
        }
    }
}

TEST_P(NumpyFidelityTest, AnExponentAtStrideZeroTakesNumpysFastPaths) {
    // numpy 2.4's float32 / float64 power loops take an exponent they meet at stride 0 (0-d, or one
    // element broadcast) of -1, 0, 0.5, 1 or 2 as 1 / x, 1, sqrt(x), x or x * x, each correctly
    // rounded; its trivial loop over one element of one shape steps through the exponent, pow's.
    // The shapes and what numpy 2.4 gives for -0.0 ** 0.5 (sqrt: -0.0, pow: +0.0).
    struct Case {
        std::vector<std::size_t> base, exponent;
        bool exponent_float64;  // of a float32 base: the loop casts the exponent (or base) to float64
        bool sqrt;
    };
    const std::vector<Case> cases = {{{5}, {}, false, true},         {{5}, {1}, false, true},
                                     {{2, 3}, {1, 1}, true, true},   {{}, {}, false, true},
                                     {{1, 1}, {1, 1}, false, false}, {{1, 1}, {1, 1}, true, true},
                                     {{1}, {1}, true, false},        {{1}, {1, 1}, false, true},
                                     {{3, 4}, {4}, false, false}};
    for (const DType& dtype : {DType(dtypes::float32), DType(dtypes::float64)}) {
        for (const Case& c : cases) {
            if (c.exponent_float64 && dtype == DType(dtypes::float64)) continue;  // a cast of float32's only
            SCOPED_TRACE(fmt::format("{} base {} exponent {}{}", dtype.name(), c.base, c.exponent,
                                     c.exponent_float64 ? " float64" : ""));
            const DType exponent_dtype = c.exponent_float64 ? DType(dtypes::float64) : dtype;
            const Array base = evaluate(queue(), astype(Expr(Array::zeros(queue(), c.base, dtype)) * -1.0, dtype));
            const Array halves =
                evaluate(queue(),
                         astype(Expr(Array::zeros(queue(), c.exponent, dtypes::float64)) + 0.5, exponent_dtype));
            const auto r =
                evaluate(queue(), astype(pow(base, halves), dtypes::float64)).get(queue()).to_vector<double>();
            for (const double v : r) EXPECT_TRUE(v == 0.0 && std::signbit(v) == c.sqrt) << v;
        }
    }
    // The other fast paths on random values, bit for bit against the host's correctly rounded
    // arithmetic (a device's pow may miss x * x or 1 / x by an ulp).
    auto x = random_vector<float>(4096, -1e4f, 1e4f);
    x[0] = -0.0f;
    const Array xs = Array::from_host(queue(), std::span<const float>(x), {x.size()});
    for (const float e : {-1.0f, 0.0f, 1.0f, 2.0f}) {
        const Array one = Array::from_host(queue(), std::span<const float>(&e, 1), {});
        const auto r = evaluate(queue(), pow(xs, one)).get(queue()).to_vector<float>();
        for (std::size_t k = 0; k < x.size(); ++k) {
            const float want = e == -1.0f ? 1.0f / x[k] : e == 0.0f ? 1.0f : e == 1.0f ? x[k] : x[k] * x[k];
            ASSERT_EQ(std::bit_cast<std::uint32_t>(r[k]), std::bit_cast<std::uint32_t>(want))
                << x[k] << " ** " << e << ": " << r[k] << ", numpy's " << want;
        }
    }
}

TEST_P(NumpyFidelityTest, NegativeBasesToOddPowersKeepTheSignWhenTheyUnderflow) {
    // IEEE 754 (and numpy): (-x)^n for an odd integer n is -(x^n), -0.0 where it underflows
    // (np.float32(-1e-30) ** 3); PoCL's pow gave +0.0. Even powers stay +0.0.
    const std::vector<float> xs = {-1e-30f, -3e-20f, 1e-30f, -1e-30f};
    const Array x = Array::from_host(queue(), std::span<const float>(xs), {xs.size()});
    for (const double e : {3.0, 5.0, 7.0}) {
        const auto odd = evaluate(queue(), pow(x, scalar(e, dtypes::float32))).get(queue()).to_vector<float>();
        for (std::size_t k = 0; k < xs.size(); ++k) {
            EXPECT_EQ(odd[k], 0.0f) << xs[k] << " ** " << e;
            EXPECT_EQ(std::signbit(odd[k]), xs[k] < 0) << xs[k] << " ** " << e;
        }
    }
    const auto even = evaluate(queue(), pow(x, Expr(4.0))).get(queue()).to_vector<float>();
    for (const float v : even) EXPECT_TRUE(v == 0.0f && !std::signbit(v)) << v;
    const std::vector<double> wide = {-1e-200, 2e-200};
    const Array w = Array::from_host(queue(), std::span<const double>(wide), {2});
    const auto cubes = evaluate(queue(), pow(w, Expr(3))).get(queue()).to_vector<double>();
    EXPECT_TRUE(cubes[0] == 0.0 && std::signbit(cubes[0])) << cubes[0];
    EXPECT_TRUE(cubes[1] == 0.0 && !std::signbit(cubes[1])) << cubes[1];
}

TEST_P(NumpyFidelityTest, ScansStartFromTheFirstElementItself) {
    // numpy's cumsum and cumprod start each row from its first element, not from the neutral one
    // combined with it: cumsum keeps -0.0 (0.0 + -0.0 is 0.0), and a complex cumprod keeps a first
    // element with an infinite or NaN part ((1 + 0j) * (inf + 0j) is inf + nanj). Rows long enough
    // for several tiles and pieces, and rows of one element.
    const float nz = -0.0f;
    for (const auto& shape : std::vector<std::vector<std::size_t>>{{3, 70000}, {200001}, {5000, 3}}) {
        const std::size_t n = shape.size() == 1 ? shape[0] : shape[0] * shape[1];
        const std::vector<float> zeros(n, nz);
        const Array x = Array::from_host(queue(), std::span<const float>(zeros), shape);
        const int axis = static_cast<int>(shape.size()) - 1;
        for (const float v : cumsum(queue(), x, axis).get(queue()).to_vector<float>())
            ASSERT_TRUE(v == 0.0f && std::signbit(v)) << "cumsum of -0.0 gave " << v << ", shape[0] " << shape[0];
    }
    const std::vector<double> wide(1000, -0.0);
    for (const double v : cumsum(queue(), Array::from_host(queue(), std::span<const double>(wide), {wide.size()}))
                              .get(queue())
                              .to_vector<double>())
        ASSERT_TRUE(v == 0.0 && std::signbit(v)) << "float64 cumsum of -0.0 gave " << v;

    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<std::complex<float>> firsts = {{inf, 0.0f}, {-81.9565f, nan}, {2.0f, inf}, {nz, nz}, {nan, 3.0f}};
    const auto same = [](std::complex<float> got, std::complex<float> want) {
        const auto part = [](float g, float w) {
            return std::isnan(w) ? std::isnan(g) : g == w && std::signbit(g) == std::signbit(w);
        };
        return part(got.real(), want.real()) && part(got.imag(), want.imag());
    };
    // Rows of one element (axis 1 of (5, 1)), and the first column of rows of 3000 (axis 1).
    const Array single = Array::from_host(queue(), std::span<const std::complex<float>>(firsts), {firsts.size(), 1});
    const auto got_single = cumprod(queue(), single, 1).get(queue()).to_vector<std::complex<float>>();
    const auto got_sum = cumsum(queue(), single, 1).get(queue()).to_vector<std::complex<float>>();
    constexpr std::size_t length = 3000;
    std::vector<std::complex<float>> rows(firsts.size() * length, {1.0f, 0.0f});
    for (std::size_t r = 0; r < firsts.size(); ++r) rows[r * length] = firsts[r];
    const Array long_rows =
        Array::from_host(queue(), std::span<const std::complex<float>>(rows), {firsts.size(), length});
    const HostArray got_rows = cumprod(queue(), long_rows, 1).get(queue());
    for (std::size_t r = 0; r < firsts.size(); ++r) {
        EXPECT_TRUE(same(got_single[r], firsts[r]))
            << "cumprod of one element " << firsts[r] << " gave " << got_single[r];
        EXPECT_TRUE(same(got_sum[r], firsts[r])) << "cumsum of one element " << firsts[r] << " gave " << got_sum[r];
        const auto first = got_rows.at<std::complex<float>>({r, 0});
        EXPECT_TRUE(same(first, firsts[r])) << "cumprod's first position of " << firsts[r] << " gave " << first;
    }
    // A finite row goes on as numpy's running product (exact here: factors of 1 + 0j and a first
    // element of finite parts).
    const std::vector<std::complex<double>> finite = {{1.5, -2.0}, {1.0, 0.0}, {1.0, 0.0}, {0.5, 0.0}};
    const auto products =
        cumprod(queue(), Array::from_host(queue(), std::span<const std::complex<double>>(finite), {4}))
            .get(queue())
            .to_vector<std::complex<double>>();
    EXPECT_EQ(products[2], std::complex<double>(1.5, -2.0));
    EXPECT_EQ(products[3], std::complex<double>(0.75, -1.0));
}

TEST_P(NumpyFidelityTest, FloatToIntegerConversionsGiveNumpysX86Results) {
    ConversionGroups groups;
    for (const auto& row : numpy_table_rows("numpy_float_to_int.txt")) {
        auto& [inputs, results] = groups[{row.at(0), row.at(2)}];
        inputs.push_back(row.at(1));
        // The result as the integer type's bits.
        const std::string& r = row.at(3);
        const std::uint64_t bits = r[0] == '-' ? static_cast<std::uint64_t>(std::stoll(r)) : std::stoull(r);
        results.push_back(
            fmt::format("{:x}", bits & (dtype_named(row.at(2)).itemsize() == 8
                                            ? ~std::uint64_t{0}
                                            : (std::uint64_t{1} << (8 * dtype_named(row.at(2)).itemsize())) - 1)));
    }
    ASSERT_EQ(groups.size(), 27u);
    check_conversion_table(queue(), bound_device(), groups, {{"float64", "int8"}, {"float32", "uint64"}});
}

TEST_P(NumpyFidelityTest, Float16ConvertsToAndFromEveryDtypeAsNumpy) {
    ConversionGroups groups;
    for (const auto& row : numpy_table_rows("numpy_float16.txt")) {
        auto& [inputs, results] = groups[{row.at(0), row.at(2)}];
        inputs.push_back(row.at(1));
        results.push_back(row.at(3));
    }
    ASSERT_EQ(groups.size(), 26u);
    check_conversion_table(queue(), bound_device(), groups, {{"float64", "float16"}, {"float16", "uint32"}});
}

TEST_P(NumpyFidelityTest, Float16ReductionsAndScansAccumulateInFloat32) {
    // sum, mean and cumsum of float16 (and sum with dtype=float16) against float32 accumulations
    // of the same values: within the summation bound (m + 2) u_float32 sum|x| plus the final
    // rounding to float16 (2^-11 |result|).
    constexpr std::size_t n = 1000;
    HostArray h(float16, {n});
    auto& rng = random_engine();
    std::uniform_real_distribution<float> value(-4.0f, 4.0f);
    std::vector<double> exact(n);
    for (std::size_t k = 0; k < n; ++k) {
        h.span<std::uint16_t>()[k] = detail::float_to_half(value(rng));
        exact[k] = detail::half_to_float(h.span<std::uint16_t>()[k]);
    }
    const Array a = Array::from_host(queue(), h);
    double total = 0, magnitude = 0;
    for (double v : exact) total += v, magnitude += std::abs(v);
    const double u = std::ldexp(1.0, -24);
    const auto as_double = [](const Array& x, const Queue& q) {
        return double(detail::half_to_float(x.get(q).span<std::uint16_t>()[0]));
    };
    const Array s = sum(queue(), a);
    ASSERT_EQ(s.dtype(), DType(float16));
    EXPECT_NEAR(as_double(s, queue()), total,
                static_cast<double>(n + 2) * u * magnitude + std::ldexp(std::abs(total), -11) + 1e-7);
    const Array m = mean(queue(), a);
    ASSERT_EQ(m.dtype(), DType(float16));
    const double count = static_cast<double>(n);
    EXPECT_NEAR(as_double(m, queue()), total / count,
                (count + 2) * u * magnitude / count + std::ldexp(std::abs(total / count), -10) + 1e-7);
    const Array s16 = sum(queue(), a.astype(queue(), float32), {}, DType(float16));
    EXPECT_NEAR(as_double(s16, queue()), total,
                static_cast<double>(n + 2) * u * magnitude + std::ldexp(std::abs(total), -11) + 1e-7);
    const HostArray scanned = cumsum(queue(), a).get(queue());
    const auto c = scanned.span<std::uint16_t>();
    double running = 0, running_magnitude = 0;
    for (std::size_t k = 0; k < n; ++k) {
        running += exact[k];
        running_magnitude += std::abs(exact[k]);
        ASSERT_NEAR(detail::half_to_float(c[k]), running,
                    static_cast<double>(k + 3) * u * running_magnitude + std::ldexp(std::abs(running), -11) + 1e-7)
            << "element " << k;
    }
}

TEST_P(NumpyFidelityTest, ReductionsIntoFloat16CastEachElementToFloat16First) {
    // sum / mean / cumsum with dtype=float16 of a wider input: numpy casts every element to
    // float16 first (a complex's real part), then adds in float. A real part of 2e-8 is 0 in
    // float16 (half its least subnormal is 2.98e-8), so 1,000 of them sum to 0, not to 2e-5; a
    // real part of 9e15 is inf there, so beside -inf the sum is NaN (the Python fuzzer's seed 21
    // met it through np.mean of complex128: kjarni added 9e15 in float32 and gave -inf).
    const auto half_values = [&](const Array& x) {
        std::vector<double> out;
        const HostArray h = x.get(queue());
        for (const std::uint16_t bits : h.span<std::uint16_t>()) out.push_back(detail::half_to_float(bits));
        return out;
    };
    constexpr std::size_t n = 1000;
    auto& rng = random_engine();
    std::uniform_real_distribution<double> imag(-4.0, 4.0);
    std::vector<std::complex<double>> tiny(n);
    std::vector<double> tiny_real(n, 2e-8);
    for (auto& z : tiny) z = {2e-8, imag(rng)};
    const Array z = Array::from_host(queue(), std::span<const std::complex<double>>(tiny), {n});
    const Array r = Array::from_host(queue(), std::span<const double>(tiny_real), {n});
    for (const Array& x : {z, r}) {
        SCOPED_TRACE(x.dtype().name());
        EXPECT_EQ(half_values(sum(queue(), x, {}, DType(float16))), std::vector<double>{0.0});
        EXPECT_EQ(half_values(mean(queue(), x, {}, DType(float16))), std::vector<double>{0.0});
        EXPECT_EQ(half_values(cumsum(queue(), x, 0, DType(float16))), std::vector<double>(n, 0.0));
        // The NaN-aware ones too (numpy: the sum of the array with NaN replaced; dtype_sweep.py).
        EXPECT_EQ(half_values(nansum(queue(), x, {}, DType(float16))), std::vector<double>{0.0});
        EXPECT_EQ(half_values(nanprod(queue(), x, {}, DType(float16))), std::vector<double>{0.0});
        if (!is_complex(x.dtype())) {  // (a real dtype= of complex values: kjarni's nanmean refuses it)
            EXPECT_EQ(half_values(nanmean(queue(), x, {}, DType(float16))), std::vector<double>{0.0});
        }
    }
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<std::complex<double>> wide = {{-inf, -2.0}, {-1.0, 4.7}, {0.25, -4.1}, {9.007e15, 0.5}};
    const Array w = Array::from_host(queue(), std::span<const std::complex<double>>(wide), {wide.size()});
    EXPECT_TRUE(std::isnan(half_values(sum(queue(), w, {}, DType(float16)))[0]));
    EXPECT_TRUE(std::isnan(half_values(mean(queue(), w, {}, DType(float16)))[0]));
    const std::vector<double> running = half_values(cumsum(queue(), w, 0, DType(float16)));
    EXPECT_EQ(running[2], -inf);
    EXPECT_TRUE(std::isnan(running[3]));
}

TEST_P(NumpyFidelityTest, MeanWithAnIntegerDtypeDividesInFloat64AsNumpy) {
    // np.mean(x, dtype=<integer or bool>) sums in that dtype, divides the sum in float64 and
    // converts the quotient back as astype does (numpy 2.4: mean(x, dtype=D) equals
    // (sum(x, dtype=D) / n).astype(D) for every pair tried). A division in the dtype itself gave
    // False for bools with dtype=bool, and 2**64 - 1 for int8 -1 with dtype=uint64 (numpy 0: the
    // quotient rounds to 2**64, which x86 converts to 0).
    const std::vector<std::uint8_t> flags = {1, 0, 0, 0, 0};
    const Array b =
        Array::from_host(queue(), std::span<const std::uint8_t>(flags), {flags.size()}).astype(queue(), bool_);
    EXPECT_EQ(mean(queue(), b, {}, DType(bool_)).get(queue()).to_vector<std::uint8_t>(), std::vector<std::uint8_t>{1});
    const std::vector<std::int8_t> minus_one = {-1};
    const Array m = Array::from_host(queue(), std::span<const std::int8_t>(minus_one), {1});
    EXPECT_EQ(mean(queue(), m, {}, DType(uint64)).get(queue()).to_vector<std::uint64_t>(),
              std::vector<std::uint64_t>{0});
    // Quotients that float64 holds exactly truncate toward zero, as C's division would.
    const std::vector<std::int32_t> values = {7, 8, -7, -8};
    const Array v = Array::from_host(queue(), std::span<const std::int32_t>(values), {2, 2});
    EXPECT_EQ(mean(queue(), v, {std::vector<int>{1}}, DType(int32)).get(queue()).to_vector<std::int32_t>(),
              (std::vector<std::int32_t>{7, -7}));
}

// ---- float32 sums and means within numpy's pairwise bound --------------------------------------

// The height of numpy's pairwise summation tree for n contiguous float32 items (the most roundings
// any item goes through; numpy/_core/src/umath/loops_utils.h.src, pairwise_sum): fewer than 8
// items in a row; up to 128 in 8 running sums, combined in 3 levels, then the n % 8 left over one
// by one; more split in halves (the first a multiple of 8), one more level.
std::size_t numpy_pairwise_height(std::size_t n) {
    if (n < 8) return n > 0 ? n - 1 : 0;
    if (n <= 128) return (n / 8 - 1) + 3 + n % 8;
    std::size_t half = n / 2;
    half -= half % 8;
    return 1 + std::max(numpy_pairwise_height(half), numpy_pairwise_height(n - half));
}

TEST_P(NumpyFidelityTest, Float32SumAndMeanStayWithinNumpysPairwiseBound) {
    // numpy's float32 sum of n items errs by at most gamma_h sum|x| (h its tree's height, gamma_h =
    // h u / (1 - h u), u = 2^-24); its mean adds the division's half ulp. The observed error of
    // kjarni's sum and mean must stay within that bound. kjarni's own worst case is larger: its
    // tree (reduction_engine.cpp) gives each of `lanes * pieces` work items m = n / (lanes pieces)
    // items in 4 running sums (height about m / 4 + 2), then log2(lanes) levels across the group,
    // then the pieces joined the same way: 35 for n = 70000 through CUDA and NVIDIA's OpenCL
    // (numpy: 21), so gamma_35 sum|x| is what kjarni promises in the worst case; random data stays
    // far inside both. The mean divides correctly rounded on every device (OpenCL's float division
    // may err by 2.5 ulp, and NVIDIA's did: kj_div_count_f): checked exactly below, which fails on
    // such a device without it (not on PoCL, whose division is exact).
    auto& rng = random_engine();
    for (const std::size_t n : {std::size_t{70000}, std::size_t{1000003}, (std::size_t{1} << 22) + 5}) {
        for (const bool positive : {true, false}) {
            SCOPED_TRACE(fmt::format("n = {}, {}", n, positive ? "values in [0, 1)" : "values in [-1, 1)"));
            std::uniform_real_distribution<float> value(positive ? 0.0f : -1.0f, 1.0f);
            std::vector<float> x(n);
            long double exact = 0, magnitude = 0;
            for (float& v : x) {
                v = value(rng);
                exact += v;
                magnitude += std::abs(v);
            }
            const Array a = Array::from_host(queue(), std::span<const float>(x), {n});
            const long double h = static_cast<long double>(numpy_pairwise_height(n));
            const long double u = std::ldexp(1.0L, -24);
            const long double gamma = h * u / (1 - h * u);
            const float s = sum(queue(), a).get(queue()).to_vector<float>().at(0);
            EXPECT_LE(std::abs(s - exact), gamma * magnitude)
                << "sum " << s << ", exact " << static_cast<double>(exact);
            const float s32 = sum(queue(), a, {}, DType(float32)).get(queue()).to_vector<float>().at(0);
            EXPECT_EQ(s32, s);
            const float m = mean(queue(), a).get(queue()).to_vector<float>().at(0);
            const long double mean_exact = exact / static_cast<long double>(n);
            EXPECT_LE(std::abs(m - mean_exact),
                      gamma * magnitude / static_cast<long double>(n) * (1 + u) + u * std::abs(mean_exact))
                << "mean " << m << ", exact " << static_cast<double>(mean_exact);
            // The mean is the sum divided once, correctly rounded.
            EXPECT_EQ(m, static_cast<float>(static_cast<double>(s) / static_cast<double>(n)));
        }
    }
}

// ---- clip ---------------------------------------------------------------------------------------

// An operand of numpy_clip.txt: an array of the dtype named, or a weak scalar (a C++ literal, as
// numpy's Python scalar) written weak:<Python literal>.
Expr clip_table_operand(const std::string& spec, const std::map<std::string, Array>& arrays) {
    if (spec.rfind("weak:", 0) != 0) return arrays.at(spec);
    const std::string v = spec.substr(5);
    if (v == "True") return Expr(true);
    if (v == "1j") return Expr(std::complex<double>(0, 1));
    if (v.find('.') != std::string::npos) return Expr(std::stod(v));
    if (v[0] == '-') return Expr(static_cast<std::int64_t>(std::stoll(v)));
    const std::uint64_t u = std::stoull(v);
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return Expr(u);
    return Expr(static_cast<std::int64_t>(u));
}

TEST_P(NumpyFidelityTest, ClipPromotesItsThreeOperandsAsNumpysClip) {
    // numpy's table (data/make_numpy_clip.py): the result dtype, or an error (a Python integer the
    // result type cannot hold), for arrays and weak scalars in each of the three places. kjarni
    // refuses at the latest when the kernel's code is generated (no compilation needed here).
    const auto rows = numpy_table_rows("numpy_clip.txt");
    std::ifstream header(std::string(KJARNI_RUNTIME_DATA_DIR) + "/numpy_clip.txt");
    std::vector<std::string> highs;
    for (std::string line; std::getline(header, line);) {
        if (line.rfind("# high: ", 0) != 0) continue;
        std::istringstream words(line.substr(8));
        for (std::string w; words >> w;) highs.push_back(w);
    }
    ASSERT_EQ(highs.size(), 16u);
    std::map<std::string, Array> arrays;
    for (const std::string& spec : highs)
        if (spec.rfind("weak:", 0) != 0) arrays.emplace(spec, Array::empty(bound_device(), {2}, dtype_named(spec)));
    std::size_t checked = 0;
    for (const auto& row : rows) {
        ASSERT_EQ(row.size(), 2 + highs.size());
        for (std::size_t h = 0; h < highs.size(); ++h) {
            const std::string& want = row[2 + h];
            SCOPED_TRACE(fmt::format("clip({}, {}, {}): numpy {}", row[0], row[1], highs[h], want));
            const auto made = [&] {
                const Expr e = clip(clip_table_operand(row[0], arrays), clip_table_operand(row[1], arrays),
                                    clip_table_operand(highs[h], arrays));
                (void)detail::generate_expression(*e.node());
                return e;
            };
            if (want == "error") {
                EXPECT_THROW((void)made(), ArgumentError);
            } else {
                EXPECT_EQ(made().dtype().name(), want);
            }
            ++checked;
        }
    }
    EXPECT_EQ(checked, 13u * 16u * 16u);
}

TEST_P(NumpyFidelityTest, ClipValuesLeaveOutBoundsPastTheRangeAsNumpy) {
    constexpr std::size_t n = 400;
    auto& rng = random_engine();
    std::uniform_int_distribution<int> small(-1000, 1000);
    std::vector<std::int8_t> x8(n);
    std::vector<std::int16_t> lo16(n);
    std::vector<std::uint8_t> u8(n);
    std::vector<float> lo_f(n), hi_f(n);
    for (std::size_t k = 0; k < n; ++k) {
        x8[k] = static_cast<std::int8_t>(small(rng));
        lo16[k] = static_cast<std::int16_t>(small(rng));
        u8[k] = static_cast<std::uint8_t>(small(rng));
        lo_f[k] = static_cast<float>(small(rng)) / 4;  // quarters: exact in float16
        hi_f[k] = static_cast<float>(small(rng)) / 4;
    }
    x8[0] = -128;
    x8[1] = 127;
    const Array x = Array::from_host(queue(), std::span<const std::int8_t>(x8), {n});
    const Array lo = Array::from_host(queue(), std::span<const std::int16_t>(lo16), {n});
    const Array u = Array::from_host(queue(), std::span<const std::uint8_t>(u8), {n});
    const Array lo_h = Array::from_host(queue(), std::span<const float>(lo_f), {n}).astype(queue(), float16);
    const Array hi_h = Array::from_host(queue(), std::span<const float>(hi_f), {n}).astype(queue(), float16);
    const Array hi32 = Array::from_host(queue(), std::span<const float>(hi_f), {n});
    std::vector<std::uint8_t> bits(n);
    for (std::size_t k = 0; k < n; ++k) bits[k] = u8[k] & 1;
    const Array flags = Array::from_host(queue(), std::span<const std::uint8_t>(bits), {n}).view(DType(bool_));
    const auto doubles = [&](const Expr& e) {
        return evaluate(queue(), astype(e, float64)).get(queue()).to_vector<double>();
    };

    // A weak 255 past int8's range: np.clip(x, lo, 255) is np.maximum(x, lo) (int16), not clipped to 255.
    const Expr dropped_high = clip(x, lo, 255);
    EXPECT_EQ(dropped_high.dtype(), DType(int16));
    // A weak -5 below uint8's least value: np.minimum(u, 200), uint8.
    const Expr dropped_low = clip(u, -5, 200);
    EXPECT_EQ(dropped_low.dtype(), DType(uint8));
    // Both past the range: the values themselves (np.positive).
    const Expr dropped_both = clip(x, -128, 127);
    EXPECT_EQ(dropped_both.dtype(), DType(int8));
    // One promotion over bool, a weak 3 and float16: float16 (maximum, then minimum: float64).
    const Expr one_promotion = clip(flags, 3, hi_h);
    EXPECT_EQ(one_promotion.dtype(), DType(float16));
    // A weak first operand is numpy's np.asarray: int64, strong, so float64 with float16 bounds.
    const Expr weak_first = clip(-128, lo_h, hi_h);
    EXPECT_EQ(weak_first.dtype(), DType(float64));
    // A typed int16 scalar, a weak float and float32: float32 (maximum first would give float64).
    const Expr typed_first = clip(scalar_integer(2, int16), -0.0, hi32);
    EXPECT_EQ(typed_first.dtype(), DType(float32));

    const auto a = doubles(dropped_high), b = doubles(dropped_low), c = doubles(dropped_both),
               d = doubles(one_promotion), e = doubles(weak_first), f = doubles(typed_first);
    for (std::size_t k = 0; k < n; ++k) {
        SCOPED_TRACE(k);
        ASSERT_EQ(a[k], std::max<double>(x8[k], lo16[k]));
        ASSERT_EQ(b[k], std::min<double>(u8[k], 200));
        ASSERT_EQ(c[k], x8[k]);
        ASSERT_EQ(d[k], std::min<double>(3, hi_f[k]));
        ASSERT_EQ(e[k], std::min<double>(std::max<double>(-128, lo_f[k]), hi_f[k]));
        ASSERT_EQ(f[k], std::min<double>(2, hi_f[k]));
    }
}

// ---- Correctly rounded float division (round's scaling back) -------------------------------------

// kj_div_rn_from_f (device_code.cpp) corrects a quotient within a few ulps to the correctly rounded
// one, which OpenCL's a / b need not be (2.5 ulp; NVIDIA's OpenCL was one ulp low for
// round(29.4339f, 2)). A device that divides correctly never shows the correction at work, so the
// quotients are moved off by up to 5 ulps first; each must come back to the host's IEEE quotient.
constexpr const char* division_source = R"(
KERNEL void corrected(GLOBAL_MEM float* out, GLOBAL_MEM float* plain, GLOBAL_MEM const float* a,
                      GLOBAL_MEM const float* b, GLOBAL_MEM const int* steps, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i >= n) return;
    float q = a[i] / b[i];
    const int s = steps[i];
    for (int k = 0; k < (s < 0 ? -s : s); ++k) q = nextafter(q, s < 0 ? -INFINITY : INFINITY);
    out[i] = kj_div_rn_from_f(a[i], b[i], q);
    plain[i] = kj_div_rn_f(a[i], b[i]);
}
)";

TEST_P(NumpyFidelityTest, FloatDivisionForRoundIsCorrectlyRoundedFromAnyNearbyQuotient) {
    if (context().api().id() == ApiId::cuda())
        GTEST_SKIP() << "CUDA divides with __fdiv_rn (correctly rounded by definition)";
    auto& rng = random_engine();
    std::vector<float> a, b;
    std::vector<int> steps;
    std::uniform_int_distribution<int> step(-5, 5);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::uniform_real_distribution<float> significand(1.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-60, 60);  // normal quotients (their residuals are exact)
    const auto any_float = [&] {
        return std::ldexp(rng() % 2 == 0 ? significand(rng) : -significand(rng), exponent(rng));
    };
    std::uniform_int_distribution<int> decimals(0, 6);
    for (int k = 0; k < 6000; ++k) {
        if (k % 2 == 0) {
            // round()'s case: an integer (rint(x * 10^d)) over a power of ten.
            const float d = std::pow(10.0f, static_cast<float>(decimals(rng)));
            a.push_back(std::nearbyint(unit(rng) * 1e6f));
            b.push_back(d);
        } else {
            a.push_back(any_float());
            b.push_back(any_float());
        }
        steps.push_back(step(rng));
    }
    // Quotients beside powers of two (the ulp halves below them) and exact ones.
    for (const float q : {1.0f, 2.0f, 0.5f, 1024.0f})
        for (const float d : {3.0f, 7.0f, 10.0f, 100.0f}) {
            for (const int s : {-5, -1, 0, 1, 5}) {
                a.push_back(q * d);
                b.push_back(d);
                steps.push_back(s);
                a.push_back(std::nextafter(q * d, 0.0f));
                b.push_back(d);
                steps.push_back(s);
            }
        }
    // Zeros, infinities and NaN: the quotient stands.
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const auto& [x, y] : std::vector<std::pair<float, float>>{{0.0f, 3.0f},
                                                                   {-0.0f, 3.0f},
                                                                   {1.0f, 0.0f},
                                                                   {-1.0f, 0.0f},
                                                                   {0.0f, 0.0f},
                                                                   {inf, 2.0f},
                                                                   {2.0f, inf},
                                                                   {inf, inf},
                                                                   {nan, 1.0f},
                                                                   {1.0f, nan}}) {
        a.push_back(x);
        b.push_back(y);
        steps.push_back(0);
    }
    const std::size_t n = a.size();
    const Program program(bound_device(), detail::algorithm_preamble() + division_source);
    const Array da = Array::from_host(queue(), std::span<const float>(a), {n});
    const Array db = Array::from_host(queue(), std::span<const float>(b), {n});
    const Array ds = Array::from_host(queue(), std::span<const int>(steps), {n});
    const Array out = Array::empty(bound_device(), {n}, float32);
    const Array plain = Array::empty(bound_device(), {n}, float32);
    program.kernel("corrected")(queue(), {n}, std::nullopt, out.base(), plain.base(), da.base(), db.base(), ds.base(),
                                static_cast<unsigned>(n));
    const auto got = out.get(queue()).to_vector<float>();
    const auto direct = plain.get(queue()).to_vector<float>();
    std::size_t bad = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const float want = a[k] / b[k];  // IEEE division on the host: correctly rounded
        const auto same = [&](float g) {
            return g == want ? std::signbit(g) == std::signbit(want) : std::isnan(g) && std::isnan(want);
        };
        if ((!same(got[k]) || !same(direct[k])) && ++bad <= 5)
            ADD_FAILURE() << a[k] << " / " << b[k] << " from " << steps[k] << " ulps off: " << got[k] << ", directly "
                          << direct[k] << ", IEEE " << want;
    }
    EXPECT_EQ(bad, 0u);
}

// numpy's float32 a / b and sqrt(a) are correctly rounded; so are an expression's on every device
// (OpenCL C allows them 2.5 and 3 ulp unless the program asks for -cl-fp32-correctly-rounded-
// divide-sqrt, which NVIDIA's OpenCL honours). Random operands over a wide range of exponents,
// compared bit for bit with the host's IEEE operations.
TEST_P(NumpyFidelityTest, Float32DivisionAndSqrtOfExpressionsAreCorrectlyRounded) {
    auto& rng = random_engine();
    std::uniform_real_distribution<float> significand(1.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-60, 60);
    const std::size_t n = 1 << 18;
    std::vector<float> a(n), b(n);
    for (std::size_t k = 0; k < n; ++k) {
        a[k] = std::ldexp(rng() % 2 == 0 ? significand(rng) : -significand(rng), exponent(rng));
        b[k] = std::ldexp(rng() % 2 == 0 ? significand(rng) : -significand(rng), exponent(rng));
    }
    const Array da = Array::from_host(queue(), std::span<const float>(a), {n});
    const Array db = Array::from_host(queue(), std::span<const float>(b), {n});
    const auto quotients = evaluate(queue(), da / db).get(queue()).to_vector<float>();
    const auto roots = evaluate(queue(), sqrt(abs(da))).get(queue()).to_vector<float>();
    std::size_t bad_quotients = 0, bad_roots = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const float q = a[k] / b[k], r = std::sqrt(std::fabs(a[k]));
        if (quotients[k] != q && ++bad_quotients <= 3)
            ADD_FAILURE() << a[k] << " / " << b[k] << ": " << quotients[k] << ", IEEE " << q;
        if (roots[k] != r && ++bad_roots <= 3)
            ADD_FAILURE() << "sqrt(" << std::fabs(a[k]) << "): " << roots[k] << ", IEEE " << r;
    }
    EXPECT_EQ(bad_quotients, 0u);
    EXPECT_EQ(bad_roots, 0u);
}

// ---- Scalars written into arrays ------------------------------------------------------------------

// A source of numpy_setitem.txt: weak:<Python literal> (a weak C++ literal) or <dtype>:<literal>
// (kjarni::scalar, numpy's np.int16(300)).
Expr setitem_source(const std::string& spec) {
    const auto colon = spec.find(':');
    const std::string kind = spec.substr(0, colon);
    const std::string text = spec.substr(colon + 1);
    const auto real = [](const std::string& t) {
        if (t == "float('nan')") return std::numeric_limits<double>::quiet_NaN();
        if (t == "float('inf')") return std::numeric_limits<double>::infinity();
        return std::stod(t);
    };
    const bool floating = text.find_first_of(".e(") != std::string::npos;
    if (kind == "weak") {
        if (text == "True") return Expr(true);
        if (text == "1j") return Expr(std::complex<double>(0, 1));
        if (floating) return Expr(real(text));
        if (text[0] == '-') return Expr(static_cast<std::int64_t>(std::stoll(text)));
        const std::uint64_t u = std::stoull(text);
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return Expr(u);
        return Expr(static_cast<std::int64_t>(u));
    }
    const DType d = dtype_named(kind);
    if (text == "3+4j") return scalar(std::complex<double>(3, 4), d);
    if (floating) return scalar(real(text), d);
    if (text[0] == '-') return scalar_integer(std::stoll(text), d);
    return scalar_integer(static_cast<std::int64_t>(std::stoull(text)), d);  // uint64's 2^64 - 1 as -1: its bits
}

TEST_P(NumpyFidelityTest, FillAndAssignCheckScalarsAsNumpyEvenForEmptyArrays) {
    // numpy's table (data/make_numpy_setitem.py): a[...] = x (fill) and np.copyto(a, x, "same_kind")
    // (assign) for weak and typed scalars into every real dtype, the element written or an error.
    // An error comes for an empty array too (it is the value's, not the elements').
    std::size_t checked = 0;
    for (const auto& row : numpy_table_rows("numpy_setitem.txt")) {
        const std::string& op = row.at(0);
        const DType target = dtype_named(row.at(2));
        const std::string& want = row.at(3);
        SCOPED_TRACE(fmt::format("{} {} into {}: numpy {}", op, row.at(1), row.at(2), want));
        const Expr source = setitem_source(row.at(1));
        const auto write = [&](const Array& out) {
            op == "fill" ? fill(queue(), out, source) : assign(queue(), out, source);
        };
        const Array empty = Array::empty(bound_device(), {0, 2}, target);
        const Array one = Array::zeros(queue(), {1}, target);
        ++checked;
        if (want == "error") {
            EXPECT_THROW(write(empty), ArgumentError);
            EXPECT_THROW(write(one), ArgumentError);
            continue;
        }
        EXPECT_NO_THROW(write(empty));
        // The element itself where kjarni converts on the host (integers, and whatever goes into a
        // signed type): one kernel per target dtype. Floats into other types are astype's
        // conversions (a kernel per pair of dtypes), which the conversion tables above check.
        const std::string source_kind = row.at(1).substr(0, row.at(1).find(':'));
        const std::string source_text = row.at(1).substr(row.at(1).find(':') + 1);
        const bool float_source = source_kind == "weak"
                                      ? source_text != "True" && source_text.find_first_of(".e(j") != std::string::npos
                                      : !is_integer(dtype_named(source_kind)) && source_kind != "bool";
        if (float_source && !(is_integer(target) && is_signed(target))) continue;
        ASSERT_NO_THROW(write(one));
        const HostArray h = one.get(queue());
        const detail::ScalarValue got =
            detail::ScalarValue::read(std::span<const std::byte>(h.data(), target.itemsize()), target);
        if (target.kind() == DType::Kind::bool_) {
            EXPECT_EQ(got.u != 0 ? "True" : "False", want);
        } else if (is_integer(target)) {
            EXPECT_EQ(is_signed(target) ? std::to_string(got.i) : std::to_string(got.u), want);
        } else {
            const double w = std::stod(want);
            const double expected = target.kind() == DType::Kind::float16
                                        ? detail::half_to_double(detail::double_to_half(w))
                                        : static_cast<double>(static_cast<float>(w));
            const double g = got.c.real();
            EXPECT_TRUE(g == expected || (std::isnan(g) && std::isnan(expected))) << g;
        }
    }
    EXPECT_EQ(checked, 2u * 27u * 11u);
}

// ---- Complex exp and power where C99's Annex G decides ---------------------------------------

// numpy's part against kjarni's: both NaN, or equal with the sign of a zero, or finite within
// `ulps` of the part (the device's exp: OpenCL C allows 3 ulp, CUDA 2).
// The table's rows of two operands (the next tests but one).
bool is_binary_row(const std::string& fn) { return fn == "multiply" || fn == "divide" || fn == "power_grid"; }

bool same_part(double got, double want, double eps, double ulps) {
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    if (want == 0 || std::isinf(want)) return got == want && std::signbit(got) == std::signbit(want);
    return std::abs(got - want) <= ulps * eps * std::abs(want);
}

TEST_P(NumpyFidelityTest, ComplexExpAndPowerAtInfinityAsNumpy) {
    // numpy's table (data/make_numpy_complex_special.py): exp(-inf + iy) is +0 cis(y), exp(x + i0)
    // is exp(x) + i0, an infinite base to a power of negative real part is 0 (the fuzzer's seed 11
    // found np.power(inf+0j, -7.3-0.0098j): numpy 0, kjarni NaN).
    std::size_t checked = 0;
    for (const auto& row : numpy_table_rows("numpy_complex_special.txt")) {
        if (row.at(0) != "exp" && row.at(0) != "power") continue;  // the grid's: the next test
        SCOPED_TRACE(fmt::format("{}", fmt::join(row, " ")));
        const bool power = row.at(0) == "power";
        const DType dtype = dtype_named(row.at(1));
        if (dtype == DType(complex128) && !have_double(bound_device().device())) continue;
        const auto operand = [&](std::size_t at) {
            const std::complex<double> z(std::stod(row.at(at)), std::stod(row.at(at + 1)));
            return dtype == DType(complex64)
                       ? Array::from_host(queue(),
                                          HostArray::from(std::vector<std::complex<float>>{std::complex<float>(z)}))
                       : Array::from_host(queue(), HostArray::from(std::vector<std::complex<double>>{z}));
        };
        const Array a = operand(2);
        const Array r = power ? evaluate(queue(), pow(Expr(a), Expr(operand(4)))) : evaluate(queue(), exp(Expr(a)));
        const std::size_t at = power ? 6 : 4;
        const std::complex<double> want(std::stod(row.at(at)), std::stod(row.at(at + 1)));
        const HostArray result = r.get(queue());
        ASSERT_EQ(result.size(), 1u);
        double got_re = 0, got_im = 0;
        if (dtype == DType(complex64)) {
            const std::complex<float> z = result.span<std::complex<float>>().front();
            got_re = z.real(), got_im = z.imag();
        } else {
            const std::complex<double> z = result.span<std::complex<double>>().front();
            got_re = z.real(), got_im = z.imag();
        }
        const std::complex<double> got(got_re, got_im);
        const double eps = dtype == DType(complex64) ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
        EXPECT_TRUE(same_part(got.real(), want.real(), eps, 4) && same_part(got.imag(), want.imag(), eps, 4))
            << "kjarni " << got << ", numpy " << want;
        ++checked;
    }
    EXPECT_GE(checked, 26u);
}

// The complex values of a table row's parts at `at` (strtod: stod refuses subnormal values).
std::complex<double> complex_at(const std::vector<std::string>& row, std::size_t at) {
    return {std::strtod(row.at(at).c_str(), nullptr), std::strtod(row.at(at + 1).c_str(), nullptr)};
}

Array complex_array(const Queue& queue, const DType& dtype, const std::vector<std::complex<double>>& values) {
    if (dtype == DType(complex64))
        return Array::from_host(queue, HostArray::from(std::vector<std::complex<float>>(values.begin(), values.end())));
    return Array::from_host(queue, HostArray::from(values));
}

TEST_P(NumpyFidelityTest, ComplexMeansDivideByTheCountAsAComplexNumber) {
    // numpy divides a complex sum by count + 0j: (x + y * 0) / n and (y - x * 0) / n, so a part is
    // NaN where the other is infinite (the fuzzer's seed 6: np.mean of [inf-95.5j] with axis=() is
    // inf+nanj; kjarni gave inf-95.5j). Rows of [value, 0.5-0.25j] (mean) and [value, nan, 0.5-0.25j]
    // (nanmean), axis 1; the expected parts as numpy 2.4.6 printed them.
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<std::complex<double>> values{{inf, 2}, {3, inf}, {inf, inf}, {-inf, 2}, {3, -inf}, {1.5, -2.25}};
    const std::vector<std::complex<double>> want{{inf, nan},  {nan, inf},  {nan, nan},
                                                 {-inf, nan}, {nan, -inf}, {1, -1.25}};
    const auto same = [](double got, double expected) {
        return std::isnan(expected) ? std::isnan(got) : got == expected;
    };
    for (const DType& dtype : {DType(complex64), DType(complex128)}) {
        if (dtype == DType(complex128) && !have_double(bound_device().device())) continue;
        std::vector<std::complex<double>> two, three;
        for (const auto& v : values) {
            two.insert(two.end(), {v, {0.5, -0.25}});
            three.insert(three.end(), {v, {nan, 0}, {0.5, -0.25}});
        }
        ReduceOptions rows;
        rows.axes = std::vector<int>{1};
        const auto n = static_cast<std::ptrdiff_t>(values.size());
        const Array m = mean(queue(), complex_array(queue(), dtype, two).reshape({n, 2}), rows);
        const Array nm = nanmean(queue(), complex_array(queue(), dtype, three).reshape({n, 3}), rows);
        for (const auto& [name, result] : {std::pair{"mean", m}, std::pair{"nanmean", nm}}) {
            const HostArray host = result.astype(queue(), DType(complex128)).get(queue());
            const auto got = host.span<std::complex<double>>();
            ASSERT_EQ(got.size(), values.size());
            for (std::size_t k = 0; k < values.size(); ++k) {
                EXPECT_TRUE(same(got[k].real(), want[k].real()) && same(got[k].imag(), want[k].imag()))
                    << name << " " << dtype.name() << " of " << values[k] << ": kjarni " << got[k] << ", numpy "
                    << want[k];
            }
        }
    }
}

TEST_P(NumpyFidelityTest, ComplexFunctionsOfSpecialPartsAsNumpy) {
    // numpy's table (data/make_numpy_complex_special.py): tanh, sin, cos, sqrt, log, log2, log10,
    // exp2, sign, sinh, cosh, tan, log1p, expm1 and the inverse functions where C99's Annex G (or
    // numpy's own formula) decides (infinite and NaN parts, signed zeros) or a formula's intermediate overflows
    // (the fuzzer's tanh(-7 - 3.4e38j) in complex64: numpy -0.99999917+1.48e-06j, kjarni gave NaN).
    // One evaluation per function and dtype over the whole grid; finite parts within 32 ulps (a
    // few device functions combined), zeros and infinities with their signs, NaN as NaN.
    std::map<std::pair<std::string, std::string>, std::vector<std::vector<std::string>>> cases;
    for (auto& row : numpy_table_rows("numpy_complex_special.txt"))
        if (row.at(0) != "exp" && row.at(0) != "power" && !is_binary_row(row.at(0)))
            cases[{row.at(0), row.at(1)}].push_back(std::move(row));
    std::size_t checked = 0;
    for (const auto& [key, rows] : cases) {
        const auto& [fn, dtype_name] = key;
        SCOPED_TRACE(fmt::format("{} {}", fn, dtype_name));
        const DType dtype = dtype_named(dtype_name);
        if (dtype == DType(complex128) && !have_double(bound_device().device())) continue;
        std::vector<std::complex<double>> values;
        for (const auto& row : rows) values.push_back(complex_at(row, 2));
        const Expr x(complex_array(queue(), dtype, values));
        const Expr e = fn == "tanh"         ? tanh(x)
                       : fn == "sin"        ? sin(x)
                       : fn == "cos"        ? cos(x)
                       : fn == "sqrt"       ? sqrt(x)
                       : fn == "exp_grid"   ? exp(x)
                       : fn == "reciprocal" ? reciprocal(x)
                       : fn == "log2"       ? log2(x)
                       : fn == "log10"      ? log10(x)
                       : fn == "exp2"       ? exp2(x)
                       : fn == "sign"       ? sign(x)
                       : fn == "sinh"       ? sinh(x)
                       : fn == "cosh"       ? cosh(x)
                       : fn == "tan"        ? tan(x)
                       : fn == "log1p"      ? log1p(x)
                       : fn == "expm1"      ? expm1(x)
                       : fn == "arcsin"     ? arcsin(x)
                       : fn == "arccos"     ? arccos(x)
                       : fn == "arctan"     ? arctan(x)
                       : fn == "arcsinh"    ? arcsinh(x)
                       : fn == "arccosh"    ? arccosh(x)
                       : fn == "arctanh"    ? arctanh(x)
                                            : log(x);
        const HostArray result = evaluate(queue(), e).get(queue());
        const double eps = dtype == DType(complex64) ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const std::complex<double> got = dtype == DType(complex64)
                                                 ? std::complex<double>(result.span<std::complex<float>>()[k])
                                                 : result.span<std::complex<double>>()[k];
            const std::complex<double> want = complex_at(rows[k], 4);
            EXPECT_TRUE(same_part(got.real(), want.real(), eps, 32) && same_part(got.imag(), want.imag(), eps, 32))
                << fn << "(" << values[k] << "): kjarni " << got << ", numpy " << want;
            ++checked;
        }
    }
    EXPECT_GE(checked, 22u * 121);
}

TEST_P(NumpyFidelityTest, ComplexArithmeticOfSpecialPartsAsNumpy) {
    // numpy's table (data/make_numpy_complex_special.py): multiply, divide and power over pairs of
    // zeros of both signs, a moderate value, infinities, NaN and parts whose products overflow;
    // numpy's multiply is its loops' fused multiply-add form ((huge + 1.5j) (-inf + huge j) is
    // -inf - inf j, not the plain formula's -inf + NaN j), its divide Smith's through a reciprocal
    // (a zero divisor gives infinities or NaN by part), its power npy_cpow. One evaluation per
    // function and dtype. Finite parts: multiply exact but for the fused rounding (2 ulps), divide
    // within 8 (a reciprocal and two products), power within 32 ulps times the size of b log a
    // (exp's argument carries log's error scaled by b).
    std::map<std::pair<std::string, std::string>, std::vector<std::vector<std::string>>> cases;
    for (auto& row : numpy_table_rows("numpy_complex_special.txt"))
        if (is_binary_row(row.at(0))) cases[{row.at(0), row.at(1)}].push_back(std::move(row));
    std::size_t checked = 0;
    for (const auto& [key, rows] : cases) {
        const auto& [fn, dtype_name] = key;
        SCOPED_TRACE(fmt::format("{} {}", fn, dtype_name));
        const DType dtype = dtype_named(dtype_name);
        if (dtype == DType(complex128) && !have_double(bound_device().device())) continue;
        std::vector<std::complex<double>> as, bs;
        for (const auto& row : rows) {
            as.push_back(complex_at(row, 2));
            bs.push_back(complex_at(row, 4));
        }
        const Expr a(complex_array(queue(), dtype, as)), b(complex_array(queue(), dtype, bs));
        const Expr e = fn == "multiply" ? a * b : fn == "divide" ? a / b : pow(a, b);
        const HostArray result = evaluate(queue(), e).get(queue());
        const double eps = dtype == DType(complex64) ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const std::complex<double> got = dtype == DType(complex64)
                                                 ? std::complex<double>(result.span<std::complex<float>>()[k])
                                                 : result.span<std::complex<double>>()[k];
            const std::complex<double> want = complex_at(rows[k], 6);
            double ulps = fn == "multiply" ? 2 : 8;
            if (fn == "power_grid") {
                const double size = std::abs(bs[k]) * (std::abs(std::log(std::abs(as[k]))) + 4);
                ulps = 32 * std::max(1.0, std::isfinite(size) ? size : 1.0);
            }
            EXPECT_TRUE(same_part(got.real(), want.real(), eps, ulps) && same_part(got.imag(), want.imag(), eps, ulps))
                << fn << "(" << as[k] << ", " << bs[k] << "): kjarni " << got << ", numpy " << want;
            ++checked;
        }
    }
    EXPECT_GE(checked, 2u * 2 * 1296 + 2 * 576);
}

// ---- float16 scalars ------------------------------------------------------------------------

TEST_P(NumpyFidelityTest, Float16ScalarsHoldTheirFloat16ValueAsNumpy) {
    // numpy's table (data/make_numpy_float16_scalar.py): a typed float16 scalar holds its value
    // rounded to float16 in every context (the fuzzer's seed 12 found np.int32(917132486) -
    // np.float16(0.001): numpy 917132485.9989996, kjarni 917132485.999), and a weak float meeting a
    // float16 array is rounded to float16 first. Each result is one correctly rounded operation of
    // the same operands on both sides: compared exactly.
    std::size_t checked = 0;
    for (const auto& row : numpy_table_rows("numpy_float16_scalar.txt")) {
        SCOPED_TRACE(fmt::format("{}", fmt::join(row, " ")));
        const std::string& which = row.at(0);
        const double x = std::stod(row.at(1));
        const double want = std::stod(row.at(2));
        if (which == "float64_times" && !have_double(bound_device().device())) continue;
        const Array result = [&] {
            if (which == "int32_minus") {
                const Array a = Array::from_host(queue(), HostArray::from(std::vector<std::int32_t>{917132486}));
                return evaluate(queue(), Expr(a) - scalar(x, float16));
            }
            if (which == "float64_times") {
                const Array a = Array::from_host(queue(), HostArray::from(std::vector<double>{1.0}));
                return evaluate(queue(), Expr(a) * scalar(x, float16));
            }
            if (which == "float32_plus") {
                const Array a = Array::from_host(queue(), HostArray::from(std::vector<float>{1.0f}));
                return evaluate(queue(), Expr(a) + scalar(x, float16));
            }
            EXPECT_EQ(which, "float16_weak");
            HostArray h(float16, {1});
            h.span<std::uint16_t>()[0] = detail::double_to_half(x);
            return evaluate(queue(), Expr(Array::from_host(queue(), h)) - x);
        }();
        const HostArray r = result.get(queue());
        const double got = r.dtype() == DType(float64)   ? r.span<double>().front()
                           : r.dtype() == DType(float32) ? double(r.span<float>().front())
                                                         : detail::half_to_double(r.span<std::uint16_t>().front());
        EXPECT_TRUE(got == want || (std::isnan(got) && std::isnan(want))) << "kjarni " << got << ", numpy " << want;
        ++checked;
    }
    EXPECT_GE(checked, 24u);
}

}  // namespace
}  // namespace kjarni::test
