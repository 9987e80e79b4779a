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
        // The live allocations it was declared dependent on when it was made (dependency is
        // symmetric: pack() checks both records of a pair).
        std::vector<VirtualAllocationId> dependencies;
        // The cell every handle of it reads its backend buffer from; pack() re-points it.
        std::weak_ptr<std::shared_ptr<backend::Buffer>> target;
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
    /// pack(): frees the unused real allocations, then moves the live virtual allocations to a
    /// denser arrangement when that takes less memory. Called with the mutex held.
    void free_unused(std::vector<RealAllocation>& dropped);
    void relocate(const Queue& queue, std::vector<RealAllocation>& dropped);
    bool dependent(const VirtualRecord& a, VirtualAllocationId a_id, const VirtualRecord& b,
                   VirtualAllocationId b_id) const;
};

namespace {

// Held as the deleter of a virtual allocation's identity handle: tells the manager when the last
// handle goes and names the allocation (std::get_deleter). The real memory is kept alive by the
// handles' shared target cell, which pack() re-points.
struct VirtualReleaser {
    std::weak_ptr<VirtualState> state;
    VirtualAllocationId id;
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
    std::vector<VirtualAllocationId> live_dependencies;
    for (VirtualAllocationId d : dependencies.ids()) {
        if (virtuals.count(d) != 0) live_dependencies.push_back(d);
    }
    const Buffer& real = chosen->second.buffer;
    auto target = std::make_shared<std::shared_ptr<backend::Buffer>>(detail::backend_of(real));
    virtuals.emplace(id, VirtualRecord{size, chosen->first, std::move(live_dependencies), target});
    try {
        chosen->second.users.push_back(id);
        // The identity handle owns no pointer: every use goes through the target cell.
        std::shared_ptr<backend::Buffer> identity(nullptr, VirtualReleaser{weak_from_this(), id});
        return BufferAccess::make_relocatable(real.device(), std::move(identity), std::move(target), real.offset(),
                                              size);
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

namespace detail {

bool VirtualState::dependent(const VirtualRecord& a, VirtualAllocationId a_id, const VirtualRecord& b,
                             VirtualAllocationId b_id) const {
    return std::binary_search(a.dependencies.begin(), a.dependencies.end(), b_id) ||
           std::binary_search(b.dependencies.begin(), b.dependencies.end(), a_id);
}

void VirtualState::free_unused(std::vector<RealAllocation>& dropped) {
    for (auto it = reals.begin(); it != reals.end();) {
        if (it->second.users.empty()) {
            dropped.push_back(std::move(it->second));
            it = reals.erase(it);
        } else {
            ++it;
        }
    }
}

// The live virtual allocations placed again from nothing, largest first, each in the smallest new
// real allocation (sized by its first, largest, user) that none of its dependencies uses: the
// assignment ZeroOffsetManager makes for requests, without the history that fragments it. The
// contents move with a device-to-device copy of each virtual allocation's bytes.
void VirtualState::relocate(const Queue& queue, std::vector<RealAllocation>& dropped) {
    struct Live {
        VirtualAllocationId id;
        const VirtualRecord* record;
        std::shared_ptr<std::shared_ptr<backend::Buffer>> target;
    };
    std::vector<Live> live;
    for (const auto& [id, record] : virtuals) {
        auto target = record.target.lock();
        if (!target) return;  // a handle going away at this moment: leave the arrangement as it is
        live.push_back({id, &record, std::move(target)});
    }
    std::sort(live.begin(), live.end(), [](const Live& a, const Live& b) {
        return a.record->size != b.record->size ? a.record->size > b.record->size : a.id < b.id;
    });
    struct Planned {
        std::size_t size;
        std::vector<std::size_t> users;  // indices into live
    };
    std::vector<Planned> planned;
    std::vector<std::size_t> placement(live.size());
    for (std::size_t i = 0; i < live.size(); ++i) {
        std::optional<std::size_t> best;
        for (std::size_t r = 0; r < planned.size(); ++r) {
            const bool usable = std::none_of(planned[r].users.begin(), planned[r].users.end(), [&](std::size_t u) {
                return dependent(*live[i].record, live[i].id, *live[u].record, live[u].id);
            });
            if (usable && (!best || planned[r].size < planned[*best].size)) best = r;
        }
        if (!best) {
            best = planned.size();
            planned.push_back({live[i].record->size, {}});
        }
        planned[*best].users.push_back(i);
        placement[i] = *best;
    }
    std::size_t old_total = 0;
    for (const auto& [id, real] : reals) old_total += real.buffer.size();
    std::size_t new_total = 0;
    for (const auto& p : planned) new_total += p.size;
    if (new_total >= old_total && planned.size() >= reals.size()) return;  // nothing to gain

    std::vector<Buffer> fresh;
    fresh.reserve(planned.size());
    for (const auto& p : planned) fresh.push_back(Buffer::allocate(device, p.size));
    // Copied smallest first, so that where allocations not declared dependent now share memory the
    // largest one's bytes (covering the others') are those that stay: any order is allowed, since
    // such allocations may overwrite one another at any time.
    for (std::size_t k = live.size(); k-- > 0;) {
        const VirtualRecord& record = *live[k].record;
        if (record.size == 0) continue;
        const Buffer& old_real = reals.at(record.real).buffer;
        fresh[placement[k]].get_sub_region(0, record.size).set(queue, old_real.get_sub_region(0, record.size), true);
    }
    queue.synchronize();  // the old memory is read before it is freed
    for (auto& [id, real] : reals) dropped.push_back(std::move(real));
    reals.clear();
    std::vector<std::uint64_t> real_ids;
    for (std::size_t r = 0; r < planned.size(); ++r) {
        real_ids.push_back(next_real);
        reals.emplace(next_real++, RealAllocation{fresh[r], {}});
    }
    for (std::size_t i = 0; i < live.size(); ++i) {
        const std::uint64_t real_id = real_ids[placement[i]];
        reals.at(real_id).users.push_back(live[i].id);
        virtuals.at(live[i].id).real = real_id;
        *live[i].target = detail::backend_of(reals.at(real_id).buffer);
    }
}

}  // namespace detail

std::optional<VirtualAllocationId> virtual_allocation_id(const Buffer& buffer) {
    if (auto* releaser = std::get_deleter<detail::VirtualReleaser>(detail::BufferAccess::identity(buffer))) {
        return releaser->id;
    }
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
    : state_(std::make_shared<detail::VirtualState>(device, kind == Kind::trivial
                                                                ? detail::VirtualState::Kind::trivial
                                                                : detail::VirtualState::Kind::zero_offset)) {}

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
    state_->free_unused(dropped);
    if (state_->kind == detail::VirtualState::Kind::zero_offset) state_->relocate(queue, dropped);
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
