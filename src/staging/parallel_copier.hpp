#pragma once
// memcpy split over worker threads, for copies between user memory and page-locked staging slots:
// one thread copies pageable memory at roughly the speed of the bus, so staged transfers need
// several to leave the bus the slower side.
//
// The calling thread copies a piece too; workers are made on the first copy that has work for
// them, never before. Several threads may call copy() at once: their pieces are served in order.
// Between copies workers spin briefly before they sleep, since staged transfers call copy() once
// per chunk, a fraction of a millisecond apart, and waking a sleeping thread costs tens of
// microseconds.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace kjarni::detail {

class ParallelCopier {
public:
    /// `threads` counts the calling thread: 1 copies on the caller alone.
    explicit ParallelCopier(unsigned threads);
    ~ParallelCopier();
    ParallelCopier(const ParallelCopier&) = delete;
    ParallelCopier& operator=(const ParallelCopier&) = delete;

    unsigned threads() const noexcept { return threads_; }
    /// Copies `size` bytes; the regions must not overlap. Returns when all of it is copied.
    /// `streaming`: with non-temporal stores (streaming_copy.hpp), else std::memcpy.
    void copy(void* destination, const void* source, std::size_t size, bool streaming = false);

private:
    struct Job;
    void start_workers();
    void work();
    /// Copies `piece` (claimed by the caller, maybe past the last) and then claims more.
    static void run_pieces(Job& job, std::size_t piece) noexcept;

    const unsigned threads_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Job*> jobs_;  // jobs with pieces nobody has started
    bool stopping_ = false;
    std::atomic<std::size_t> generation_{0};  // jobs queued so far, watched by spinning workers
    std::vector<std::thread> workers_;
};

}  // namespace kjarni::detail
