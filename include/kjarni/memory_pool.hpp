#pragma once
/// Allocators and a memory pool for device buffers (PyOpenCL's allocators and
/// MemoryPool).
///
/// Anything that makes buffers is an Allocator: Buffer::allocate, DeferredAllocator,
/// ImmediateAllocator, a MemoryPool (copies of a MemoryPool share one pool).
///
/// Bins. A freed block is held in a bin named by the leading bits of its size: the top set bit and
/// the `leading_bits_in_bin_id` bits after it. Every request is rounded up to the largest size with
/// the same leading bits (all lower bits set), so any block of a bin serves any request of that bin;
/// the rounding wastes less than 1 / 2^leading_bits_in_bin_id of a request. Sizes of fewer
/// significant bits are their own bins, unrounded.
///
/// Queue-ordered reuse. A block allocated for a queue (allocate(queue, size)) may still be in use by
/// work enqueued on that queue when its last Buffer handle goes. Such a block is handed out again
///  - at once to a request on the same queue: the queue runs in order, so the new user's work comes
///    after the old user's;
///  - to a request on any other queue only behind an event recorded on the old queue at that moment:
///    the new queue waits for it (Queue::wait_for) before the block is returned, so nothing the new
///    user enqueues can start before the old user's work has finished.
/// Blocks allocated without a queue (allocate(device, size), or the pool used as an Allocator) carry
/// no such guarantee, as with PyOpenCL: the caller must know the old work is done or on the queue
/// the next user uses.
///
/// Returning. A block goes back to the pool when the last handle to it (copies and sub-regions
/// included) goes, even after every copy of the MemoryPool has gone (it is then freed). Handing out
/// a held block allocates nothing.
///
/// Out of memory. When the allocator reports OutOfMemoryError, the pool frees every block it holds
/// and tries once more before letting the error through.
///
/// All members are safe to call from several threads at once. \file

#include <cstddef>
#include <functional>
#include <memory>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/pool_statistics.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

using Allocator = std::function<Buffer(const BoundDevice& device, std::size_t size)>;

/// Buffer::allocate. On OpenCL the driver may allocate lazily: a request it cannot serve can fail
/// later, at first use.
class DeferredAllocator {
public:
    Buffer operator()(const BoundDevice& device, std::size_t size) const;
};

/// Makes sure the memory exists before returning, so that out-of-memory is reported here: on OpenCL
/// it writes one byte of the new buffer through `queue` and waits. (CUDA allocates eagerly.)
class ImmediateAllocator {
public:
    explicit ImmediateAllocator(Queue queue) : queue_(std::move(queue)) {}
    Buffer operator()(const BoundDevice& device, std::size_t size) const;

private:
    Queue queue_;
};

namespace detail {
struct PoolState;
}

/// A pool of device buffers that reuses freed blocks by size bin instead of allocating anew (see
/// the top of the file for queue-ordered reuse). Copies share the pool; it is an Allocator.
class MemoryPool : public detail::PoolCounters<MemoryPool> {
public:
    explicit MemoryPool(Allocator allocator = DeferredAllocator{}, unsigned leading_bits_in_bin_id = 4);

    /// A buffer of `size` bytes for work on `queue` (queue-ordered reuse, see above).
    Buffer allocate(const Queue& queue, std::size_t size) const;
    /// A buffer of `size` bytes on `device`, without queue ordering.
    Buffer allocate(const BoundDevice& device, std::size_t size) const;
    /// As allocate(device, size): a MemoryPool is an Allocator.
    Buffer operator()(const BoundDevice& device, std::size_t size) const { return allocate(device, size); }

    MemoryPoolStatistics statistics() const;

    /// Frees every block the pool holds.
    void free_held() const;
    /// From now on returned blocks are freed, not held; frees what is held.
    void stop_holding() const;

    unsigned leading_bits_in_bin_id() const;
    /// The bin of a request size, and the size every block of that bin has.
    static std::size_t bin_number(std::size_t size, unsigned leading_bits_in_bin_id);
    static std::size_t allocation_size(std::size_t size, unsigned leading_bits_in_bin_id);

private:
    std::shared_ptr<detail::PoolState> state_;
};

}  // namespace kjarni
