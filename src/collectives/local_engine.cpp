// The fallback engine when one thread drives every rank (a call over a MultiArray): the ranks'
// devices share one context. Reductions gather the contributions to one block of the result on the
// device of the rank that keeps it and combine them there with kjarni's kernels (in rank order
// when copying directly, in the order they arrive when relayed).
//
// Bytes move between the devices in one of two ways:
//  - direct: the driver's copy between devices of the context (a peer copy where the hardware has
//    it, else the driver stages it): CUDA, and OpenCL devices that share the host's memory;
//  - relayed through page-locked host memory (relays_between: NVIDIA's OpenCL, whose own copies
//    between its devices crawl). Each rank downloads what the others need on a second queue of its
//    device, in chunks; each upload, on the receiving rank's queue, waits for its chunk's download
//    only (events: the host never waits; KJARNI_RELAY_HOST_WAITS=1 makes the host wait for each
//    chunk's download instead, to measure what the waits between two devices' queues cost). So a
//    device's downloads overlap its uploads (the bus carries both directions at once), every
//    device transfers at once, and nothing is copied on the host.
//
// The relayed algorithms and the bound each allows, for parts of n bytes over k ranks and B the
// page-locked bandwidth of one direction of one device's bus while every device transfers at once,
// both directions where the algorithm moves both ways. That is not one direction's bandwidth
// alone: on the H200 pair (NVIDIA's OpenCL, 2026-11-29) a device did ~55 GB/s one way alone and
// ~30 GB/s each way with both directions at once (bench/collectives_bench.cpp's pinned_duplex),
// so all_reduce, reduce_scatter and all_gather, which move both ways on every device, are bound
// by the duplex figure, and broadcast (each device moves one way) by the one-way figure:
//  - all_reduce: a reduce-scatter, then an all-gather, through the host. Rank j downloads the k - 1
//    blocks of its part that other ranks own; each owner uploads them and combines them with its
//    own block; it downloads the reduced block, and every other rank uploads it. Per device n bytes
//    go down and 2(k-1)/k n up, so t >= 2(k-1)/k n / B: nccl-tests' bus bandwidth,
//    n/t x 2(k-1)/k, is at most B (and at most B k / (3k - 2) if one direction waited for the
//    other).
//  - reduce_scatter: (k-1)/k n down and up per device: busbw (n/t x (k-1)/k) <= B.
//  - all_gather (n the gathered result): n/k down, (k-1)/k n up: busbw <= B.
//  - broadcast: n down from the root, n up to each other rank: busbw (n/t) <= B.
//  - reduce: n down from each other rank, (k-1) n up to the root; all_to_all: (k-1)/k n each way.
// The host's memory carries every relayed byte at least twice (a download writes it, each upload
// reads it): with many devices it may be the tighter bound.
//
// A relayed call works through a rank's part in segments (relay_sizes), so that the page-locked
// memory it holds is bounded; a segment starts once every upload of the one before is done (the
// host memory is reused) and every download of it too (so are the temporaries).
//
// Every temporary, host block and the second queues' work stays alive until the final
// synchronization of every queue, so nothing is freed under pending work.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "collectives/comm_engine.hpp"
#include "collectives/device_steps.hpp"

namespace kjarni::detail {

namespace {

bool same_region(const Buffer& a, const Buffer& b) {
    return detail::backend_of(a) == detail::backend_of(b) && a.offset() == b.offset() && a.size() == b.size();
}

/// Whether two views share a byte of one allocation.
bool overlaps(const Buffer& a, const Buffer& b) {
    return detail::backend_of(a) == detail::backend_of(b) && a.offset() < b.offset() + b.size() &&
           b.offset() < a.offset() + a.size();
}

/// Copies unless target and source are the same memory (in-place calls).
void move_bytes(const Queue& queue, const Buffer& target, const Queue& source_queue, const Buffer& source) {
    if (same_region(target, source)) return;
    copy_after(queue, target, source_queue, source);
}

/// The first `size` elements of a one-dimensional array (a view at its offset: still a whole
/// allocation's start where the array is a temporary).
Array head(const Array& array, std::size_t size) {
    if (size == array.size()) return array;
    return array[{Slice{0, static_cast<std::ptrdiff_t>(size)}}];
}

// --- Direct: the driver's copies between the devices ----------------------------------------

/// Elements [first, first + size) of every rank's src combined by `op` on `owner`'s device: a new
/// temporary (kept in `keep`).
Array reduce_block(const std::vector<RankOperands>& ranks, std::size_t owner, std::size_t first, std::size_t size,
                   ReduceOp op, std::vector<Array>& keep) {
    const Queue& queue = ranks[owner].queue;
    const DType& dtype = ranks[owner].src.dtype();
    const Array accumulator = temporary(queue, dtype, size);
    keep.push_back(accumulator);
    copy_after(queue, bytes_of(accumulator), ranks[0].queue, elements_of(ranks[0].src, first, size));
    for (std::size_t i = 1; i < ranks.size(); ++i) {
        const Array contribution = temporary(queue, dtype, size);
        keep.push_back(contribution);
        copy_after(queue, bytes_of(contribution), ranks[i].queue, elements_of(ranks[i].src, first, size));
        combine(queue, accumulator, contribution, op);
    }
    divide_for_avg(queue, accumulator, op, static_cast<int>(ranks.size()));
    return accumulator;
}

void run_direct(Collective collective, const std::vector<RankOperands>& ranks, ReduceOp op, int root,
                std::vector<Array>& keep) {
    const std::size_t n = ranks.size();
    switch (collective) {
    case Collective::all_reduce: {
        // Each rank owns one block of the result (as even as possible) and reduces it; then every
        // rank gathers every block: the work and the traffic are spread over the devices.
        const std::size_t size = ranks[0].src.size();
        std::vector<std::optional<Array>> blocks(n);
        for (std::size_t r = 0; r < n; ++r) {
            const std::size_t first = size * r / n, last = size * (r + 1) / n;
            if (last > first) blocks[r] = reduce_block(ranks, r, first, last - first, op, keep);
        }
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t r = 0; r < n; ++r) {
                const std::size_t first = size * r / n, last = size * (r + 1) / n;
                if (last > first)
                    copy_after(ranks[j].queue, elements_of(ranks[j].dst, first, last - first), ranks[r].queue,
                               bytes_of(*blocks[r]));
            }
        }
        break;
    }
    case Collective::reduce: {
        const auto owner = static_cast<std::size_t>(root);
        const Array result = reduce_block(ranks, owner, 0, ranks[owner].src.size(), op, keep);
        copy_after(ranks[owner].queue, bytes_of(ranks[owner].dst), ranks[owner].queue, bytes_of(result));
        break;
    }
    case Collective::broadcast: {
        const auto owner = static_cast<std::size_t>(root);
        for (std::size_t j = 0; j < n; ++j)
            if (j != owner)
                move_bytes(ranks[j].queue, bytes_of(ranks[j].src), ranks[owner].queue, bytes_of(ranks[owner].src));
        break;
    }
    case Collective::all_gather: {
        const std::size_t size = ranks[0].src.size();
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t i = 0; i < n; ++i)
                move_bytes(ranks[j].queue, elements_of(ranks[j].dst, i * size, size), ranks[i].queue,
                           bytes_of(ranks[i].src));
        break;
    }
    case Collective::reduce_scatter: {
        const std::size_t size = ranks[0].dst.size();
        std::vector<std::optional<Array>> blocks(n);
        for (std::size_t r = 0; r < n; ++r) blocks[r] = reduce_block(ranks, r, r * size, size, op, keep);
        // Written only once every block is reduced: a dst that is a view of a src (in place) is read
        // by the other ranks' blocks first (the copies above were enqueued before these writes, and
        // each of these waits for its own queue).
        for (std::size_t r = 0; r < n; ++r)
            copy_after(ranks[r].queue, bytes_of(ranks[r].dst), ranks[r].queue, bytes_of(*blocks[r]));
        break;
    }
    case Collective::all_to_all: {
        const std::size_t size = ranks[0].src.size() / n;
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t i = 0; i < n; ++i)
                copy_after(ranks[j].queue, elements_of(ranks[j].dst, i * size, size), ranks[i].queue,
                           elements_of(ranks[i].src, j * size, size));
        break;
    }
    }
}

// --- Relayed through page-locked host memory -------------------------------------------------

/// The moves of a relayed call: downloads on each rank's second queue, uploads on its own queue,
/// host memory from the first rank's pool, and the orderings between them.
class Relay {
public:
    /// Bytes one download put in host memory: chunk c (of `chunk` bytes, the last one shorter)
    /// is there once ready[c] has passed.
    struct Staged {
        std::span<std::byte> host;
        std::vector<Event> ready;
    };

    Relay(const std::vector<RankOperands>& ranks, RelaySizes sizes)
        : ranks_(ranks), sizes_(sizes), host_waits_(relay_host_waits()) {
        for (const RankOperands& rank : ranks) {
            std::optional<Queue>& downloads = rank.engine->local_staging().downloads;
            if (!downloads || !(downloads->device() == rank.queue.device())) downloads.emplace(rank.queue.device());
            downloads_.push_back(*downloads);
        }
        // The downloads read what the ranks' queues have enqueued before the call.
        for (std::size_t r = 0; r < ranks.size(); ++r) downloads_after_queue(r);
    }
    ~Relay() {
        // After a failure: the host blocks go back to the pool only once nothing uses them. The
        // error being thrown matters, not one from here.
        try {
            finish();
        } catch (...) {  // see above
        }
    }
    Relay(const Relay&) = delete;
    Relay& operator=(const Relay&) = delete;

    std::size_t segment_elements(std::size_t itemsize, std::size_t divisor = 1) const {
        return std::max<std::size_t>(sizes_.segment / itemsize / divisor, 1);
    }

    /// `bytes` of page-locked memory held until the relay finishes.
    std::span<std::byte> host(std::size_t bytes) {
        blocks_.push_back(ranks_[0].engine->local_staging().pool.allocate(ranks_[0].queue.device().context(), bytes));
        return blocks_.back().bytes().first(bytes);
    }

    /// Enqueues the download of `source` (on `rank`'s device) into the start of `host`, in chunks.
    Staged download(std::size_t rank, const Buffer& source, std::span<std::byte> host) {
        Staged staged{host.first(source.size()), {}};
        const Queue& queue = downloads_[rank];
        for (std::size_t done = 0; done < source.size(); done += sizes_.chunk) {
            const std::size_t bytes = std::min(sizes_.chunk, source.size() - done);
            source.get_sub_region(done, bytes).get(queue, staged.host.subspan(done, bytes), true);
            staged.ready.push_back(queue.record_event());
        }
        return staged;
    }

    /// Enqueues on `rank`'s queue the upload of every staged byte into `target` (as large), each
    /// chunk after its download.
    void upload(std::size_t rank, const Staged& staged, const Buffer& target) {
        const Queue& queue = ranks_[rank].queue;
        for (std::size_t c = 0; c < staged.ready.size(); ++c) {
            const std::size_t done = c * sizes_.chunk;
            const std::size_t bytes = std::min(sizes_.chunk, staged.host.size() - done);
            if (host_waits_) staged.ready[c].wait();
            else queue.wait_for(staged.ready[c]);
            target.get_sub_region(done, bytes)
                .set(queue, std::span<const std::byte>(staged.host.subspan(done, bytes)), true);
        }
    }

    /// A point after every download of `rank` enqueued so far (for a later wait of its queue).
    Event downloads_so_far(std::size_t rank) const { return downloads_[rank].record_event(); }
    /// Downloads of `rank` enqueued from now on wait for what its queue has enqueued so far.
    void downloads_after_queue(std::size_t rank) const { downloads_[rank].wait_for(ranks_[rank].queue.record_event()); }

    /// Between segments: later downloads wait for every upload so far (they rewrite the host
    /// memory), and each rank's later work waits for its downloads so far (they read temporaries
    /// that the next segment rewrites).
    void barrier() const {
        std::vector<Event> queues, downloads;
        for (std::size_t r = 0; r < ranks_.size(); ++r) {
            queues.push_back(ranks_[r].queue.record_event());
            downloads.push_back(downloads_[r].record_event());
        }
        for (std::size_t r = 0; r < ranks_.size(); ++r) {
            for (const Event& event : queues) downloads_[r].wait_for(event);
            ranks_[r].queue.wait_for(downloads[r]);
        }
    }

    void finish() const {
        for (std::size_t r = 0; r < ranks_.size(); ++r) {
            downloads_[r].synchronize();
            ranks_[r].queue.synchronize();
        }
    }

private:
    const std::vector<RankOperands>& ranks_;
    RelaySizes sizes_;
    bool host_waits_;
    std::vector<Queue> downloads_;
    std::vector<HostMemory> blocks_;
};

using Staged = Relay::Staged;

/// Reduces, on `owner`'s queue, its block: its own from `own` (a region of its src) into
/// `accumulator`, then every other rank's from `parts[j]` combined into it (avg divided), in the
/// order their downloads finish: rank j downloads the block of rank j + s at its step s, so the
/// owner takes owner - 1 first, then owner - 2, and so on. (A fixed order per owner: every run
/// gives the same bits, and the header allows any order.)
void reduce_owned(Relay& relay, const std::vector<RankOperands>& ranks, std::size_t owner, const Buffer& own,
                  const std::vector<std::optional<Staged>>& parts, const Array& accumulator, const Array& contribution,
                  ReduceOp op) {
    const Queue& queue = ranks[owner].queue;
    const std::size_t k = ranks.size();
    copy_after(queue, bytes_of(accumulator), queue, own);
    for (std::size_t step = 1; step < k; ++step) {
        relay.upload(owner, *parts[(owner + k - step) % k], bytes_of(contribution));
        combine(queue, accumulator, contribution, op);
    }
    divide_for_avg(queue, accumulator, op, static_cast<int>(k));
}

/// Per rank, a temporary of `size` elements of the call's dtype (kept in `keep`).
std::vector<Array> temporaries(const std::vector<RankOperands>& ranks, std::size_t size, std::vector<Array>& keep) {
    std::vector<Array> made;
    for (const RankOperands& rank : ranks) {
        made.push_back(temporary(rank.queue, rank.src.dtype(), std::max<std::size_t>(size, 1)));
        keep.push_back(made.back());
    }
    return made;
}

void relay_all_reduce(Relay& relay, const std::vector<RankOperands>& ranks, ReduceOp op, std::vector<Array>& keep) {
    const std::size_t k = ranks.size(), size = ranks[0].src.size(), item = ranks[0].src.dtype().itemsize();
    const std::size_t segment = std::min(size, relay.segment_elements(item));
    const std::size_t largest_block = (segment + k - 1) / k;
    const std::span<std::byte> parts_host = relay.host(k * segment * item), results_host = relay.host(segment * item);
    const std::vector<Array> accumulators = temporaries(ranks, largest_block, keep);
    const std::vector<Array> contributions = temporaries(ranks, largest_block, keep);
    for (std::size_t start = 0; start < size; start += segment) {
        if (start != 0) relay.barrier();
        const std::size_t length = std::min(segment, size - start);
        const auto first = [&](std::size_t r) { return start + length * r / k; };
        const auto count = [&](std::size_t r) { return length * (r + 1) / k - length * r / k; };
        // Rank j sends block r to its owner: first the block of the next rank, whose owner combines
        // rank j's contribution early when j is its predecessor.
        std::vector<std::vector<std::optional<Staged>>> parts(k, std::vector<std::optional<Staged>>(k));
        std::vector<Event> sources_read;
        for (std::size_t j = 0; j < k; ++j) {
            for (std::size_t step = 1; step < k; ++step) {
                const std::size_t r = (j + step) % k;
                if (count(r) == 0) continue;
                parts[r][j] = relay.download(j, elements_of(ranks[j].src, first(r), count(r)),
                                             parts_host.subspan((j * segment + first(r) - start) * item));
            }
            sources_read.push_back(relay.downloads_so_far(j));
        }
        std::vector<std::optional<Staged>> results(k);
        for (std::size_t r = 0; r < k; ++r) {
            if (count(r) == 0) continue;
            const Array accumulator = head(accumulators[r], count(r));
            reduce_owned(relay, ranks, r, elements_of(ranks[r].src, first(r), count(r)), parts[r], accumulator,
                         head(contributions[r], count(r)), op);
            relay.downloads_after_queue(r);
            results[r] = relay.download(r, bytes_of(accumulator), results_host.subspan((first(r) - start) * item));
        }
        for (std::size_t j = 0; j < k; ++j) {
            // In place, dst is src: written only once this rank's downloads of src are done.
            ranks[j].queue.wait_for(sources_read[j]);
            for (std::size_t r = 0; r < k; ++r) {
                if (count(r) == 0) continue;
                const Buffer target = elements_of(ranks[j].dst, first(r), count(r));
                if (r == j)
                    copy_after(ranks[j].queue, target, ranks[j].queue, bytes_of(head(accumulators[j], count(j))));
                else relay.upload(j, *results[r], target);
            }
        }
    }
}

void relay_reduce_scatter(Relay& relay, const std::vector<RankOperands>& ranks, ReduceOp op, std::vector<Array>& keep) {
    const std::size_t k = ranks.size(), size = ranks[0].dst.size(), item = ranks[0].src.dtype().itemsize();
    const std::size_t segment = std::min(size, relay.segment_elements(item, k));
    const std::span<std::byte> parts_host = relay.host(k * k * segment * item);
    const std::vector<Array> accumulators = temporaries(ranks, segment, keep);
    const std::vector<Array> contributions = temporaries(ranks, segment, keep);
    for (std::size_t start = 0; start < size; start += segment) {
        if (start != 0) relay.barrier();
        const std::size_t length = std::min(segment, size - start);
        std::vector<std::vector<std::optional<Staged>>> parts(k, std::vector<std::optional<Staged>>(k));
        std::vector<Event> sources_read;
        for (std::size_t j = 0; j < k; ++j) {
            for (std::size_t step = 1; step < k; ++step) {
                const std::size_t r = (j + step) % k;
                parts[r][j] = relay.download(j, elements_of(ranks[j].src, r * size + start, length),
                                             parts_host.subspan((j * k + r) * segment * item));
            }
            sources_read.push_back(relay.downloads_so_far(j));
        }
        for (std::size_t r = 0; r < k; ++r) {
            const Array accumulator = head(accumulators[r], length);
            reduce_owned(relay, ranks, r, elements_of(ranks[r].src, r * size + start, length), parts[r], accumulator,
                         head(contributions[r], length), op);
            // In place, dst is a view of src: written once this rank's downloads of src are done.
            ranks[r].queue.wait_for(sources_read[r]);
            copy_after(ranks[r].queue, elements_of(ranks[r].dst, start, length), ranks[r].queue, bytes_of(accumulator));
        }
    }
}

void relay_reduce(Relay& relay, const std::vector<RankOperands>& ranks, ReduceOp op, std::size_t root,
                  std::vector<Array>& keep) {
    const std::size_t k = ranks.size(), size = ranks[0].src.size(), item = ranks[0].src.dtype().itemsize();
    const std::size_t segment = std::min(size, relay.segment_elements(item, k));
    const std::span<std::byte> parts_host = relay.host(k * segment * item);
    const Array accumulator = temporary(ranks[root].queue, ranks[root].src.dtype(), segment);
    const Array contribution = temporary(ranks[root].queue, ranks[root].src.dtype(), segment);
    keep.push_back(accumulator);
    keep.push_back(contribution);
    for (std::size_t start = 0; start < size; start += segment) {
        if (start != 0) relay.barrier();
        const std::size_t length = std::min(segment, size - start);
        std::vector<std::optional<Staged>> parts(k);
        for (std::size_t j = 0; j < k; ++j)
            if (j != root)
                parts[j] =
                    relay.download(j, elements_of(ranks[j].src, start, length), parts_host.subspan(j * segment * item));
        const Array sum = head(accumulator, length);
        reduce_owned(relay, ranks, root, elements_of(ranks[root].src, start, length), parts, sum,
                     head(contribution, length), op);
        copy_after(ranks[root].queue, elements_of(ranks[root].dst, start, length), ranks[root].queue, bytes_of(sum));
    }
}

void relay_broadcast(Relay& relay, const std::vector<RankOperands>& ranks, std::size_t root) {
    const std::size_t size = ranks[0].src.size(), item = ranks[0].src.dtype().itemsize();
    const std::size_t segment = std::min(size, relay.segment_elements(item));
    const std::span<std::byte> host = relay.host(segment * item);
    for (std::size_t start = 0; start < size; start += segment) {
        if (start != 0) relay.barrier();
        const std::size_t length = std::min(segment, size - start);
        const Staged staged = relay.download(root, elements_of(ranks[root].src, start, length), host);
        for (std::size_t j = 0; j < ranks.size(); ++j)
            if (j != root) relay.upload(j, staged, elements_of(ranks[j].src, start, length));
    }
}

void relay_all_gather(Relay& relay, const std::vector<RankOperands>& ranks) {
    const std::size_t k = ranks.size(), size = ranks[0].src.size(), item = ranks[0].src.dtype().itemsize();
    const std::size_t segment = std::min(size, relay.segment_elements(item, k));
    const std::span<std::byte> host = relay.host(k * segment * item);
    for (std::size_t start = 0; start < size; start += segment) {
        if (start != 0) relay.barrier();
        const std::size_t length = std::min(segment, size - start);
        std::vector<Staged> parts;
        std::vector<Event> sources_read;
        for (std::size_t i = 0; i < k; ++i) {
            parts.push_back(
                relay.download(i, elements_of(ranks[i].src, start, length), host.subspan(i * segment * item)));
            sources_read.push_back(relay.downloads_so_far(i));
        }
        for (std::size_t j = 0; j < k; ++j) {
            // Only a target over this rank's src waits for its downloads (an odd aliasing: in
            // place, src is exactly the block i == j, which is not written): otherwise the
            // uploads run while the downloads do, both directions of the bus at once.
            bool waited = false;
            for (std::size_t i = 0; i < k; ++i) {
                const Buffer target = elements_of(ranks[j].dst, i * size + start, length);
                const bool in_place = i == j && same_region(target, elements_of(ranks[j].src, start, length));
                if (!waited && !in_place && overlaps(target, bytes_of(ranks[j].src))) {
                    ranks[j].queue.wait_for(sources_read[j]);
                    waited = true;
                }
                if (i == j)
                    move_bytes(ranks[j].queue, target, ranks[j].queue, elements_of(ranks[j].src, start, length));
                else relay.upload(j, parts[i], target);
            }
        }
    }
}

void relay_all_to_all(Relay& relay, const std::vector<RankOperands>& ranks) {
    const std::size_t k = ranks.size(), size = ranks[0].src.size() / k, item = ranks[0].src.dtype().itemsize();
    const std::size_t segment = std::min(size, relay.segment_elements(item, k));
    const std::span<std::byte> host = relay.host(k * k * segment * item);
    for (std::size_t start = 0; start < size; start += segment) {
        if (start != 0) relay.barrier();
        const std::size_t length = std::min(segment, size - start);
        // parts[j][i]: rank i's block for rank j.
        std::vector<std::vector<std::optional<Staged>>> parts(k, std::vector<std::optional<Staged>>(k));
        std::vector<Event> sources_read;
        for (std::size_t i = 0; i < k; ++i) {
            for (std::size_t step = 1; step < k; ++step) {
                const std::size_t j = (i + step) % k;
                parts[j][i] = relay.download(i, elements_of(ranks[i].src, j * size + start, length),
                                             host.subspan((i * k + j) * segment * item));
            }
            sources_read.push_back(relay.downloads_so_far(i));
        }
        for (std::size_t j = 0; j < k; ++j) {
            // As in all_gather: only a target over this rank's src (in place, every block but
            // its own) waits for its downloads.
            bool waited = false;
            for (std::size_t i = 0; i < k; ++i) {
                const Buffer target = elements_of(ranks[j].dst, i * size + start, length);
                const bool in_place =
                    i == j && same_region(target, elements_of(ranks[j].src, j * size + start, length));
                if (!waited && !in_place && overlaps(target, bytes_of(ranks[j].src))) {
                    ranks[j].queue.wait_for(sources_read[j]);
                    waited = true;
                }
                if (i == j)
                    move_bytes(ranks[j].queue, target, ranks[j].queue,
                               elements_of(ranks[j].src, j * size + start, length));
                else relay.upload(j, *parts[j][i], target);
            }
        }
    }
}

}  // namespace

void run_local_fallback(Collective collective, const std::vector<RankOperands>& ranks, ReduceOp op, int root) {
    std::vector<Array> keep;  // temporaries, until every queue is synchronized
    std::vector<BoundDevice> devices;
    devices.reserve(ranks.size());
    for (const RankOperands& rank : ranks) devices.push_back(rank.queue.device());
    if (relays_between(devices)) {
        Relay relay(ranks, relay_sizes());
        const auto owner = static_cast<std::size_t>(root);
        switch (collective) {
        case Collective::all_reduce: relay_all_reduce(relay, ranks, op, keep); break;
        case Collective::reduce: relay_reduce(relay, ranks, op, owner, keep); break;
        case Collective::broadcast: relay_broadcast(relay, ranks, owner); break;
        case Collective::all_gather: relay_all_gather(relay, ranks); break;
        case Collective::reduce_scatter: relay_reduce_scatter(relay, ranks, op, keep); break;
        case Collective::all_to_all: relay_all_to_all(relay, ranks); break;
        }
        relay.finish();
        return;
    }
    run_direct(collective, ranks, op, root, keep);
    for (const RankOperands& rank : ranks) rank.queue.synchronize();
}

}  // namespace kjarni::detail
