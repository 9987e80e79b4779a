#include "kjarni/memory_pool.hpp"

#include <fmt/format.h>

#include "backend/backend.hpp"
#include "core/buffer_access.hpp"
#include "kjarni/error.hpp"
#include "memory/bins.hpp"
#include "memory/pool_core.hpp"
#include "memory/pooled_handle.hpp"
#include "memory/queue_handover.hpp"

namespace kjarni {

namespace detail {

namespace {

// The whole block, as the allocator made it, by its backend buffer only: a public Buffer would hold
// its context's state, and a pool kept in that state (as the algorithms keep their temporaries,
// one pool per context) would then keep its own context alive for ever. The backend buffer holds
// just the backend context, which outlives that state.
struct DeviceBlock final : PooledBlock {
    explicit DeviceBlock(const Buffer& b) : impl(detail::backend_of(b)), offset(b.offset()) { bytes = b.size(); }
    std::shared_ptr<backend::Buffer> impl;
    std::size_t offset;
    std::shared_ptr<backend::Queue> owner;  // the queue whose work may still use it; null: none
};

// Which held block serves a request on `queue` (null: none): one of the same queue needs no waiting
// (it ends the search), then one no queue may still use; a request with a queue may also take
// another queue's block, behind an event (see allocate).
struct RankForQueue {
    const backend::Queue* queue;
    int operator()(const PooledBlock& block) const noexcept {
        const backend::Queue* owner = static_cast<const DeviceBlock&>(block).owner.get();
        if (owner == queue) return 2;
        if (owner == nullptr) return 1;
        return queue != nullptr ? 0 : -1;
    }
};

}  // namespace

// What a MemoryPool handle holds: its going stops the core holding blocks (pool_core.hpp).
struct PoolState {
    Allocator allocator;
    std::shared_ptr<PoolCore> core;

    PoolState(Allocator a, unsigned bits) : allocator(std::move(a)), core(std::make_shared<PoolCore>(bits)) {}
    PoolState(const PoolState&) = delete;
    PoolState& operator=(const PoolState&) = delete;
    ~PoolState() { core->stop_holding(); }

    Buffer allocate(const BoundDevice& device, const std::shared_ptr<backend::Queue>* queue, std::size_t size);
    DeviceBlock* allocate_new(const BoundDevice& device, std::size_t size);
};

DeviceBlock* PoolState::allocate_new(const BoundDevice& device, std::size_t size) {
    const std::size_t rounded = bin_allocation_size(size, core->leading_bits());
    Buffer fresh = [&] {
        try {
            return allocator(device, rounded);
        } catch (const OutOfMemoryError&) {
            core->free_held();  // what the pool holds may be what the device lacks
            return allocator(device, rounded);
        }
    }();
    if (fresh.size() < rounded || !(fresh.device() == device)) {
        throw ArgumentError("allocator", "returned a buffer of another device or smaller than requested");
    }
    auto block = std::make_unique<DeviceBlock>(fresh);
    core->adopt(core, *block, detail::backend_of(device.context()).get(), device.index(), size);
    return block.release();
}

Buffer PoolState::allocate(const BoundDevice& device, const std::shared_ptr<backend::Queue>* queue, std::size_t size) {
    const backend::Queue* queue_impl = queue != nullptr ? queue->get() : nullptr;
    auto* block = static_cast<DeviceBlock*>(
        core->take(detail::backend_of(device.context()).get(), device.index(), size, RankForQueue{queue_impl}));
    if (block == nullptr) {
        block = allocate_new(device, size);
    } else if (block->owner.get() != queue_impl) {
        // Only a request with a queue gets here (RankForQueue). Another queue's work may still use
        // the block: this queue waits for all of it.
        try {
            if (block->owner) wait_for_previous_owner(queue->get(), *block->owner);
        } catch (...) {
            block->core->give_back(block);
            throw;
        }
    }
    if (block->owner.get() != queue_impl) block->owner = queue != nullptr ? *queue : nullptr;
    // `device` is the block's (blocks are held per backend context and device index).
    return BufferAccess::make(device, make_pooled_handle(block->impl.get(), block), block->offset, size);
}

}  // namespace detail

Buffer DeferredAllocator::operator()(const BoundDevice& device, std::size_t size) const {
    return Buffer::allocate(device, size);
}

Buffer ImmediateAllocator::operator()(const BoundDevice& device, std::size_t size) const {
    Buffer buffer = Buffer::allocate(device, size);
    if (size > 0 && device.context().api().id() == ApiId::opencl()) {
        // Touching the buffer makes the driver allocate it now; waiting makes a failure show here.
        const std::byte zero{0};
        buffer.get_sub_region(0, 1).fill(queue_, std::span(&zero, 1));
    }
    return buffer;
}

MemoryPool::MemoryPool(Allocator allocator, unsigned leading_bits_in_bin_id) {
    if (leading_bits_in_bin_id > 16) {
        throw ArgumentError("leading_bits_in_bin_id",
                            fmt::format("must be at most 16, got {}", leading_bits_in_bin_id));
    }
    if (!allocator) throw ArgumentError("allocator", "is empty");
    state_ = std::make_shared<detail::PoolState>(std::move(allocator), leading_bits_in_bin_id);
}

Buffer MemoryPool::allocate(const Queue& queue, std::size_t size) const {
    return state_->allocate(queue.device(), &detail::backend_of(queue), size);
}

Buffer MemoryPool::allocate(const BoundDevice& device, std::size_t size) const {
    return state_->allocate(device, nullptr, size);
}

MemoryPoolStatistics MemoryPool::statistics() const { return state_->core->statistics(); }

void MemoryPool::free_held() const { state_->core->free_held(); }

void MemoryPool::stop_holding() const { state_->core->stop_holding(); }

unsigned MemoryPool::leading_bits_in_bin_id() const { return state_->core->leading_bits(); }

std::size_t MemoryPool::bin_number(std::size_t size, unsigned leading_bits_in_bin_id) {
    return detail::bin_number(size, leading_bits_in_bin_id);
}

std::size_t MemoryPool::allocation_size(std::size_t size, unsigned leading_bits_in_bin_id) {
    return detail::bin_allocation_size(size, leading_bits_in_bin_id);
}

}  // namespace kjarni
