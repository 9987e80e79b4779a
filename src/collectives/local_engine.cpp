// The fallback engine when one thread drives every rank (a call over a MultiArray): the ranks'
// devices share one context, so every step is a device copy between them (a peer copy where the
// hardware has it, else the driver stages it) or one of kjarni's elementwise kernels. Reductions
// gather the contributions of one result (the whole array, or one block of it) on the device of the
// rank that keeps it and combine them there in rank order.
//
// The queues are ordered with events (DeviceCopier, which also stages copies between devices where
// the driver's own are slow); every temporary and staging slot stays alive until the final
// synchronization of every queue, so nothing is freed under pending work.

#include <cstddef>
#include <optional>
#include <vector>

#include "collectives/comm_engine.hpp"
#include "collectives/device_steps.hpp"

namespace kjarni::detail {

namespace {

bool same_region(const Buffer& a, const Buffer& b) {
    return detail::backend_of(a) == detail::backend_of(b) && a.offset() == b.offset() && a.size() == b.size();
}

/// Copies unless target and source are the same memory (in-place calls).
void move_bytes(DeviceCopier& copier, const Queue& queue, const Buffer& target, const Queue& source_queue,
                const Buffer& source) {
    if (same_region(target, source)) return;
    copier.copy(queue, target, source_queue, source);
}

/// Elements [first, first + size) of every rank's src combined by `op` on `owner`'s device: a new
/// temporary (kept in `keep`).
Array reduce_block(DeviceCopier& copier, const std::vector<RankOperands>& ranks, std::size_t owner, std::size_t first,
                   std::size_t size, ReduceOp op, std::vector<Array>& keep) {
    const Queue& queue = ranks[owner].queue;
    const DType& dtype = ranks[owner].src.dtype();
    const Array accumulator = temporary(queue, dtype, size);
    keep.push_back(accumulator);
    copier.copy(queue, bytes_of(accumulator), ranks[0].queue, elements_of(ranks[0].src, first, size));
    for (std::size_t i = 1; i < ranks.size(); ++i) {
        const Array contribution = temporary(queue, dtype, size);
        keep.push_back(contribution);
        copier.copy(queue, bytes_of(contribution), ranks[i].queue, elements_of(ranks[i].src, first, size));
        combine(queue, accumulator, contribution, op);
    }
    divide_for_avg(queue, accumulator, op, static_cast<int>(ranks.size()));
    return accumulator;
}

}  // namespace

void run_local_fallback(Collective collective, const std::vector<RankOperands>& ranks, ReduceOp op, int root) {
    const std::size_t n = ranks.size();
    std::vector<Array> keep;
    DeviceCopier copier;  // kept, like the temporaries, until every queue is synchronized
    switch (collective) {
    case Collective::all_reduce: {
        // Each rank owns one block of the result (as even as possible) and reduces it; then every
        // rank gathers every block: the work and the traffic are spread over the devices.
        const std::size_t size = ranks[0].src.size();
        std::vector<std::optional<Array>> blocks(n);
        for (std::size_t r = 0; r < n; ++r) {
            const std::size_t first = size * r / n, last = size * (r + 1) / n;
            if (last > first) blocks[r] = reduce_block(copier, ranks, r, first, last - first, op, keep);
        }
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t r = 0; r < n; ++r) {
                const std::size_t first = size * r / n, last = size * (r + 1) / n;
                if (last > first)
                    copier.copy(ranks[j].queue, elements_of(ranks[j].dst, first, last - first), ranks[r].queue,
                                bytes_of(*blocks[r]));
            }
        }
        break;
    }
    case Collective::reduce: {
        const auto owner = static_cast<std::size_t>(root);
        const Array result = reduce_block(copier, ranks, owner, 0, ranks[owner].src.size(), op, keep);
        copy_after(ranks[owner].queue, bytes_of(ranks[owner].dst), ranks[owner].queue, bytes_of(result));
        break;
    }
    case Collective::broadcast: {
        const auto owner = static_cast<std::size_t>(root);
        for (std::size_t j = 0; j < n; ++j)
            if (j != owner)
                move_bytes(copier, ranks[j].queue, bytes_of(ranks[j].src), ranks[owner].queue,
                           bytes_of(ranks[owner].src));
        break;
    }
    case Collective::all_gather: {
        const std::size_t size = ranks[0].src.size();
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t i = 0; i < n; ++i)
                move_bytes(copier, ranks[j].queue, elements_of(ranks[j].dst, i * size, size), ranks[i].queue,
                           bytes_of(ranks[i].src));
        break;
    }
    case Collective::reduce_scatter: {
        const std::size_t size = ranks[0].dst.size();
        std::vector<std::optional<Array>> blocks(n);
        for (std::size_t r = 0; r < n; ++r) blocks[r] = reduce_block(copier, ranks, r, r * size, size, op, keep);
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
                copier.copy(ranks[j].queue, elements_of(ranks[j].dst, i * size, size), ranks[i].queue,
                            elements_of(ranks[i].src, j * size, size));
        break;
    }
    }
    for (const RankOperands& rank : ranks) rank.queue.synchronize();
}

}  // namespace kjarni::detail
