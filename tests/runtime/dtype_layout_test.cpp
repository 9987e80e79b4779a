// Struct layouts computed by DType against what the compilers produce: a kernel writes sizeof and
// the offset of every basic element back (by address differences: NVRTC has no offsetof), on every
// device; under CUDA the kernel also static_asserts sizeof, which the NVRTC cross-check (every
// program of the suite also compiled for sm_90) checks on machines without a GPU. Then a struct constant and field access round-trip through device memory.

#include <gtest/gtest.h>

#include <cstring>

#include "kjarni/dtype.hpp"
#include "kjarni/template.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;

std::vector<DType> layout_cases() {
    const DType inner = DType::struct_({{"x", int8}, {"y", complex64}, {"z", int16, {3}}}, {.aligned = true});
    return {
        align(DType::struct_({{"a", int8}, {"b", float64}, {"c", int16, {3}}, {"d", complex128}})),
        DType::struct_({{"p", int8}, {"in", inner, {2}}, {"q", uint32}, {"r", float32, {2, 3}}}, {.aligned = true}),
        // Explicit offsets and itemsize needing ALIGN() on a field and on the struct.
        DType::struct_({{"a", float32, Offset{0}}, {"b", int32, Offset{16}}, {"c", uint8, Offset{20}}},
                       {.aligned = true, .itemsize = 32}),
        DType::struct_({{"a", int64, Offset{0}}, {"s", inner, Offset{32}}, {"t", complex64, Offset{64}}},
                       {.aligned = true, .itemsize = 128}),
        // Without numpy's aligned flag (grunnur 0.6 declares these too): the offsets decide. An
        // unflagged struct nested at its C alignment, and explicit offsets and itemsize.
        DType::struct_({{"a", int16, Offset{0}},
                        {"n", DType::struct_({{"u", uint16, {2, 1}}, {"v", int32}}), Offset{4}},
                        {"b", float64, Offset{16}}},
                       {.itemsize = 32}),
        DType::struct_({{"a", uint8, Offset{0}}, {"b", float32, Offset{8}}, {"c", int64, Offset{16}}},
                       {.itemsize = 32}),
    };
}

class DTypeLayouts : public DeviceTest {};

TEST_P(DTypeLayouts, OffsetsAndSizesMatchTheCompilers) {
    for (const auto& dtype : layout_cases()) {
        SCOPED_TRACE(dtype.name());
        const auto flat = flatten_dtype(dtype);
        std::vector<Value> entries;
        std::vector<std::uint64_t> expected{dtype.itemsize()};
        for (const auto& [path, element] : flat) {
            const auto offset = field_at(dtype, path).first;
            entries.push_back(Value::tuple({c_path(path), offset}));
            expected.push_back(offset);
        }
        const std::string source = R"(
#ifdef KJARNI_CUDA_API
static_assert(sizeof(${T}) == ${T.itemsize}, "sizeof");
#endif
KERNEL void layout(GLOBAL_MEM uint64_t* out)
{
    if (get_global_id(0) != 0) return;
    ${T} v;
    out[0] = sizeof(${T});
% for i, e in enumerate(entries):
    out[${i + 1}] = (uint64_t)((const char*)&(v.${e[0]}) - (const char*)&v);
% endfor
}
)";
        const Program program(bound_device(), TemplateSource{source}, {},
                              {{"T", dtype}, {"entries", Value::list(entries)}});
        auto out = Buffer::allocate(bound_device(), expected.size() * 8);
        program.kernel("layout")(queue(), {1}, std::nullopt, out);
        std::vector<std::uint64_t> got(expected.size());
        out.get(queue(), std::span<std::uint64_t>(got));
        EXPECT_EQ(got, expected);
    }
}

TEST_P(DTypeLayouts, StructConstantsAndFieldAccessRoundTrip) {
    const DType dtype = layout_cases()[1];
    // Random bytes, then every basic element set to a value of its type.
    std::vector<std::byte> element(dtype.itemsize());
    std::int64_t counter = 1;
    for (const auto& [path, basic] : flatten_dtype(dtype)) {
        const auto offset = field_at(dtype, path).first;
        auto put = [&](auto v) { std::memcpy(element.data() + offset, &v, sizeof(v)); };
        switch (basic.kind()) {
        case DType::Kind::int8: put(static_cast<std::int8_t>(-counter)); break;
        case DType::Kind::int16: put(static_cast<std::int16_t>(counter * 100)); break;
        case DType::Kind::uint32: put(static_cast<std::uint32_t>(counter * 100000)); break;
        case DType::Kind::float32: put(static_cast<float>(counter) * 0.25f); break;
        case DType::Kind::complex64: put(std::complex<float>(static_cast<float>(counter), -0.5f)); break;
        default: FAIL() << basic.name();
        }
        ++counter;
    }
    const std::string source = R"(
KERNEL void roundtrip(GLOBAL_MEM ${T}* out, GLOBAL_MEM const ${T}* in)
{
    if (get_global_id(0) != 0) return;
    const ${T} c = ${constant};
    out[0] = c;
    ${T} v = in[0];
    v.in[1].y.x = v.in[1].y.x * 2.0f;
    v.q = v.q + 1u;
    v.r[1][2] = -v.r[1][2];
    out[1] = v;
}
)";
    const Program program(bound_device(), TemplateSource{source}, {},
                          {{"T", dtype}, {"constant", c_constant(std::span<const std::byte>(element), dtype)}});
    auto in = Buffer::allocate(bound_device(), dtype.itemsize());
    auto out = Buffer::allocate(bound_device(), 2 * dtype.itemsize());
    in.set(queue(), std::span<const std::byte>(element));
    program.kernel("roundtrip")(queue(), {1}, std::nullopt, out, in);
    std::vector<std::byte> got(2 * dtype.itemsize());
    out.get(queue(), std::span<std::byte>(got));
    // Compare element by element (padding bytes are unspecified).
    std::vector<std::byte> modified = element;
    auto patch = [&](const FieldPath& path, auto f) {
        const auto offset = field_at(dtype, path).first;
        using V = decltype(f(0));
        V v;
        std::memcpy(&v, modified.data() + offset, sizeof(V));
        v = f(v);
        std::memcpy(modified.data() + offset, &v, sizeof(V));
    };
    patch({std::string("in"), std::size_t{1}, std::string("y")},
          [](std::complex<float> z) { return std::complex<float>(z.real() * 2.0f, z.imag()); });
    patch({std::string("q")}, [](std::uint32_t q) { return q + 1u; });
    patch({std::string("r"), std::size_t{1}, std::size_t{2}}, [](float r) { return -r; });
    for (const auto& [path, basic] : flatten_dtype(dtype)) {
        const auto offset = field_at(dtype, path).first;
        const auto size = basic.itemsize();
        EXPECT_EQ(std::memcmp(got.data() + offset, element.data() + offset, size), 0) << "constant " << c_path(path);
        EXPECT_EQ(std::memcmp(got.data() + dtype.itemsize() + offset, modified.data() + offset, size), 0)
            << "field access " << c_path(path);
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(DTypeLayouts);

}  // namespace
}  // namespace kjarni::test
