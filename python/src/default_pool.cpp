// The default memory pool of results made from Python (CuPy's default memory pool): an array that a
// queue's operation makes without an allocator (evaluate, the reductions, Array.zeros, Statements)
// comes from a MemoryPool of its context, allocated for that queue (queue-ordered reuse), instead of
// from the driver. A driver allocation per result costs microseconds, and CUDA's cuMemFree waits
// for the device, so a loop of `y = f(x)` would serialize the host and the device.
#include <nanobind/stl/optional.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include <kjarni/context.hpp>
#include <kjarni/context_memo.hpp>
#include <kjarni/memory_pool.hpp>
#include <kjarni/queue.hpp>

#include "allocator.hpp"
#include "bindings.hpp"

namespace kjarni::python {

namespace {

// One pool per context, kept by the context (ContextMemo): when a context goes, so does its pool and
// what the pool holds (a pool shared by all contexts would keep dead contexts' memory for ever).
// Never destroyed: at exit, contexts that Python objects still hold may outlive static destruction.
struct Pools {
    ContextMemo<int, std::shared_ptr<MemoryPool>> memo;
    // Every pool made, weakly (the memo holds them), so that turning the default pool off reaches
    // those in use: Python may hold a copy, which shares the pool's blocks.
    std::mutex mutex;
    std::vector<std::weak_ptr<MemoryPool>> made;
};

Pools& pools() {
    static auto* all = new Pools();
    return *all;
}

// On unless the environment says KJARNI_DEFAULT_MEMORY_POOL=0 when the module loads.
std::atomic<bool>& enabled() {
    static std::atomic<bool> on = [] {
        const char* value = std::getenv("KJARNI_DEFAULT_MEMORY_POOL");
        return value == nullptr || std::strcmp(value, "0") != 0;
    }();
    return on;
}

MemoryPool pool_of(const Context& context) {
    Pools& all = pools();
    return *all.memo.get(context, 0, [&all] {
        auto pool = std::make_shared<MemoryPool>();
        const std::lock_guard lock(all.mutex);
        std::erase_if(all.made, [](const std::weak_ptr<MemoryPool>& p) { return p.expired(); });
        all.made.push_back(pool);
        return pool;
    });
}

// Turning the pool off: every default pool frees what it holds and holds nothing more (blocks in
// use are freed when their arrays go), and the contexts forget them.
void stop_all() {
    Pools& all = pools();
    std::vector<std::shared_ptr<MemoryPool>> live;
    {
        const std::lock_guard lock(all.mutex);
        for (const auto& weak : all.made)
            if (auto pool = weak.lock()) live.push_back(std::move(pool));
        all.made.clear();
    }
    for (const auto& pool : live) pool->stop_holding();
    all.memo.clear();
}

}  // namespace

Allocator to_allocator(const nb::object& allocator, const Queue& queue) {
    if (!allocator.is_none() || !enabled().load(std::memory_order_relaxed)) return to_allocator(allocator);
    // Queue-ordered: the block is the queue's, so it is reused at once by this queue's next result
    // and by another queue's only behind an event (memory_pool.hpp).
    return [pool = pool_of(queue.device().context()), queue](const BoundDevice& device, std::size_t size) {
        return device == queue.device() ? pool.allocate(queue, size) : Buffer::allocate(device, size);
    };
}

void bind_default_pool(nb::module_& m) {
    m.def(
        "default_memory_pool",
        [](const Context& context) -> std::optional<MemoryPool> {
            if (!enabled().load()) return std::nullopt;
            return pool_of(context);
        },
        nb::arg("context"),
        "The MemoryPool that results made on `context` without an allocator come from (its held_blocks, "
        "active_bytes... are the statistics; free_held() returns what it holds to the driver), or None "
        "when the default pool is off.");
    m.def(
        "default_memory_pool",
        [](const BoundDevice& device) -> std::optional<MemoryPool> {
            if (!enabled().load()) return std::nullopt;
            return pool_of(device.context());
        },
        nb::arg("device"));
    m.def(
        "default_memory_pool",
        [](const Queue& queue) -> std::optional<MemoryPool> {
            if (!enabled().load()) return std::nullopt;
            return pool_of(queue.device().context());
        },
        nb::arg("queue"));
    m.def(
        "set_default_memory_pool",
        [](bool on) {
            const bool was = enabled().exchange(on);
            if (!on) stop_all();
            return was;
        },
        nb::arg("enabled"),
        "Turns the default memory pool on or off (KJARNI_DEFAULT_MEMORY_POOL=0 starts with it off); "
        "off, results come from the driver and the pools' held memory is freed. Returns the previous "
        "setting.");
}

}  // namespace kjarni::python
