#include "memory/pool_core.hpp"

#include <algorithm>

namespace kjarni::detail {

PooledBlock*& BinTable::bin(BinSlot slot, unsigned bits) {
    auto& level = levels[slot.level];
    if (!level) level.reset(new PooledBlock*[bin_level_width(slot.level, bits)]());
    return level[slot.index];
}

PoolCore::~PoolCore() = default;

BinTable& PoolCore::table_for(const void* context, std::size_t device) {
    // A pool serves few (context, device) pairs: a scan beats a hash. A context's address cannot
    // be reused while its table holds blocks (they keep the context alive); an empty table found
    // for a new context at a dead one's address serves it as well as a fresh one.
    for (const auto& table : tables_) {
        if (table->context == context && table->device == device) return *table;
    }
    tables_.push_back(std::make_unique<BinTable>(BinTable{context, device, 0, {}}));
    return *tables_.back();
}

void PoolCore::adopt(const std::shared_ptr<PoolCore>& self, PooledBlock& block, const void* context, std::size_t device,
                     std::size_t size) {
    block.core = self;
    block.requested = size;
    const std::lock_guard lock(mutex_);
    BinTable& table = table_for(context, device);
    block.bin = &table.bin(bin_slot(size, bits_), bits_);
    block.table = &table;
    ++table.active;
    stats_.managed_bytes += block.bytes;
    ++stats_.active_blocks;
    stats_.active_bytes += size;
}

void PoolCore::give_back(PooledBlock* block) noexcept {
    {
        const std::lock_guard lock(mutex_);
        --stats_.active_blocks;
        stats_.active_bytes -= block->requested;
        --block->table->active;
        if (holding_) {
            block->next_held = *block->bin;
            *block->bin = block;
            ++stats_.held_blocks;
            return;
        }
        stats_.managed_bytes -= block->bytes;
    }
    // Freed outside the lock (a driver free may take a while); last, as it may end this core.
    delete block;
}

MemoryPoolStatistics PoolCore::statistics() const {
    const std::lock_guard lock(mutex_);
    return stats_;
}

void PoolCore::free_held() {
    PooledBlock* released = nullptr;
    {
        const std::lock_guard lock(mutex_);
        for (const auto& table : tables_) {
            for (unsigned level = 0; level < bin_levels; ++level) {
                if (!table->levels[level]) continue;
                PooledBlock** bins = table->levels[level].get();
                for (std::size_t i = 0, width = bin_level_width(level, bits_); i < width; ++i) {
                    while (PooledBlock* block = bins[i]) {
                        bins[i] = block->next_held;
                        stats_.managed_bytes -= block->bytes;
                        block->next_held = released;
                        released = block;
                    }
                }
            }
        }
        stats_.held_blocks = 0;
        // Tables nothing points into any more go (their contexts may be gone too).
        std::erase_if(tables_, [](const auto& table) { return table->active == 0; });
    }
    // Freed outside the lock. The caller holds this core, so the last block cannot end it.
    while (released != nullptr) {
        PooledBlock* next = released->next_held;
        delete released;
        released = next;
    }
}

void PoolCore::stop_holding() {
    {
        const std::lock_guard lock(mutex_);
        holding_ = false;
    }
    free_held();
}

}  // namespace kjarni::detail
