#pragma once
/// Collective communication between devices (pygpu's collectives: GpuCommCliqueId, GpuComm): a clique
/// of ranks, one per (device, queue), that reduce, broadcast, gather and scatter arrays together.
///
///     kjarni::CliqueId id = kjarni::CliqueId::create(queue);          // on one rank, sent as bytes()
///     kjarni::Communicator comm(queue, id, count, rank);              // on every rank, collectively
///     comm.all_reduce(x, x, kjarni::ReduceOp::sum);                   // in place
///     kjarni::Array g = comm.all_gather(x);                           // shape (count, *x.shape)
///
/// Engines. On CUDA devices with NCCL (libnccl.so.2, loaded at run time) the work is NCCL's,
/// enqueued on the queue and returning at once. Everywhere else (OpenCL devices, CUDA without NCCL)
/// the fallback engine does every collective with device copies and kjarni's own elementwise
/// kernels: between the devices of one process (a MultiArray call) by copies between the parts (peer
/// where the hardware has it), and between ranks of a Rendezvous by staging through page-locked host
/// memory and a ring over the rendezvous' byte streams. The fallback completes the collective before
/// it returns (it waits for the queue first, so earlier work on it is ordered before).
/// CollectiveEngine::nccl asks for NCCL explicitly (UnsupportedError naming libnccl.so.2 when it
/// cannot be loaded, or for a non-CUDA device); automatic takes NCCL where it can and falls back.
///
/// Operands. Arrays must be C-contiguous, on the communicator's device, of a dtype NCCL has: int8,
/// uint8, int32, uint32, int64, uint64, float16, float32, float64 (ArgumentError naming the dtype
/// otherwise; also for mismatched shapes, dtypes or devices, naming the argument). Every rank passes
/// the same shapes and dtypes, and calls the collectives in the same order (as NCCL requires; a
/// mismatch between ranks is not detected and may hang, as NCCL's would). Results of reductions:
///   - sum and prod wrap around for integers (two's complement), as NCCL does;
///   - max and min; for floats a NaN on any rank may or may not propagate, as with NCCL;
///   - avg: floats: the sum divided by the count; integers: the (wrapped) sum divided by the count,
///     truncated toward zero (NCCL's SumPostDiv).
/// Floating-point sums are not summed in rank order (NCCL's ring and tree orders differ too): a
/// result differs from a sequential sum by rounding only.
///
/// Work goes onto the communicator's queue, ordered with the rest of it; `on(queue)` gives the same
/// communicator with another queue of its device for the calls made through it. One communicator
/// takes one call at a time (as an NCCL communicator does): calls from several threads at once must
/// be serialized by the caller. kjarni has no bfloat16, so neither do its collectives.
///
/// Failures. A rank that dies or stops calling leaves NCCL's other ranks waiting forever, in the
/// initialization or inside the kernels of a collective. So every communicator has a timeout: its
/// initialization gives PeerError when the clique is not complete within it, and `wait` (which
/// returns when the communicator's queue is done) gives PeerError when a rank reports an error or the
/// work is not done within it. Either way the communicator is aborted (ncclCommAbort, which also
/// stops its spinning kernels): every later call gives PeerError, and its arrays may hold partial
/// results. Waiting for the queue by other means (Queue::synchronize) waits without a limit. The
/// default is ten minutes (PyTorch's for NCCL process groups): long enough for the initialization of
/// a large clique; a timeout of milliseconds::max() makes a blocking NCCL communicator, the only kind
/// NCCL older than 2.14 has. The fallback engine's waits are bounded by its rendezvous' timeout.
/// With NCCL 2.18 or newer the calls go through a blocking communicator split from the non-blocking
/// one (a non-blocking one starts a thread for every call): the calls cost what NCCL's own do, and
/// only a call that sets up new connections (the first of an algorithm, NCCL_RUNTIME_CONNECT) can
/// wait without a limit for a rank that is alive but stopped calling; a rank that died gives
/// PeerError there too. Destroying a communicator aborts it: wait for its work first. \file

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/multi_array.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/rendezvous.hpp"

namespace kjarni {

enum class ReduceOp { sum, prod, max, min, avg };

/// Which engine runs the collectives (see the top of the file). NCCL takes one rank per device:
/// a clique whose ranks share a device needs `fallback`.
enum class CollectiveEngine { automatic, nccl, fallback };

/// The identity of one clique, made by one rank and handed to the others as its bytes.
class CliqueId {
public:
    static constexpr std::size_t size = 128;

    /// A new clique for `queue`'s kind of device: an ncclUniqueId for a CUDA device with NCCL
    /// (when the engine allows it), else a kjarni id for the fallback engine (random bytes).
    static CliqueId create(const Queue& queue, CollectiveEngine engine = CollectiveEngine::automatic);
    /// From the bytes another rank sent; ArgumentError if there are not exactly `size` of them.
    static CliqueId from_bytes(std::span<const std::byte> bytes);

    std::span<const std::byte> bytes() const noexcept { return bytes_; }
    /// CollectiveEngine::nccl or CollectiveEngine::fallback: what the id was made for.
    CollectiveEngine engine() const noexcept;

    friend bool operator==(const CliqueId&, const CliqueId&) = default;

private:
    std::array<std::byte, size> bytes_{};
};

namespace detail {
class CommEngine;
}

/// One rank of a clique: reduces, broadcasts, gathers and scatters arrays together with the other
/// ranks on its queue (NCCL or the fallback engine, see the top of the file). Every collective call
/// must be made by every rank, in the same order.
class Communicator {
public:
    static constexpr std::chrono::milliseconds default_timeout{std::chrono::minutes(10)};

    /// Collective over the `count` ranks of the clique: every rank calls it with its own `rank`
    /// (0 <= rank < count, each once) and its queue. A fallback id joins ranks of this process only
    /// (threads); across processes use from_rendezvous. NCCL: ncclCommInitRankConfig, non-blocking,
    /// PeerError when the clique is not complete within `timeout` (see the top of the file).
    Communicator(const Queue& queue, const CliqueId& id, int count, int rank,
                 std::chrono::milliseconds timeout = default_timeout);
    /// Collective over the ranks of the rendezvous: rank 0 makes the clique id and broadcasts it
    /// through `rendezvous`; the fallback engine keeps using `rendezvous` (which must then outlive
    /// the communicator) to move its bytes. `automatic` takes NCCL when every rank can and every
    /// rank has a GPU of its own (NCCL cannot put two ranks on one device), the fallback otherwise.
    static Communicator from_rendezvous(const Queue& queue, Rendezvous& rendezvous,
                                        CollectiveEngine engine = CollectiveEngine::automatic,
                                        std::chrono::milliseconds timeout = default_timeout);
    /// One communicator per queue of `queues`, rank i on queues.queues()[i], all made by this
    /// thread (ncclCommInitAll's job). The fallback's ranks meet in this process.
    static std::vector<Communicator> create_all(const MultiQueue& queues,
                                                CollectiveEngine engine = CollectiveEngine::automatic,
                                                std::chrono::milliseconds timeout = default_timeout);

    int rank() const noexcept;
    int count() const noexcept;
    /// "NCCL" or "fallback".
    std::string engine() const;
    const Queue& queue() const noexcept { return queue_; }
    /// The same communicator, its calls enqueued on `queue` (ArgumentError unless on its device).
    Communicator on(const Queue& queue) const;

    /// Returns when everything enqueued on the communicator's queue is done. PeerError, the
    /// communicator aborted, when a rank reports an error or `timeout` passes first.
    void wait(std::chrono::milliseconds timeout = default_timeout) const;
    /// Ends the communicator at once on this rank (the other ranks' waits then fail or time out):
    /// its enqueued collectives stop, and every later call gives PeerError. Idempotent.
    void abort() const;
    bool aborted() const noexcept;

    /// Every rank's `src` combined by `op`, on every rank. `dest` may be `src` (in place).
    void all_reduce(const Array& src, const Array& dest, ReduceOp op = ReduceOp::sum) const;
    Array all_reduce(const Array& src, ReduceOp op = ReduceOp::sum) const;
    /// Every rank's `src` combined by `op`, into `dest` on rank `root` only; the other ranks'
    /// `dest` is not touched (they may pass `src`).
    void reduce(const Array& src, const Array& dest, ReduceOp op, int root) const;
    /// A new array on the root, nullopt on the other ranks.
    std::optional<Array> reduce(const Array& src, ReduceOp op, int root) const;
    /// The root's `array` into every other rank's `array` (in place).
    void broadcast(const Array& array, int root) const;
    /// Every rank's `src`, in rank order: `nd_up` = 1 stacks them on a new outer axis (shape
    /// (count, *src.shape)); `nd_up` = 0 concatenates them along axis 0 (src must have one). `dest`
    /// must hold count * src.size() elements (any shape).
    void all_gather(const Array& src, const Array& dest) const;
    Array all_gather(const Array& src, int nd_up = 1) const;
    /// `src` cut into `count` equal blocks along axis 0 (its extent a multiple of count); block i of
    /// every rank combined by `op` lands on rank i, shape (src.shape[0] / count, *rest). `dest`
    /// must hold src.size() / count elements.
    void reduce_scatter(const Array& src, const Array& dest, ReduceOp op = ReduceOp::sum) const;
    Array reduce_scatter(const Array& src, ReduceOp op = ReduceOp::sum) const;
    /// `src` cut into `count` equal blocks along axis 0: block j goes to rank j, whose `dest` holds
    /// the blocks of every rank in rank order (the shape of src). `dest` may not be `src`.
    void all_to_all(const Array& src, const Array& dest) const;
    Array all_to_all(const Array& src) const;
    /// Point to point: the peer calls recv with an array of the same size and dtype.
    void send(const Array& src, int peer) const;
    void recv(const Array& dest, int peer) const;

private:
    Communicator(Queue queue, std::shared_ptr<detail::CommEngine> engine);
    /// The engine, or PeerError when it was aborted.
    detail::CommEngine& live() const;
    friend struct CommunicatorAccess;

    Queue queue_;
    std::shared_ptr<detail::CommEngine> engine_;
};

// One call over every part of a MultiArray: `comms` are the communicators of create_all (any
// order); each part goes with the communicator of its device, and the call runs on the
// communicators' queues. With NCCL the per-part calls are one group (ncclGroupStart/End).

/// Every part of `src` (e.g. a CloneSplay array whose parts hold different values) combined by
/// `op` into every part of `dest` (split like src; may be src).
void all_reduce(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest,
                ReduceOp op = ReduceOp::sum);
MultiArray all_reduce(std::span<const Communicator> comms, const MultiArray& src, ReduceOp op = ReduceOp::sum);
/// Every part combined into the part of `dest` on rank `root`'s device.
void reduce(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest, ReduceOp op, int root);
/// The part on rank `root`'s device copied into every other part (in place).
void broadcast(std::span<const Communicator> comms, const MultiArray& array, int root);
/// The parts of `src` (equal shapes, e.g. an EqualSplay array whose extent divides evenly) joined
/// in rank order along axis 0 on every part of `dest` (each of the whole shape, e.g. a CloneSplay
/// array of src's shape). The new result is a CloneSplay array of src's shape.
void all_gather(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest);
MultiArray all_gather(std::span<const Communicator> comms, const MultiArray& src);
/// The parts of `src` (each of the whole shape, e.g. CloneSplay) combined by `op`, block i of axis 0
/// landing in the part of `dest` on rank i (e.g. EqualSplay of src's shape, extent divisible by the
/// count). The new result is an EqualSplay array of src's shape.
void reduce_scatter(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest,
                    ReduceOp op = ReduceOp::sum);
MultiArray reduce_scatter(std::span<const Communicator> comms, const MultiArray& src, ReduceOp op = ReduceOp::sum);
/// Every part's block j (axis 0 cut in count blocks) to rank j's part of `dest`, in rank order.
void all_to_all(std::span<const Communicator> comms, const MultiArray& src, const MultiArray& dest);

}  // namespace kjarni
