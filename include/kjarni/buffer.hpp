#pragma once
// Device memory (reference: grunnur Buffer). A Buffer is a handle: copies share the allocation,
// which is freed when the last handle (sub-regions included) goes.
//
// Asynchronous host transfers (async = true) return once the copy is enqueued: the host memory must
// stay alive and untouched until the queue has passed that point (synchronize it, or wait for an
// event recorded after the copy).
//
// Large host transfers from pageable memory are staged through page-locked memory
// (kjarni/transfer_staging.hpp has the rules): a staged asynchronous set() leaves the host memory
// free to reuse when it returns, and a staged asynchronous get() is complete when it returns.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "kjarni/context.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

namespace backend {
class Buffer;
}
namespace detail {
struct BufferAccess;
}

class Buffer {
public:
    /// `size` bytes on `device`; size 0 gives a valid empty buffer. Throws OutOfMemoryError.
    static Buffer allocate(const BoundDevice& device, std::size_t size);

    /// Device memory allocated by someone else (CUDA: a CUdeviceptr of this device, e.g. a CuPy or
    /// PyTorch tensor's), `size` bytes from `handle`. kjarni never frees it; `owner` (may be null)
    /// is kept alive as long as any handle to the buffer. UnsupportedError on APIs that cannot
    /// (OpenCL).
    static Buffer from_native(const BoundDevice& device, std::uintptr_t handle, std::size_t size,
                              std::shared_ptr<const void> owner = nullptr);

    std::size_t size() const noexcept { return size_; }
    /// Offset in bytes from the start of the allocation this buffer lies in.
    std::size_t offset() const noexcept { return offset_; }
    const BoundDevice& device() const noexcept { return device_; }
    /// A view of bytes [origin, origin + size) of this buffer, sharing its memory.
    Buffer get_sub_region(std::size_t origin, std::size_t size) const;

    /// Copies `host.size()` bytes (at most size()) from the host to the start of this buffer.
    void set(const Queue& queue, std::span<const std::byte> host, bool async = false) const;
    /// Copies `source.size()` bytes (at most size()) from another buffer of the same context, on any
    /// of its devices (a peer copy where the hardware has it).
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

    const std::shared_ptr<backend::Buffer>& backend() const noexcept { return impl_; }

private:
    friend struct detail::BufferAccess;
    Buffer(BoundDevice device, std::shared_ptr<backend::Buffer> impl, std::size_t offset, std::size_t size);
    void check_queue(const Queue& queue, const char* what) const;

    BoundDevice device_;
    std::shared_ptr<backend::Buffer> impl_;
    std::size_t offset_;
    std::size_t size_;
};

}  // namespace kjarni
