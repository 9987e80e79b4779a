// The memory pools from many threads at once, built with -fsanitize=thread (see CMakeLists.txt):
// allocations and frees, statistics, free_held and stop_holding racing each other, requests on
// several queues, out-of-memory retries. Runs on the fake backend, so every byte a pooled buffer
// holds is plain host memory: two threads handed one block at once would race on its bytes
// (ThreadSanitizer reports it) and see each other's data (the checks below report it).
//
// GoogleTest's assertions run on the main thread only (gtest is not built with TSan); workers
// count what they find wrong.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "kjarni/host_memory.hpp"
#include "kjarni/memory_pool.hpp"
#include "support/fake_backend.hpp"

namespace kjarni::test {
namespace {

constexpr int thread_count = 8;
constexpr int rounds = 400;

FakeApi& fake_api() {
    static FakeApi* const api = new FakeApi;  // lives for the process, like real backends
    return *api;
}

FakeContext& fake(const Context& context) { return static_cast<FakeContext&>(*detail::backend_of(context)); }
FakeQueue& fake(const Queue& queue) { return static_cast<FakeQueue&>(*detail::backend_of(queue)); }

// Sizes over a few bins, so that threads compete for the same blocks.
std::size_t random_size(std::mt19937& random) {
    static constexpr std::size_t sizes[] = {1, 100, 1000, 1001, 4096, 5000, 65536};
    return sizes[random() % std::size(sizes)] + random() % 8;
}

// Fills a pooled buffer with a value only this user writes, and checks it reads back unchanged
// after the others had a chance to run.
struct Stamped {
    Buffer buffer;
    std::vector<std::byte> stamp;
};

Stamped stamp(const Queue& queue, Buffer buffer, unsigned value) {
    std::vector<std::byte> bytes(buffer.size(), std::byte(value));
    buffer.set(queue, std::span<const std::byte>(bytes));
    return {std::move(buffer), std::move(bytes)};
}

bool intact(const Queue& queue, const Stamped& s) {
    std::vector<std::byte> back(s.buffer.size());
    s.buffer.get(queue, std::span<std::byte>(back));
    return back == s.stamp;
}

// Reads statistics and frees what is held, over and over until `done`, racing the workers: every
// snapshot must be consistent.
template <class Pool>
std::thread watch(const Pool& pool, const std::atomic<bool>& done, std::atomic<int>& inconsistent) {
    return std::thread([&pool, &done, &inconsistent] {
        for (int i = 0; !done; ++i) {
            const MemoryPoolStatistics stats = pool.statistics();
            if (stats.active_bytes > stats.managed_bytes) ++inconsistent;
            if (stats.held_blocks + stats.active_blocks == 0 && stats.managed_bytes != 0) ++inconsistent;
            if (i % 7 == 0) pool.free_held();
            std::this_thread::yield();
        }
    });
}

TEST(PoolThreads, ManyThreadsOnSeveralQueuesWithStatisticsAndFreeHeldRacing) {
    const Context context = Context::from_devices(fake_api().device());
    const BoundDevice device = context.devices()[0];
    {
        std::vector<Queue> queues;
        for (int i = 0; i < 3; ++i) queues.emplace_back(device);
        MemoryPool pool;
        std::atomic<int> wrong{0};
        std::atomic<bool> done{false};
        std::vector<std::thread> threads;
        for (int t = 0; t < thread_count; ++t) {
            threads.emplace_back([&, t] {
                std::mt19937 random(static_cast<unsigned>(t));
                std::vector<Stamped> live;
                for (int i = 0; i < rounds; ++i) {
                    // Half the requests on a queue (threads share queues), half without one.
                    const Queue& queue = queues[random() % queues.size()];
                    const std::size_t size = random_size(random);
                    Buffer b = random() % 2 == 0 ? pool.allocate(queue, size) : pool.allocate(device, size);
                    if (b.size() != size) ++wrong;
                    live.push_back(stamp(queue, std::move(b), static_cast<unsigned>(t * rounds + i)));
                    if (random() % 3 == 0) {
                        const auto victim = live.begin() + static_cast<std::ptrdiff_t>(random() % live.size());
                        if (!intact(queue, *victim)) ++wrong;
                        live.erase(victim);
                    }
                }
                for (const Stamped& s : live) {
                    if (!intact(queues[0], s)) ++wrong;
                }
            });
        }
        std::atomic<int> inconsistent{0};
        std::thread watcher = watch(pool, done, inconsistent);
        for (auto& thread : threads) thread.join();
        done = true;
        watcher.join();
        EXPECT_EQ(wrong.load(), 0);
        EXPECT_EQ(inconsistent.load(), 0);
        const MemoryPoolStatistics stats = pool.statistics();
        EXPECT_EQ(stats.active_blocks, 0u);
        EXPECT_EQ(stats.active_bytes, 0u);
        // Blocks moved between queues, each time behind an event of the old queue.
        long waits = 0;
        for (const Queue& queue : queues) waits += fake(queue).waits;
        EXPECT_GT(waits, 0);
        pool.free_held();
        EXPECT_EQ(pool.managed_bytes(), 0u);
        EXPECT_EQ(pool.held_blocks(), 0u);
    }
    EXPECT_EQ(fake(context).live_buffers.load(), 0) << "blocks leaked";
}

TEST(PoolThreads, StopHoldingAndThePoolGoingWhileBlocksAreOut) {
    const Context context = Context::from_devices(fake_api().device());
    const BoundDevice device = context.devices()[0];
    {
        const Queue queue(device);
        std::vector<std::thread> threads;
        std::atomic<int> wrong{0};
        {
            MemoryPool pool;
            std::atomic<int> started{0};
            for (int t = 0; t < thread_count; ++t) {
                // Each worker keeps its own copy of the pool only for a while, then frees its
                // blocks after the last copy may be gone.
                threads.emplace_back([&, t, mine = pool]() mutable {
                    std::mt19937 random(static_cast<unsigned>(t));
                    std::vector<Stamped> live;
                    for (int i = 0; i < rounds; ++i) {
                        live.push_back(
                            stamp(queue, mine.allocate(queue, random_size(random)), static_cast<unsigned>(random())));
                        if (random() % 2 == 0) live.erase(live.begin());
                        if (i == rounds / 2) ++started;
                    }
                    mine = MemoryPool();  // drop this copy of the shared pool
                    for (const Stamped& s : live) {
                        if (!intact(queue, s)) ++wrong;
                    }
                });
            }
            while (started < thread_count / 2) std::this_thread::yield();
            pool.stop_holding();  // races the workers' frees
            EXPECT_EQ(pool.held_blocks(), 0u);
        }
        for (auto& thread : threads) thread.join();
        EXPECT_EQ(wrong.load(), 0);
    }
    EXPECT_EQ(fake(context).live_buffers.load(), 0) << "blocks leaked after the pool went";
}

TEST(PoolThreads, OutOfMemoryRetriesRacingOtherThreads) {
    const Context context = Context::from_devices(fake_api().device());
    const BoundDevice device = context.devices()[0];
    {
        std::atomic<int> calls{0};
        const Allocator flaky = [&](const BoundDevice& d, std::size_t size) {
            if (++calls % 5 == 0) throw OutOfMemoryError("fake", "allocate", 2, "INJECTED");
            return Buffer::allocate(d, size);
        };
        MemoryPool pool(flaky);
        std::atomic<int> wrong{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < thread_count; ++t) {
            threads.emplace_back([&, t] {
                std::mt19937 random(static_cast<unsigned>(t));
                const Queue queue(device);
                std::vector<Stamped> live;
                for (int i = 0; i < rounds; ++i) {
                    try {
                        live.push_back(
                            stamp(queue, pool.allocate(queue, random_size(random)), static_cast<unsigned>(random())));
                    } catch (const OutOfMemoryError&) {
                        // Two failures in a row (another thread's call may be the retry's): allowed.
                    }
                    if (live.size() > 4) live.erase(live.begin());
                }
                for (const Stamped& s : live) {
                    if (!intact(queue, s)) ++wrong;
                }
            });
        }
        for (auto& thread : threads) thread.join();
        EXPECT_EQ(wrong.load(), 0);
        EXPECT_EQ(pool.active_blocks(), 0u);
    }
    EXPECT_EQ(fake(context).live_buffers.load(), 0);
}

TEST(PoolThreads, HostMemoryPoolFromManyThreads) {
    const Context context = Context::from_devices(fake_api().device());
    {
        HostMemoryPool pool;
        std::atomic<int> wrong{0};
        std::atomic<bool> done{false};
        std::vector<std::thread> threads;
        for (int t = 0; t < thread_count; ++t) {
            threads.emplace_back([&, t] {
                std::mt19937 random(static_cast<unsigned>(t));
                std::vector<std::pair<HostMemory, std::byte>> live;
                for (int i = 0; i < rounds; ++i) {
                    HostMemory memory = pool.allocate(context, random_size(random));
                    const auto value = static_cast<std::byte>(random());
                    std::memset(memory.data(), static_cast<int>(value), memory.size());
                    live.emplace_back(std::move(memory), value);
                    if (random() % 2 == 0) {
                        const auto& [m, v] = live.front();
                        const auto bytes = std::span(m.data(), m.size());
                        if (!std::all_of(bytes.begin(), bytes.end(), [v = v](std::byte b) { return b == v; })) ++wrong;
                        live.erase(live.begin());
                    }
                }
            });
        }
        std::thread watcher = watch(pool, done, wrong);
        for (auto& thread : threads) thread.join();
        done = true;
        watcher.join();
        EXPECT_EQ(wrong.load(), 0);
        EXPECT_EQ(pool.active_blocks(), 0u);
        pool.stop_holding();
        EXPECT_EQ(pool.managed_bytes(), 0u);
    }
    EXPECT_EQ(fake(context).live_host_allocations.load(), 0);
}

}  // namespace
}  // namespace kjarni::test
