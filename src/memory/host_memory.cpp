#include "kjarni/host_memory.hpp"

#include <fmt/format.h>

#include <utility>

#include "backend/backend.hpp"
#include "core/buffer_access.hpp"
#include "kjarni/error.hpp"
#include "memory/bins.hpp"
#include "memory/pool_core.hpp"
#include "memory/pooled_handle.hpp"
#include "staging/page_locked_registry.hpp"

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
    return HostMemory(context, detail::allocate_page_locked(*detail::backend_of(context), size, to_backend(flags)),
                      size, flags);
}

HostMemory HostMemory::register_memory(const Context& context, std::span<std::byte> host, HostMemoryFlags flags) {
    if (host.empty()) throw ArgumentError("host", "is empty: there is nothing to page-lock");
    return HostMemory(context,
                      detail::register_page_locked(*detail::backend_of(context), host.data(), host.size(),
                                                   to_backend(flags)),
                      host.size(), flags);
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

namespace {

struct HostBlock final : PooledBlock {
    explicit HostBlock(std::shared_ptr<backend::HostAllocation> a) : allocation(std::move(a)) {
        bytes = allocation->size();
    }
    std::shared_ptr<backend::HostAllocation> allocation;
};

// Host blocks carry no queue: any block of the bin serves.
struct AnyBlock {
    int operator()(const PooledBlock&) const noexcept { return 2; }
};

}  // namespace

// What a HostMemoryPool handle holds: its going stops the core holding blocks (pool_core.hpp).
struct HostPoolState {
    HostMemoryFlags flags;
    std::shared_ptr<PoolCore> core;

    HostPoolState(HostMemoryFlags f, unsigned bits) : flags(f), core(std::make_shared<PoolCore>(bits)) {}
    HostPoolState(const HostPoolState&) = delete;
    HostPoolState& operator=(const HostPoolState&) = delete;
    ~HostPoolState() { core->stop_holding(); }

    std::shared_ptr<backend::HostAllocation> take(const Context& context, std::size_t size);
};

std::shared_ptr<backend::HostAllocation> HostPoolState::take(const Context& context, std::size_t size) {
    const backend::Context* key = detail::backend_of(context).get();
    auto* block = static_cast<HostBlock*>(core->take(key, 0, size, AnyBlock{}));
    if (block == nullptr) {
        const std::size_t rounded = bin_allocation_size(size, core->leading_bits());
        std::shared_ptr<backend::HostAllocation> fresh;
        try {
            fresh = detail::allocate_page_locked(*detail::backend_of(context), rounded, to_backend(flags));
        } catch (const OutOfMemoryError&) {
            core->free_held();  // what the pool holds may be what the host lacks
            fresh = detail::allocate_page_locked(*detail::backend_of(context), rounded, to_backend(flags));
        }
        auto made = std::make_unique<HostBlock>(std::move(fresh));
        core->adopt(core, *made, key, 0, size);
        block = made.release();
    }
    return make_pooled_handle(block->allocation.get(), block);
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

unsigned HostMemoryPool::leading_bits_in_bin_id() const { return state_->core->leading_bits(); }

MemoryPoolStatistics HostMemoryPool::statistics() const { return state_->core->statistics(); }

void HostMemoryPool::free_held() const { state_->core->free_held(); }

void HostMemoryPool::stop_holding() const { state_->core->stop_holding(); }

}  // namespace kjarni
