#pragma once
// What MemoryPool and HostMemoryPool share: held blocks in bins, statistics, holding or not, under
// one mutex. The pools add what a block is and how a handle to it is made.
//
// Held blocks sit in intrusive lists, one a bin, in a table per (context, device) indexed directly
// by bin slot (bins.hpp): a hit is one lock, a short scan of one list and no allocation.
//
// Lifetime: every block holds the core (shared), so a handed-out block can come back whatever
// happened to its pool meanwhile. The pool object the user sees holds the core too and calls
// stop_holding() when it goes, which frees what is held (breaking the cycle of held blocks holding
// the core that holds them) and makes blocks that come back later be freed.

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "kjarni/memory_pool.hpp"
#include "memory/bins.hpp"

namespace kjarni::detail {

class PoolCore;
struct BinTable;

/// A block the pool manages, held or handed out. Pools derive their block type from it.
struct PooledBlock {
    PooledBlock() = default;
    PooledBlock(const PooledBlock&) = delete;
    PooledBlock& operator=(const PooledBlock&) = delete;
    virtual ~PooledBlock() = default;

    /// The core it returns to (set by PoolCore::adopt).
    std::shared_ptr<PoolCore> core;
    /// Its rounded size (what managed_bytes counts).
    std::size_t bytes = 0;
    /// While handed out: the size the user asked for (what active_bytes counts).
    std::size_t requested = 0;

    // The core's bookkeeping, under its mutex.
    PooledBlock* next_held = nullptr;
    PooledBlock** bin = nullptr;
    BinTable* table = nullptr;

    /// Room for the control block of the handle handed out (pooled_handle.hpp), reused each time.
    alignas(std::max_align_t) std::byte handle_storage[64];
};

/// The bins of one (context, device).
struct BinTable {
    const void* context;
    std::size_t device;
    /// Blocks of this table handed out: the table stays while any is out (they point into it).
    std::size_t active = 0;
    std::array<std::unique_ptr<PooledBlock*[]>, bin_levels> levels;

    /// The list head of a bin (its level made on first use).
    PooledBlock*& bin(BinSlot slot, unsigned bits);
};

class PoolCore {
public:
    explicit PoolCore(unsigned leading_bits) : bits_(leading_bits) {}
    PoolCore(const PoolCore&) = delete;
    PoolCore& operator=(const PoolCore&) = delete;
    ~PoolCore();

    unsigned leading_bits() const noexcept { return bits_; }

    /// Hands out a held block of the bin of `size` of (context, device), or returns nullptr. Among
    /// the bin's blocks, `rank(block)` picks: the first block ranked highest, ranks below 0 never;
    /// a rank of 2 or more ends the scan at once.
    template <class Rank>
    PooledBlock* take(const void* context, std::size_t device, std::size_t size, Rank rank);

    /// Counts a new block (of `block->bytes`, made for a request of `size`) as handed out, and
    /// fixes the bin it returns to.
    void adopt(const std::shared_ptr<PoolCore>& self, PooledBlock& block, const void* context, std::size_t device,
               std::size_t size);

    /// A handed-out block comes back: held, or freed when not holding. May drop the last reference
    /// to this core (the caller must not use it afterwards).
    void give_back(PooledBlock* block) noexcept;

    MemoryPoolStatistics statistics() const;
    /// Frees every held block.
    void free_held();
    /// Frees what is held, and from now on every block that comes back.
    void stop_holding();

private:
    BinTable& table_for(const void* context, std::size_t device);

    const unsigned bits_;
    mutable std::mutex mutex_;
    bool holding_ = true;
    MemoryPoolStatistics stats_;
    std::vector<std::unique_ptr<BinTable>> tables_;
};

template <class Rank>
PooledBlock* PoolCore::take(const void* context, std::size_t device, std::size_t size, Rank rank) {
    const std::lock_guard lock(mutex_);
    PooledBlock*& head = table_for(context, device).bin(bin_slot(size, bits_), bits_);
    PooledBlock** best = nullptr;
    int best_rank = -1;
    for (PooledBlock** link = &head; *link != nullptr; link = &(*link)->next_held) {
        const int r = rank(**link);
        if (r > best_rank) {
            best = link;
            best_rank = r;
            if (r >= 2) break;
        }
    }
    if (best == nullptr) return nullptr;
    PooledBlock* block = *best;
    *best = block->next_held;
    block->next_held = nullptr;
    block->requested = size;
    ++block->table->active;
    --stats_.held_blocks;
    ++stats_.active_blocks;
    stats_.active_bytes += size;
    return block;
}

}  // namespace kjarni::detail
