#include "kjarni/memory_pool.hpp"

#include <bit>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backend/backend.hpp"
#include "core/buffer_access.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace detail {

struct Block {
    Buffer buffer;                           // the whole block, as the allocator made it
    std::shared_ptr<backend::Queue> owner;   // the queue whose work may still use it; null: none
};

struct BinKey {
    const backend::Context* context;
    std::size_t device_index;
    std::size_t bin;
    friend bool operator==(const BinKey&, const BinKey&) = default;
};

struct BinKeyHash {
    std::size_t operator()(const BinKey& k) const noexcept {
        return std::hash<const void*>()(k.context) ^ (k.device_index * 0x9E3779B97F4A7C15ULL) ^ (k.bin << 7);
    }
};

struct PoolState : std::enable_shared_from_this<PoolState> {
    Allocator allocator;
    unsigned leading_bits;
    std::mutex mutex;
    bool holding = true;
    std::unordered_map<BinKey, std::vector<Block>, BinKeyHash> bins;
    MemoryPoolStatistics stats;

    PoolState(Allocator a, unsigned bits) : allocator(std::move(a)), leading_bits(bits) {}

    Buffer allocate(const BoundDevice& device, const std::shared_ptr<backend::Queue>& queue, std::size_t size);
    void give_back(Block block, std::size_t requested) noexcept;
    void free_held();
};

// Returns a block to its pool when the last handle of a handed-out buffer goes.
struct Returner {
    std::weak_ptr<PoolState> pool;
    std::shared_ptr<Block> block;
    std::size_t requested;
    void operator()(backend::Buffer*) const noexcept {
        if (auto state = pool.lock()) state->give_back(std::move(*block), requested);
    }
};

Buffer PoolState::allocate(const BoundDevice& device, const std::shared_ptr<backend::Queue>& queue,
                           std::size_t size) {
    const std::size_t rounded = MemoryPool::allocation_size(size, leading_bits);
    const BinKey key{device.context().backend().get(), device.index(), MemoryPool::bin_number(size, leading_bits)};
    std::optional<Block> found;
    {
        const std::lock_guard lock(mutex);
        auto bin = bins.find(key);
        if (bin != bins.end() && !bin->second.empty()) {
            auto& blocks = bin->second;
            // Prefer a block of this queue (no waiting), then one no queue may still use; a request
            // with a queue may also take another queue's block, behind an event (below).
            auto pick = blocks.end();
            for (auto it = blocks.begin(); it != blocks.end(); ++it) {
                if (queue && it->owner == queue) {
                    pick = it;
                    break;
                }
                if (!it->owner && pick == blocks.end()) pick = it;
            }
            if (pick == blocks.end() && queue) pick = blocks.begin();
            if (pick != blocks.end()) {
                found = std::move(*pick);
                *pick = std::move(blocks.back());
                blocks.pop_back();
                --stats.held_blocks;
                ++stats.active_blocks;
                stats.active_bytes += size;
            }
        }
    }
    if (found && found->owner && found->owner != queue) {
        // Another queue's work may still use the block: this queue waits for all of it.
        auto event = found->owner->record_event();
        queue->wait_for(*event);
    }
    if (!found) {
        Buffer fresh = [&] {
            try {
                return allocator(device, rounded);
            } catch (const OutOfMemoryError&) {
                free_held();  // what the pool holds may be what the device lacks
                return allocator(device, rounded);
            }
        }();
        if (fresh.size() < rounded || !(fresh.device() == device)) {
            throw ArgumentError("allocator", "returned a buffer of another device or smaller than requested");
        }
        const std::lock_guard lock(mutex);
        stats.managed_bytes += fresh.size();
        ++stats.active_blocks;
        stats.active_bytes += size;
        found = Block{std::move(fresh), nullptr};
    }
    found->owner = queue;
    auto block = std::make_shared<Block>(std::move(*found));
    backend::Buffer* raw = block->buffer.backend().get();
    std::shared_ptr<backend::Buffer> handle(raw, Returner{weak_from_this(), block, size});
    return BufferAccess::make(block->buffer, std::move(handle), size);
}

void PoolState::give_back(Block block, std::size_t requested) noexcept {
    const BinKey key{block.buffer.device().context().backend().get(), block.buffer.device().index(),
                     MemoryPool::bin_number(requested, leading_bits)};
    std::optional<Block> to_free;
    {
        const std::lock_guard lock(mutex);
        --stats.active_blocks;
        stats.active_bytes -= requested;
        if (holding) {
            try {
                bins[key].push_back(std::move(block));
                ++stats.held_blocks;
                return;
            } catch (...) {  // no memory to hold it: free it instead
            }
        }
        stats.managed_bytes -= block.buffer.size();
        to_free = std::move(block);
    }
    // Freed here, outside the lock: a driver free may take a while.
}

void PoolState::free_held() {
    std::unordered_map<BinKey, std::vector<Block>, BinKeyHash> released;
    {
        const std::lock_guard lock(mutex);
        released.swap(bins);
        for (const auto& [key, blocks] : released) {
            for (const Block& block : blocks) stats.managed_bytes -= block.buffer.size();
        }
        stats.held_blocks = 0;
    }
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

MemoryPool::MemoryPool(Allocator allocator, unsigned leading_bits_in_bin_id)
    : state_(std::make_shared<detail::PoolState>(std::move(allocator), leading_bits_in_bin_id)) {
    if (leading_bits_in_bin_id > 16) {
        throw ArgumentError("leading_bits_in_bin_id", "must be at most 16, got " + std::to_string(leading_bits_in_bin_id));
    }
    if (!state_->allocator) throw ArgumentError("allocator", "is empty");
}

Buffer MemoryPool::allocate(const Queue& queue, std::size_t size) const {
    return state_->allocate(queue.device(), queue.backend(), size);
}

Buffer MemoryPool::allocate(const BoundDevice& device, std::size_t size) const {
    return state_->allocate(device, nullptr, size);
}

MemoryPoolStatistics MemoryPool::statistics() const {
    const std::lock_guard lock(state_->mutex);
    return state_->stats;
}

void MemoryPool::free_held() const { state_->free_held(); }

void MemoryPool::stop_holding() const {
    {
        const std::lock_guard lock(state_->mutex);
        state_->holding = false;
    }
    state_->free_held();
}

unsigned MemoryPool::leading_bits_in_bin_id() const { return state_->leading_bits; }

std::size_t MemoryPool::bin_number(std::size_t size, unsigned leading_bits_in_bin_id) {
    // (shift, top bits) packed into one number: small sizes (shift 0) are bins of their own.
    const unsigned keep = leading_bits_in_bin_id + 1;
    const auto significant = static_cast<unsigned>(std::bit_width(size));
    const unsigned shift = significant > keep ? significant - keep : 0;
    return (std::size_t{shift} << keep) | (size >> shift);
}

std::size_t MemoryPool::allocation_size(std::size_t size, unsigned leading_bits_in_bin_id) {
    const unsigned keep = leading_bits_in_bin_id + 1;
    const auto significant = static_cast<unsigned>(std::bit_width(size));
    const unsigned shift = significant > keep ? significant - keep : 0;
    return ((size >> shift) << shift) | ((std::size_t{1} << shift) - 1);
}

}  // namespace kjarni
