// Collectives over every part of a MultiArray, one call for every rank of this thread: the parts
// are paired with the communicators of their devices, checked, and run as one NCCL group or by the
// fallback's in-process engine (local_engine.cpp).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "collectives/comm_engine.hpp"
#include "collectives/operand_checks.hpp"
#include "kjarni/collectives.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace detail {

void run_on_all_ranks(Collective collective, const std::vector<RankOperands>& ranks, ReduceOp op, int root) {
    const bool nccl = ranks.front().engine->is_nccl();
    for (const RankOperands& rank : ranks) rank.engine->require_alive();
    for (const RankOperands& rank : ranks)
        if (rank.engine->is_nccl() != nccl)
            throw ArgumentError("comms", "mixes NCCL and fallback communicators (make them with one create_all)");
    if (!nccl) {
        run_local_fallback(collective, ranks, op, root);
        return;
    }
    nccl_group([&] {
        for (const RankOperands& rank : ranks) {
            CommEngine& engine = *rank.engine;
            switch (collective) {
            case Collective::all_reduce: engine.all_reduce(rank.queue, rank.src, rank.dst, op); break;
            case Collective::reduce: engine.reduce(rank.queue, rank.src, rank.dst, op, root); break;
            case Collective::broadcast: engine.broadcast(rank.queue, rank.src, root); break;
            case Collective::all_gather: engine.all_gather(rank.queue, rank.src, rank.dst); break;
            case Collective::reduce_scatter: engine.reduce_scatter(rank.queue, rank.src, rank.dst, op); break;
            case Collective::all_to_all: engine.all_to_all(rank.queue, rank.src, rank.dst); break;
            }
        }
    });
}

}  // namespace detail

namespace {

/// How the parts' sizes of src and dst relate, per rank.
enum class PartSizes { same, dst_is_count_times, src_is_count_times };

/// The ranks of a call, in rank order: each communicator with the part of `src` (and `dst`) on its
/// device, checked.
std::vector<detail::RankOperands> pair_parts(std::span<const Communicator> comms, const MultiArray& src,
                                             const MultiArray* dst, PartSizes sizes) {
    if (comms.empty()) throw ArgumentError("comms", "is empty");
    const int count = comms[0].count();
    if (comms.size() != static_cast<std::size_t>(count))
        throw ArgumentError("comms", fmt::format("has {} communicators of a clique of {}: a call over a MultiArray "
                                                 "takes every rank",
                                                 comms.size(), count));
    if (src.parts().size() != comms.size())
        throw ArgumentError("src", fmt::format("has {} parts for {} communicators", src.parts().size(), comms.size()));
    if (dst != nullptr && dst->parts().size() != comms.size())
        throw ArgumentError("dest",
                            fmt::format("has {} parts for {} communicators", dst->parts().size(), comms.size()));
    std::vector<std::optional<detail::RankOperands>> ranks(comms.size());
    for (const Communicator& comm : comms) {
        detail::check_rank(comm.rank(), "comms", count);
        auto& slot = ranks[static_cast<std::size_t>(comm.rank())];
        if (slot) throw ArgumentError("comms", fmt::format("has rank {} twice", comm.rank()));
        const BoundDevice& device = comm.queue().device();
        const Array* src_part = nullptr;
        for (std::size_t i = 0; i < src.parts().size(); ++i)
            if (src.devices()[i] == device) src_part = &src.parts()[i];
        if (src_part == nullptr)
            throw ArgumentError("src", fmt::format("has no part on {} (rank {})", device.name(), comm.rank()));
        const Array* dst_part = src_part;
        if (dst != nullptr) {
            dst_part = nullptr;
            for (std::size_t i = 0; i < dst->parts().size(); ++i)
                if (dst->devices()[i] == device) dst_part = &dst->parts()[i];
            if (dst_part == nullptr)
                throw ArgumentError("dest", fmt::format("has no part on {} (rank {})", device.name(), comm.rank()));
        }
        detail::check_operand(*src_part, "src", device);
        detail::check_operand(*dst_part, "dest", device);
        detail::check_same_dtype(*dst_part, "dest", *src_part, "src");
        const auto n = static_cast<std::size_t>(count);
        switch (sizes) {
        case PartSizes::same: detail::check_size(*dst_part, "dest", src_part->size(), "a part's size of src"); break;
        case PartSizes::dst_is_count_times:
            detail::check_size(*dst_part, "dest", src_part->size() * n, "count times a part's size of src");
            break;
        case PartSizes::src_is_count_times:
            if (src_part->size() % n != 0)
                throw ArgumentError("src", fmt::format("has a part of {} elements, not a multiple of the count {}",
                                                       src_part->size(), count));
            detail::check_size(*dst_part, "dest", src_part->size() / n, "a part's size of src divided by the count");
            break;
        }
        slot = detail::RankOperands{CommunicatorAccess::engine(comm), comm.queue(), detail::flat(*src_part),
                                    detail::flat(*dst_part)};
    }
    std::vector<detail::RankOperands> result;
    for (auto& rank : ranks) result.push_back(std::move(*rank));
    // Every rank moves the same number of elements (as NCCL requires of its ranks).
    for (const auto& rank : result) {
        if (rank.src.size() != result[0].src.size())
            throw ArgumentError("src",
                                fmt::format("has parts of {} and {} elements; every part must have the same size",
                                            result[0].src.size(), rank.src.size()));
    }
    return result;
}

bool empty_call(const std::vector<detail::RankOperands>& ranks) {
    return ranks[0].src.size() == 0 || ranks[0].dst.size() == 0;
}

}  // namespace

void all_reduce(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest, ReduceOp op) {
    const auto ranks = pair_parts(comms, src, &dest, PartSizes::same);
    if (!empty_call(ranks)) detail::run_on_all_ranks(detail::Collective::all_reduce, ranks, op, 0);
}

MultiArray all_reduce(std::span<const Communicator> comms, const MultiArray& src, ReduceOp op) {
    const MultiArray dest = MultiArray::empty(src.devices(), src.shape(), src.dtype(), {}, src.splay());
    all_reduce(comms, src, dest, op);
    return dest;
}

void reduce(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest, ReduceOp op, int root) {
    const auto ranks = pair_parts(comms, src, &dest, PartSizes::same);
    detail::check_rank(root, "root", comms[0].count());
    if (!empty_call(ranks)) detail::run_on_all_ranks(detail::Collective::reduce, ranks, op, root);
}

void broadcast(std::span<const Communicator> comms, const MultiArray& array, int root) {
    const auto ranks = pair_parts(comms, array, nullptr, PartSizes::same);
    detail::check_rank(root, "root", comms[0].count());
    if (!empty_call(ranks)) detail::run_on_all_ranks(detail::Collective::broadcast, ranks, ReduceOp::sum, root);
}

void all_gather(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest) {
    const auto ranks = pair_parts(comms, src, &dest, PartSizes::dst_is_count_times);
    if (!empty_call(ranks)) detail::run_on_all_ranks(detail::Collective::all_gather, ranks, ReduceOp::sum, 0);
}

MultiArray all_gather(std::span<const Communicator> comms, const MultiArray& src) {
    const MultiArray dest =
        MultiArray::empty(src.devices(), src.shape(), src.dtype(), {}, std::make_shared<CloneSplay>());
    all_gather(comms, src, dest);
    return dest;
}

void reduce_scatter(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest, ReduceOp op) {
    const auto ranks = pair_parts(comms, src, &dest, PartSizes::src_is_count_times);
    if (!empty_call(ranks)) detail::run_on_all_ranks(detail::Collective::reduce_scatter, ranks, op, 0);
}

MultiArray reduce_scatter(std::span<const Communicator> comms, const MultiArray& src, ReduceOp op) {
    if (src.shape().empty() || src.shape()[0] % src.parts().size() != 0)
        throw ArgumentError("src", fmt::format("has shape ({}); axis 0 must be a multiple of the {} parts",
                                               fmt::join(src.shape(), ", "), src.parts().size()));
    const MultiArray dest =
        MultiArray::empty(src.devices(), src.shape(), src.dtype(), {}, std::make_shared<EqualSplay>());
    reduce_scatter(comms, src, dest, op);
    return dest;
}

void all_to_all(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest) {
    const auto ranks = pair_parts(comms, src, &dest, PartSizes::same);
    if (ranks[0].src.size() % ranks.size() != 0)
        throw ArgumentError("src", fmt::format("has parts of {} elements, not a multiple of the count {}",
                                               ranks[0].src.size(), ranks.size()));
    if (!empty_call(ranks)) detail::run_on_all_ranks(detail::Collective::all_to_all, ranks, ReduceOp::sum, 0);
}

}  // namespace kjarni
