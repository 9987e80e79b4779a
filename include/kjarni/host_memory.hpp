#pragma once
/// Page-locked (pinned) host memory (PyCUDA's pagelocked_empty / HostAllocation and
/// host_alloc_flags; PyOpenCL's pools).
///
/// Transfers between a Buffer and page-locked memory run at the full speed of the bus, and
/// asynchronous ones (Buffer::set/get with async = true) truly overlap with other work; from
/// pageable memory the driver stages them.
///
/// Flags:
///  - portable: CUDA: page-locked for every CUDA context of the process, not only the one it was
///    allocated in (device 0's context of the kjarni Context). OpenCL: accepted, and what every
///    allocation is anyway (all devices of the context reach it).
///  - mapped: kernels can address the memory: device_buffer() gives it as a Buffer. CUDA: the
///    device address of the allocation (cuMemHostGetDevicePointer); a multi-device context needs
///    `portable` too for devices other than the first. OpenCL: the CL_MEM_ALLOC_HOST_PTR buffer the
///    memory belongs to; finish the work of kernels using it before touching the host side.
///  - write_combined: CUDA only (UnsupportedError on OpenCL): faster for the host to write and the
///    device to read over the bus, very slow for the host to read.
///
/// HostMemory is a handle: copies share the allocation, which is freed (or returned to its pool)
/// when the last handle, and the last Buffer made by device_buffer(), goes.
///
/// Existing host memory can be page-locked in place (register_memory; PyCUDA's
/// register_host_memory): CUDA cuMemHostRegister, OpenCL a CL_MEM_USE_HOST_PTR buffer over it. Buffer
/// transfers from and to it then go straight to the driver, unstaged, like those of allocated
/// page-locked memory. The memory stays the caller's: it is unregistered, not freed, when the last
/// handle goes, and must outlive that. \file

#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "kjarni/memory_pool.hpp"

namespace kjarni {

namespace backend {
class HostAllocation;
}
namespace detail {
struct HostPoolState;
}

/// How page-locked memory is made: portable to every context, mapped into the device's address
/// space, write-combined (fast to write from the host, slow to read).
struct HostMemoryFlags {
    bool portable = false;
    bool mapped = false;
    bool write_combined = false;
    friend bool operator==(const HostMemoryFlags&, const HostMemoryFlags&) = default;
};

/// Page-locked host memory for fast, asynchronous transfers with a context's devices: allocated, or
/// registered host memory. Copies share the memory, which is freed (unlocked) when the last goes.
class HostMemory {
public:
    /// `size` bytes of page-locked memory for use with `context`; size 0 gives a valid empty
    /// object (data() is null). Throws UnsupportedError for flags the API cannot give,
    /// OutOfMemoryError when the host cannot lock that much.
    static HostMemory allocate(const Context& context, std::size_t size, HostMemoryFlags flags = {});
    /// Page-locks `host` (not empty) for use with `context` until the last handle goes. Flags as
    /// for allocate, but write_combined is refused (UnsupportedError). ArgumentError when part of
    /// `host` is page-locked by kjarni already. Page-aligned memory wastes nothing: the driver
    /// locks whole pages.
    static HostMemory register_memory(const Context& context, std::span<std::byte> host, HostMemoryFlags flags = {});

    std::byte* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    HostMemoryFlags flags() const noexcept { return flags_; }
    const Context& context() const noexcept { return context_; }

    /// The memory as `size() / sizeof(T)` elements of T (allocated memory is page-aligned, so any
    /// T's alignment holds; registered memory is as aligned as the caller's).
    template <class T>
    std::span<T> as_span() const noexcept {
        static_assert(std::is_trivially_copyable_v<T>, "host memory holds trivially copyable values only");
        return std::span<T>(reinterpret_cast<T*>(data_), size_ / sizeof(T));
    }
    std::span<std::byte> bytes() const noexcept { return {data_, size_}; }

    /// The memory as a Buffer kernels on `device` can use (its size is size()). Only for memory
    /// allocated with `mapped`: UnsupportedError otherwise. `device` must be of context().
    Buffer device_buffer(const BoundDevice& device) const;

private:
    friend struct detail::BackendAccess;
    const std::shared_ptr<backend::HostAllocation>& backend() const noexcept { return impl_; }
    friend class HostMemoryPool;
    HostMemory(Context context, std::shared_ptr<backend::HostAllocation> impl, std::size_t size, HostMemoryFlags flags);

    Context context_;
    std::shared_ptr<backend::HostAllocation> impl_;
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    HostMemoryFlags flags_{};
};

/// A pool of page-locked memory with one set of flags, binned like MemoryPool (the same
/// bin_number / allocation_size rounding). A block returns to the pool when the last handle to
/// it goes; there is no queue ordering: the caller makes sure asynchronous transfers from or to a
/// block are finished before dropping it. Copies share one pool; all members are thread safe.
/// When an allocation fails with OutOfMemoryError the pool frees what it holds and tries once more.
class HostMemoryPool : public detail::PoolCounters<HostMemoryPool> {
public:
    explicit HostMemoryPool(HostMemoryFlags flags = {}, unsigned leading_bits_in_bin_id = 4);

    /// `size` bytes for use with `context` (size 0: an empty HostMemory, not counted).
    HostMemory allocate(const Context& context, std::size_t size) const;

    HostMemoryFlags flags() const;
    unsigned leading_bits_in_bin_id() const;

    MemoryPoolStatistics statistics() const;

    /// Frees every block the pool holds.
    void free_held() const;
    /// From now on returned blocks are freed, not held; frees what is held.
    void stop_holding() const;

private:
    std::shared_ptr<detail::HostPoolState> state_;
};

}  // namespace kjarni
