// The public communicator: checks the operands (collectives/operand_checks.hpp), makes the new
// outputs, and hands flat views to the engine.

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "collectives/comm_engine.hpp"
#include "collectives/local_clique.hpp"
#include "collectives/operand_checks.hpp"
#include "kjarni/collectives.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace {

/// Runs `call` on `engine`; a PeerError (a rank died or timed out) aborts the engine first, so that
/// every engine ends the same way: later calls give PeerError at once.
template <class Call>
void guarded(detail::CommEngine& engine, Call&& call) {
    try {
        call(engine);
    } catch (const PeerError& error) {
        engine.abort(error.what());
        throw;
    }
}

/// What from_rendezvous gathers from every rank: whether it can run NCCL (0 or 1), then its device's
/// PCI bus id (printable, as CUDA writes it: "0000:65:00.0"). PeerError naming a rank whose bytes
/// are anything else: they came from another process and decide which engine every rank runs.
void check_capabilities(const std::vector<std::vector<std::byte>>& all) {
    constexpr std::size_t longest_bus_id = 64;
    for (std::size_t r = 0; r < all.size(); ++r) {
        const auto& v = all[r];
        const bool flag = !v.empty() && (v[0] == std::byte{0} || v[0] == std::byte{1});
        const bool printable = std::all_of(v.begin() + (v.empty() ? 0 : 1), v.end(), [](std::byte c) {
            return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
        });
        if (!flag || !printable || v.size() > 1 + longest_bus_id) {
            throw PeerError(static_cast<int>(r), fmt::format("sent {} bytes that are no engine capability (a flag and "
                                                             "a PCI bus id of at most {} characters)",
                                                             v.size(), longest_bus_id));
        }
    }
}

}  // namespace

using detail::check_operand;
using detail::check_rank;
using detail::check_same_dtype;
using detail::check_size;
using detail::flat;

Communicator::Communicator(Queue queue, std::shared_ptr<detail::CommEngine> engine)
    : queue_(std::move(queue)), engine_(std::move(engine)) {}

Communicator::Communicator(const Queue& queue, const CliqueId& id, int count, int rank,
                           std::chrono::milliseconds timeout)
    : queue_(queue) {
    if (timeout <= std::chrono::milliseconds::zero())
        throw ArgumentError("timeout", fmt::format("is {} ms; it must be positive", timeout.count()));
    if (count < 1) throw ArgumentError("count", fmt::format("is {}; a clique has at least one rank", count));
    check_rank(rank, "rank", count);
    if (id.engine() == CollectiveEngine::fallback)
        engine_ = detail::make_ring_engine(detail::join_local_clique(id, count, rank));
    else engine_ = detail::make_nccl_engine(queue, id, count, rank, timeout);
}

Communicator Communicator::from_rendezvous(const Queue& queue, Rendezvous& rendezvous, CollectiveEngine engine,
                                           std::chrono::milliseconds timeout) {
    if (timeout <= std::chrono::milliseconds::zero())
        throw ArgumentError("timeout", fmt::format("is {} ms; it must be positive", timeout.count()));
    // NCCL only if every rank can run it (automatic) or was told to: the ranks agree first, then rank 0
    // makes an id of that kind. NCCL also needs a GPU of its own for every rank (two ranks on one
    // device make ncclCommInitRank fail on one rank and wait forever on the others), so each rank
    // tells its device's PCI bus id too and a repeated or unknown one means the fallback.
    bool nccl = engine == CollectiveEngine::nccl;
    if (engine == CollectiveEngine::automatic) {
        std::vector<std::byte> mine{std::byte{static_cast<unsigned char>(detail::nccl_available(queue) ? 1 : 0)}};
        const std::string bus = queue.device().device().properties().pci_bus_id.value_or("");
        for (const char c : bus) mine.push_back(static_cast<std::byte>(c));
        const auto all = rendezvous.all_gather(mine);
        check_capabilities(all);
        std::set<std::vector<std::byte>> buses;
        nccl = std::all_of(all.begin(), all.end(), [&](const std::vector<std::byte>& v) {
            return v.size() > 1 && v[0] == std::byte{1} && buses.emplace(v.begin() + 1, v.end()).second;
        });
    }
    if (nccl) detail::require_nccl(queue);
    std::vector<std::byte> bytes;
    if (rendezvous.rank() == 0) {
        const CliqueId id = CliqueId::create(queue, nccl ? CollectiveEngine::nccl : CollectiveEngine::fallback);
        bytes = rendezvous.broadcast(id.bytes(), 0);
    } else {
        bytes = rendezvous.broadcast({}, 0);
    }
    if (bytes.size() != CliqueId::size) {
        throw PeerError(0,
                        fmt::format("sent a clique id of {} bytes; a clique id has {}", bytes.size(), CliqueId::size));
    }
    const CliqueId id = CliqueId::from_bytes(bytes);
    if (id.engine() == CollectiveEngine::nccl)
        return {queue, detail::make_nccl_engine(queue, id, rendezvous.count(), rendezvous.rank(), timeout)};
    // The fallback moves its bytes through the user's rendezvous, which outlives the communicator.
    return {queue, detail::make_ring_engine(std::shared_ptr<Rendezvous>(&rendezvous, [](Rendezvous*) {}))};
}

std::vector<Communicator> Communicator::create_all(const MultiQueue& queues, CollectiveEngine engine,
                                                   std::chrono::milliseconds timeout) {
    if (timeout <= std::chrono::milliseconds::zero())
        throw ArgumentError("timeout", fmt::format("is {} ms; it must be positive", timeout.count()));
    const auto& list = queues.queues();
    bool nccl = engine == CollectiveEngine::nccl;
    if (engine == CollectiveEngine::automatic)
        nccl = std::all_of(list.begin(), list.end(), [](const Queue& q) { return detail::nccl_available(q); });
    std::vector<Communicator> comms;
    if (nccl) {
        const auto engines = detail::make_all_nccl_engines(queues, timeout);
        for (std::size_t i = 0; i < list.size(); ++i) comms.push_back(Communicator(list[i], engines[i]));
        return comms;
    }
    const auto rendezvous = detail::local_group(static_cast<int>(list.size()));
    for (std::size_t i = 0; i < list.size(); ++i)
        comms.push_back(Communicator(list[i], detail::make_ring_engine(rendezvous[i])));
    return comms;
}

int Communicator::rank() const noexcept { return engine_->rank(); }
int Communicator::count() const noexcept { return engine_->count(); }
std::string Communicator::engine() const { return engine_->name(); }

void Communicator::wait(std::chrono::milliseconds timeout) const {
    if (timeout < std::chrono::milliseconds::zero())
        throw ArgumentError("timeout", fmt::format("is {} ms; it must not be negative", timeout.count()));
    guarded(live(), [&](detail::CommEngine& engine) { engine.wait(queue_, timeout); });
}

void Communicator::abort() const { engine_->abort("abort() was called on rank " + std::to_string(rank())); }

bool Communicator::aborted() const noexcept { return engine_->aborted(); }

detail::CommEngine& Communicator::live() const {
    engine_->require_alive();
    return *engine_;
}

Communicator Communicator::on(const Queue& queue) const {
    if (!(queue.device() == queue_.device()))
        throw ArgumentError("queue", fmt::format("is on {}, but the communicator is on {}", queue.device().name(),
                                                 queue_.device().name()));
    return {queue, engine_};
}

void Communicator::all_reduce(const Array& src, const Array& dest, ReduceOp op) const {
    dest.require_writeable("dest");
    check_operand(src, "src", queue_.device());
    check_operand(dest, "dest", queue_.device());
    check_same_dtype(dest, "dest", src, "src");
    check_size(dest, "dest", src.size(), "the size of src");
    if (src.size() == 0) return;
    guarded(live(), [&](detail::CommEngine& engine) { engine.all_reduce(queue_, flat(src), flat(dest), op); });
}

Array Communicator::all_reduce(const Array& src, ReduceOp op) const {
    check_operand(src, "src", queue_.device());
    const Array dest = Array::empty(queue_.device(), src.shape(), src.dtype());
    all_reduce(src, dest, op);
    return dest;
}

void Communicator::reduce(const Array& src, const Array& dest, ReduceOp op, int root) const {
    dest.require_writeable("dest");
    check_operand(src, "src", queue_.device());
    check_rank(root, "root", count());
    if (rank() == root) {
        check_operand(dest, "dest", queue_.device());
        check_same_dtype(dest, "dest", src, "src");
        check_size(dest, "dest", src.size(), "the size of src");
    }
    if (src.size() == 0) return;
    const Array& target = rank() == root ? dest : src;
    guarded(live(), [&](detail::CommEngine& engine) { engine.reduce(queue_, flat(src), flat(target), op, root); });
}

std::optional<Array> Communicator::reduce(const Array& src, ReduceOp op, int root) const {
    check_operand(src, "src", queue_.device());
    check_rank(root, "root", count());
    if (rank() != root) {
        reduce(src, src, op, root);
        return std::nullopt;
    }
    const Array dest = Array::empty(queue_.device(), src.shape(), src.dtype());
    reduce(src, dest, op, root);
    return dest;
}

void Communicator::broadcast(const Array& array, int root) const {
    array.require_writeable("array");
    check_operand(array, "array", queue_.device());
    check_rank(root, "root", count());
    if (array.size() == 0) return;
    guarded(live(), [&](detail::CommEngine& engine) { engine.broadcast(queue_, flat(array), root); });
}

void Communicator::all_gather(const Array& src, const Array& dest) const {
    check_operand(src, "src", queue_.device());
    check_operand(dest, "dest", queue_.device());
    check_same_dtype(dest, "dest", src, "src");
    check_size(dest, "dest", src.size() * static_cast<std::size_t>(count()), "count times the size of src");
    if (src.size() == 0) return;
    guarded(live(), [&](detail::CommEngine& engine) { engine.all_gather(queue_, flat(src), flat(dest)); });
}

Array Communicator::all_gather(const Array& src, int nd_up) const {
    check_operand(src, "src", queue_.device());
    const auto n = static_cast<std::size_t>(count());
    std::vector<std::size_t> shape;
    if (nd_up == 1) {
        shape.push_back(n);
        shape.insert(shape.end(), src.shape().begin(), src.shape().end());
    } else if (nd_up == 0) {
        if (src.ndim() == 0)
            throw ArgumentError("src", "is 0-dimensional: nd_up = 0 joins along axis 0, which it lacks");
        shape = src.shape();
        shape[0] *= n;
    } else {
        throw ArgumentError("nd_up",
                            fmt::format("is {}; it is 1 (a new outer axis) or 0 (joined along axis 0)", nd_up));
    }
    const Array dest = Array::empty(queue_.device(), shape, src.dtype());
    all_gather(src, dest);
    return dest;
}

void Communicator::reduce_scatter(const Array& src, const Array& dest, ReduceOp op) const {
    check_operand(src, "src", queue_.device());
    check_operand(dest, "dest", queue_.device());
    check_same_dtype(dest, "dest", src, "src");
    if (src.size() % static_cast<std::size_t>(count()) != 0)
        throw ArgumentError("src", fmt::format("has {} elements, not a multiple of the count {}", src.size(), count()));
    check_size(dest, "dest", src.size() / static_cast<std::size_t>(count()), "the size of src divided by the count");
    if (dest.size() == 0) return;
    guarded(live(), [&](detail::CommEngine& engine) { engine.reduce_scatter(queue_, flat(src), flat(dest), op); });
}

Array Communicator::reduce_scatter(const Array& src, ReduceOp op) const {
    check_operand(src, "src", queue_.device());
    std::vector<std::size_t> shape = src.shape();
    shape[0] = detail::outer_extent_divisible(src, "src", count()) / static_cast<std::size_t>(count());
    const Array dest = Array::empty(queue_.device(), shape, src.dtype());
    reduce_scatter(src, dest, op);
    return dest;
}

void Communicator::all_to_all(const Array& src, const Array& dest) const {
    check_operand(src, "src", queue_.device());
    check_operand(dest, "dest", queue_.device());
    check_same_dtype(dest, "dest", src, "src");
    if (src.size() % static_cast<std::size_t>(count()) != 0)
        throw ArgumentError("src", fmt::format("has {} elements, not a multiple of the count {}", src.size(), count()));
    check_size(dest, "dest", src.size(), "the size of src");
    if (detail::backend_of(src.base()) == detail::backend_of(dest.base()) && src.offset() == dest.offset() &&
        src.base().offset() == dest.base().offset())
        throw ArgumentError("dest", "is src: all_to_all does not work in place");
    if (src.size() == 0) return;
    guarded(live(), [&](detail::CommEngine& engine) { engine.all_to_all(queue_, flat(src), flat(dest)); });
}

Array Communicator::all_to_all(const Array& src) const {
    check_operand(src, "src", queue_.device());
    detail::outer_extent_divisible(src, "src", count());
    const Array dest = Array::empty(queue_.device(), src.shape(), src.dtype());
    all_to_all(src, dest);
    return dest;
}

void Communicator::send(const Array& src, int peer) const {
    check_operand(src, "src", queue_.device());
    check_rank(peer, "peer", count());
    if (peer == rank()) throw ArgumentError("peer", fmt::format("is {}, this communicator's own rank", peer));
    if (src.size() == 0) return;
    guarded(live(), [&](detail::CommEngine& engine) { engine.send(queue_, flat(src), peer); });
}

void Communicator::recv(const Array& dest, int peer) const {
    check_operand(dest, "dest", queue_.device());
    check_rank(peer, "peer", count());
    if (peer == rank()) throw ArgumentError("peer", fmt::format("is {}, this communicator's own rank", peer));
    if (dest.size() == 0) return;
    guarded(live(), [&](detail::CommEngine& engine) { engine.recv(queue_, flat(dest), peer); });
}

}  // namespace kjarni
