#include "staging/parallel_copier.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "staging/streaming_copy.hpp"

namespace kjarni::detail {

namespace {

// Pieces smaller than this cost more in hand-over than another thread gains.
constexpr std::size_t min_piece = std::size_t{256} << 10;
// Pieces per thread of a copy big enough for them (see copy()).
constexpr std::size_t pieces_per_thread = 4;
// How long an idle worker watches for the next job before it sleeps.
constexpr auto spin_time = std::chrono::microseconds(200);

}  // namespace

// Lifetime: a Job lives on the stack of the copy() that made it. A worker touches it only while
// holding mutex_ (the job is then still queued, so its copy() has not returned) or while it has
// claimed a piece it has not reported done (copy() waits for every piece).
struct ParallelCopier::Job {
    std::byte* destination;
    const std::byte* source;
    std::size_t size;
    std::size_t piece_size;
    std::size_t pieces;
    bool streaming;
    std::atomic<std::size_t> next{0};  // the next piece nobody has claimed
    std::atomic<std::size_t> done{0};  // pieces copied
};

ParallelCopier::ParallelCopier(unsigned threads) : threads_(std::max(1U, threads)) {}

ParallelCopier::~ParallelCopier() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& worker : workers_) worker.join();
}

void ParallelCopier::run_pieces(Job& job, std::size_t piece) noexcept {
    // Read once: after this thread reports the job's last piece done, its copy() may return and the
    // job be gone, so the loop's test must not read it again.
    const std::size_t pieces = job.pieces;
    while (piece < pieces) {
        const std::size_t start = piece * job.piece_size;
        const std::size_t bytes = std::min(job.piece_size, job.size - start);
        if (job.streaming) {
            streaming_copy(job.destination + start, job.source + start, bytes);
        } else {
            std::memcpy(job.destination + start, job.source + start, bytes);
        }
        // Claimed before this piece is reported: once `done` reaches `pieces` the job may be gone.
        const std::size_t following = job.next.fetch_add(1);
        job.done.fetch_add(1, std::memory_order_release);
        piece = following;
    }
}

void ParallelCopier::copy(void* destination, const void* source, std::size_t size, bool streaming) {
    const std::size_t wanted = std::min<std::size_t>(threads_, (size + min_piece - 1) / min_piece);
    if (wanted <= 1) {
        if (streaming) {
            streaming_copy(destination, source, size);
        } else {
            std::memcpy(destination, source, size);
        }
        return;
    }
    Job job;
    job.destination = static_cast<std::byte*>(destination);
    job.source = static_cast<const std::byte*>(source);
    job.size = size;
    job.streaming = streaming;
    // Several pieces per thread, claimed as threads come free: a thread that starts late (woken
    // late, or slowed by the DMA it shares memory with) no longer holds up the whole copy, as one
    // piece per thread did. Page-multiple pieces: no two threads write one cache line or one page.
    const std::size_t pieces = wanted * pieces_per_thread;
    const std::size_t target = std::max(min_piece, (size + pieces - 1) / pieces);
    job.piece_size = (target + 4095) & ~std::size_t{4095};
    job.pieces = (size + job.piece_size - 1) / job.piece_size;
    {
        const std::lock_guard lock(mutex_);
        if (workers_.empty()) start_workers();
        jobs_.push_back(&job);
        ++generation_;
    }
    wake_.notify_all();
    run_pieces(job, job.next.fetch_add(1));
    while (job.done.load(std::memory_order_acquire) < job.pieces) std::this_thread::yield();
    // A worker may not have seen that the job ran out of pieces: unqueue it before it goes.
    const std::lock_guard lock(mutex_);
    if (auto queued = std::find(jobs_.begin(), jobs_.end(), &job); queued != jobs_.end()) jobs_.erase(queued);
}

void ParallelCopier::start_workers() {
    workers_.reserve(threads_ - 1);
    for (unsigned i = 1; i < threads_; ++i) workers_.emplace_back([this] { work(); });
}

void ParallelCopier::work() {
    std::unique_lock lock(mutex_);
    while (true) {
        if (jobs_.empty() && !stopping_) {
            // Watch for a job a little while before sleeping (see the header).
            const std::size_t seen = generation_.load(std::memory_order_relaxed);
            lock.unlock();
            const auto until = std::chrono::steady_clock::now() + spin_time;
            while (generation_.load(std::memory_order_relaxed) == seen && std::chrono::steady_clock::now() < until) {
                std::this_thread::yield();
            }
            lock.lock();
            wake_.wait(lock, [this] { return !jobs_.empty() || stopping_; });
        }
        if (stopping_) return;
        Job& job = *jobs_.front();
        // Claimed under the lock, while the job is surely alive; it then lives until the piece is
        // reported done.
        const std::size_t piece = job.next.fetch_add(1);
        if (piece >= job.pieces) {
            jobs_.pop_front();  // all pieces claimed; its copy() waits for the ones in progress
            continue;
        }
        lock.unlock();
        run_pieces(job, piece);
        lock.lock();
    }
}

}  // namespace kjarni::detail
