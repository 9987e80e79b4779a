// SVMPool: managed / shared virtual memory in the bins of the pool core, with MemoryPool's
// queue-ordered reuse.

#include "kjarni/svm_pool.hpp"

#include <fmt/format.h>

#include "backend/backend.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "kjarni/error.hpp"
#include "memory/bins.hpp"
#include "memory/pool_core.hpp"
#include "memory/pooled_handle.hpp"
#include "memory/queue_handover.hpp"

namespace kjarni {

namespace detail {

// A whole allocation, made for the rounded size of its bin.
struct SvmBlock final : PooledBlock {
    explicit SvmBlock(ManagedMemory m) : memory(std::move(m)) { bytes = memory.size(); }
    ManagedMemory memory;
    std::shared_ptr<backend::Queue> owner;  // the queue whose work may still use it; null: none
};

struct SvmPoolState {
    Context context;
    ManagedMemoryFlags flags;
    std::shared_ptr<PoolCore> core;

    SvmPoolState(Context c, ManagedMemoryFlags f, unsigned bits)
        : context(std::move(c)), flags(f), core(std::make_shared<PoolCore>(bits)) {}
    SvmPoolState(const SvmPoolState&) = delete;
    SvmPoolState& operator=(const SvmPoolState&) = delete;
    ~SvmPoolState() { core->stop_holding(); }

    PooledSVM allocate(const std::shared_ptr<backend::Queue>* queue, std::size_t size);
};

namespace {

// Which held block serves a request: one of the request's own queue needs no waiting (it ends the
// search), then one that no queue uses, then another queue's (behind its event).
struct RankSvm {
    const backend::Queue* queue;
    int operator()(const PooledBlock& block) const noexcept {
        const backend::Queue* owner = static_cast<const SvmBlock&>(block).owner.get();
        if (owner == queue) return 2;
        if (owner == nullptr) return 1;
        return 0;
    }
};

}  // namespace

PooledSVM SvmPoolState::allocate(const std::shared_ptr<backend::Queue>* queue, std::size_t size) {
    if (size == 0) throw ArgumentError("size", "an SVMPool allocation needs at least one byte");
    const void* key = backend_of(context).get();
    const backend::Queue* queue_impl = queue != nullptr ? queue->get() : nullptr;
    auto* block = static_cast<SvmBlock*>(core->take(key, 0, size, RankSvm{queue_impl}));
    if (block == nullptr) {
        const std::size_t rounded = bin_allocation_size(size, core->leading_bits());
        ManagedMemory fresh = [&] {
            try {
                return ManagedMemory::allocate(context, rounded, flags);
            } catch (const OutOfMemoryError&) {
                core->free_held();  // what the pool holds may be what the device lacks
                return ManagedMemory::allocate(context, rounded, flags);
            }
        }();
        auto made = std::make_unique<SvmBlock>(std::move(fresh));
        core->adopt(core, *made, key, 0, size);
        block = made.release();
    } else if (block->owner && block->owner.get() != queue_impl) {
        // Another queue's work may still use the block: the new user waits for all of it.
        try {
            wait_for_previous_owner(queue != nullptr ? queue->get() : nullptr, *block->owner);
        } catch (...) {
            block->core->give_back(block);
            throw;
        }
    }
    block->owner = queue != nullptr ? *queue : nullptr;
    std::shared_ptr<const ManagedMemory> handle = make_pooled_handle<ManagedMemory>(&block->memory, block);
    return PooledSVM(std::move(handle), block, size, context);
}

}  // namespace detail

PooledSVM::PooledSVM(PooledSVM&& other) noexcept
    : memory_(std::move(other.memory_)), block_(std::exchange(other.block_, nullptr)),
      size_(std::exchange(other.size_, 0)), context_(std::move(other.context_)) {}

PooledSVM& PooledSVM::operator=(PooledSVM&& other) noexcept {
    if (this != &other) {
        release();
        memory_ = std::move(other.memory_);
        block_ = std::exchange(other.block_, nullptr);
        size_ = std::exchange(other.size_, 0);
        context_ = std::move(other.context_);
    }
    return *this;
}

PooledSVM::~PooledSVM() { release(); }

std::byte* PooledSVM::data() const noexcept { return memory_ ? memory_->data() : nullptr; }

const ManagedMemory& PooledSVM::memory() const {
    if (!memory_) throw ArgumentError("PooledSVM", "has been released");
    return *memory_;
}

void PooledSVM::release() noexcept {
    block_ = nullptr;
    size_ = 0;
    memory_.reset();  // the last handle: the block goes back to its pool
}

void PooledSVM::bind_to_queue(const Queue& queue) {
    if (!memory_) throw ArgumentError("PooledSVM", "has been released");
    if (!(queue.device().context() == *context_)) {
        throw ArgumentError("queue", "is not of the context of the SVMPool the memory came from");
    }
    block_->owner = detail::backend_of(queue);
}

void PooledSVM::unbind_from_queue() {
    if (!memory_) throw ArgumentError("PooledSVM", "has been released");
    block_->owner = nullptr;
}

SVMPool::SVMPool(const Context& context, ManagedMemoryFlags flags, unsigned leading_bits_in_bin_id) {
    if (leading_bits_in_bin_id > 16) {
        throw ArgumentError("leading_bits_in_bin_id",
                            fmt::format("must be at most 16, got {}", leading_bits_in_bin_id));
    }
    state_ = std::make_shared<detail::SvmPoolState>(context, flags, leading_bits_in_bin_id);
}

PooledSVM SVMPool::allocate(std::size_t size) const { return state_->allocate(nullptr, size); }

PooledSVM SVMPool::allocate(const Queue& queue, std::size_t size) const {
    if (!(queue.device().context() == state_->context)) {
        throw ArgumentError("queue", "is not of the SVMPool's context");
    }
    return state_->allocate(&detail::backend_of(queue), size);
}

MemoryPoolStatistics SVMPool::statistics() const { return state_->core->statistics(); }
void SVMPool::free_held() const { state_->core->free_held(); }
void SVMPool::stop_holding() const { state_->core->stop_holding(); }
unsigned SVMPool::leading_bits_in_bin_id() const { return state_->core->leading_bits(); }

detail::KernelArg pack_kernel_arg(const PooledSVM& memory, const detail::LaunchTarget& target) {
    if (!memory) throw ArgumentError("PooledSVM", "has been released");
    detail::KernelArg arg = pack_kernel_arg(memory.memory(), target);
    arg.size = memory.size();
    return arg;
}

}  // namespace kjarni
