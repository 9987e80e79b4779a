#include "kjarni/host_memory.hpp"

#include <fmt/format.h>

#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "core/buffer_access.hpp"
#include "kjarni/error.hpp"
#include "memory/page_locked_registry.hpp"

namespace kjarni {

namespace {

backend::HostAllocationFlags to_backend(HostMemoryFlags flags) {
    return {.portable = flags.portable, .mapped = flags.mapped, .write_combined = flags.write_combined};
}

}  // namespace

HostMemory::HostMemory(Context context, std::shared_ptr<backend::HostAllocation> impl, std::size_t size,
                       HostMemoryFlags flags)
    : context_(std::move(context)), impl_(std::move(impl)),
      data_(impl_ ? static_cast<std::byte*>(impl_->host_pointer()) : nullptr), size_(size), flags_(flags) {}

HostMemory HostMemory::allocate(const Context& context, std::size_t size, HostMemoryFlags flags) {
    if (size == 0) {
        // Nothing to allocate, but the flags are checked as for any size.
        if (flags.write_combined && context.api().id() == ApiId::opencl()) {
            throw UnsupportedError("OpenCL cannot allocate write-combined host memory");
        }
        return HostMemory(context, nullptr, 0, flags);
    }
    return HostMemory(context, detail::allocate_page_locked(*context.backend(), size, to_backend(flags)), size, flags);
}

Buffer HostMemory::device_buffer(const BoundDevice& device) const {
    if (!flags_.mapped) {
        throw UnsupportedError("only host memory allocated with HostMemoryFlags::mapped has a device buffer");
    }
    if (!(device.context() == context_)) {
        throw ArgumentError("device", "belongs to another context than the host memory");
    }
    if (!impl_) return Buffer::allocate(device, 0);
    std::shared_ptr<backend::Buffer> raw = impl_->device_buffer(device.index());
    // The buffer keeps this handle's allocation alive (for pooled memory: keeps the block out of
    // the pool) as long as any handle to it exists.
    backend::Buffer* pointer = raw.get();
    std::shared_ptr<backend::Buffer> kept(pointer, [raw = std::move(raw), keep = impl_](backend::Buffer*) {});
    return detail::BufferAccess::make(device, std::move(kept), 0, size_);
}

namespace detail {

struct HostBinKey {
    const backend::Context* context;
    std::size_t bin;
    friend bool operator==(const HostBinKey&, const HostBinKey&) = default;
};

struct HostBinKeyHash {
    std::size_t operator()(const HostBinKey& k) const noexcept {
        return std::hash<const void*>()(k.context) ^ (k.bin * 0x9E3779B97F4A7C15ULL);
    }
};

struct HostPoolState : std::enable_shared_from_this<HostPoolState> {
    HostMemoryFlags flags;
    unsigned leading_bits;
    std::mutex mutex;
    bool holding = true;
    // Held blocks keep their backend context alive, so a key's context pointer is never reused
    // while the key is in the map.
    std::unordered_map<HostBinKey, std::vector<std::shared_ptr<backend::HostAllocation>>, HostBinKeyHash> bins;
    MemoryPoolStatistics stats;

    HostPoolState(HostMemoryFlags f, unsigned bits) : flags(f), leading_bits(bits) {}

    std::shared_ptr<backend::HostAllocation> take(const Context& context, std::size_t size);
    void give_back(const backend::Context* context, std::shared_ptr<backend::HostAllocation> block,
                   std::size_t requested) noexcept;
    void free_held();
};

// Returns a block to its pool when the last handle to the memory goes (or frees it if the pool
// is gone).
struct HostReturner {
    std::weak_ptr<HostPoolState> pool;
    const backend::Context* context;  // kept alive by the block
    std::shared_ptr<backend::HostAllocation> block;
    std::size_t requested;
    void operator()(backend::HostAllocation*) noexcept {
        if (auto state = pool.lock()) state->give_back(context, std::move(block), requested);
    }
};

std::shared_ptr<backend::HostAllocation> HostPoolState::take(const Context& context, std::size_t size) {
    const HostBinKey key{context.backend().get(), MemoryPool::bin_number(size, leading_bits)};
    std::shared_ptr<backend::HostAllocation> block;
    {
        const std::lock_guard lock(mutex);
        auto bin = bins.find(key);
        if (bin != bins.end() && !bin->second.empty()) {
            block = std::move(bin->second.back());
            bin->second.pop_back();
            --stats.held_blocks;
            ++stats.active_blocks;
            stats.active_bytes += size;
        }
    }
    if (!block) {
        const std::size_t rounded = MemoryPool::allocation_size(size, leading_bits);
        const backend::HostAllocationFlags backend_flags{
            .portable = flags.portable, .mapped = flags.mapped, .write_combined = flags.write_combined};
        try {
            block = detail::allocate_page_locked(*context.backend(), rounded, backend_flags);
        } catch (const OutOfMemoryError&) {
            free_held();  // what the pool holds may be what the host lacks
            block = detail::allocate_page_locked(*context.backend(), rounded, backend_flags);
        }
        const std::lock_guard lock(mutex);
        stats.managed_bytes += block->size();
        ++stats.active_blocks;
        stats.active_bytes += size;
    }
    backend::HostAllocation* raw = block.get();
    return std::shared_ptr<backend::HostAllocation>(raw, HostReturner{weak_from_this(), key.context, std::move(block), size});
}

void HostPoolState::give_back(const backend::Context* context, std::shared_ptr<backend::HostAllocation> block,
                              std::size_t requested) noexcept {
    std::shared_ptr<backend::HostAllocation> to_free;
    {
        const std::lock_guard lock(mutex);
        --stats.active_blocks;
        stats.active_bytes -= requested;
        if (holding) {
            try {
                bins[HostBinKey{context, MemoryPool::bin_number(requested, leading_bits)}].push_back(block);
                ++stats.held_blocks;
                return;
            } catch (...) {  // no memory to hold it: free it instead
            }
        }
        stats.managed_bytes -= block->size();
        to_free = std::move(block);
    }
    // Freed here, outside the lock.
}

void HostPoolState::free_held() {
    std::unordered_map<HostBinKey, std::vector<std::shared_ptr<backend::HostAllocation>>, HostBinKeyHash> released;
    {
        const std::lock_guard lock(mutex);
        released.swap(bins);
        for (const auto& [key, blocks] : released) {
            for (const auto& block : blocks) stats.managed_bytes -= block->size();
        }
        stats.held_blocks = 0;
    }
    // Freed when `released` goes, outside the lock.
}

}  // namespace detail

HostMemoryPool::HostMemoryPool(HostMemoryFlags flags, unsigned leading_bits_in_bin_id)
    : state_(std::make_shared<detail::HostPoolState>(flags, leading_bits_in_bin_id)) {
    if (leading_bits_in_bin_id > 16) {
        throw ArgumentError("leading_bits_in_bin_id",
                            fmt::format("must be at most 16, got {}", leading_bits_in_bin_id));
    }
}

HostMemory HostMemoryPool::allocate(const Context& context, std::size_t size) const {
    if (size == 0) return HostMemory::allocate(context, 0, state_->flags);
    return HostMemory(context, state_->take(context, size), size, state_->flags);
}

HostMemoryFlags HostMemoryPool::flags() const { return state_->flags; }

unsigned HostMemoryPool::leading_bits_in_bin_id() const { return state_->leading_bits; }

MemoryPoolStatistics HostMemoryPool::statistics() const {
    const std::lock_guard lock(state_->mutex);
    return state_->stats;
}

void HostMemoryPool::free_held() const { state_->free_held(); }

void HostMemoryPool::stop_holding() const {
    {
        const std::lock_guard lock(state_->mutex);
        state_->holding = false;
    }
    state_->free_held();
}

}  // namespace kjarni
