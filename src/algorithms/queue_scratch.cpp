#include "algorithms/queue_scratch.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "core/context_state.hpp"
#include "kjarni/context.hpp"
#include "kjarni/detail/backend_access.hpp"

namespace kjarni::detail {

namespace {

/// The counters a reduction's pieces need are few (one per launch today), so a set is made large
/// enough for more at once and grows only for an unusual launch.
constexpr std::size_t counters_per_set = 64;

/// One queue's memory of one kind: a zeroed buffer of `bytes` (4-byte counters, or a scan's state)
/// and, for a scan's state, the epoch its last launch took.
struct Area {
    std::shared_ptr<backend::Buffer> buffer;
    std::size_t bytes = 0;
    std::uint32_t epoch = 0;
};

/// Every queue's areas, per context (a service of its state, so it holds backend objects only: a
/// public Buffer would keep the context alive from inside). A queue is known by its backend
/// object; the areas of a queue that has gone are dropped when another queue's are made (a new
/// queue at the same address gets new, zeroed ones). Areas outgrown stay until the context goes:
/// launches enqueued before may still use them.
class QueueScratch {
public:
    KernelArg counters(const Queue& queue, std::size_t count) {
        const std::lock_guard lock(mutex_);
        Area& area = areas_for(queue).counters;
        if (area.bytes < 4 * count) grow(queue, area, 4 * std::max({count, counters_per_set, area.bytes / 2}));
        return argument(queue, area);
    }

    TaggedState scan_state(const Queue& queue, std::size_t bytes) {
        std::unique_lock<std::mutex> lock;
        Area* found = nullptr;
        {
            const std::lock_guard map_lock(mutex_);
            QueueAreas& areas = areas_for(queue);
            lock = std::unique_lock(areas.scan_mutex);
            found = &areas.scan;
        }
        Area& area = *found;
        if (area.bytes < bytes) {
            grow(queue, area, std::max(bytes, 2 * area.bytes));
            area.epoch = 0;
        }
        // Epoch 0 is what zeroed words carry: the epochs go 1, 2, ..., 2^32 - 1, then the words
        // are zeroed again (none can then carry a later launch's epoch from an earlier round).
        if (area.epoch == ~std::uint32_t{0}) {
            const std::uint32_t zero = 0;
            backend_of(queue)->fill(*area.buffer, 0, area.bytes, &zero, sizeof zero, false);
            area.epoch = 0;
        }
        ++area.epoch;
        return TaggedState{argument(queue, area), area.epoch, std::move(lock)};
    }

    void set_last_epoch(const Queue& queue, std::uint32_t epoch) {
        const std::lock_guard map_lock(mutex_);
        QueueAreas& areas = areas_for(queue);
        const std::lock_guard lock(areas.scan_mutex);
        if (areas.scan.buffer) areas.scan.epoch = epoch;
    }

private:
    struct QueueAreas {
        std::weak_ptr<backend::Queue> queue;
        Area counters;  // under mutex_
        /// Held from the epoch's choice to the launch's enqueue (TaggedState::hold): the queue's
        /// own, so that scans on other queues do not wait. An entry is dropped only when its queue
        /// has gone, so never while a launch on it holds this.
        std::mutex scan_mutex;
        Area scan;
    };

    QueueAreas& areas_for(const Queue& queue) {
        const std::shared_ptr<backend::Queue>& native = backend_of(queue);
        auto found = queues_.find(native.get());
        if (found != queues_.end() && found->second.queue.expired()) {
            queues_.erase(found);
            found = queues_.end();
        }
        if (found == queues_.end()) {
            std::erase_if(queues_, [](const auto& entry) { return entry.second.queue.expired(); });
            found = queues_.try_emplace(native.get()).first;
            found->second.queue = native;
        }
        return found->second;
    }

    void grow(const Queue& queue, Area& area, std::size_t bytes) {
        std::shared_ptr<backend::Buffer> fresh =
            backend_of(queue.device().context())->allocate(queue.device().index(), bytes);
        const std::uint32_t zero = 0;
        backend_of(queue)->fill(*fresh, 0, bytes, &zero, sizeof zero, false);
        if (area.buffer) {
            const std::lock_guard lock(outgrown_mutex_);
            outgrown_.push_back(std::move(area.buffer));
        }
        area.buffer = std::move(fresh);
        area.bytes = bytes;
    }

    static KernelArg argument(const Queue& queue, const Area& area) {
        KernelArg arg;
        arg.kind = KernelArg::Kind::buffer;
        arg.buffer = area.buffer.get();
        arg.size = area.bytes;
        arg.device_index = queue.device().index();
        arg.context = backend_of(queue.device().context()).get();
        return arg;
    }

    std::mutex mutex_;  // the map and the counters
    std::map<const backend::Queue*, QueueAreas> queues_;
    std::mutex outgrown_mutex_;
    std::vector<std::shared_ptr<backend::Buffer>> outgrown_;
};

QueueScratch& scratch_of(const Queue& queue) { return state_of(queue.device().context()).service<QueueScratch>(); }

}  // namespace

KernelArg self_resetting_counters(const Queue& queue, std::size_t count) {
    return scratch_of(queue).counters(queue, count);
}

TaggedState single_pass_state(const Queue& queue, std::size_t bytes) {
    return scratch_of(queue).scan_state(queue, bytes);
}

void set_last_single_pass_epoch(const Queue& queue, std::uint32_t epoch) {
    scratch_of(queue).set_last_epoch(queue, epoch);
}

}  // namespace kjarni::detail
