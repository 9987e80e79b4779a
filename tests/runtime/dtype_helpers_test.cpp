// DType and the helpers of reference §3.3.11 on the host: promotion rules, constants, struct
// layouts, flattening, and DType as a template value.

#include <gtest/gtest.h>

#include <algorithm>

#include "kjarni/dtype.hpp"
#include "kjarni/template.hpp"

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;

TEST(DTypeHelpers, ScalarsOfCxxTypes) {
    EXPECT_EQ(DType::of<bool>(), bool_);
    EXPECT_EQ(DType::of<std::int8_t>(), int8);
    EXPECT_EQ(DType::of<std::uint16_t>(), uint16);
    EXPECT_EQ(DType::of<int>(), int32);
    EXPECT_EQ(DType::of<long long>(), int64);
    EXPECT_EQ(DType::of<std::uint64_t>(), uint64);
    EXPECT_EQ(DType::of<float16_t>(), float16);
    EXPECT_EQ(DType::of<float>(), float32);
    EXPECT_EQ(DType::of<double>(), float64);
    EXPECT_EQ(DType::of<std::complex<float>>(), complex64);
    EXPECT_EQ(DType::of<std::complex<double>>(), complex128);
    EXPECT_EQ(DType(complex128).itemsize(), 16u);
    EXPECT_EQ(DType(complex64).alignment(), 8u);
    EXPECT_NE(DType(int32), DType(uint32));
    EXPECT_EQ(DType(float16).name(), "float16");
}

TEST(DTypeHelpers, Predicates) {
    EXPECT_TRUE(is_complex(complex64));
    EXPECT_FALSE(is_complex(float64));
    EXPECT_TRUE(is_double(float64));
    EXPECT_TRUE(is_double(complex128));
    EXPECT_FALSE(is_double(complex64));
    EXPECT_TRUE(is_integer(uint8));
    EXPECT_FALSE(is_integer(bool_));
    EXPECT_TRUE(is_real(float16));
    EXPECT_FALSE(is_real(int32));
    EXPECT_FALSE(is_real(complex64));
    EXPECT_EQ(complex_for(float32), complex64);
    EXPECT_EQ(complex_for(float64), complex128);
    EXPECT_EQ(real_for(complex64), float32);
    EXPECT_EQ(real_for(complex128), float64);
    EXPECT_THROW(complex_for(int32), ArgumentError);
    EXPECT_EQ(complex_ctr(complex64), "COMPLEX64_CTR");
    EXPECT_THROW(complex_ctr(float32), ArgumentError);
}

TEST(DTypeHelpers, ResultTypeFollowsNumpyThenTheGpuRule) {
    // numpy's table, then small integers become 32-bit and float16 float32.
    EXPECT_EQ(result_type({int8, int8}), int32);
    EXPECT_EQ(result_type({uint8, uint16}), uint32);
    EXPECT_EQ(result_type({int8, uint8}), int32);
    EXPECT_EQ(result_type({int32, uint32}), int64);
    EXPECT_EQ(result_type({int64, uint64}), float64);
    EXPECT_EQ(result_type({uint32, int64}), int64);
    EXPECT_EQ(result_type({int16, float32}), float32);
    EXPECT_EQ(result_type({int32, float32}), float64);
    EXPECT_EQ(result_type({uint8, float16}), float32);
    EXPECT_EQ(result_type({float16, float16}), float32);
    EXPECT_EQ(result_type({float32, float64}), float64);
    EXPECT_EQ(result_type({complex64, float32}), complex64);
    EXPECT_EQ(result_type({complex64, float64}), complex128);
    EXPECT_EQ(result_type({complex64, int16}), complex64);
    EXPECT_EQ(result_type({complex64, int32}), complex128);
    EXPECT_EQ(result_type({bool_, bool_}), bool_);
    EXPECT_EQ(result_type({bool_, int8}), int32);
    EXPECT_EQ(result_type({bool_, float32}), float32);
    EXPECT_EQ(result_type({int32, int32, complex64}), complex128);
    EXPECT_THROW(result_type({DType::struct_({{"a", int32}}), int32}), ArgumentError);
}

TEST(DTypeHelpers, MinScalarType) {
    EXPECT_EQ(min_scalar_type(1), uint32);
    EXPECT_EQ(min_scalar_type(1, true), int32);
    EXPECT_EQ(min_scalar_type(-1), int32);
    EXPECT_EQ(min_scalar_type(std::uint64_t{1} << 40), uint64);
    EXPECT_EQ(min_scalar_type(std::int64_t{-1} << 40), int64);
    EXPECT_EQ(min_scalar_type(std::uint64_t{3000000000u}, true), int64);
    EXPECT_EQ(min_scalar_type(1.5), float32);
    EXPECT_EQ(min_scalar_type(1e300), float64);
    EXPECT_EQ(min_scalar_type(std::complex<double>(1, 1e300)), complex128);
    EXPECT_EQ(min_scalar_type(std::complex<double>(1, 2)), complex64);
    // numpy's thresholds (numpy.min_scalar_type, then float16 widened): +-3.4e38 is float64 though
    // float32 reaches 3.4028235e38; a non-finite real is float16 (float32), a non-finite part of a
    // complex gives complex128.
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(min_scalar_type(3.3999999999999996e38), float32);
    EXPECT_EQ(min_scalar_type(3.4e38), float64);
    EXPECT_EQ(min_scalar_type(-3.4e38), float64);
    EXPECT_EQ(min_scalar_type(static_cast<double>(std::numeric_limits<float>::max())), float64);
    EXPECT_EQ(min_scalar_type(inf), float32);
    EXPECT_EQ(min_scalar_type(nan), float32);
    EXPECT_EQ(min_scalar_type(std::complex<double>(3.4e38, 0)), complex128);
    EXPECT_EQ(min_scalar_type(std::complex<double>(0, -3.4e38)), complex128);
    EXPECT_EQ(min_scalar_type(std::complex<double>(1, nan)), complex128);
    EXPECT_EQ(min_scalar_type(std::complex<double>(inf, 0)), complex128);
}

TEST(DTypeHelpers, Constants) {
    EXPECT_EQ(c_constant(std::int64_t{5}, int32), "5");
    EXPECT_EQ(c_constant(std::int64_t{5}, uint32), "5u");
    EXPECT_EQ(c_constant(std::int64_t{-5}, int64), "-5l");
    EXPECT_EQ(c_constant(std::numeric_limits<std::uint64_t>::max(), uint64), "18446744073709551615ul");
    EXPECT_EQ(c_constant(std::numeric_limits<std::int64_t>::min(), int64), "(-9223372036854775807l - 1)");
    EXPECT_EQ(c_constant(1.5, float32), "1.5f");
    EXPECT_EQ(c_constant(2.0, float64), "2.0");
    EXPECT_EQ(c_constant(0.1, float64), "0.1");
    EXPECT_EQ(c_constant(std::complex<double>(1, -2), complex64), "COMPLEX64_CTR(1.0f, -2.0f)");
    EXPECT_EQ(c_constant(std::complex<float>(0.5f, 3)), "COMPLEX64_CTR(0.5f, 3.0f)");
    EXPECT_EQ(c_constant(std::int16_t{-7}), "-7");
    EXPECT_EQ(c_constant(true), "1");
    EXPECT_THROW(c_constant(std::numeric_limits<double>::infinity(), float64), ArgumentError);

    const DType s = DType::struct_({{"a", int32}, {"b", float32, {2, 2}}, {"c", complex64}}, {.aligned = true});
    struct Host {
        std::int32_t a;
        float b[2][2];
        alignas(8) std::complex<float> c;  // complex64 is float2 in kernels: 8-byte aligned
    } value{3, {{1, 2}, {3, 4}}, {5, 6}};
    ASSERT_EQ(s.itemsize(), sizeof(Host));
    EXPECT_EQ(c_constant(std::as_bytes(std::span(&value, 1)), s),
              "{3, {{1.0f, 2.0f}, {3.0f, 4.0f}}, COMPLEX64_CTR(5.0f, 6.0f)}");
}

TEST(DTypeHelpers, StructLayouts) {
    // numpy's default: packed.
    const DType packed = DType::struct_({{"a", int8}, {"b", float64}, {"c", int16, {3}}});
    EXPECT_EQ(packed.itemsize(), 1u + 8u + 6u);
    EXPECT_EQ(packed.fields()[1].offset, 1u);
    EXPECT_FALSE(packed.is_aligned_struct());
    EXPECT_THROW(ctype_struct(packed), ArgumentError);  // (no ALIGN() puts a double at offset 1)
    // A struct without numpy's aligned flag whose offsets a compiler gives, or ALIGN() can give, is
    // declared as grunnur 0.6 declares it (the offsets decide), in grunnur's text.
    const DType plain = DType::struct_({{"a", int32}, {"b", float32}});
    EXPECT_FALSE(plain.is_aligned_struct());
    EXPECT_EQ(render_with_modules(std::string("${t}"), {}, {{"t", ctype(plain)}}),
              "\ntypedef struct _mod__module_0__ {\n    int32_t  a;\n    float  b;\n}  _mod__module_0_;\n\n\n"
              "_mod__module_0_\n");
    const DType padded = DType::struct_({{"a", int32, Offset{0}}, {"b", float32, Offset{8}}}, {.itemsize = 16});
    EXPECT_EQ(render_with_modules(std::string("${t}"), {}, {{"t", ctype(padded)}}),
              "\ntypedef struct _mod__module_0__ {\n    int32_t  a;\n    float ALIGN(8) b;\n}  _mod__module_0_;"
              "\n\n\n_mod__module_0_\n");
    // align(): what a compiler does.
    const DType aligned = align(packed);
    EXPECT_TRUE(aligned.is_aligned_struct());
    EXPECT_EQ(aligned.fields()[1].offset, 8u);
    EXPECT_EQ(aligned.fields()[2].offset, 16u);
    EXPECT_EQ(aligned.itemsize(), 24u);
    EXPECT_EQ(aligned.alignment(), 8u);
    // Explicit offsets needing attributes.
    const DType spread =
        DType::struct_({{"a", float32, Offset{0}}, {"b", int32, Offset{16}}}, {.aligned = true, .itemsize = 32});
    EXPECT_EQ(spread.alignment(), 16u);
    // Not reproducible by alignment: a float at offset 6.
    const DType odd =
        DType::struct_({{"a", int16, Offset{0}}, {"b", float32, Offset{6}}}, {.aligned = true, .itemsize = 12});
    EXPECT_THROW(ctype_struct(odd), ArgumentError);
    EXPECT_NO_THROW(ctype_struct(odd, true));
    EXPECT_THROW(DType::struct_({{"a", int32, Offset{0}}, {"b", int32, Offset{2}}}), ArgumentError);
    EXPECT_THROW(DType::struct_({{"a", int32}, {"a", int32}}), ArgumentError);
    // Equal types give the same module.
    const DType again = align(DType::struct_({{"a", int8}, {"b", float64}, {"c", int16, {3}}}));
    EXPECT_EQ(again, aligned);
    EXPECT_EQ(ctype_struct(again).impl(), ctype_struct(aligned).impl());
}

TEST(DTypeHelpers, FlattenPathsAndFieldAt) {
    const DType inner = DType::struct_({{"x", float32}, {"y", int16, {2}}}, {.aligned = true});
    const DType outer = DType::struct_({{"i", inner, {2}}, {"z", complex128}}, {.aligned = true});
    const auto flat = flatten_dtype(outer);
    std::vector<std::string> paths;
    for (const auto& [path, dtype] : flat) paths.push_back(c_path(path) + ":" + dtype.name());
    EXPECT_EQ(paths, (std::vector<std::string>{"i[0].x:float32", "i[0].y[0]:int16", "i[0].y[1]:int16", "i[1].x:float32",
                                               "i[1].y[0]:int16", "i[1].y[1]:int16", "z:complex128"}));
    EXPECT_EQ(inner.itemsize(), 8u);
    EXPECT_EQ(field_at(outer, {std::string("i"), std::size_t{1}, std::string("y"), std::size_t{1}}).first,
              8u + 4u + 2u);
    EXPECT_EQ(field_at(outer, {std::string("z")}).first, 16u);
    EXPECT_THROW(field_at(outer, {std::string("q")}), ArgumentError);
}

TEST(DTypeHelpers, DTypeAsATemplateValue) {
    const DType s = DType::struct_({{"re", float32}, {"n", int32}}, {.aligned = true});
    const std::string out =
        render_with_modules(std::string(
                                "${s} a; ${s} b; ${f} c; // ${f.itemsize} ${s.itemsize} ${c.complex_ctr} ${f.is_real}"),
                            {}, {{"s", s}, {"f", DType(float64)}, {"c", DType(complex64)}});
    // One typedef, one prefix for both uses.
    EXPECT_EQ(out.find("typedef struct"), out.rfind("typedef struct")) << out;
    EXPECT_NE(out.find("_mod__module_0_ a; _mod__module_0_ b; double c; // 8 8 COMPLEX64_CTR True"), std::string::npos)
        << out;
    // A nested struct's field dtype renders the module of its own ctype(), which is not the one the
    // outer struct declares its field with: grunnur builds a new module for each nested field (only
    // its top-level ctype() is cached), so C sees two struct types there, as under grunnur.
    const DType outer = DType::struct_({{"x", int8}, {"inner", s}}, {.aligned = true});
    const std::string nested =
        render_with_modules(std::string("${o} v; ${o.fields['inner']} w; ${o.offsets['inner']}"), {}, {{"o", outer}});
    EXPECT_NE(nested.find("_mod__module_0_ v; _mod__module_2_ w; 4"), std::string::npos) << nested;
    EXPECT_NE(nested.find("_mod__module_1_  inner;"), std::string::npos) << nested;
    // A struct nested twice is declared twice (grunnur's text); a registered one once, by its name.
    const DType twice = DType::struct_({{"a", s}, {"b", s}}, {.aligned = true});
    const std::string two = render_with_modules(std::string("${t} v;"), {}, {{"t", twice}});
    EXPECT_EQ(std::count(two.begin(), two.end(), '{'), 3) << two;
    const DType pair = DType::struct_({{"re", float32}, {"n", int32}, {"k", int8}}, {.aligned = true});
    register_dtype(pair, "kj_test_pair");
    const DType registered_twice = DType::struct_({{"a", pair}, {"b", pair}}, {.aligned = true});
    const std::string one = render_with_modules(std::string("${t} v;"), {}, {{"t", registered_twice}});
    EXPECT_EQ(std::count(one.begin(), one.end(), '{'), 2) << one;
    EXPECT_NE(one.find("} kj_test_pair;"), std::string::npos) << one;
    EXPECT_NE(one.find("_mod__module_1_  b;"), std::string::npos) << one;
}

}  // namespace
}  // namespace kjarni::test
