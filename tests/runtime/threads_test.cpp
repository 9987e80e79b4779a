// Work from threads that kjarni has never seen: nothing must have to be made current by the user
// (on CUDA, kjarni makes the device's context current itself before every driver call).

#include <gtest/gtest.h>

#include <thread>

#include "support/random_data.hpp"
#include "support/test_devices.hpp"

#ifdef KJARNI_WITH_CUDA
#include "backend/cuda/cuda_api.hpp"
#include "backend/cuda/cuda_driver.hpp"
#endif

namespace kjarni::test {
namespace {

class Threads : public DeviceTest {};

TEST_P(Threads, FreshThreadsUseAContextWithoutSetUp) {
    const BoundDevice device = bound_device();
    const auto data = random_bytes(1 << 16);
    auto buffer = Buffer::allocate(device, data.size());
    std::vector<std::byte> back(data.size());
    std::thread writer([&] {
        Queue queue(device);
        buffer.set(queue, std::span<const std::byte>(data));
    });
    writer.join();
    std::thread reader([&] {
        Queue queue(device);
        auto copy = Buffer::allocate(device, data.size());
        copy.set(queue, buffer);
        copy.get(queue, std::span<std::byte>(back));
    });
    reader.join();
    EXPECT_EQ(back, data);
}

#ifdef KJARNI_WITH_CUDA
TEST_P(Threads, CudaContextIsTheDevicesPrimaryContext) {
    if (GetParam().api != "cuda") GTEST_SKIP() << "CUDA only";
    const auto& driver = static_cast<backend::cuda::CudaApi&>(*detail::backend_of(context().api())).driver();
    const auto ordinal = static_cast<CUdevice>(GetParam().device().native_handle());
    CUcontext primary = nullptr;
    ASSERT_EQ(driver.DevicePrimaryCtxRetain(&primary, ordinal), CUDA_SUCCESS);
    EXPECT_EQ(context().native_handle(0), reinterpret_cast<std::uintptr_t>(primary));
    ASSERT_EQ(driver.DevicePrimaryCtxRelease(ordinal), CUDA_SUCCESS);
}
#endif

KJARNI_INSTANTIATE_DEVICE_TESTS(Threads);

}  // namespace
}  // namespace kjarni::test
