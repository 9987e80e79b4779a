#pragma once
// Memory a backend context allocates or adopts: device buffers (plain, flagged, pitched, foreign),
// page-locked host memory, managed / shared virtual memory, and what the driver says of memory.
// The defaults (memory_service.cpp) throw UnsupportedError naming the backend; the public layer has
// checked the arguments it can.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "backend/context_service.hpp"
#include "backend/memory_objects.hpp"

namespace kjarni::backend {

class ContextMemory : public virtual ContextService {
public:
    /// `size` may be 0: the result is then a valid buffer whose native handle is 0.
    /// Throws OutOfMemoryError when the driver reports that.
    virtual std::shared_ptr<Buffer> allocate(std::size_t device_index, std::size_t size) = 0;
    /// With memory flags where the driver honours them. The default (CUDA, whose device memory has
    /// no such flags) is allocate(), ignoring them, with `copied` false: the public layer copies.
    virtual FlaggedAllocation allocate_flagged(std::size_t device_index, std::size_t size,
                                               const BufferAllocationFlags& flags);
    /// Page-locked host memory of `size` > 0 bytes. Throws UnsupportedError for flags the API cannot
    /// express, OutOfMemoryError when the driver reports that.
    virtual std::shared_ptr<HostAllocation> allocate_host(std::size_t size, HostAllocationFlags flags) = 0;
    /// Whether allocate() makes the memory at once (so that a probe that succeeds proves the memory
    /// is there: largest_memblock). The default: false.
    virtual bool allocates_eagerly() const { return false; }
    /// The largest free block of a device's memory where the driver reports it (OpenCL
    /// CL_DEVICE_GLOBAL_FREE_MEMORY_AMD); nullopt by default.
    virtual std::optional<std::uint64_t> largest_free_block(std::size_t /*device_index*/) const { return std::nullopt; }
    /// Bytes free on the device right now where the API can tell (CUDA cuMemGetInfo, OpenCL
    /// CL_DEVICE_GLOBAL_FREE_MEMORY_AMD); nullopt where it cannot.
    virtual std::optional<std::uint64_t> free_memory(std::size_t /*device_index*/) const { return std::nullopt; }
    /// Managed / shared virtual memory of `size` > 0 bytes, allocated for (CUDA: in the context of)
    /// device `device_index`; the public layer has checked the capabilities and the free memory.
    /// The default throws UnsupportedError.
    virtual std::shared_ptr<ManagedAllocation> allocate_managed(std::size_t device_index, std::size_t size,
                                                                ManagedAllocationFlags flags);

    // Foreign and pitched memory.

    /// A buffer over existing device memory (CUdeviceptr / cl_mem) of device `device_index`, of
    /// `size` bytes (nullopt: to the end of the native allocation). With `take_ownership` the
    /// memory is freed (cuMemFree / clReleaseMemObject) when the buffer goes; without, the caller
    /// keeps it alive. ArgumentError when the memory is not of that device or smaller than `size`.
    virtual std::shared_ptr<Buffer> adopt_buffer(std::size_t device_index, std::uintptr_t native,
                                                 std::optional<std::size_t> size, bool take_ownership);
    /// Page-locks the existing host memory [data, data + size) for this context (cuMemHostRegister
    /// / a CL_MEM_USE_HOST_PTR buffer kept mapped) until the result goes; the memory stays the
    /// caller's. `write_combined` is refused (UnsupportedError).
    virtual std::shared_ptr<HostAllocation> register_host(void* data, std::size_t size, HostAllocationFlags flags);
    /// What the driver knows of an address.
    virtual PointerInfo pointer_info(std::uintptr_t pointer) const;
    /// `height` rows of at least `width` bytes each, at a pitch that suits accesses of
    /// `element_size` (4, 8 or 16) bytes.
    virtual PitchedAllocation allocate_pitched(std::size_t device_index, std::size_t width, std::size_t height,
                                               std::size_t element_size);
};

}  // namespace kjarni::backend
