#include <algorithm>
#include <atomic>
#include <iterator>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "backend/backend.hpp"
#include "core/buffer_access.hpp"
#include "kjarni/error.hpp"
#include "kjarni/virtual_buffers.hpp"

namespace kjarni {

namespace detail {

// The same definition as in memory_pool.cpp (the one friend of Buffer that makes handles).
namespace {

std::atomic<VirtualAllocationId> next_virtual_id{1};

}  // namespace

struct VirtualState : std::enable_shared_from_this<VirtualState> {
    enum class Kind { trivial, zero_offset };
    // Nested rather than in the anonymous namespace: a type with external linkage (VirtualState,
    // named by the public header) must not hold members of internal-linkage types (GCC's
    // -Wsubobject-linkage, which fires once this file is part of a unity batch).
    struct RealAllocation {
        Buffer buffer;
        std::vector<VirtualAllocationId> users;  // live virtual allocations in it
    };
    struct VirtualRecord {
        std::size_t size;
        std::uint64_t real;
    };

    BoundDevice device;
    Kind kind;
    std::mutex mutex;
    std::uint64_t next_real = 0;
    std::map<std::uint64_t, RealAllocation> reals;
    std::unordered_map<VirtualAllocationId, VirtualRecord> virtuals;

    VirtualState(BoundDevice d, Kind k) : device(std::move(d)), kind(k) {}

    Buffer allocate(std::size_t size, const VirtualDependencies& dependencies);
    void release(VirtualAllocationId id) noexcept;
};

namespace {

// Held as the deleter of a virtual allocation's handle: tells the manager when the last handle goes,
// keeps the real memory alive meanwhile, and names the allocation (std::get_deleter).
struct VirtualReleaser {
    std::weak_ptr<VirtualState> state;
    VirtualAllocationId id;
    Buffer real;
    void operator()(backend::Buffer*) const noexcept {
        if (auto s = state.lock()) s->release(id);
    }
};

}  // namespace

Buffer VirtualState::allocate(std::size_t size, const VirtualDependencies& dependencies) {
    std::optional<RealAllocation> dropped;  // freed after the lock is released
    const std::lock_guard lock(mutex);
    auto chosen = reals.end();
    if (kind == Kind::zero_offset) {
        auto usable = [&](const RealAllocation& real) {
            return std::none_of(real.users.begin(), real.users.end(),
                                [&](VirtualAllocationId user) { return dependencies.contains(user); });
        };
        // The smallest real allocation large enough that none of the dependencies uses.
        for (auto it = reals.begin(); it != reals.end(); ++it) {
            if (it->second.buffer.size() >= size && usable(it->second) &&
                (chosen == reals.end() || it->second.buffer.size() < chosen->second.buffer.size())) {
                chosen = it;
            }
        }
        if (chosen == reals.end()) {
            // An unused one too small is replaced by one of this size rather than kept beside it.
            auto smaller = reals.end();
            for (auto it = reals.begin(); it != reals.end(); ++it) {
                if (it->second.users.empty() &&
                    (smaller == reals.end() || it->second.buffer.size() > smaller->second.buffer.size())) {
                    smaller = it;
                }
            }
            if (smaller != reals.end()) {
                dropped = std::move(smaller->second);
                reals.erase(smaller);
            }
        }
    }
    if (chosen == reals.end()) {
        chosen = reals.emplace(next_real++, RealAllocation{Buffer::allocate(device, size), {}}).first;
    }
    const VirtualAllocationId id = next_virtual_id.fetch_add(1);
    virtuals.emplace(id, VirtualRecord{size, chosen->first});
    try {
        chosen->second.users.push_back(id);
        const Buffer& real = chosen->second.buffer;
        std::shared_ptr<backend::Buffer> handle(detail::backend_of(real).get(), VirtualReleaser{weak_from_this(), id, real});
        return BufferAccess::make(real, std::move(handle), size);
    } catch (...) {
        virtuals.erase(id);
        auto& users = chosen->second.users;
        users.erase(std::remove(users.begin(), users.end(), id), users.end());
        throw;
    }
}

void VirtualState::release(VirtualAllocationId id) noexcept {
    std::optional<RealAllocation> dropped;  // freed after the lock is released
    try {
        const std::lock_guard lock(mutex);
        auto v = virtuals.find(id);
        if (v == virtuals.end()) return;
        auto real = reals.find(v->second.real);
        virtuals.erase(v);
        if (real == reals.end()) return;
        auto& users = real->second.users;
        users.erase(std::remove(users.begin(), users.end(), id), users.end());
        if (kind == Kind::trivial && users.empty()) {
            dropped = std::move(real->second);
            reals.erase(real);
        }
    } catch (...) {  // a lock that cannot be taken: the bookkeeping keeps the allocation
    }
}

}  // namespace detail

std::optional<VirtualAllocationId> virtual_allocation_id(const Buffer& buffer) {
    if (auto* releaser = std::get_deleter<detail::VirtualReleaser>(detail::backend_of(buffer))) return releaser->id;
    return std::nullopt;
}

VirtualDependencies VirtualDependencies::from_ids(std::vector<VirtualAllocationId> ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    VirtualDependencies result;
    result.ids_ = std::move(ids);
    return result;
}

void VirtualDependencies::add(const Buffer& buffer) {
    if (auto id = virtual_allocation_id(buffer)) {
        auto it = std::lower_bound(ids_.begin(), ids_.end(), *id);
        if (it == ids_.end() || *it != *id) ids_.insert(it, *id);
    }
}

void VirtualDependencies::add(const VirtualDependencies& other) {
    std::vector<VirtualAllocationId> merged;
    merged.reserve(ids_.size() + other.ids_.size());
    std::set_union(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end(), std::back_inserter(merged));
    ids_ = std::move(merged);
}

bool VirtualDependencies::contains(VirtualAllocationId id) const noexcept {
    return std::binary_search(ids_.begin(), ids_.end(), id);
}

VirtualAllocator::VirtualAllocator(const VirtualManager& manager, VirtualDependencies dependencies)
    : state_(manager.state_), dependencies_(std::move(dependencies)) {}

Buffer VirtualAllocator::operator()(const BoundDevice& device, std::size_t size) const {
    if (!(device == state_->device)) {
        throw ArgumentError("device", "a virtual allocator makes buffers on its manager's device only");
    }
    return state_->allocate(size, dependencies_);
}

VirtualManager::VirtualManager(const BoundDevice& device, Kind kind)
    : state_(std::make_shared<detail::VirtualState>(
          device, kind == Kind::trivial ? detail::VirtualState::Kind::trivial : detail::VirtualState::Kind::zero_offset)) {}

const BoundDevice& VirtualManager::device() const noexcept { return state_->device; }

VirtualAllocator VirtualManager::allocator(VirtualDependencies dependencies) const {
    return VirtualAllocator(*this, std::move(dependencies));
}

Buffer VirtualManager::allocate(std::size_t size, const VirtualDependencies& dependencies) const {
    return state_->allocate(size, dependencies);
}

void VirtualManager::pack(const Queue& queue) const {
    if (!(queue.device() == state_->device)) {
        throw ArgumentError("queue", "must be on the manager's device");
    }
    queue.synchronize();
    std::vector<detail::VirtualState::RealAllocation> dropped;  // freed after the lock is released
    const std::lock_guard lock(state_->mutex);
    for (auto it = state_->reals.begin(); it != state_->reals.end();) {
        if (it->second.users.empty()) {
            dropped.push_back(std::move(it->second));
            it = state_->reals.erase(it);
        } else {
            ++it;
        }
    }
}

VirtualAllocationStatistics VirtualManager::statistics() const {
    VirtualAllocationStatistics s;
    const std::lock_guard lock(state_->mutex);
    for (const auto& [id, real] : state_->reals) {
        ++s.real_num;
        s.real_size_total += real.buffer.size();
        ++s.real_sizes[real.buffer.size()];
    }
    for (const auto& [id, v] : state_->virtuals) {
        ++s.virtual_num;
        s.virtual_size_total += v.size;
        ++s.virtual_sizes[v.size];
    }
    return s;
}

}  // namespace kjarni
