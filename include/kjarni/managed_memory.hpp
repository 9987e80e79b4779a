#pragma once
/// Managed memory (CUDA cuMemAllocManaged) and shared virtual memory (OpenCL 2.0+ clSVMAlloc): one
/// allocation with one address that the host and the kernels of every device of a context use
/// (PyCUDA's managed_empty / ManagedAllocation; PyOpenCL's SVMAllocation / SVMMap).
///
/// Allocation:
///  - Only on devices that can (managed_memory_capabilities(device).supported()): UnsupportedError
///    naming the device and what it lacks otherwise.
///  - Never more than the device has free: the request is compared, before anything is allocated,
///    with CL_DEVICE_MAX_MEM_ALLOC_SIZE and the global memory size, and with the free memory where
///    the API reports it (CUDA cuMemGetInfo; OpenCL CL_DEVICE_GLOBAL_FREE_MEMORY_AMD). A larger
///    request throws OutOfMemoryError naming the bytes requested and available. (CUDA could
///    oversubscribe managed memory on some systems; kjarni refuses instead.) allocate(context, ...)
///    checks every device of the context, allocate(device, ...) that device only.
///  - OpenCL: fine-grained SVM where every device concerned has it (CL_DEVICE_SVM_FINE_GRAIN_BUFFER,
///    with CL_MEM_SVM_ATOMICS where they all have CL_DEVICE_SVM_ATOMICS), else coarse-grained;
///    ManagedMemoryFlags::coarse_grain asks for coarse-grained anyway. fine_grained() says which.
///
/// Concurrency rules: when the host may touch the memory.
///  - CUDA, device without concurrentManagedAccess (Windows, pre-Pascal GPUs): never while any kernel
///    of the context runs, whether it uses this memory or not (the driver then faults the host
///    thread). Memory attached to the host (attach_host, attach(queue, Attach::host)) is exempt, and
///    memory attached to one queue (Attach::single) is exempt from other queues' kernels.
///  - CUDA, device with concurrentManagedAccess: at any time; accesses are coherent, but nothing
///    orders the host's accesses against a kernel's unless you synchronize (a queue, an event).
///  - OpenCL coarse-grained: only inside a host access scope (host_access(): clEnqueueSVMMap /
///    clEnqueueSVMUnmap); data() outside one is undefined behaviour, and no kernel may use the
///    memory while a scope is open.
///  - OpenCL fine-grained: at any time, but the host's and the kernels' writes become visible to
///    each other only at synchronization points (the end of a kernel that the host waited for, a
///    map, an unmap). Concurrent access to the same bytes is a race unless both sides use atomics,
///    which needs svm_atomics (CL_MEM_SVM_ATOMICS is set when the devices have it).
/// When several devices may use one allocation at the same time: CUDA with concurrentManagedAccess
/// and OpenCL fine-grained SVM allow it (on disjoint bytes, or with atomics); coarse-grained SVM
/// allows one device at a time, ordered by events. NVIDIA's OpenCL crashes when two GPUs of one
/// context use one allocation even so: there, ManagedMemory in a context of several devices throws
/// UnsupportedError (quirk nvidia_svm_several_devices).
///
/// What kjarni does for you: host_access(queue) is the portable way to reach the memory from the
/// host. It waits for the queue's work (only that queue's: wait for other queues using the memory
/// first; CUDA without concurrentManagedAccess: every device of the context), maps where the memory is coarse-grained, and unmaps when the scope ends, waiting for
/// the unmap, so that work enqueued on any queue afterwards sees the host's writes. While a scope
/// is open on coarse-grained memory (or on CUDA without concurrentManagedAccess), launching a
/// kernel with the memory as an argument throws ArgumentError. kjarni cannot see kernels that
/// reach the memory otherwise (through a device_buffer(), a pointer stored in memory, other
/// libraries), and data() is a plain pointer: the rules above are yours to keep when you touch it
/// directly.
///
/// Pointers stored inside the memory: portable code follows them only into the same allocation
/// (OpenCL kernels reach other SVM allocations only when told of them, which kjarni does not do;
/// CUDA kernels reach any managed allocation).
///
/// ManagedMemory is a handle: copies share the allocation, which is freed when the last handle, and
/// the last Buffer made by device_buffer(), goes. Work still enqueued on it must have completed by
/// then (clSVMFree does not wait for it). \file

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/device.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

namespace backend {
class ManagedAllocation;
}

/// What a device offers for managed / shared virtual memory, read from its attributes.
struct ManagedMemoryCapabilities {
    // CUDA (all false on OpenCL).
    bool managed_memory = false;             ///< CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY
    bool concurrent_managed_access = false;  ///< CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS
    bool pageable_memory_access = false;     ///< CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS
    // OpenCL CL_DEVICE_SVM_CAPABILITIES (all false on CUDA and on OpenCL 1.x devices).
    bool svm_coarse_grain_buffer = false;
    bool svm_fine_grain_buffer = false;
    bool svm_fine_grain_system = false;
    bool svm_atomics = false;
    /// Whether the driver can migrate the memory on request (prefetch()): CUDA with
    /// concurrent_managed_access; OpenCL 2.1+ devices with SVM (clEnqueueSVMMigrateMem).
    bool prefetch = false;

    /// Whether ManagedMemory can be allocated for the device at all.
    bool supported() const noexcept { return managed_memory || svm_coarse_grain_buffer; }
    /// What the device lacks, for messages ("" when supported()).
    std::string missing() const;
};

/// The capabilities of `device` (all false for APIs and devices without the attributes).
ManagedMemoryCapabilities managed_memory_capabilities(const Device& device);

/// How managed memory is allocated (see each field for the API it applies to).
struct ManagedMemoryFlags {
    /// CUDA: CU_MEM_ATTACH_HOST instead of CU_MEM_ATTACH_GLOBAL: on devices without
    /// concurrentManagedAccess, kernels may not use the memory (until attached otherwise) and the
    /// host may touch it while kernels run. Ignored on OpenCL.
    bool attach_host = false;
    /// OpenCL: coarse-grained SVM even where the devices have fine-grained. Ignored on CUDA.
    bool coarse_grain = false;
    /// The address's alignment in bytes, a power of two (PyOpenCL's SVMAllocation / svm_empty
    /// alignment); 0: the driver's default, which suits any type. OpenCL: clSVMAlloc's alignment
    /// argument, and where the driver refuses one that large (PoCL's limit is 128 bytes), an
    /// allocation `alignment - 1` bytes larger with the address aligned inside it. CUDA: cuMemAllocManaged takes none; its addresses are checked, and an allocation
    /// not aligned so is freed and refused (UnsupportedError: in practice they are aligned to far
    /// more than any type needs). ArgumentError naming "flags.alignment" for a value that is not
    /// a power of two.
    std::size_t alignment = 0;
    friend bool operator==(const ManagedMemoryFlags&, const ManagedMemoryFlags&) = default;
};

class ManagedHostAccess;

/// Managed (unified) memory that the host and every device of a context address with one pointer
/// (CUDA managed memory, OpenCL shared virtual memory). Copies share the memory.
class ManagedMemory {
public:
    /// `size` bytes usable by every device of `context` (CUDA: allocated in device 0's context).
    /// Size 0 gives a valid empty object (data() is null). Throws UnsupportedError when a device
    /// cannot, OutOfMemoryError when a device has not `size` bytes free (see the header comment).
    static ManagedMemory allocate(const Context& context, std::size_t size, ManagedMemoryFlags flags = {});
    /// The same, checked against (and on CUDA allocated in the context of) `device` only; the
    /// memory is still addressable by the context's other devices where they support it.
    static ManagedMemory allocate(const BoundDevice& device, std::size_t size, ManagedMemoryFlags flags = {});

    /// The address, valid on the host (within the concurrency rules above) and in kernels.
    std::byte* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    ManagedMemoryFlags flags() const noexcept { return flags_; }
    const Context& context() const noexcept { return context_; }
    /// Whether the host may touch the memory outside a host access scope: CUDA always (within the
    /// rules above), OpenCL for fine-grained SVM.
    bool fine_grained() const noexcept { return fine_grained_; }

    /// The memory as `size() / sizeof(T)` elements of T (the allocation is aligned for any T).
    template <class T>
    std::span<T> as_span() const noexcept {
        static_assert(std::is_trivially_copyable_v<T>, "managed memory holds trivially copyable values only");
        return std::span<T>(reinterpret_cast<T*>(data_), size_ / sizeof(T));
    }
    std::span<std::byte> bytes() const noexcept { return {data_, size_}; }

    enum class Access { read, write, read_write };
    /// A scope in which the host may touch bytes [offset, offset + size) (size 0: to the end).
    /// `queue` must be of context(); see the header comment for what it waits for.
    /// ArgumentError for a range outside the memory.
    ManagedHostAccess host_access(const Queue& queue, Access access = Access::read_write, std::size_t offset = 0,
                                  std::size_t size = 0) const;

    /// Migrates the memory to the queue's device / to the host, in the queue's order (a hint: the
    /// contents do not change). UnsupportedError where capabilities().prefetch is false.
    void prefetch(const Queue& queue) const;
    void prefetch_to_host(const Queue& queue) const;

    /// CUDA: which queues' kernels may use the memory (cuStreamAttachMemAsync, in the queue's
    /// order; PyCUDA's ManagedAllocation.attach): every queue (global), none (host: the host
    /// may then touch it while kernels run, even without concurrentManagedAccess), or only this
    /// queue (single: the host may touch it while other queues' kernels run). UnsupportedError
    /// on OpenCL, whose SVM every queue of the context may use.
    enum class Attach { global, host, single };
    void attach(const Queue& queue, Attach attach) const;

    /// Copies `source.size()` bytes from a buffer of the same context into bytes
    /// [offset, offset + source.size()) of this memory, in the queue's order; with async = false
    /// the call returns when the copy is complete. Host access rules apply: no scope may be open.
    void copy_from(const Queue& queue, const Buffer& source, std::size_t offset = 0, bool async = false) const;
    /// Copies `destination.size()` bytes from [offset, offset + destination.size()) to a buffer.
    void copy_to(const Queue& queue, const Buffer& destination, std::size_t offset = 0, bool async = false) const;

    /// The memory as a Buffer of `device` (of context()), for everything that takes a Buffer:
    /// transfers, arrays, kernels. It keeps the memory alive.
    Buffer device_buffer(const BoundDevice& device) const;

    /// PyOpenCL's SVMAllocation.enqueue_release (clEnqueueSVMFree), outside any SVMPool: the memory
    /// is freed in `queue`'s order, once the work enqueued there so far is done, and this handle
    /// becomes empty (data() null, size() 0) at once, without the host waiting. OpenCL:
    /// clEnqueueSVMFree. CUDA has no queue-ordered free of managed memory: the host waits for the
    /// queue, then frees it. This must be the last handle to the memory: ArgumentError naming
    /// "memory" while copies of it, its device_buffer()s or a host access scope are alive (freeing
    /// memory they use would leave them dangling). Work on other queues that uses the memory must
    /// be ordered before it (an event the queue waits for). Does nothing on an empty handle.
    void enqueue_release(const Queue& queue);

private:
    friend struct detail::BackendAccess;
    const std::shared_ptr<backend::ManagedAllocation>& backend() const noexcept { return impl_; }
    ManagedMemory(Context context, std::shared_ptr<backend::ManagedAllocation> impl, std::size_t size,
                  ManagedMemoryFlags flags, bool fine_grained);
    void check_queue(const Queue& queue, const char* what) const;

    Context context_;
    std::shared_ptr<backend::ManagedAllocation> impl_;
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    ManagedMemoryFlags flags_{};
    bool fine_grained_ = false;
};

/// A host access scope (ManagedMemory::host_access). Move-only; end() or the destructor closes it
/// (the destructor cannot report a failing unmap: call end() to see errors). While it is open no
/// kernel may use the memory.
class ManagedHostAccess {
public:
    ManagedHostAccess(ManagedHostAccess&& other) noexcept;
    ManagedHostAccess& operator=(ManagedHostAccess&& other) noexcept;
    ManagedHostAccess(const ManagedHostAccess&) = delete;
    ManagedHostAccess& operator=(const ManagedHostAccess&) = delete;
    ~ManagedHostAccess();

    /// The bytes of the scope (not of the whole memory).
    std::byte* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    std::span<std::byte> bytes() const noexcept { return {data_, size_}; }
    template <class T>
    std::span<T> as_span() const noexcept {
        static_assert(std::is_trivially_copyable_v<T>, "managed memory holds trivially copyable values only");
        return std::span<T>(reinterpret_cast<T*>(data_), size_ / sizeof(T));
    }
    bool is_open() const noexcept { return open_; }
    /// Ends the scope; afterwards work on any queue sees the host's writes. Does nothing if ended.
    void end();

private:
    friend class ManagedMemory;
    ManagedHostAccess(ManagedMemory memory, Queue queue, std::size_t offset, std::size_t size);

    ManagedMemory memory_;
    Queue queue_;
    std::size_t offset_ = 0;
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    bool open_ = false;
    /// Whether kernels may not use the memory meanwhile (counted in the allocation).
    bool exclusive_ = false;
};

/// The kernel argument of managed memory: the pointer itself (found by detail::pack through ADL).
/// Every device of the memory's context may use it. ArgumentError while a host access scope that
/// excludes kernels is open on it.
detail::KernelArg pack_kernel_arg(const ManagedMemory& memory, const detail::LaunchTarget& target);

}  // namespace kjarni
