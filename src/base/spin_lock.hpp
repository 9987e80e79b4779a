#pragma once
// A lock for short sections that rarely meet another thread (a kernel's argument setting and its
// enqueue): one atomic exchange takes it and one store gives it back, where std::mutex's lock and
// unlock are two calls into pthread of about 30 instructions each. Meets BasicLockable and
// Lockable, so std::unique_lock and std::lock_guard take it.
#include <atomic>
#include <thread>

namespace kjarni::detail {

class SpinLock {
public:
    void lock() noexcept {
        while (held_.exchange(true, std::memory_order_acquire)) {
            // Waiting reads, not writes, so the holder keeps the cache line; it yields, as the holder
            // may be inside a driver call that blocks.
            while (held_.load(std::memory_order_relaxed)) std::this_thread::yield();
        }
    }
    bool try_lock() noexcept {
        return !held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire);
    }
    void unlock() noexcept { held_.store(false, std::memory_order_release); }

private:
    std::atomic<bool> held_{false};
};

}  // namespace kjarni::detail
