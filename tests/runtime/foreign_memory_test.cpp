// Foreign memory: Buffers over native device memory (borrowed and owned), host memory page-locked
// in place (and what staging makes of it), pointer attributes, and a device's free/total memory.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "kjarni/host_memory.hpp"
#include "kjarni/pointer_attributes.hpp"
#include "kjarni/transfer_staging.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

#include "backend/opencl/opencl_library.hpp"
#if KJARNI_WITH_CUDA
#include "backend/cuda/cuda_context.hpp"
#endif

namespace kjarni::test {
namespace {

constexpr const char* affine_source = R"(
KERNEL void affine(GLOBAL_MEM int32_t* y, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = y[i] * 3 + 1;
}
)";

// Page-aligned host memory, as cuMemHostRegister and CL_MEM_USE_HOST_PTR like it best.
struct AlignedBytes {
    explicit AlignedBytes(std::size_t n)
        : size(n), data(static_cast<std::byte*>(std::aligned_alloc(4096, (n + 4095) / 4096 * 4096))) {}
    ~AlignedBytes() { std::free(data); }
    AlignedBytes(const AlignedBytes&) = delete;
    AlignedBytes& operator=(const AlignedBytes&) = delete;
    std::span<std::byte> span() const { return {data, size}; }
    std::size_t size;
    std::byte* data;
};

class ForeignMemory : public DeviceTest {
protected:
    std::vector<std::byte> read(const Buffer& buffer) {
        std::vector<std::byte> back(buffer.size());
        buffer.get(queue(), std::span<std::byte>(back));
        return back;
    }
};

TEST_P(ForeignMemory, BorrowedBufferSharesTheMemory) {
    const std::size_t size = 10007;
    const Buffer original = Buffer::allocate(bound_device(), size);
    const auto data = random_bytes(size);
    original.set(queue(), std::span<const std::byte>(data));

    const Buffer borrowed = Buffer::from_backend_buffer(bound_device(), original.native_handle());
    EXPECT_EQ(borrowed.size(), size);  // to the end of the allocation
    EXPECT_EQ(borrowed.native_handle(), original.native_handle());
    EXPECT_EQ(read(borrowed), data);
    // Writes through one handle show through the other.
    const auto more = random_bytes(300);
    borrowed.set(queue(), std::span<const std::byte>(more));
    auto expected = data;
    std::copy(more.begin(), more.end(), expected.begin());
    EXPECT_EQ(read(original), expected);

    const Buffer head = Buffer::from_backend_buffer(bound_device(), original.native_handle(), 100);
    EXPECT_EQ(head.size(), 100u);
    const auto head_bytes = read(head);
    EXPECT_TRUE(std::equal(more.begin(), more.begin() + 100, head_bytes.begin()));
    EXPECT_THROW(Buffer::from_backend_buffer(bound_device(), original.native_handle(), size + 1), ArgumentError);
    if (is_cuda()) {
        // A CUdeviceptr inside the allocation: the buffer runs from there to its end.
        const Buffer tail = Buffer::from_backend_buffer(bound_device(), original.native_handle() + 1000);
        EXPECT_EQ(tail.size(), size - 1000);
        const auto tail_bytes = read(tail);
        EXPECT_TRUE(std::equal(expected.begin() + 1000, expected.end(), tail_bytes.begin()));
    }
}

TEST_P(ForeignMemory, KeepAliveLivesAsLongAsTheBuffer) {
    const Buffer original = Buffer::allocate(bound_device(), 4096);
    auto owner = std::make_shared<int>(7);
    std::weak_ptr<int> watch = owner;
    {
        std::optional<Buffer> borrowed = Buffer::from_backend_buffer(bound_device(), original.native_handle(),
                                                                     std::nullopt, false, std::move(owner));
        const Buffer view = borrowed->get_sub_region(8, 16);
        borrowed.reset();
        EXPECT_FALSE(watch.expired());  // the view still holds it
    }
    EXPECT_TRUE(watch.expired());
    EXPECT_THROW(Buffer::from_backend_buffer(bound_device(), original.native_handle(), std::nullopt, true,
                                             std::make_shared<int>(1)),
                 ArgumentError);
}

TEST_P(ForeignMemory, OwnedMemoryIsReleasedOnce) {
    const std::size_t size = 65536;
    const auto data = random_bytes(size);
    if (is_cuda()) {
#if KJARNI_WITH_CUDA
        auto& cuda = static_cast<backend::cuda::CudaContext&>(*detail::backend_of(context()));
        CUdeviceptr pointer = 0;
        {
            backend::cuda::CurrentContext current(cuda.driver(), cuda.cu_context(0));
            ASSERT_EQ(cuda.driver().MemAlloc(&pointer, size), CUDA_SUCCESS);
        }
        {
            const Buffer owned = Buffer::from_backend_buffer(bound_device(), pointer, std::nullopt, true);
            EXPECT_EQ(owned.size(), size);
            owned.set(queue(), std::span<const std::byte>(data));
            EXPECT_EQ(read(owned), data);
            EXPECT_EQ(pointer_attributes(context(), pointer).type, PointerAttributes::MemoryType::device);
            // Only an allocation's start can be owned.
            EXPECT_THROW(Buffer::from_backend_buffer(bound_device(), pointer + 256, std::nullopt, true), ArgumentError);
            queue().synchronize();
        }
        // cuMemFree ran: the driver no longer knows the address.
        EXPECT_EQ(pointer_attributes(context(), pointer).type, PointerAttributes::MemoryType::unregistered);
#endif
        return;
    }
    const auto& cl = backend::opencl::cl();
    cl_int status = CL_SUCCESS;
    const auto cl_context = reinterpret_cast<::cl_context>(context().native_handle());
    cl_mem mem = cl.clCreateBuffer(cl_context, CL_MEM_READ_WRITE, size, nullptr, &status);
    ASSERT_EQ(status, CL_SUCCESS);
    ASSERT_EQ(cl.clRetainMemObject(mem), CL_SUCCESS);  // a second reference, to watch kjarni's go
    auto references = [&] {
        cl_uint count = 0;
        cl.clGetMemObjectInfo(mem, CL_MEM_REFERENCE_COUNT, sizeof count, &count, nullptr);
        return count;
    };
    {
        const Buffer owned =
            Buffer::from_backend_buffer(bound_device(), reinterpret_cast<std::uintptr_t>(mem), std::nullopt, true);
        EXPECT_EQ(owned.size(), size);
        owned.set(queue(), std::span<const std::byte>(data));
        EXPECT_EQ(read(owned), data);
        EXPECT_EQ(references(), 2u);  // taken over, not retained
        {
            const Buffer borrowed = Buffer::from_backend_buffer(bound_device(), reinterpret_cast<std::uintptr_t>(mem));
            EXPECT_EQ(references(), 3u);  // retained
        }
        EXPECT_EQ(references(), 2u);
    }
    queue().synchronize();
    EXPECT_EQ(references(), 1u);  // ours alone
    cl.clReleaseMemObject(mem);
}

TEST_P(ForeignMemory, MemoryOfAnotherContextOrTheHostIsRefused) {
    std::vector<std::byte> host(4096);
    EXPECT_THROW(Buffer::from_backend_buffer(bound_device(), 0), ArgumentError);
    if (is_cuda()) {
        EXPECT_THROW(Buffer::from_backend_buffer(bound_device(), reinterpret_cast<std::uintptr_t>(host.data())),
                     ArgumentError);
        return;
    }
    // Another cl_context on the same device.
    const Context other = Context::from_devices(bound_device().device());
    const Buffer foreign = Buffer::allocate(other.devices()[0], 256);
    EXPECT_THROW(Buffer::from_backend_buffer(bound_device(), foreign.native_handle()), ArgumentError);
}

TEST_P(ForeignMemory, RegisteredHostMemoryRoundTrip) {
    const std::size_t size = 3 * 4096;
    AlignedBytes source(size);
    AlignedBytes back(size);
    const auto data = random_bytes(size);
    std::copy(data.begin(), data.end(), source.data);
    std::fill(back.data, back.data + size, std::byte{0xA5});
    EXPECT_FALSE(is_kjarni_page_locked(source.data, size));
    {
        const HostMemory in = HostMemory::register_memory(context(), source.span());
        const HostMemory out = HostMemory::register_memory(context(), back.span(), {.portable = true});
        EXPECT_EQ(in.data(), source.data);
        EXPECT_EQ(in.size(), size);
        EXPECT_TRUE(is_kjarni_page_locked(source.data, size));
        EXPECT_TRUE(is_kjarni_page_locked(back.data + 10, 100));
        // Once is enough: a second registration of any of the bytes is refused.
        EXPECT_THROW(HostMemory::register_memory(context(), source.span().subspan(4096, 10)), ArgumentError);

        // Transfers from and to it go straight to the driver, even above the staging threshold.
        const auto before = transfer_staging_statistics(context());
        const auto previous = transfer_staging(context());
        set_transfer_staging(context(), {.threshold = 4096, .chunk_size = 4096, .slots = 2});
        const Buffer device = Buffer::allocate(bound_device(), size);
        device.set(queue(), std::span<const std::byte>(in.bytes()), true);
        device.get(queue(), out.bytes(), true);
        queue().synchronize();
        if (previous) {
            set_transfer_staging(context(), *previous);
        } else {
            reset_transfer_staging(context());
        }
        const auto after = transfer_staging_statistics(context());
        EXPECT_EQ(after.staged_transfers, before.staged_transfers);
        EXPECT_EQ(after.page_locked_transfers - before.page_locked_transfers, 2u);
    }
    // The memory is the caller's again: unregistered, not freed, and it holds what was read.
    EXPECT_FALSE(is_kjarni_page_locked(source.data, size));
    EXPECT_TRUE(std::equal(data.begin(), data.end(), back.data));
    // The same memory can be registered again once it is let go.
    EXPECT_NO_THROW(HostMemory::register_memory(context(), source.span()));
}

TEST_P(ForeignMemory, RegisteredMappedMemoryWrittenByAKernel) {
    const std::size_t n = 4096;
    AlignedBytes memory(n * sizeof(std::int32_t));
    const auto values = random_vector<std::int32_t>(n, -100000, 100000);
    std::copy(values.begin(), values.end(), reinterpret_cast<std::int32_t*>(memory.data));
    const HostMemory registered = HostMemory::register_memory(context(), memory.span(), {.mapped = true});
    const bool kernels_see_it = is_cuda() || bound_device().device().properties().unified_memory;
    if (!kernels_see_it) {
        EXPECT_THROW(registered.device_buffer(bound_device()), UnsupportedError);
        return;
    }
    Program program(bound_device(), affine_source);
    program.kernel("affine")(queue(), {n}, std::nullopt, registered.device_buffer(bound_device()),
                             static_cast<unsigned>(n));
    queue().synchronize();
    const auto* result = reinterpret_cast<const std::int32_t*>(memory.data);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], values[i] * 3 + 1) << i;
}

TEST_P(ForeignMemory, RegistrationErrors) {
    AlignedBytes memory(4096);
    EXPECT_THROW(HostMemory::register_memory(context(), memory.span().subspan(0, 0)), ArgumentError);
    EXPECT_THROW(HostMemory::register_memory(context(), memory.span(), {.write_combined = true}), UnsupportedError);
    // Memory kjarni allocated page-locked cannot be registered on top.
    const HostMemory allocated = HostMemory::allocate(context(), 8192);
    EXPECT_THROW(HostMemory::register_memory(context(), allocated.bytes().subspan(100, 100)), ArgumentError);
}

TEST_P(ForeignMemory, PointerAttributes) {
    const Buffer buffer = Buffer::allocate(bound_device(), 1 << 16);
    if (!is_cuda()) {
        EXPECT_THROW(pointer_attributes(context(), buffer.native_handle()), UnsupportedError);
        return;
    }
    const auto device = pointer_attributes(context(), buffer.native_handle() + 100);
    EXPECT_EQ(device.type, PointerAttributes::MemoryType::device);
    ASSERT_TRUE(device.device.has_value());
    EXPECT_EQ(*device.device, bound_device().device());
    EXPECT_EQ(device.device_index, std::optional<std::size_t>(0));
    EXPECT_EQ(device.range_start, buffer.native_handle());
    EXPECT_GE(device.range_size, buffer.size());
    EXPECT_EQ(device.device_pointer, buffer.native_handle() + 100);

    std::vector<std::byte> pageable(1000);
    EXPECT_EQ(pointer_attributes(context(), pageable.data()).type, PointerAttributes::MemoryType::unregistered);

    const HostMemory pinned = HostMemory::allocate(context(), 4096, {.mapped = true});
    const auto host = pointer_attributes(context(), pinned.data());
    EXPECT_EQ(host.type, PointerAttributes::MemoryType::host);
    EXPECT_EQ(host.host_pointer, reinterpret_cast<std::uintptr_t>(pinned.data()));
    EXPECT_NE(host.device_pointer, 0u);

    AlignedBytes memory(8192);
    const HostMemory registered = HostMemory::register_memory(context(), memory.span());
    EXPECT_EQ(pointer_attributes(context(), memory.data + 5).type, PointerAttributes::MemoryType::host);
}

TEST_P(ForeignMemory, MemoryInfo) {
    const MemoryInfo info = memory_info(bound_device());
    EXPECT_EQ(info.total, bound_device().device().properties().total_memory);
    EXPECT_GT(info.total, 0u);
    if (is_cuda()) {
        EXPECT_TRUE(info.free.has_value());
    }
    if (info.free) {
        EXPECT_LE(*info.free, info.total);
        EXPECT_GT(*info.free, 0u);
    }
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(ForeignMemory);

}  // namespace kjarni::test
