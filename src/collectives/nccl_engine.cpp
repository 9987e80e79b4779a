// The NCCL engine: one ncclComm_t per rank, made and destroyed with its device's CUDA context
// current (the backend context's make_current scope), its calls enqueued on the caller's CUDA
// stream (the queue's native handle).
//
// NCCL picks the device of a call from the current device of the CUDA runtime, which follows the
// current driver context: kjarni's contexts over primary contexts (the default) are what NCCL
// expects; contexts a user made with cuCtxCreate are not supported by NCCL itself.

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "backend/backend.hpp"
#include "collectives/comm_engine.hpp"
#include "collectives/device_steps.hpp"
#include "core/context_state.hpp"
#include "kjarni/error.hpp"
#include "kjarni/rendezvous.hpp"
#include "vendor/nccl_library.hpp"

namespace kjarni::detail {

#ifdef KJARNI_WITH_CUDA

namespace {

bool on_cuda(const Queue& queue) { return is_cuda(queue.device().context()); }

/// The backend context of a queue's device, a CUDA one (else UnsupportedError).
const backend::Context& require_cuda(const Queue& queue) {
    if (!on_cuda(queue))
        throw UnsupportedError(
            fmt::format("NCCL (libnccl.so.2) runs on CUDA devices only; {} is not one", queue.device().name()));
    return *detail::backend_of(queue.device().context());
}

nccl::DataType data_type(const DType& dtype) {
    switch (dtype.kind()) {
    case DType::Kind::int8: return nccl::int8;
    case DType::Kind::uint8: return nccl::uint8;
    case DType::Kind::int32: return nccl::int32;
    case DType::Kind::uint32: return nccl::uint32;
    case DType::Kind::int64: return nccl::int64;
    case DType::Kind::uint64: return nccl::uint64;
    case DType::Kind::float16: return nccl::float16;
    case DType::Kind::float32: return nccl::float32;
    case DType::Kind::float64: return nccl::float64;
    default: throw ArgumentError("dtype", fmt::format("{} has no NCCL type", dtype.name()));
    }
}

nccl::RedOp red_op(ReduceOp op) {
    switch (op) {
    case ReduceOp::sum: return nccl::sum;
    case ReduceOp::prod: return nccl::prod;
    case ReduceOp::max: return nccl::max;
    case ReduceOp::min: return nccl::min;
    case ReduceOp::avg: return nccl::avg;
    }
    return nccl::sum;
}

void* address(const Array& array) {
    const Buffer region = bytes_of(array);
    return reinterpret_cast<void*>(region.native_handle() + region.offset());  // NOLINT: a device address
}

nccl::Stream stream_of(const Queue& queue) { return reinterpret_cast<nccl::Stream>(queue.native_handle()); }

/// Whether `timeout` asks for a blocking communicator (no timeout at all).
bool blocking(std::chrono::milliseconds timeout) { return timeout == std::chrono::milliseconds::max(); }

/// Waits, within `timeout`, until a non-blocking communicator has finished what it was doing; false
/// when it failed or is still busy (the caller aborts it).
bool settles(nccl::Comm comm, const char* call, std::chrono::milliseconds timeout) noexcept {
    try {
        nccl::check(nccl::in_progress, call, comm, timeout);
        return true;
    } catch (...) {  // NOLINT: the answer is the boolean
        return false;
    }
}

/// Whether communicators made with `timeout` are split, once initialized, into blocking children that
/// take the calls. A non-blocking NCCL communicator launches every call (every ncclGroupEnd) from a
/// thread it creates for the purpose, which costs 15 us a call in one process per GPU and 70 us for
/// a group over two GPUs from one thread (H200 pair, NCCL 2.2x): a quarter of a 64 MiB all_reduce.
/// A blocking child made with ncclCommSplit of a parent that shares its resources costs little, its
/// split is bounded by the non-blocking parent's timeout, and its calls run on the caller's thread.
bool splits(const nccl::Library& f, std::chrono::milliseconds timeout) {
    return !blocking(timeout) && f.CommInitRankConfig != nullptr && f.CommSplit != nullptr;
}

/// Communicators made together (one, or every rank of create_all), finalized together: finalizing
/// waits until the whole clique is quiescent, so one thread finalizing its ranks one by one would
/// wait for itself; its ranks are finalized in one group (NCCL's rule for several ranks per thread).
/// An aborted communicator is gone already (ncclCommAbort frees it).
class CommOwner {
public:
    /// `children` (blocking, split from `comms`, sharing their resources) or empty.
    CommOwner(const Queue& queue, std::vector<nccl::Comm> comms, std::vector<nccl::Comm> children,
              std::vector<std::size_t> devices, std::chrono::milliseconds timeout)
        : f_(nccl::library()), owner_(detail::backend_of(queue.device().context())), context_(require_cuda(queue)),
          comms_(std::move(comms)), children_(std::move(children)), devices_(std::move(devices)),
          aborted_(std::make_unique<std::atomic<bool>[]>(comms_.size())), timeout_(timeout) {}

    ~CommOwner() {
        // Errors here have nowhere to go; a communicator that does not finalize in time is aborted.
        // A blocking child's finalization would wait without a limit for kernels that a dead rank
        // leaves spinning, so split communicators are aborted (as PyTorch ends its communicators):
        // the work on their queues is the caller's to wait for before.
        if (!children_.empty()) {
            for (std::size_t i = 0; i < comms_.size(); ++i) abort(i);
            return;
        }
        try {
            std::vector<std::size_t> live;
            for (std::size_t i = 0; i < comms_.size(); ++i)
                if (!aborted_[i].load()) live.push_back(i);
            static_cast<void>(f_.GroupStart());
            for (const std::size_t i : live) {
                const auto current = make_current(i);
                static_cast<void>(f_.CommFinalize(comms_[i]));
            }
            static_cast<void>(f_.GroupEnd());
            for (const std::size_t i : live) {
                const auto current = make_current(i);
                if (settles(comms_[i], "ncclCommFinalize", timeout_)) static_cast<void>(f_.CommDestroy(comms_[i]));
                else static_cast<void>(f_.CommAbort(comms_[i]));
            }
        } catch (...) {  // NOLINT: a destructor must not throw
        }
    }
    CommOwner(const CommOwner&) = delete;
    CommOwner& operator=(const CommOwner&) = delete;

    const backend::Context& context() const noexcept { return context_; }

    /// The communicator that takes rank `index`'s calls: its blocking child, or itself.
    nccl::Comm caller(std::size_t index) const noexcept { return children_.empty() ? comms_[index] : children_[index]; }

    /// ncclCommAbort of communicator `index` (its child first), once.
    void abort(std::size_t index) noexcept {
        if (aborted_[index].exchange(true)) return;
        try {
            const auto current = make_current(index);
            if (!children_.empty()) static_cast<void>(f_.CommAbort(children_[index]));
            static_cast<void>(f_.CommAbort(comms_[index]));
        } catch (...) {  // NOLINT: an abort cannot fail further; the context guard is all that throws
        }
    }

private:
    std::unique_ptr<backend::CurrentScope> make_current(std::size_t index) const {
        return context_.make_current(devices_[index]);
    }

    const nccl::Library& f_;
    std::shared_ptr<backend::Context> owner_;  // the CUDA contexts outlive the communicators
    const backend::Context& context_;
    std::vector<nccl::Comm> comms_;
    std::vector<nccl::Comm> children_;
    std::vector<std::size_t> devices_;
    std::unique_ptr<std::atomic<bool>[]> aborted_;  // by rank threads of create_all at once
    std::chrono::milliseconds timeout_;
};

class NcclEngine;

/// The engines whose calls the innermost nccl_group of this thread holds: ncclGroupEnd of
/// non-blocking communicators answers in_progress, and each of them must then be waited for.
thread_local std::vector<NcclEngine*>* group_members = nullptr;

class NcclEngine final : public CommEngine {
public:
    NcclEngine(std::shared_ptr<CommOwner> owner, std::size_t index, std::size_t device, int rank, int count,
               std::chrono::milliseconds timeout)
        : f_(nccl::library()), owner_(std::move(owner)), context_(owner_->context()), index_(index),
          comm_(owner_->caller(index)), device_(device), rank_(rank), count_(count), timeout_(timeout) {}

    int rank() const noexcept override { return rank_; }
    int count() const noexcept override { return count_; }
    std::string name() const override { return "NCCL"; }
    bool is_nccl() const noexcept override { return true; }

    void all_reduce(const Queue& queue, const Array& src, const Array& dst, ReduceOp op) override {
        const auto current = make_current();
        call(f_.AllReduce(address(src), address(dst), src.size(), data_type(src.dtype()), red_op(op), comm_,
                          stream_of(queue)),
             "ncclAllReduce");
    }
    void reduce(const Queue& queue, const Array& src, const Array& dst, ReduceOp op, int root) override {
        const auto current = make_current();
        call(f_.Reduce(address(src), address(dst), src.size(), data_type(src.dtype()), red_op(op), root, comm_,
                       stream_of(queue)),
             "ncclReduce");
    }
    void broadcast(const Queue& queue, const Array& array, int root) override {
        const auto current = make_current();
        call(f_.Broadcast(address(array), address(array), array.size(), data_type(array.dtype()), root, comm_,
                          stream_of(queue)),
             "ncclBroadcast");
    }
    void all_gather(const Queue& queue, const Array& src, const Array& dst) override {
        const auto current = make_current();
        call(f_.AllGather(address(src), address(dst), src.size(), data_type(src.dtype()), comm_, stream_of(queue)),
             "ncclAllGather");
    }
    void reduce_scatter(const Queue& queue, const Array& src, const Array& dst, ReduceOp op) override {
        const auto current = make_current();
        call(f_.ReduceScatter(address(src), address(dst), dst.size(), data_type(src.dtype()), red_op(op), comm_,
                              stream_of(queue)),
             "ncclReduceScatter");
    }
    void all_to_all(const Queue& queue, const Array& src, const Array& dst) override {
        // Point-to-point pairs in one group: what ncclAlltoAll (NCCL >= 2.28 only) does.
        const auto current = make_current();
        const std::size_t block = src.size() / static_cast<std::size_t>(count_);
        const auto type = data_type(src.dtype());
        const auto itemsize = src.dtype().itemsize();
        nccl_group([&] {
            for (int peer = 0; peer < count_; ++peer) {
                const std::size_t at = static_cast<std::size_t>(peer) * block * itemsize;
                call(f_.Send(static_cast<const std::byte*>(address(src)) + at, block, type, peer, comm_,
                             stream_of(queue)),
                     "ncclSend");
                call(f_.Recv(static_cast<std::byte*>(address(dst)) + at, block, type, peer, comm_, stream_of(queue)),
                     "ncclRecv");
            }
        });
    }
    void send(const Queue& queue, const Array& src, int peer) override {
        const auto current = make_current();
        call(f_.Send(address(src), src.size(), data_type(src.dtype()), peer, comm_, stream_of(queue)), "ncclSend");
    }
    void recv(const Queue& queue, const Array& dst, int peer) override {
        const auto current = make_current();
        call(f_.Recv(address(dst), dst.size(), data_type(dst.dtype()), peer, comm_, stream_of(queue)), "ncclRecv");
    }

    void wait(const Queue& queue, std::chrono::milliseconds timeout) override {
        // NCCL's kernels of a clique with a dead rank spin forever; only ncclCommAbort ends them.
        // So the stream is polled, with the communicator's error state, until the deadline.
        const auto start = std::chrono::steady_clock::now();
        for (int round = 0; !queue.is_done(); ++round) {
            check_async_state();
            if (std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start) >
                timeout)
                fail(fmt::format(
                    "the work on rank {}'s queue did not finish within {} ms (a rank died, is stuck, or did "
                    "not make the same collective calls)",
                    rank_, timeout.count()));
            if (round < 64) std::this_thread::yield();
            else std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        check_async_state();
        queue.synchronize();  // the queue's own errors, if any
    }

    /// Waits for the calls of an nccl_group that ended in_progress.
    void settle_group() {
        const auto current = make_current();
        settle(nccl::in_progress, "ncclGroupEnd");
    }

protected:
    void on_abort() override { owner_->abort(index_); }

private:
    std::unique_ptr<backend::CurrentScope> make_current() const { return context_.make_current(device_); }

    /// An enqueueing call: inside an nccl_group it is waited for when the group ends.
    void call(nccl::Result result, const char* name) {
        if (group_members != nullptr) {
            group_members->push_back(this);
            if (result == nccl::in_progress) return;  // the group's end waits for it
        }
        settle(result, name);
    }

    /// check() with the communicator's timeout; a timeout or an error of the clique (system, internal
    /// or remote: the communicator is broken) aborts it and gives PeerError.
    void settle(nccl::Result result, const char* name) {
        try {
            nccl::check(result, name, comm_, timeout_);
        } catch (const nccl::TimedOut& late) {
            fail(fmt::format("{} on rank {} did not complete within {} ms", late.call, rank_, timeout_.count()));
        } catch (const BackendError& error) {
            if (!breaks_communicator(error.code())) throw;
            fail(error.what());
        }
    }

    void check_async_state() {
        nccl::Result state = nccl::success;
        if (f_.CommGetAsyncError(comm_, &state) != nccl::success || state == nccl::success ||
            state == nccl::in_progress)
            return;
        try {
            nccl::check(state, "ncclCommGetAsyncError", comm_);
        } catch (const BackendError& error) {
            fail(error.what());
        }
    }

    [[noreturn]] void fail(const std::string& why) {
        abort(why);
        throw PeerError(-1, why + "; the communicator is aborted");
    }

    /// ncclSystemError, ncclInternalError, ncclRemoteError: the clique is broken (NCCL's advice is to
    /// abort); an invalid argument or usage leaves the communicator as it was.
    static bool breaks_communicator(std::int64_t code) { return code == 2 || code == 3 || code == 6; }

    const nccl::Library& f_;
    std::shared_ptr<CommOwner> owner_;
    const backend::Context& context_;
    std::size_t index_;  // in owner_
    nccl::Comm comm_;    // the one that takes the calls
    std::size_t device_;
    int rank_;
    int count_;
    std::chrono::milliseconds timeout_;
};

nccl::UniqueId unique_id_of(const CliqueId& id) {
    nccl::UniqueId unique{};
    std::memcpy(unique.internal, id.bytes().data(), sizeof unique.internal);
    return unique;
}

/// A non-blocking initialization (started, and in progress) waited for within `timeout`: the
/// communicator, or PeerError after aborting it.
void finish_init(const nccl::Library& f, nccl::Comm comm, nccl::Result started, std::chrono::milliseconds timeout,
                 int rank, int count) {
    try {
        nccl::check(started, "ncclCommInitRankConfig", comm, timeout);
    } catch (const nccl::TimedOut&) {
        if (comm != nullptr) static_cast<void>(f.CommAbort(comm));
        throw PeerError(-1, fmt::format("rank {} of {}: NCCL's initialization did not complete within {} ms (a rank "
                                        "died, did not join, or cannot be reached); the communicator is aborted",
                                        rank, count, timeout.count()));
    } catch (...) {
        if (comm != nullptr) static_cast<void>(f.CommAbort(comm));
        throw;
    }
}

/// ncclCommInitRank, non-blocking (ncclCommInitRankConfig) unless `timeout` asks for no timeout or
/// the library is older than NCCL 2.14. Inside a group the result is in_progress or success, and
/// the caller finishes it.
nccl::Result start_init(const nccl::Library& f, nccl::Comm* comm, int count, const nccl::UniqueId& unique, int rank,
                        std::chrono::milliseconds timeout) {
    if (blocking(timeout) || f.CommInitRankConfig == nullptr) return f.CommInitRank(comm, count, unique, rank);
    nccl::Config config;
    config.blocking = 0;
    if (splits(f, timeout)) config.split_share = 1;
    return f.CommInitRankConfig(comm, count, unique, rank, &config);
}

/// The blocking children of initialized `parents` (rank `ranks[i]` on device `devices[i]`), split
/// in one group and waited for within `timeout`; empty when they are not split. On failure every
/// parent and child is aborted and PeerError names the ranks.
std::vector<nccl::Comm> split_for_calls(const nccl::Library& f, const backend::Context& context,
                                        const std::vector<nccl::Comm>& parents, const std::vector<std::size_t>& devices,
                                        const std::vector<int>& ranks, int count, std::chrono::milliseconds timeout) {
    if (!splits(f, timeout)) return {};
    std::vector<nccl::Comm> children(parents.size(), nullptr);
    const auto abort_all = [&] {
        for (std::size_t i = 0; i < parents.size(); ++i) {
            const auto current = context.make_current(devices[i]);
            if (children[i] != nullptr) static_cast<void>(f.CommAbort(children[i]));
            static_cast<void>(f.CommAbort(parents[i]));
        }
    };
    nccl::check(f.GroupStart(), "ncclGroupStart");
    nccl::Result failed = nccl::success;
    for (std::size_t i = 0; i < parents.size() && failed == nccl::success; ++i) {
        const auto current = context.make_current(devices[i]);
        nccl::Config config;
        config.blocking = 1;
        const nccl::Result started = f.CommSplit(parents[i], 0, ranks[i], &children[i], &config);
        if (started != nccl::success && started != nccl::in_progress) failed = started;
    }
    const nccl::Result ended = f.GroupEnd();
    try {
        if (failed != nccl::success) nccl::check(failed, "ncclCommSplit");
        if (ended != nccl::in_progress) nccl::check(ended, "ncclGroupEnd");
        for (std::size_t i = 0; i < parents.size(); ++i) {
            const auto current = context.make_current(devices[i]);
            nccl::check(nccl::in_progress, "ncclCommSplit", parents[i], timeout);
        }
    } catch (const nccl::TimedOut&) {
        abort_all();
        throw PeerError(-1, fmt::format("rank {} of {}: NCCL's split into a communicator for calls did not complete "
                                        "within {} ms (a rank died or left); the communicator is aborted",
                                        ranks.front(), count, timeout.count()));
    } catch (...) {
        abort_all();
        throw;
    }
    return children;
}

}  // namespace

bool nccl_available(const Queue& queue) { return on_cuda(queue) && nccl::load() != nullptr; }

void require_nccl(const Queue& queue) {
    require_cuda(queue);
    static_cast<void>(nccl::library());
}

CliqueId new_nccl_clique_id() {
    const nccl::Library& f = nccl::library();
    nccl::UniqueId unique{};
    nccl::check(f.GetUniqueId(&unique), "ncclGetUniqueId");
    return CliqueId::from_bytes(std::as_bytes(std::span(unique.internal)));
}

std::shared_ptr<CommEngine> make_nccl_engine(const Queue& queue, const CliqueId& id, int count, int rank,
                                             std::chrono::milliseconds timeout) {
    const nccl::Library& f = nccl::library();
    const backend::Context& context = require_cuda(queue);
    nccl::Comm comm = nullptr;
    {
        const auto current = context.make_current(queue.device().index());
        const nccl::Result started = start_init(f, &comm, count, unique_id_of(id), rank, timeout);
        finish_init(f, comm, started, timeout, rank, count);
    }
    const std::size_t device = queue.device().index();
    std::vector<nccl::Comm> children = split_for_calls(f, context, {comm}, {device}, {rank}, count, timeout);
    const auto owner = std::make_shared<CommOwner>(queue, std::vector<nccl::Comm>{comm}, std::move(children),
                                                   std::vector<std::size_t>{device}, timeout);
    return std::make_shared<NcclEngine>(owner, 0, device, rank, count, timeout);
}

std::vector<std::shared_ptr<CommEngine>> make_all_nccl_engines(const MultiQueue& queues,
                                                               std::chrono::milliseconds timeout) {
    const nccl::Library& f = nccl::library();
    const auto& list = queues.queues();
    for (const Queue& queue : list) require_cuda(queue);
    const CliqueId id = new_nccl_clique_id();
    const auto count = static_cast<int>(list.size());
    std::vector<nccl::Comm> comms(list.size(), nullptr);
    const auto abort_all = [&] {
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (comms[i] == nullptr) continue;
            const backend::Context& context = require_cuda(list[i]);
            const auto current = context.make_current(list[i].device().index());
            static_cast<void>(f.CommAbort(comms[i]));
        }
    };
    // One thread initializing several ranks: the calls must be one group (NCCL's rule), each with
    // its device current; a non-blocking group ends in_progress and each rank is waited for.
    nccl::check(f.GroupStart(), "ncclGroupStart");
    try {
        for (std::size_t i = 0; i < list.size(); ++i) {
            const backend::Context& context = require_cuda(list[i]);
            const auto current = context.make_current(list[i].device().index());
            const nccl::Result started =
                start_init(f, &comms[i], count, unique_id_of(id), static_cast<int>(i), timeout);
            if (started != nccl::in_progress) nccl::check(started, "ncclCommInitRank");
        }
    } catch (...) {
        static_cast<void>(f.GroupEnd());
        abort_all();
        throw;
    }
    const nccl::Result ended = f.GroupEnd();
    try {
        if (ended != nccl::in_progress) nccl::check(ended, "ncclGroupEnd");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const backend::Context& context = require_cuda(list[i]);
            const auto current = context.make_current(list[i].device().index());
            if (!blocking(timeout)) nccl::check(nccl::in_progress, "ncclCommInitRankConfig", comms[i], timeout);
        }
    } catch (const nccl::TimedOut&) {
        abort_all();
        throw PeerError(-1, fmt::format("NCCL's initialization of {} ranks did not complete within {} ms; the "
                                        "communicators are aborted",
                                        count, timeout.count()));
    } catch (...) {
        abort_all();
        throw;
    }
    std::vector<std::size_t> devices;
    std::vector<int> ranks;
    for (const Queue& queue : list) {
        devices.push_back(queue.device().index());
        ranks.push_back(static_cast<int>(ranks.size()));
    }
    std::vector<nccl::Comm> children = split_for_calls(f, require_cuda(list[0]), comms, devices, ranks, count, timeout);
    const auto owner = std::make_shared<CommOwner>(list[0], comms, std::move(children), devices, timeout);
    std::vector<std::shared_ptr<CommEngine>> engines;
    for (std::size_t i = 0; i < list.size(); ++i)
        engines.push_back(std::make_shared<NcclEngine>(owner, i, devices[i], static_cast<int>(i), count, timeout));
    return engines;
}

void nccl_group(const std::function<void()>& body) {
    const nccl::Library& f = nccl::library();
    std::vector<NcclEngine*> members;
    std::vector<NcclEngine*>* const outer = group_members;
    group_members = &members;
    nccl::check(f.GroupStart(), "ncclGroupStart");
    try {
        body();
    } catch (...) {
        group_members = outer;
        static_cast<void>(f.GroupEnd());
        throw;
    }
    group_members = outer;
    const nccl::Result ended = f.GroupEnd();
    if (ended != nccl::in_progress) nccl::check(ended, "ncclGroupEnd");
    if (outer != nullptr) {  // a nested group: the outer one waits
        outer->insert(outer->end(), members.begin(), members.end());
        return;
    }
    for (NcclEngine* member : members) member->settle_group();
}

#else  // built without CUDA

namespace {
[[noreturn]] void no_cuda() { throw UnsupportedError("NCCL (libnccl.so.2): kjarni was built without CUDA"); }
}  // namespace

bool nccl_available(const Queue&) { return false; }
void require_nccl(const Queue&) { no_cuda(); }
CliqueId new_nccl_clique_id() { no_cuda(); }
std::shared_ptr<CommEngine> make_nccl_engine(const Queue&, const CliqueId&, int, int, std::chrono::milliseconds) {
    no_cuda();
}
std::vector<std::shared_ptr<CommEngine>> make_all_nccl_engines(const MultiQueue&, std::chrono::milliseconds) {
    no_cuda();
}
void nccl_group(const std::function<void()>&) { no_cuda(); }

#endif

}  // namespace kjarni::detail
