// The memory pool: bin rounding, statistics, reuse, out-of-memory recovery, queue-ordered reuse
// checked on real data, and many threads at once.

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <optional>
#include <thread>

#include "kjarni/memory_pool.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

TEST(MemoryPoolBins, RoundingAroundEveryPowerOfTwo) {
    for (unsigned bits : {0u, 1u, 2u, 4u, 7u}) {
        for (unsigned k = 1; k < 62; ++k) {
            const std::size_t power = std::size_t{1} << k;
            for (std::size_t size : {power - 1, power, power + 1, power + power / 3}) {
                const std::size_t rounded = MemoryPool::allocation_size(size, bits);
                SCOPED_TRACE(testing::Message() << "size " << size << ", leading bits " << bits);
                ASSERT_GE(rounded, size);
                // Same bin: any block of the bin serves the request, and the bin is as large as it
                // can be (one byte more is another bin).
                ASSERT_EQ(MemoryPool::bin_number(rounded, bits), MemoryPool::bin_number(size, bits));
                ASSERT_NE(MemoryPool::bin_number(rounded + 1, bits), MemoryPool::bin_number(size, bits));
                // The waste: below 1 / 2^bits of the request; none for sizes of few significant bits.
                if (static_cast<unsigned>(std::bit_width(size)) <= bits + 1) {
                    ASSERT_EQ(rounded, size);
                } else {
                    ASSERT_LT(rounded - size, size >> bits);
                }
            }
        }
    }
    // Concrete cases (the top bit and 4 more): 1000 = 0b11111_01000 -> 0b11111_11111,
    // 1024 = 0b10000_000000 -> 0b10000_111111.
    EXPECT_EQ(MemoryPool::allocation_size(1000, 4), 1023u);
    EXPECT_EQ(MemoryPool::allocation_size(1024, 4), 1087u);
    EXPECT_EQ(MemoryPool::allocation_size(31, 4), 31u);
    EXPECT_EQ(MemoryPool::allocation_size(0, 4), 0u);
}

class MemoryPools : public DeviceTest {};

TEST_P(MemoryPools, StatisticsAfterEachOperation) {
    MemoryPool pool;
    const std::size_t rounded = MemoryPool::allocation_size(1000, 4);
    std::uintptr_t first_handle = 0;
    {
        Buffer a = pool.allocate(queue(), 1000);
        EXPECT_EQ(a.size(), 1000u);
        first_handle = a.native_handle();
        EXPECT_EQ(pool.active_blocks(), 1u);
        EXPECT_EQ(pool.active_bytes(), 1000u);
        EXPECT_EQ(pool.managed_bytes(), rounded);
        EXPECT_EQ(pool.held_blocks(), 0u);
        Buffer copy = a;  // handles share the block: it returns when the last goes
    }
    EXPECT_EQ(pool.active_blocks(), 0u);
    EXPECT_EQ(pool.active_bytes(), 0u);
    EXPECT_EQ(pool.held_blocks(), 1u);
    EXPECT_EQ(pool.managed_bytes(), rounded);
    {
        Buffer b = pool.allocate(queue(), 1001);  // same bin: the held block comes back
        EXPECT_EQ(b.native_handle(), first_handle);
        EXPECT_EQ(pool.held_blocks(), 0u);
        EXPECT_EQ(pool.active_bytes(), 1001u);
        Buffer c = pool.allocate(queue(), 5000);  // another bin: a new block
        EXPECT_EQ(pool.active_blocks(), 2u);
        EXPECT_EQ(pool.managed_bytes(), rounded + MemoryPool::allocation_size(5000, 4));
    }
    EXPECT_EQ(pool.held_blocks(), 2u);
    pool.free_held();
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(pool.managed_bytes(), 0u);
    pool.stop_holding();
    { Buffer d = pool.allocate(queue(), 64); }
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(pool.managed_bytes(), 0u);
}

TEST_P(MemoryPools, SubRegionsKeepTheBlockOutAndBlocksOutliveTheirPool) {
    std::optional<Buffer> kept;
    const auto data = random_bytes(3000);
    {
        MemoryPool pool;
        {
            Buffer whole = pool.allocate(queue(), 4000);
            kept = whole.get_sub_region(1000, 3000);
        }
        // The first handle went; the view keeps the block out.
        EXPECT_EQ(pool.active_blocks(), 1u);
        EXPECT_EQ(pool.held_blocks(), 0u);
        kept->set(queue(), std::span<const std::byte>(data));
    }
    // The pool is gone; its block still works and is freed when the last handle goes.
    std::vector<std::byte> back(data.size());
    kept->get(queue(), std::span<std::byte>(back));
    EXPECT_EQ(back, data);
}

TEST_P(MemoryPools, RequestsWithoutQueueDoNotTakeBlocksAQueueMayStillUse) {
    MemoryPool pool;
    std::uintptr_t queued = 0;
    {
        Buffer a = pool.allocate(queue(), 1000);
        queued = a.native_handle();
    }
    Buffer b = pool.allocate(bound_device(), 1000);  // q's work may still use the held block
    EXPECT_NE(b.native_handle(), queued);
    EXPECT_EQ(pool.held_blocks(), 1u);
    Buffer c = pool.allocate(queue(), 1000);  // the same queue takes it back at once
    EXPECT_EQ(c.native_handle(), queued);
    EXPECT_EQ(pool.statistics().active_blocks, 2u);
}

TEST_P(MemoryPools, PooledBuffersCarryData) {
    MemoryPool pool;
    for (std::size_t size : {std::size_t{1}, std::size_t{4097}, std::size_t{300000}}) {
        const auto data = random_bytes(size);
        Buffer b = pool.allocate(queue(), size);
        b.set(queue(), std::span<const std::byte>(data));
        std::vector<std::byte> back(size);
        b.get(queue(), std::span<std::byte>(back));
        EXPECT_EQ(back, data);
    }
    // A pool is an Allocator.
    const Allocator allocator = pool;
    EXPECT_EQ(allocator(bound_device(), 77).size(), 77u);
}

TEST_P(MemoryPools, OutOfMemoryFreesWhatIsHeldAndRetriesOnce) {
    std::atomic<int> calls{0};
    std::atomic<int> fail_call{2};
    const Allocator flaky = [&](const BoundDevice& device, std::size_t size) {
        if (++calls == fail_call) throw OutOfMemoryError("fake", "allocate", 2, "INJECTED");
        return Buffer::allocate(device, size);
    };
    MemoryPool pool(flaky);
    { Buffer a = pool.allocate(queue(), 1000); }
    ASSERT_EQ(pool.held_blocks(), 1u);
    Buffer b = pool.allocate(queue(), 50000);  // call 2 fails; the pool frees its block; call 3 works
    EXPECT_EQ(calls.load(), 3);
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(pool.managed_bytes(), MemoryPool::allocation_size(50000, 4));
    // Failing twice in a row lets the error through.
    fail_call = -1;
    const Allocator broken = [](const BoundDevice&, std::size_t) -> Buffer {
        throw OutOfMemoryError("fake", "allocate", 2, "INJECTED");
    };
    MemoryPool hopeless(broken);
    EXPECT_THROW(hopeless.allocate(queue(), 10), OutOfMemoryError);
    EXPECT_EQ(hopeless.active_blocks(), 0u);
}

// A kernel that keeps a block busy for a while and leaves a known value: every element goes
// through many rounds of a linear congruential step.
constexpr const char* busy_source = R"(
KERNEL void churn(GLOBAL_MEM uint32_t* x, uint32_t rounds)
{
    const SIZE_T i = get_global_id(0);
    uint32_t v = x[i];
    for (uint32_t k = 0; k < rounds; ++k) v = v * 1664525u + 1013904223u;
    x[i] = v;
}
)";

TEST_P(MemoryPools, BlockFreedBehindLongWorkIsNotReusedEarlyOnAnotherQueue) {
    Program program(bound_device(), busy_source);
    Queue q1(bound_device()), q2(bound_device());
    MemoryPool pool;
    const std::size_t n = 1 << 16;
    std::uintptr_t handle = 0;
    {
        Buffer busy = pool.allocate(q1, n * sizeof(std::uint32_t));
        handle = busy.native_handle();
        const std::uint32_t zero = 0;
        busy.fill(q1, std::as_bytes(std::span(&zero, 1)));
        program.kernel("churn")(q1, {n}, std::nullopt, busy, std::uint32_t{20000});
        // Freed while the kernel may still run on q1.
    }
    Buffer reused = pool.allocate(q2, n * sizeof(std::uint32_t));
    ASSERT_EQ(reused.native_handle(), handle) << "the test needs the block to be handed to q2";
    const std::uint32_t pattern = random_vector<std::uint32_t>(1, 1, 1000)[0];
    reused.fill(q2, std::as_bytes(std::span(&pattern, 1)));
    std::vector<std::uint32_t> back(n);
    reused.get(q2, std::span<std::uint32_t>(back));
    q1.synchronize();
    // Had q2 not waited, the kernel's late writes would show instead of the pattern.
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], pattern) << i;
    reused.get(q2, std::span<std::uint32_t>(back));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], pattern) << "after q1 finished, " << i;
}

TEST_P(MemoryPools, ManyThreadsAllocateAndFreeAtOnce) {
    MemoryPool pool;
    std::vector<std::thread> threads;
    std::atomic<int> bad{0};
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937 random(static_cast<unsigned>(t));
            std::vector<Buffer> live;
            for (int i = 0; i < 300; ++i) {
                const std::size_t size = 1 + random() % 20000;
                live.push_back(pool.allocate(bound_device(), size));
                if (live.back().size() != size) ++bad;
                if (random() % 3 == 0) live.erase(live.begin() + static_cast<std::ptrdiff_t>(random() % live.size()));
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(bad.load(), 0);
    const auto stats = pool.statistics();
    EXPECT_EQ(stats.active_blocks, 0u);
    EXPECT_EQ(stats.active_bytes, 0u);
    EXPECT_GT(stats.held_blocks, 0u);
    pool.free_held();
    EXPECT_EQ(pool.managed_bytes(), 0u);
}

TEST_P(MemoryPools, ImmediateAllocatorReportsOutOfMemoryAtAllocation) {
    const ImmediateAllocator immediate(queue());
    Buffer small = immediate(bound_device(), 4096);
    EXPECT_EQ(small.size(), 4096u);
    const std::uint64_t total = GetParam().device().properties().total_memory;
    EXPECT_THROW(immediate(bound_device(), static_cast<std::size_t>(total) * 4), OutOfMemoryError);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(MemoryPools);

}  // namespace
}  // namespace kjarni::test
