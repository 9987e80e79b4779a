#pragma once
/// What a pool of memory blocks (MemoryPool, HostMemoryPool, SVMPool) reports: the blocks it holds
/// and has handed out, in blocks and bytes. \file

#include <cstddef>

namespace kjarni {

/// What a MemoryPool holds and has handed out, in blocks and bytes.
struct MemoryPoolStatistics {
    /// Unused blocks the pool holds.
    std::size_t held_blocks = 0;
    /// Blocks handed out and not yet returned.
    std::size_t active_blocks = 0;
    /// Bytes of all blocks, held and active (their rounded sizes).
    std::size_t managed_bytes = 0;
    /// Bytes the application asked for in the active blocks.
    std::size_t active_bytes = 0;
};

namespace detail {

/// The counters of a pool, each one field of its statistics() (a MemoryPoolStatistics taken at
/// once: read several counters from one statistics() call where they must agree).
template <class Pool>
class PoolCounters {
public:
    std::size_t held_blocks() const { return pool().statistics().held_blocks; }
    std::size_t active_blocks() const { return pool().statistics().active_blocks; }
    std::size_t managed_bytes() const { return pool().statistics().managed_bytes; }
    std::size_t active_bytes() const { return pool().statistics().active_bytes; }

private:
    const Pool& pool() const { return static_cast<const Pool&>(*this); }
};

}  // namespace detail

}  // namespace kjarni
