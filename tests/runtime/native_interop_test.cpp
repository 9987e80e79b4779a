// The opt-in interoperation headers kjarni/cuda.hpp and kjarni/opencl.hpp: typed native handles
// that the driver itself confirms (it is asked what each handle is), kjarni objects over native
// handles, and the ArgumentError for an object of the other API; the memory under large buffers of
// CPU devices, as the driver and the kernel describe it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kjarni/device_parameters.hpp"
#include "kjarni/opencl.hpp"
#include "kjarni/pointer_attributes.hpp"
#include "support/argument_errors.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

#include "backend/opencl/opencl_library.hpp"
#if KJARNI_WITH_CUDA
#include "backend/cuda/cuda_context.hpp"
#include "kjarni/cuda.hpp"
#endif

namespace kjarni::test {
namespace {

constexpr const char* negate_source = R"(
KERNEL void negate(GLOBAL_MEM int32_t* y, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = -y[i];
}
)";

class NativeInterop : public DeviceTest {};

TEST_P(NativeInterop, OpenClHandlesAreWhatTheDriverSays) {
    if (is_cuda()) {
        // Every OpenCL getter refuses a CUDA object, naming it.
        const Buffer buffer = Buffer::allocate(bound_device(), 64);
        EXPECT_EQ(argument_named_by([&] { static_cast<void>(opencl::memory(buffer)); }), "buffer");
        EXPECT_EQ(argument_named_by([&] { static_cast<void>(opencl::command_queue(queue())); }), "queue");
        EXPECT_EQ(argument_named_by([&] { static_cast<void>(opencl::context(context())); }), "context");
        EXPECT_EQ(argument_named_by([&] { static_cast<void>(opencl::device(bound_device().device())); }), "device");
        return;
    }
    const auto& cl = backend::opencl::cl();
    const cl_context ctx = opencl::context(context());
    const cl_device_id dev = opencl::device(bound_device().device());
    const cl_platform_id plat = opencl::platform(bound_device().device().platform());

    cl_platform_id device_platform = nullptr;
    ASSERT_EQ(cl.clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof device_platform, &device_platform, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(device_platform, plat);

    // (The command queue is checked by use: OpenClMemoryAndContextsAreWrapped reads through it.)
    // A view's cl_mem is its allocation's; the allocation's size and context are the driver's.
    const Buffer whole = Buffer::allocate(bound_device(), 4096);
    const Buffer view = whole.get_sub_region(512, 1024);
    EXPECT_EQ(opencl::memory(view), opencl::memory(whole));
    std::size_t mem_size = 0;
    cl_context mem_context = nullptr;
    ASSERT_EQ(cl.clGetMemObjectInfo(opencl::memory(whole), CL_MEM_SIZE, sizeof mem_size, &mem_size, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(cl.clGetMemObjectInfo(opencl::memory(whole), CL_MEM_CONTEXT, sizeof mem_context, &mem_context, nullptr),
              CL_SUCCESS);
    EXPECT_GE(mem_size, 4096u);
    EXPECT_EQ(mem_context, ctx);

    const Program program(bound_device(), negate_source);
    const Kernel negate = program.kernel("negate");
    char name[64] = {};
    ASSERT_EQ(cl.clGetKernelInfo(opencl::kernel(negate, bound_device()), CL_KERNEL_FUNCTION_NAME, sizeof name, name,
                                 nullptr),
              CL_SUCCESS);
    EXPECT_STREQ(name, "negate");
}

TEST_P(NativeInterop, OpenClMemoryAndContextsAreWrapped) {
    if (is_cuda()) GTEST_SKIP() << "OpenCL handles";
    const auto& cl = backend::opencl::cl();
    const std::size_t n = 3001;
    const auto values = random_vector<std::int32_t>(n, -100000, 100000);
    cl_int status = CL_SUCCESS;
    cl_mem mem = cl.clCreateBuffer(opencl::context(context()), CL_MEM_READ_WRITE, n * 4, nullptr, &status);
    ASSERT_EQ(status, CL_SUCCESS);
    {
        // Owned: released with the last handle. The kernel negates through kjarni; the raw API reads.
        const Buffer wrapped = opencl::wrap_memory(bound_device(), mem, std::nullopt, true);
        EXPECT_EQ(opencl::memory(wrapped), mem);
        wrapped.set(queue(), std::span<const std::int32_t>(values));
        const Program program(bound_device(), negate_source);
        program.kernel("negate")(queue(), {n}, std::nullopt, wrapped, static_cast<unsigned>(n));
        queue().synchronize();
        std::vector<std::int32_t> back(n);
        ASSERT_EQ(cl.clEnqueueReadBuffer(opencl::command_queue(queue()), mem, CL_TRUE, 0, n * 4, back.data(), 0,
                                         nullptr, nullptr),
                  CL_SUCCESS);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], -values[i]) << i;
    }
    // A context over the same cl_context: retained, so ours stays usable and theirs shares it.
    const Context same = opencl::wrap_context(opencl::context(context()));
    EXPECT_EQ(opencl::context(same), opencl::context(context()));
    EXPECT_EQ(same.device_count(), context().device_count());
    // The CUDA getters refuse OpenCL objects, naming them.
#if KJARNI_WITH_CUDA
    const Buffer buffer = Buffer::allocate(bound_device(), 64);
    EXPECT_EQ(argument_named_by([&] { static_cast<void>(cuda::device_pointer(buffer)); }), "buffer");
    EXPECT_EQ(argument_named_by([&] { static_cast<void>(cuda::stream(queue())); }), "queue");
    EXPECT_EQ(argument_named_by([&] { static_cast<void>(cuda::context(context())); }), "context");
    EXPECT_EQ(argument_named_by([&] { static_cast<void>(cuda::device(bound_device().device())); }), "device");
    EXPECT_EQ(argument_named_by([&] { static_cast<void>(cuda::wrap_device_pointer(bound_device(), 0)); }), "device");
#endif
}

// kjarni's launches skip arguments equal to those they last set, until the kernel's handle is
// given out: arguments set through the handle are then overwritten by the next launch.
TEST_P(NativeInterop, ArgumentsSetThroughTheKernelHandleDoNotLeakIntoLaunches) {
    if (is_cuda()) GTEST_SKIP() << "OpenCL kernel arguments";
    const auto& cl = backend::opencl::cl();
    const std::size_t n = 1000;
    const auto values = random_vector<std::int32_t>(n, -100000, 100000);
    const Buffer y = Buffer::allocate(bound_device(), n * 4);
    const Buffer decoy = Buffer::allocate(bound_device(), n * 4);
    y.set(queue(), std::span<const std::int32_t>(values));
    decoy.set(queue(), std::span<const std::int32_t>(values));
    const Program program(bound_device(), negate_source);
    const Kernel negate = program.kernel("negate");
    const PreparedKernel prepared = negate.prepare({n});
    prepared.enqueue(queue(), y, static_cast<unsigned>(n));  // y = -values
    const cl_mem decoy_mem = opencl::memory(decoy);
    ASSERT_EQ(cl.clSetKernelArg(opencl::kernel(negate, bound_device()), 0, sizeof decoy_mem, &decoy_mem), CL_SUCCESS);
    prepared.enqueue(queue(), y, static_cast<unsigned>(n));  // the same arguments as kjarni's last launch
    std::vector<std::int32_t> got_y(n), got_decoy(n);
    y.get(queue(), std::span<std::int32_t>(got_y));
    decoy.get(queue(), std::span<std::int32_t>(got_decoy));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got_y[i], values[i]) << "y, twice negated, at " << i;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got_decoy[i], values[i]) << "the decoy, untouched, at " << i;
}

/// The VmFlags line of the mapping of this process that holds `address` (/proc/self/smaps), or "".
std::string mapping_flags(std::uintptr_t address) {
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        unsigned long long first = 0, last = 0;
        char dash = 0;
        std::istringstream range(line);
        if (line.find(':') > line.find(' ') && range >> std::hex >> first >> dash >> last && dash == '-') {
            inside = address >= first && address < last;  // a mapping's first line: "start-end perms ..."
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            return line;
        }
    }
    return {};
}

// Buffers of 4 MiB and more on CPU devices lie in kjarni's own mappings, advised to take huge pages
// (backend/opencl/opencl_cpu_memory.hpp), whether made empty or from host data; smaller ones stay
// the runtime's. What the driver says of each (its flags and host pointer), what the kernel says
// of the mapping (MADV_HUGEPAGE is VmFlags "hg"), and the bytes through kjarni.
TEST_P(NativeInterop, LargeBuffersOfCpuDevicesLieInHugePageMappings) {
    if (is_cuda() || bound_device().params().type != DeviceType::cpu) GTEST_SKIP() << "OpenCL CPU devices";
    const auto& cl = backend::opencl::cl();
    constexpr std::size_t huge_page = std::size_t{2} << 20;
    for (const std::size_t size :
         {std::size_t{1} << 20, (std::size_t{4} << 20) - 1, std::size_t{4} << 20, (std::size_t{9} << 20) + 3}) {
        for (const bool from_host : {false, true}) {
            SCOPED_TRACE(::testing::Message() << size << " bytes, " << (from_host ? "from host data" : "empty"));
            const auto data = random_bytes(size);
            const Buffer buffer = from_host ? Buffer::allocate_copy(bound_device(), std::span<const std::byte>(data))
                                            : Buffer::allocate(bound_device(), size);
            if (!from_host) buffer.set(queue(), std::span<const std::byte>(data));
            cl_mem_flags flags = 0;
            void* host = nullptr;
            ASSERT_EQ(cl.clGetMemObjectInfo(opencl::memory(buffer), CL_MEM_FLAGS, sizeof flags, &flags, nullptr),
                      CL_SUCCESS);
            ASSERT_EQ(cl.clGetMemObjectInfo(opencl::memory(buffer), CL_MEM_HOST_PTR, sizeof host, &host, nullptr),
                      CL_SUCCESS);
            const auto address = reinterpret_cast<std::uintptr_t>(host);
            if (size < (std::size_t{4} << 20)) {
                EXPECT_EQ(flags & CL_MEM_USE_HOST_PTR, 0u);
            } else {
                EXPECT_NE(flags & CL_MEM_USE_HOST_PTR, 0u);
                EXPECT_EQ(flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR), 0u);
                EXPECT_EQ(address % huge_page, 0u) << host;
                const std::string vm_flags = mapping_flags(address);
                EXPECT_NE(vm_flags.find(" hg"), std::string::npos) << "'" << vm_flags << "'";
            }
            std::vector<std::byte> back(size);
            buffer.get(queue(), std::span<std::byte>(back));
            EXPECT_TRUE(back == data);
            // A device copy between two halves, through the runtime's memory as through ours.
            buffer.get_sub_region(0, size / 2).set(queue(), buffer.get_sub_region(size - size / 2, size / 2));
            buffer.get(queue(), std::span<std::byte>(back));
            EXPECT_TRUE(std::equal(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(size / 2),
                                   data.begin() + static_cast<std::ptrdiff_t>(size - size / 2)));
        }
    }
}

#if KJARNI_WITH_CUDA
TEST_P(NativeInterop, CudaHandlesAreWhatTheDriverSays) {
    if (!is_cuda()) GTEST_SKIP() << "CUDA handles";
    auto& backend = static_cast<backend::cuda::CudaContext&>(*detail::backend_of(context()));
    const auto& driver = backend.driver();
    const CUcontext ctx = cuda::context(context());
    EXPECT_EQ(ctx, backend.cu_context(0));
    EXPECT_EQ(cuda::device(bound_device().device()), static_cast<CUdevice>(bound_device().device().native_handle()));

    // A view's pointer is its allocation's plus its offset; the driver knows its context.
    const Buffer whole = Buffer::allocate(bound_device(), 4096);
    const Buffer view = whole.get_sub_region(512, 1024);
    EXPECT_EQ(cuda::device_pointer(view), cuda::device_pointer(whole) + 512);
    EXPECT_EQ(pointer_attributes(context(), cuda::device_pointer(view)).type, PointerAttributes::MemoryType::device);

    // The stream belongs to the context: the raw API writes on it, kjarni reads after it.
    const std::size_t n = 1000;  // 4000 bytes of the 4096
    const auto values = random_vector<std::int32_t>(n, -100000, 100000);
    {
        backend::cuda::CurrentContext current(driver, ctx);
        ASSERT_EQ(driver.MemcpyHtoDAsync(cuda::device_pointer(whole), values.data(), n * 4, cuda::stream(queue())),
                  CUDA_SUCCESS);
    }
    // A borrowed wrap of the same memory sees the bytes; the kernel's function is the driver's.
    const Buffer wrapped = cuda::wrap_device_pointer(bound_device(), cuda::device_pointer(whole));
    const Program program(bound_device(), negate_source);
    const Kernel negate = program.kernel("negate");
    EXPECT_NE(cuda::function(negate, bound_device()), nullptr);
    negate(queue(), {n}, std::nullopt, wrapped, static_cast<unsigned>(n));
    std::vector<std::int32_t> back(n);
    wrapped.get_sub_region(0, back.size() * 4).get(queue(), std::span<std::int32_t>(back));
    for (std::size_t i = 0; i < back.size(); ++i) ASSERT_EQ(back[i], -values[i]) << i;

    // A context over the same CUcontext.
    const CUcontext one[] = {ctx};
    const Context same = cuda::wrap_contexts(one);
    EXPECT_EQ(cuda::context(same), ctx);
}
#endif

KJARNI_INSTANTIATE_DEVICE_TESTS(NativeInterop);

}  // namespace
}  // namespace kjarni::test
