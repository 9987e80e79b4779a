// Contexts made from native handles: who owns them. Uses the driver directly (the internal entry
// point table) to make and inspect the native objects.

#include <gtest/gtest.h>

#include "backend/opencl/opencl_library.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class NativeOpenClContexts : public DeviceTest {
protected:
    void SetUp() override {
        if (GetParam().api != "opencl") GTEST_SKIP() << "OpenCL only";
    }
    static cl_context make_native(const Device& device) {
        const auto id = reinterpret_cast<cl_device_id>(device.native_handle());
        cl_int status = CL_SUCCESS;
        cl_context context = backend::opencl::cl().clCreateContext(nullptr, 1, &id, nullptr, nullptr, &status);
        EXPECT_EQ(status, CL_SUCCESS);
        return context;
    }
    static cl_uint references(cl_context context) {
        cl_uint count = 0;
        EXPECT_EQ(backend::opencl::cl().clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count,
                                                         nullptr),
                  CL_SUCCESS);
        return count;
    }
};

TEST_P(NativeOpenClContexts, BorrowedContextIsRetainedAndReleased) {
    const Device device = GetParam().device();
    cl_context native = make_native(device);
    const auto handle = reinterpret_cast<std::uintptr_t>(native);
    {
        const Context wrapped = Context::from_backend_contexts(device.platform().api(), std::span(&handle, 1), false);
        EXPECT_EQ(references(native), 2u);
        EXPECT_EQ(wrapped.devices()[0].device(), device);
    }
    EXPECT_EQ(references(native), 1u);  // ours again, alive
    backend::opencl::cl().clReleaseContext(native);
}

TEST_P(NativeOpenClContexts, OwnedContextIsTakenOver) {
    const Device device = GetParam().device();
    cl_context native = make_native(device);
    const auto handle = reinterpret_cast<std::uintptr_t>(native);
    const Context wrapped = Context::from_backend_contexts(device.platform().api(), std::span(&handle, 1), true);
    // No extra reference: the wrapper's release is the last one.
    EXPECT_EQ(references(native), 1u);
    Queue queue(wrapped.devices()[0]);
    auto buffer = Buffer::allocate(wrapped.devices()[0], 8);
    buffer.fill(queue, std::as_bytes(std::span("1234567", 8)));
}

TEST_P(NativeOpenClContexts, SeveralContextHandlesAreRefused) {
    const Device device = GetParam().device();
    const std::uintptr_t handles[] = {1, 2};
    try {
        Context::from_backend_contexts(device.platform().api(), handles, false);
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "native_contexts");
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(NativeOpenClContexts);

}  // namespace
}  // namespace kjarni::test
