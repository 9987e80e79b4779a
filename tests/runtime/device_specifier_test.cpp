// Device specifiers (pygpu's "cudaN" / "openclP:D", kjarni's regex form, "pci:"), PCI bus ids, the
// capability checks before compiling, and float16 scalars passed to kernels by value.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "kjarni/device_specifier.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class DeviceSpecifiers : public DeviceTest {};

TEST_P(DeviceSpecifiers, PygpuNamesRoundTrip) {
    const Device device = GetParam().device();
    const std::string name = device_specifier(device);
    if (GetParam().api == "cuda") {
        EXPECT_EQ(name, fmt::format("cuda{}", GetParam().device_index));
    } else {
        EXPECT_EQ(name, fmt::format("opencl{}:{}", GetParam().platform_index, GetParam().device_index));
    }
    EXPECT_EQ(device_from_specifier(name), device);
    const auto devices = devices_from_specifier(name);
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_EQ(devices[0], device);
    // A list names each device once, in order.
    const auto listed = devices_from_specifiers(name + "," + name);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0], device);
    EXPECT_EQ(context_from_specifier(name).devices()[0].device(), device);
}

TEST_P(DeviceSpecifiers, RegexForm) {
    const Device device = GetParam().device();
    const std::string platform = device.platform().name();
    // The device's name as a regex of itself: escape what regexes treat specially.
    std::string escaped;
    for (char c : device.name()) {
        if (std::strchr("\\^$.|?*+()[]{}", c) != nullptr) escaped += '\\';
        escaped += c;
    }
    const auto found = devices_from_specifier(GetParam().api + "::" + escaped);
    EXPECT_NE(std::find(found.begin(), found.end(), device), found.end());
    const auto all = devices_from_specifier(GetParam().api);
    EXPECT_NE(std::find(all.begin(), all.end(), device), all.end());
    EXPECT_THROW(devices_from_specifier(GetParam().api + "::no device is called this"), NotFoundError);
}

TEST_P(DeviceSpecifiers, PciBusId) {
    const Device device = GetParam().device();
    const auto& bus_id = device.properties().pci_bus_id;
    if (!bus_id) {
        EXPECT_THROW(device_from_pci_bus_id(device.platform().api(), "0000:ff:1f.7"), NotFoundError);
        GTEST_SKIP() << "the driver reports no PCI address for " << device.name();
    }
    EXPECT_EQ(device_from_pci_bus_id(device.platform().api(), *bus_id), device);
    // Without the domain, in upper case.
    std::string short_id = bus_id->substr(bus_id->find(':') + 1);
    for (char& c : short_id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(device_from_pci_bus_id(device.platform().api(), short_id), device);
    EXPECT_EQ(device_from_specifier("pci:" + *bus_id).properties().pci_bus_id, bus_id);
}

TEST_P(DeviceSpecifiers, Capabilities) {
    const Device device = GetParam().device();
    EXPECT_TRUE(have_complex(device));
    EXPECT_EQ(have_complex(device, true), have_double(device));
    EXPECT_NO_THROW(require_capabilities(device, {.complex = true}));
    if (have_double(device)) {
        EXPECT_NO_THROW(require_capabilities(device, {.double_precision = true, .complex = true}));
    } else {
        EXPECT_THROW(require_capabilities(device, {.double_precision = true}), UnsupportedError);
    }
    if (!have_half(device)) {
        EXPECT_THROW(require_capabilities(device, {.half = true}), UnsupportedError);
    }
    if (GetParam().api == "cuda") {
        EXPECT_TRUE(have_double(device));
        const bool from_5_3 = *device.properties().compute_capability >= ComputeCapability{5, 3};
        EXPECT_EQ(have_half(device), from_5_3);
        return;
    }
    const auto extensions = std::get<std::string>(*device.attribute("CL_DEVICE_EXTENSIONS"));
    if (extensions.find("cl_khr_fp64") != std::string::npos) {
        EXPECT_TRUE(have_double(device));
    }
    EXPECT_EQ(have_half(device), extensions.find("cl_khr_fp16") != std::string::npos);
    // What have_double says is what compiles: a kernel with a double either builds or is refused.
    if (have_double(device)) {
        Program program(bound_device(), R"(
KERNEL void twice(GLOBAL_MEM double* y) { y[get_global_id(0)] *= 2.0; }
)");
        const auto values = random_vector<double>(64, -10.0, 10.0);
        Buffer buffer = Buffer::allocate(bound_device(), 64 * sizeof(double));
        buffer.set(queue(), std::span<const double>(values));
        program.kernel("twice")(queue(), {64}, std::nullopt, buffer);
        std::vector<double> back(64);
        buffer.get(queue(), std::span<double>(back));
        for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(back[i], values[i] * 2.0);  // exact: a power of two
    }
}

TEST_P(DeviceSpecifiers, Float16ScalarsByValue) {
    // The kernel sees the 16 bits unchanged; it declares them as a 16-bit integer, which works on
    // every device (a `half` parameter needs cl_khr_fp16 on OpenCL).
    Program program(bound_device(), R"(
KERNEL void bits(GLOBAL_MEM unsigned int* y, unsigned short a, float b, unsigned short c)
{
    y[0] = a;
    y[1] = (unsigned int)b;
    y[2] = c;
}
)");
    const auto raw = random_vector<std::uint16_t>(2, 0, 0xFFFF);
    const float16_t a{raw[0]};
    const float16_t c{raw[1]};
    Buffer out = Buffer::allocate(bound_device(), 3 * sizeof(std::uint32_t));
    program.kernel("bits")(queue(), {1}, std::nullopt, out, a, 77.0f, c);
    std::vector<std::uint32_t> back(3);
    out.get(queue(), std::span<std::uint32_t>(back));
    EXPECT_EQ(back[0], raw[0]);
    EXPECT_EQ(back[1], 77u);
    EXPECT_EQ(back[2], raw[1]);
}

// Structs by value: a small one (packed into the argument itself) and one of more than 16 bytes
// (passed from the caller's memory), each checked against its struct dtype.
struct Pair {
    std::int16_t x;
    std::int16_t y;
};
struct Record {
    std::int32_t a;
    float b;
    std::int32_t c[6];
};

TEST_P(DeviceSpecifiers, StructArgumentsByValue) {
    Program program(bound_device(), R"(
typedef struct { short x; short y; } pair_t;
typedef struct { int a; float b; int c[6]; } record_t;
KERNEL void unpack(GLOBAL_MEM int* out, pair_t p, record_t r, int tail)
{
    out[0] = p.x;
    out[1] = p.y;
    out[2] = r.a;
    out[3] = (int)r.b;
    for (int i = 0; i < 6; ++i) out[4 + i] = r.c[i];
    out[10] = tail;
}
)");
    const DType pair_dtype = DType::struct_({{"x", dtypes::int16}, {"y", dtypes::int16}}, {.aligned = true});
    const DType record_dtype =
        DType::struct_({{"a", dtypes::int32}, {"b", dtypes::float32}, {"c", dtypes::int32, {6}}}, {.aligned = true});
    const auto values = random_vector<std::int32_t>(10, -30000, 30000);
    const Pair pair{static_cast<std::int16_t>(values[0]), static_cast<std::int16_t>(values[1])};
    Record record{values[2], static_cast<float>(values[3]), {}};
    for (std::size_t i = 0; i < 6; ++i) record.c[i] = values[4 + i];
    Buffer out = Buffer::allocate(bound_device(), 11 * 4);
    program.kernel("unpack")(queue(), {1}, std::nullopt, out, struct_arg(pair, pair_dtype),
                             struct_arg(record, record_dtype), 1234);
    std::vector<std::int32_t> back(11);
    out.get(queue(), std::span<std::int32_t>(back));
    for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(back[i], values[i]) << i;  // floats hold these integers exactly
    EXPECT_EQ(back[10], 1234);

    // Layouts that disagree are refused before any launch.
    EXPECT_THROW(struct_arg(record, pair_dtype), ArgumentError);
    EXPECT_THROW(struct_arg(pair, dtypes::int32), ArgumentError);                             // not a struct dtype
    const DType packed_wider = DType::struct_({{"x", dtypes::int16}, {"y", dtypes::int32}});  // 6 bytes, packed
    EXPECT_THROW(struct_arg(pair, packed_wider), ArgumentError);
}

TEST(DeviceSpecifierSyntax, MalformedSpecifiersAreRefused) {
    EXPECT_THROW(devices_from_specifier("opencl0"), ArgumentError);  // pygpu's form needs P:D
    EXPECT_THROW(devices_from_specifier("opencl0:x"), ArgumentError);
    EXPECT_THROW(devices_from_specifier("cuda0x"), ArgumentError);
    EXPECT_THROW(devices_from_specifier("opencl:a:b:c"), ArgumentError);
    EXPECT_THROW(devices_from_specifier("opencl:(unclosed"), ArgumentError);
    EXPECT_THROW(devices_from_specifiers("opencl,,opencl"), ArgumentError);
    EXPECT_THROW(devices_from_specifier("nosuchapi"), Error);
    EXPECT_THROW(devices_from_specifier("opencl999:0"), NotFoundError);
    EXPECT_THROW(devices_from_specifier("pci:ffff:ff:1f.7"), NotFoundError);
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(DeviceSpecifiers);

}  // namespace kjarni::test
