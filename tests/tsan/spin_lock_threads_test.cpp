// detail::SpinLock (src/base/spin_lock.hpp, the OpenCL launch lock) from many threads, built with
// -fsanitize=thread: the writes a holder makes must be seen by the next holder (acquire / release),
// and no two threads may hold it at once. A plain counter and a block of plain bytes are changed
// only under the lock; ThreadSanitizer reports a race on them if the lock's ordering is missing,
// and the counts below show a lost update if the exclusion is.

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "base/spin_lock.hpp"

namespace kjarni::test {
namespace {

TEST(SpinLockThreads, HoldersExcludeEachOtherAndSeeEachOthersWrites) {
    constexpr int spinning_threads = 8;
    constexpr int spins_per_thread = 20000;
    detail::SpinLock lock;
    long counter = 0;               // changed only under the lock
    std::array<int, 64> block{};    // every element equal whenever the lock is free
    std::atomic<int> torn{0};       // rounds that found the block half written
    std::atomic<int> tries_won{0};  // try_lock successes (each followed by an update)
    std::vector<std::thread> threads;
    threads.reserve(spinning_threads);
    for (int t = 0; t < spinning_threads; ++t) {
        threads.emplace_back([&, t] {
            for (int r = 0; r < spins_per_thread; ++r) {
                if ((r + t) % 16 == 0 && lock.try_lock()) {
                    tries_won.fetch_add(1, std::memory_order_relaxed);
                } else {
                    lock.lock();
                }
                const int first = block[0];
                for (const int value : block) {
                    if (value != first) torn.fetch_add(1, std::memory_order_relaxed);
                }
                for (int& value : block) value = first + 1;
                ++counter;
                lock.unlock();
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(counter, static_cast<long>(spinning_threads) * spins_per_thread);
    EXPECT_EQ(block[0], spinning_threads * spins_per_thread);
    EXPECT_EQ(torn.load(), 0);
    // With a std::unique_lock, as the launch path takes it.
    {
        std::unique_lock held(lock);
        EXPECT_FALSE(lock.try_lock());
    }
    EXPECT_TRUE(lock.try_lock());
    lock.unlock();
    RecordProperty("try_lock_successes", tries_won.load());
}

}  // namespace
}  // namespace kjarni::test
