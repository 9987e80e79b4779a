// Contexts from devices, criteria and native handles; bound devices and their sets.

#include <gtest/gtest.h>

#include <regex>

#include "support/fake_backend.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class Contexts : public DeviceTest {};

TEST_P(Contexts, FromOneDevice) {
    const Device device = GetParam().device();
    const Context context = Context::from_devices(device);
    EXPECT_EQ(context.device_count(), 1u);
    EXPECT_EQ(context.api().shortcut(), GetParam().api);
    EXPECT_EQ(context.platform(), device.platform());
    const BoundDevice bound = context.devices()[0];
    EXPECT_EQ(bound.device(), device);
    EXPECT_EQ(bound.index(), 0u);
    EXPECT_EQ(bound.context(), context);
    EXPECT_NE(context.native_handle(0), 0u);
    EXPECT_THROW(context.native_handle(1), ArgumentError);
    EXPECT_THROW(BoundDevice(context, 1), ArgumentError);
}

TEST_P(Contexts, FromNativeDevices) {
    const Device device = GetParam().device();
    const std::uintptr_t native = device.native_handle();
    const Context context = Context::from_backend_devices(device.platform().api(), std::span(&native, 1));
    EXPECT_EQ(context.devices()[0].device(), device);
}

TEST_P(Contexts, FromNativeContextNotOwnedSharesTheHandle) {
    const Context& original = context();
    const std::uintptr_t native = original.native_handle(0);
    {
        const Context wrapped = Context::from_backend_contexts(original.api(), std::span(&native, 1), false);
        EXPECT_EQ(wrapped.native_handle(0), native);
        EXPECT_EQ(wrapped.devices()[0].device(), original.devices()[0].device());
        // Memory made through the wrapper works: the handle is alive and shared.
        Queue queue(wrapped.devices()[0]);
        auto buffer = Buffer::allocate(wrapped.devices()[0], 64);
        const std::vector<std::byte> data(64, std::byte{0x5A});
        buffer.set(queue, std::span<const std::byte>(data));
        std::vector<std::byte> back(64);
        buffer.get(queue, std::span<std::byte>(back));
        EXPECT_EQ(back, data);
    }
    // The wrapper is gone; the original context, which the wrapper did not own, still works.
    Queue queue(original.devices()[0]);
    auto buffer = Buffer::allocate(original.devices()[0], 16);
    buffer.fill(queue, std::as_bytes(std::span("abcdefghijklmno", 16)));
}

TEST_P(Contexts, FromCriteria) {
    SelectOptions options;
    options.platform_filter.include_masks = {"^" + std::regex_replace(GetParam().device().platform().name(),
                                                                      std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)")};
    const Context context = Context::from_criteria(GetParam().device().platform().api(), options);
    EXPECT_EQ(context.platform(), GetParam().device().platform());
}

TEST_P(Contexts, SameDeviceTwiceIsRefused) {
    const Device device = GetParam().device();
    const std::vector<Device> twice{device, device};
    try {
        Context::from_devices(twice);
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "devices");
        EXPECT_NE(std::string(e.what()).find("same device"), std::string::npos) << e.what();
    }
    EXPECT_THROW(Context::from_devices(std::span<const Device>{}), ArgumentError);
}

TEST_P(Contexts, DeviceOfAnotherPlatformIsRefused) {
    static FakeApi fake;  // lives for the process, like real backends
    const std::vector<Device> mixed{GetParam().device(), fake.device()};
    try {
        Context::from_devices(mixed);
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "devices");
        EXPECT_NE(std::string(e.what()).find("fake platform"), std::string::npos) << e.what();
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Contexts);

TEST(MultiDeviceContext, BoundMultiDeviceIndexingAndSubsets) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const BoundMultiDevice all = context->devices();
    ASSERT_GE(all.size(), 2u);
    EXPECT_EQ(all.context(), *context);
    for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].index(), i);
    const std::size_t reversed[] = {1, 0};
    const BoundMultiDevice subset = all.subset(reversed);
    ASSERT_EQ(subset.size(), 2u);
    EXPECT_EQ(subset[0], all[1]);
    EXPECT_EQ(subset[1], all[0]);
    EXPECT_EQ(BoundMultiDevice::from_bound_devices(subset.to_vector()), subset);
    EXPECT_THROW(all[all.size()], ArgumentError);
    const std::size_t twice[] = {0, 0};
    EXPECT_THROW(all.subset(twice), ArgumentError);
    // Bound devices of different contexts do not make one set.
    const Context single = Context::from_devices(all[0].device());
    const std::vector<BoundDevice> mixed{all[0], single.devices()[0]};
    EXPECT_THROW(BoundMultiDevice::from_bound_devices(mixed), ArgumentError);
}

}  // namespace
}  // namespace kjarni::test
