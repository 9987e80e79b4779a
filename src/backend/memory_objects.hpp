#pragma once
// The memory a backend context hands out: device buffers, page-locked host memory, managed /
// shared virtual memory, with the flags and results of the calls that make them (memory_service.hpp).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "backend/backend_fwd.hpp"

namespace kjarni::backend {

/// Page-locked host memory options (the public kjarni::HostMemoryFlags, repeated here so that the
/// backends need not include the public header).
struct HostAllocationFlags {
    bool portable = false;        // usable by every context / device (CUDA: CU_MEMHOSTALLOC_PORTABLE)
    bool mapped = false;          // addressable by kernels (CUDA: CU_MEMHOSTALLOC_DEVICEMAP)
    bool write_combined = false;  // CUDA: CU_MEMHOSTALLOC_WRITECOMBINED; UnsupportedError on OpenCL
};

/// Memory flags of a device buffer (the public kjarni::BufferFlags, and the initial contents of
/// Buffer::allocate_copy).
struct BufferAllocationFlags {
    bool read_only = false;           // OpenCL CL_MEM_READ_ONLY
    bool write_only = false;          // OpenCL CL_MEM_WRITE_ONLY
    bool alloc_host_pointer = false;  // OpenCL CL_MEM_ALLOC_HOST_PTR
    const void* copy_from = nullptr;  // OpenCL CL_MEM_COPY_HOST_PTR: `size` bytes to start with
};
/// What allocate_flagged made: the buffer, and whether it already holds copy_from's bytes.
struct FlaggedAllocation {
    std::shared_ptr<Buffer> buffer;
    bool copied = false;
};

/// Managed memory (CUDA) / shared virtual memory (OpenCL) options, decided by the public layer
/// from the devices' capabilities (kjarni/managed_memory.hpp).
struct ManagedAllocationFlags {
    bool attach_host = false;   // CUDA: CU_MEM_ATTACH_HOST instead of CU_MEM_ATTACH_GLOBAL
    bool fine_grain = false;    // OpenCL: CL_MEM_SVM_FINE_GRAIN_BUFFER (else coarse-grained)
    bool atomics = false;       // OpenCL: CL_MEM_SVM_ATOMICS (fine-grained only)
    std::size_t alignment = 0;  // 0: the driver's; OpenCL: clSVMAlloc's; CUDA: by over-allocating
};

/// What the driver says about an address (CUDA cuPointerGetAttributes).
struct PointerInfo {
    enum class Type : std::uint8_t { unregistered, host, device, managed };
    Type type = Type::unregistered;
    /// The device the memory belongs to (device and managed memory; null otherwise or unknown).
    std::shared_ptr<Device> device;
    /// The position of that device in the asking context, when the memory belongs to the context.
    std::optional<std::size_t> device_index;
    /// The address for kernels and for the host (0 where there is none).
    std::uintptr_t device_pointer = 0;
    std::uintptr_t host_pointer = 0;
    /// The allocation the address lies in (0 where the driver does not say).
    std::uintptr_t range_start = 0;
    std::size_t range_size = 0;
};

/// A buffer of rows laid out `pitch` bytes apart.
struct PitchedAllocation {
    std::shared_ptr<Buffer> buffer;
    std::size_t pitch = 0;
};

class Buffer {
public:
    virtual ~Buffer() = default;
    virtual std::size_t size() const = 0;
    virtual std::size_t device_index() const = 0;
    /// CUdeviceptr / cl_mem of the whole allocation.
    virtual std::uintptr_t native_handle() const = 0;
    /// The driver's interprocess handle of the whole allocation (CUDA: cuIpcGetMemHandle's 64
    /// bytes). The default throws UnsupportedError.
    virtual std::vector<std::byte> ipc_handle() const;
};

/// Page-locked host memory, freed when the last reference goes (it holds its Context). Buffers
/// made by device_buffer() keep it alive.
class HostAllocation : public std::enable_shared_from_this<HostAllocation> {
public:
    virtual ~HostAllocation() = default;
    virtual void* host_pointer() const = 0;
    virtual std::size_t size() const = 0;
    virtual HostAllocationFlags flags() const = 0;
    /// The memory as a buffer kernels on the context's device `device_index` can use (mapped
    /// allocations only; the caller checks `flags().mapped`).
    virtual std::shared_ptr<Buffer> device_buffer(std::size_t device_index) = 0;
};

/// Managed (CUDA) / shared virtual (OpenCL SVM) memory: one address valid on the host and in
/// kernels of every device of the context. Freed when the last reference goes (it holds its Context).
class ManagedAllocation : public std::enable_shared_from_this<ManagedAllocation> {
public:
    virtual ~ManagedAllocation() = default;
    /// The address, for the host and for kernels alike.
    virtual void* pointer() const = 0;
    virtual std::size_t size() const = 0;
    virtual ManagedAllocationFlags flags() const = 0;
    /// Starts host access to bytes [offset, offset + size): returns once the host may touch them
    /// (OpenCL: a blocking clEnqueueSVMMap; CUDA: the queue, or with `whole_context` every device
    /// of the context, synchronized).
    virtual void begin_host_access(Queue& queue, std::size_t offset, std::size_t size, bool read, bool write,
                                   bool whole_context) = 0;
    /// Ends it (OpenCL: clEnqueueSVMUnmap, waited for; CUDA: nothing).
    virtual void end_host_access(Queue& queue, std::size_t offset) = 0;
    /// Migrates bytes [offset, offset + size) to the queue's device, or to the host, in queue
    /// order. UnsupportedError where the driver cannot.
    virtual void prefetch(Queue& queue, std::size_t offset, std::size_t size, bool to_host) = 0;
    /// CUDA: cuStreamAttachMemAsync on the queue's stream with CU_MEM_ATTACH_GLOBAL / HOST /
    /// SINGLE (attach: 0, 1, 2). UnsupportedError where the API has no such notion (OpenCL).
    virtual void attach(Queue& queue, int attach) = 0;
    /// Frees the memory once the work enqueued on `queue` so far is done (OpenCL clEnqueueSVMFree);
    /// the destructor then frees nothing. The default (CUDA, whose managed memory has no
    /// stream-ordered free) waits for the queue, then lets the destructor free it.
    virtual void enqueue_free(Queue& queue);
    /// The memory as a Buffer of device `device_index` (CUDA: the managed address; OpenCL: a
    /// CL_MEM_USE_HOST_PTR buffer over the SVM allocation). The caller keeps this allocation alive
    /// as long as the buffer.
    virtual std::shared_ptr<Buffer> device_buffer(std::size_t device_index) = 0;

    /// Host access scopes open on the memory during which no kernel may use it (coarse-grained
    /// SVM; CUDA without concurrent access): kept by the public layer, which refuses such launches.
    std::atomic<int> exclusive_host_scopes{0};
};

}  // namespace kjarni::backend
