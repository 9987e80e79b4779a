#pragma once
/// A memory pool of managed / shared virtual memory (PyOpenCL's SVMPool and
/// PooledSVM), over ManagedMemory (CUDA cuMemAllocManaged, OpenCL clSVMAlloc) and the bins of
/// MemoryPool: a released block is held, in the bin of its rounded size, and handed out again to a
/// later request of that bin without allocating.
///
/// Queue-ordered reuse, as MemoryPool's: a PooledSVM bound to a queue (allocated with one, or
/// bind_to_queue) may still be used by that queue's work when it is released. Its block is handed
/// out again
///  - at once to a request on the same queue (the queue runs in order);
///  - to a request on another queue behind an event recorded on the old queue at that moment (the
///    new queue waits for it before the block is returned);
///  - to a request without a queue only after the host has waited for that event (the host may
///    touch the memory at once).
/// A PooledSVM not bound to any queue carries no such guarantee: releasing it says that no work uses
/// it any more. Host access to the memory follows ManagedMemory's rules (host_access(queue) waits
/// for the queue given).
///
/// The pool is safe to use from several threads; one PooledSVM is not. \file

#include <cstddef>
#include <memory>
#include <optional>
#include <span>

#include "kjarni/context.hpp"
#include "kjarni/managed_memory.hpp"
#include "kjarni/memory_pool.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

namespace detail {
struct SvmPoolState;
struct SvmBlock;
}  // namespace detail

/// One allocation from an SVMPool. Move-only: the block goes back to the pool when it is released
/// (release(), or the object's end).
class PooledSVM {
public:
    PooledSVM() = default;
    PooledSVM(PooledSVM&& other) noexcept;
    PooledSVM& operator=(PooledSVM&& other) noexcept;
    PooledSVM(const PooledSVM&) = delete;
    PooledSVM& operator=(const PooledSVM&) = delete;
    ~PooledSVM();

    /// Whether it holds a block (false once released).
    explicit operator bool() const noexcept { return memory_ != nullptr; }
    /// The address, on the host and in kernels (null once released).
    std::byte* data() const noexcept;
    /// The bytes requested (the block may be larger: memory().size()).
    std::size_t size() const noexcept { return size_; }
    template <class T>
    std::span<T> as_span() const noexcept {
        static_assert(std::is_trivially_copyable_v<T>, "managed memory holds trivially copyable values only");
        return std::span<T>(reinterpret_cast<T*>(data()), size_ / sizeof(T));
    }
    /// The whole block as ManagedMemory (host_access, prefetch, copies, device_buffer). A copy of it
    /// outliving the PooledSVM keeps the memory allocated, but not out of the pool: do not use it
    /// after release(). ArgumentError once released.
    const ManagedMemory& memory() const;

    /// Returns the block to its pool now (PyOpenCL's release; see the header comment for the
    /// ordering against the bound queue's work). Does nothing if already released.
    void release() noexcept;
    /// The same as release() (PyOpenCL's name, for symmetry with SVMAllocation).
    void enqueue_release() noexcept { release(); }
    /// The queue whose work may use the block until it is released; `queue` must be of the pool's
    /// context (ArgumentError otherwise, or once released).
    void bind_to_queue(const Queue& queue);
    /// No queue's work uses the block any more: it may be handed out without waiting once released.
    void unbind_from_queue();

private:
    friend struct detail::SvmPoolState;
    PooledSVM(std::shared_ptr<const ManagedMemory> memory, detail::SvmBlock* block, std::size_t size, Context context)
        : memory_(std::move(memory)), block_(block), size_(size), context_(std::move(context)) {}

    std::shared_ptr<const ManagedMemory> memory_;  // returns the block when it goes
    detail::SvmBlock* block_ = nullptr;            // valid while memory_ is held
    std::size_t size_ = 0;
    std::optional<Context> context_;
};

/// A pool of managed (shared virtual) memory blocks of a context, reused by size bin as MemoryPool
/// reuses device buffers. Copies share the pool.
class SVMPool : public detail::PoolCounters<SVMPool> {
public:
    /// A pool of managed memory of `context` (every device of it may use the blocks), allocated
    /// with `flags`. UnsupportedError, when the first block is allocated, where a device of the
    /// context has no managed / shared virtual memory (ManagedMemory::allocate).
    explicit SVMPool(const Context& context, ManagedMemoryFlags flags = {}, unsigned leading_bits_in_bin_id = 4);

    /// `size` > 0 bytes, not bound to a queue (PyOpenCL's SVMPool(size)). ArgumentError for 0.
    PooledSVM allocate(std::size_t size) const;
    /// `size` > 0 bytes bound to `queue` (of the pool's context).
    PooledSVM allocate(const Queue& queue, std::size_t size) const;
    PooledSVM operator()(std::size_t size) const { return allocate(size); }

    MemoryPoolStatistics statistics() const;
    /// Frees every block the pool holds.
    void free_held() const;
    /// From now on released blocks are freed, not held; frees what is held.
    void stop_holding() const;
    unsigned leading_bits_in_bin_id() const;

private:
    std::shared_ptr<detail::SvmPoolState> state_;
};

/// The kernel argument of a PooledSVM: its pointer, as for ManagedMemory. ArgumentError once
/// released.
detail::KernelArg pack_kernel_arg(const PooledSVM& memory, const detail::LaunchTarget& target);

}  // namespace kjarni
