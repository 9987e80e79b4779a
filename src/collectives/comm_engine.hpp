#pragma once
// The one interface the public communicator (communicator.cpp) calls, implemented once per engine:
// NCCL (nccl_engine.cpp) and the fallback over a Rendezvous (ring_engine.cpp). The public layer has
// checked the operands and flattened them: every Array here is one-dimensional, C-contiguous, on the
// queue's device, of a dtype NCCL has, and of the sizes the public header states; none is empty.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/collectives.hpp"
#include "kjarni/host_memory.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

class CommEngine {
public:
    virtual ~CommEngine() = default;

    virtual int rank() const noexcept = 0;
    virtual int count() const noexcept = 0;
    virtual std::string name() const = 0;
    /// NCCL's calls of several ranks can be grouped (ncclGroupStart/End); the fallback's cannot.
    virtual bool is_nccl() const noexcept = 0;

    virtual void all_reduce(const Queue& queue, const Array& src, const Array& dst, ReduceOp op) = 0;
    /// `dst` is written on the root only (and is `src` elsewhere).
    virtual void reduce(const Queue& queue, const Array& src, const Array& dst, ReduceOp op, int root) = 0;
    virtual void broadcast(const Queue& queue, const Array& array, int root) = 0;
    /// `dst` holds count() * src.size() elements.
    virtual void all_gather(const Queue& queue, const Array& src, const Array& dst) = 0;
    /// `src` holds count() * dst.size() elements.
    virtual void reduce_scatter(const Queue& queue, const Array& src, const Array& dst, ReduceOp op) = 0;
    /// Both of count() blocks.
    virtual void all_to_all(const Queue& queue, const Array& src, const Array& dst) = 0;
    virtual void send(const Queue& queue, const Array& src, int peer) = 0;
    virtual void recv(const Queue& queue, const Array& dst, int peer) = 0;

    /// Returns when the work enqueued on `queue` is done; PeerError (the engine aborted) when a rank
    /// reports an error or `timeout` passes first.
    virtual void wait(const Queue& queue, std::chrono::milliseconds timeout) = 0;

    /// What the in-process fallback (local_engine.cpp) keeps on this rank between calls: page-locked
    /// staging, and a second queue on the rank's device for the downloads, so that they overlap the
    /// uploads on the rank's own queue. Used only by the one thread that drives every rank.
    struct LocalStaging {
        HostMemoryPool pool;
        std::optional<Queue> downloads;
    };
    LocalStaging& local_staging() noexcept { return local_staging_; }

    /// Stops the engine for good, `why` kept for the errors of later calls; the first abort counts.
    void abort(const std::string& why);
    bool aborted() const noexcept { return aborted_.load(); }
    /// PeerError naming why the engine was aborted, if it was.
    void require_alive() const;

protected:
    /// What an engine frees or cancels when aborted (NCCL: ncclCommAbort); called once.
    virtual void on_abort() {}

private:
    LocalStaging local_staging_;
    std::atomic<bool> aborted_{false};
    mutable std::mutex why_mutex_;
    std::string why_;
};

/// One rank's operands in a call over every part of a MultiArray.
struct RankOperands {
    std::shared_ptr<CommEngine> engine;
    Queue queue;
    Array src;
    Array dst;
};

enum class Collective { all_reduce, reduce, broadcast, all_gather, reduce_scatter, all_to_all };

/// Runs one collective over ranks all driven by this thread: NCCL's calls grouped, else the
/// fallback's in-process engine (local_engine.cpp). For broadcast, `src` is the array.
void run_on_all_ranks(Collective collective, const std::vector<RankOperands>& ranks, ReduceOp op, int root);

/// The fallback over every rank at once (local_engine.cpp): device copies between the ranks' devices
/// (one context), or a relay through page-locked host memory where those are slow, and kjarni's
/// kernels; returns when done.
void run_local_fallback(Collective collective, const std::vector<RankOperands>& ranks, ReduceOp op, int root);

/// The NCCL engine (nccl_engine.cpp). `make_nccl_engine` is collective over the clique's ranks;
/// `make_all_nccl_engines` makes one per queue from this thread. Both throw UnsupportedError naming
/// libnccl.so.2 when NCCL cannot be loaded or the device is not a CUDA device.
bool nccl_available(const Queue& queue);
/// UnsupportedError (naming libnccl.so.2 and why) unless NCCL can run on the queue's device.
void require_nccl(const Queue& queue);
/// `timeout` bounds the initialization (PeerError, the communicator aborted, when it passes) and
/// every later wait for NCCL; milliseconds::max() makes a blocking communicator that waits forever.
std::shared_ptr<CommEngine> make_nccl_engine(const Queue& queue, const CliqueId& id, int count, int rank,
                                             std::chrono::milliseconds timeout);
std::vector<std::shared_ptr<CommEngine>> make_all_nccl_engines(const MultiQueue& queues,
                                                               std::chrono::milliseconds timeout);
/// A new ncclUniqueId's bytes (UnsupportedError as above).
CliqueId new_nccl_clique_id();
/// Runs `body` (NCCL calls of several ranks) between ncclGroupStart and ncclGroupEnd.
void nccl_group(const std::function<void()>& body);

/// The fallback engine of one rank over a rendezvous (ring_engine.cpp); `rendezvous` is kept (and
/// shared ownership taken) for the engine's life.
std::shared_ptr<CommEngine> make_ring_engine(std::shared_ptr<Rendezvous> rendezvous);

}  // namespace kjarni::detail
