#pragma once
/// Device memory (reference: grunnur Buffer). A Buffer is a handle: copies share the allocation,
/// which is freed when the last handle (sub-regions included) goes.
///
/// Asynchronous host transfers (async = true) return once the copy is enqueued: the host memory must
/// stay alive and untouched until the queue has passed that point (synchronize it, or wait for an
/// event recorded after the copy).
///
/// Large host transfers from pageable memory are staged through page-locked memory
/// (kjarni/transfer_staging.hpp has the rules): a staged asynchronous set() leaves the host memory
/// free to reuse when it returns, and a staged asynchronous get() is complete when it returns. \file

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "kjarni/context.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

namespace backend {
class Buffer;
}
namespace detail {
struct BufferAccess;
}

/// How kernels may use a buffer's memory (PyOpenCL's mem_flags READ_WRITE / READ_ONLY / WRITE_ONLY).
enum class KernelAccess { read_write, read_only, write_only };

/// Memory flags of Buffer::allocate (PyOpenCL's mem_flags), passed to the driver where it honours
/// them. OpenCL: clCreateBuffer's CL_MEM_READ_ONLY / CL_MEM_WRITE_ONLY and CL_MEM_ALLOC_HOST_PTR
/// (CL_MEM_COPY_HOST_PTR is Buffer::allocate_copy's; CL_MEM_USE_HOST_PTR is
/// HostMemory::register_memory's device_buffer, kjarni/host_memory.hpp). CUDA has no such flags
/// on device memory: cuMemAlloc is called as without them, and kjarni keeps the kernel access
/// itself (what follows applies on both).
///
/// kjarni refuses to write a buffer kernels may only read wherever it knows it writes: arrays
/// over it are not writeable (Array::writeable), so its own operations refuse them as outputs
/// (ArgumentError naming the argument). Host transfers (set, fill, copies into it) are allowed,
/// as OpenCL allows them: that is how read-only memory gets its contents. A user's kernel that
/// writes a read-only buffer is undefined behaviour in OpenCL, which kjarni cannot see.
struct BufferFlags {
    KernelAccess kernel_access = KernelAccess::read_write;
    /// CL_MEM_ALLOC_HOST_PTR: memory the host can reach (on a CPU device, the same memory;
    /// elsewhere often page-locked host memory). CUDA: ignored (cuMemAllocHost memory is
    /// HostMemory::allocate with mapped = true, kjarni/host_memory.hpp).
    bool alloc_host_pointer = false;
};

/// Bytes of device memory on one device of a context, or a region of another buffer. Copies share
/// the memory, which is freed when the last copy (and every region of it) goes.
class Buffer {
public:
    /// `size` bytes on `device`; size 0 gives a valid empty buffer. Throws OutOfMemoryError. On a
    /// CPU OpenCL device, 4 MiB and more lie in a memory mapping of kjarni's own, aligned to and
    /// advised for huge pages (numpy's rule for its arrays), handed to the runtime as the buffer's
    /// memory (CL_MEM_USE_HOST_PTR, which the driver then reports among the buffer's flags).
    static Buffer allocate(const BoundDevice& device, std::size_t size);
    /// The same with memory flags (see BufferFlags).
    static Buffer allocate(const BoundDevice& device, std::size_t size, const BufferFlags& flags);
    /// A buffer holding a copy of `host` (OpenCL: CL_MEM_COPY_HOST_PTR, the copy made by the
    /// driver as the buffer is made, or by kjarni into its mapping where allocate() makes one;
    /// CUDA: cuMemAlloc then a synchronous copy), with `flags`.
    static Buffer allocate_copy(const BoundDevice& device, std::span<const std::byte> host,
                                const BufferFlags& flags = {});
    /// Device memory another library allocated (CuPy, PyTorch, a user's cuMemAlloc / clCreateBuffer),
    /// used without a copy: a CUdeviceptr on CUDA, a cl_mem of the context on OpenCL. `size`:
    /// bytes from `native` on (default: to the end of its allocation). With `take_ownership` the
    /// memory is freed (cuMemFree / clReleaseMemObject) when the last handle goes (CUDA: `native`
    /// must start its allocation); without, it is retained (OpenCL) and `keep_alive`, if given,
    /// is held as long as any handle, so the owner can be tied to the buffer. ArgumentError when
    /// the memory is not `device`'s (CUDA: managed memory of any device is accepted) or smaller
    /// than `size`.
    static Buffer from_backend_buffer(const BoundDevice& device, std::uintptr_t native,
                                      std::optional<std::size_t> size = std::nullopt, bool take_ownership = false,
                                      std::shared_ptr<const void> keep_alive = {});

    std::size_t size() const noexcept { return size_; }
    /// Offset in bytes from the start of the allocation this buffer lies in.
    std::size_t offset() const noexcept { return offset_; }
    const BoundDevice& device() const noexcept { return device_; }
    /// How kernels may use the memory (BufferFlags; read_write for memory not made with flags).
    KernelAccess kernel_access() const noexcept { return access_; }
    /// A view of bytes [origin, origin + size) of this buffer, sharing its memory.
    Buffer get_sub_region(std::size_t origin, std::size_t size) const;

    /// Copies `host.size()` bytes (at most size()) from the host to the start of this buffer.
    void set(const Queue& queue, std::span<const std::byte> host, bool async = false) const;
    /// Copies `source.size()` bytes (at most size()) from another buffer of the same context, on any
    /// of its devices (a peer copy where the hardware has it). Between two OpenCL devices that do
    /// not share the host's memory (NVIDIA's discrete GPUs, whose driver moves data another device
    /// wrote at about 0.5 GB/s), copies of at least the transfer-staging threshold
    /// (kjarni/transfer_staging.hpp) go through the source device's page-locked slots instead,
    /// read on a queue of the source's device and written on one of the destination's, in
    /// `queue`'s order all the same; explicit staging settings make every OpenCL context do so.
    void set(const Queue& queue, const Buffer& source, bool async = false) const;
    /// Copies `host.size()` bytes (at most size()) from the start of this buffer to the host.
    void get(const Queue& queue, std::span<std::byte> host, bool async = false) const;

    template <class T>
    void set(const Queue& queue, std::span<const T> host, bool async = false) const {
        set(queue, std::as_bytes(host), async);
    }
    template <class T>
    void get(const Queue& queue, std::span<T> host, bool async = false) const {
        get(queue, std::as_writable_bytes(host), async);
    }

    /// Fills the buffer with a repeated pattern of 1, 2, 4, ..., 128 bytes; size() must be a
    /// multiple of the pattern's size.
    void fill(const Queue& queue, std::span<const std::byte> pattern, bool async = false) const;

    /// The allocation's native handle (CUdeviceptr / cl_mem); add offset() for this view's start.
    std::uintptr_t native_handle() const;

    /// Bytes (kjarni/ipc.hpp: ipc_memory_handle_bytes of them) that name this buffer's memory for
    /// another process on the same machine, which opens them with open_ipc. CUDA only
    /// (cuIpcGetMemHandle); the handle carries this view's offset and size. Only memory of
    /// Buffer::allocate (and its sub-regions) can be exported: UnsupportedError on OpenCL, and for
    /// memory of a MemoryPool, of virtual buffers, of host or managed memory, or opened from
    /// another process. The memory must stay allocated here while the other process uses it.
    std::vector<std::byte> ipc_handle() const;
    /// Opens on `device` memory that another process exported with ipc_handle (the same view). The
    /// mapping (cuIpcOpenMemHandle, with lazy peer access when `device` is not the memory's) is
    /// closed when the last handle to the returned buffer goes. A handle cannot be opened in the
    /// process that made it (CUDA refuses: BackendError). ArgumentError naming "handle" for bytes
    /// that are no kjarni memory handle; UnsupportedError on OpenCL.
    static Buffer open_ipc(const BoundDevice& device, std::span<const std::byte> handle);

private:
    friend struct detail::BackendAccess;
    /// The backend buffer the memory is in now (for memory that moves, the one its cell holds).
    const std::shared_ptr<backend::Buffer>& backend() const noexcept { return target_ ? *target_ : impl_; }
    friend struct detail::BufferAccess;
    Buffer(BoundDevice device, std::shared_ptr<backend::Buffer> impl, std::size_t offset, std::size_t size,
           bool exportable = false, std::shared_ptr<std::shared_ptr<backend::Buffer>> target = {});
    void check_queue(const Queue& queue, const char* what) const;

    BoundDevice device_;
    std::shared_ptr<backend::Buffer> impl_;
    std::size_t offset_;
    std::size_t size_;
    /// Whether the memory is an allocation of Buffer::allocate (which ipc_handle may export).
    bool exportable_;
    /// Memory that can move (a virtual allocation, which VirtualManager::pack relocates): a cell
    /// shared by every handle, holding the backend buffer the memory is in now; impl_ then only
    /// names the allocation (its deleter tells the owner when the last handle goes). Null for
    /// memory that stays where it is.
    std::shared_ptr<std::shared_ptr<backend::Buffer>> target_;
    KernelAccess access_ = KernelAccess::read_write;
};

}  // namespace kjarni
