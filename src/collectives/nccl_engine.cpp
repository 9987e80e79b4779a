// The NCCL engine: one ncclComm_t per rank, made and destroyed with its device's CUDA context
// current (kjarni's CurrentContext guard), its calls enqueued on the caller's CUDA stream.
//
// NCCL picks the device of a call from the current device of the CUDA runtime, which follows the
// current driver context: kjarni's contexts over primary contexts (the default) are what NCCL
// expects; contexts a user made with cuCtxCreate are not supported by NCCL itself.

#include <fmt/format.h>

#include "collectives/comm_engine.hpp"
#include "collectives/device_steps.hpp"
#include "collectives/nccl_library.hpp"
#include "kjarni/error.hpp"

#ifdef KJARNI_WITH_CUDA
#include "backend/cuda/cuda_context.hpp"
#endif

namespace kjarni::detail {

#ifdef KJARNI_WITH_CUDA

namespace {

/// The CUDA side of a queue's device; nullptr when it is not a CUDA device.
backend::cuda::CudaContext* cuda_context_of(const Queue& queue) {
    return dynamic_cast<backend::cuda::CudaContext*>(queue.device().context().backend().get());
}

backend::cuda::CudaContext& require_cuda(const Queue& queue) {
    backend::cuda::CudaContext* context = cuda_context_of(queue);
    if (context == nullptr)
        throw UnsupportedError(fmt::format("NCCL (libnccl.so.2) runs on CUDA devices only; {} is not one",
                                           queue.device().name()));
    return *context;
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

/// Communicators made together (one, or every rank of create_all), finalized together: finalizing
/// waits until the whole clique is quiescent, so one thread finalizing its ranks one by one would
/// wait for itself; its ranks are finalized in one group (NCCL's rule for several ranks per thread).
class CommOwner {
public:
    CommOwner(const Queue& queue, std::vector<nccl::Comm> comms, std::vector<std::size_t> devices)
        : f_(nccl::library()), owner_(queue.device().context().backend()), context_(require_cuda(queue)),
          comms_(std::move(comms)), devices_(std::move(devices)) {}

    ~CommOwner() {
        // Errors here have nowhere to go.
        try {
            static_cast<void>(f_.GroupStart());
            for (std::size_t i = 0; i < comms_.size(); ++i) {
                const backend::cuda::CurrentContext current(context_.driver(), context_.cu_context(devices_[i]));
                static_cast<void>(f_.CommFinalize(comms_[i]));
            }
            static_cast<void>(f_.GroupEnd());
            for (std::size_t i = 0; i < comms_.size(); ++i) {
                const backend::cuda::CurrentContext current(context_.driver(), context_.cu_context(devices_[i]));
                static_cast<void>(f_.CommDestroy(comms_[i]));
            }
        } catch (...) {  // NOLINT: a destructor must not throw
        }
    }
    CommOwner(const CommOwner&) = delete;
    CommOwner& operator=(const CommOwner&) = delete;

    backend::cuda::CudaContext& context() const noexcept { return context_; }

private:
    const nccl::Library& f_;
    std::shared_ptr<backend::Context> owner_;  // the CUDA contexts outlive the communicators
    backend::cuda::CudaContext& context_;
    std::vector<nccl::Comm> comms_;
    std::vector<std::size_t> devices_;
};

class NcclEngine final : public CommEngine {
public:
    NcclEngine(std::shared_ptr<CommOwner> owner, nccl::Comm comm, std::size_t device, int rank, int count)
        : f_(nccl::library()), owner_(std::move(owner)), context_(owner_->context()), comm_(comm), device_(device),
          rank_(rank), count_(count) {}

    int rank() const noexcept override { return rank_; }
    int count() const noexcept override { return count_; }
    std::string name() const override { return "NCCL"; }
    bool is_nccl() const noexcept override { return true; }

    void all_reduce(const Queue& queue, const Array& src, const Array& dst, ReduceOp op) override {
        const auto current = make_current();
        nccl::check(f_.AllReduce(address(src), address(dst), src.size(), data_type(src.dtype()), red_op(op), comm_,
                                 stream_of(queue)),
                    "ncclAllReduce", comm_);
    }
    void reduce(const Queue& queue, const Array& src, const Array& dst, ReduceOp op, int root) override {
        const auto current = make_current();
        nccl::check(f_.Reduce(address(src), address(dst), src.size(), data_type(src.dtype()), red_op(op), root, comm_,
                              stream_of(queue)),
                    "ncclReduce", comm_);
    }
    void broadcast(const Queue& queue, const Array& array, int root) override {
        const auto current = make_current();
        nccl::check(f_.Broadcast(address(array), address(array), array.size(), data_type(array.dtype()), root, comm_,
                                 stream_of(queue)),
                    "ncclBroadcast", comm_);
    }
    void all_gather(const Queue& queue, const Array& src, const Array& dst) override {
        const auto current = make_current();
        nccl::check(f_.AllGather(address(src), address(dst), src.size(), data_type(src.dtype()), comm_, stream_of(queue)),
                    "ncclAllGather", comm_);
    }
    void reduce_scatter(const Queue& queue, const Array& src, const Array& dst, ReduceOp op) override {
        const auto current = make_current();
        nccl::check(f_.ReduceScatter(address(src), address(dst), dst.size(), data_type(src.dtype()), red_op(op), comm_,
                                     stream_of(queue)),
                    "ncclReduceScatter", comm_);
    }
    void all_to_all(const Queue& queue, const Array& src, const Array& dst) override {
        // Point-to-point pairs in one group: what ncclAlltoAll (NCCL >= 2.28 only) does.
        const auto current = make_current();
        const std::size_t block = src.size() / static_cast<std::size_t>(count_);
        const auto type = data_type(src.dtype());
        const auto itemsize = src.dtype().itemsize();
        nccl::check(f_.GroupStart(), "ncclGroupStart");
        try {
            for (int peer = 0; peer < count_; ++peer) {
                const std::size_t at = static_cast<std::size_t>(peer) * block * itemsize;
                nccl::check(f_.Send(static_cast<const std::byte*>(address(src)) + at, block, type, peer, comm_,
                                    stream_of(queue)),
                            "ncclSend", comm_);
                nccl::check(f_.Recv(static_cast<std::byte*>(address(dst)) + at, block, type, peer, comm_, stream_of(queue)),
                            "ncclRecv", comm_);
            }
        } catch (...) {
            static_cast<void>(f_.GroupEnd());
            throw;
        }
        nccl::check(f_.GroupEnd(), "ncclGroupEnd", comm_);
    }
    void send(const Queue& queue, const Array& src, int peer) override {
        const auto current = make_current();
        nccl::check(f_.Send(address(src), src.size(), data_type(src.dtype()), peer, comm_, stream_of(queue)), "ncclSend",
                    comm_);
    }
    void recv(const Queue& queue, const Array& dst, int peer) override {
        const auto current = make_current();
        nccl::check(f_.Recv(address(dst), dst.size(), data_type(dst.dtype()), peer, comm_, stream_of(queue)), "ncclRecv",
                    comm_);
    }

private:
    std::unique_ptr<backend::cuda::CurrentContext> make_current() const {
        return std::make_unique<backend::cuda::CurrentContext>(context_.driver(), context_.cu_context(device_));
    }

    const nccl::Library& f_;
    std::shared_ptr<CommOwner> owner_;
    backend::cuda::CudaContext& context_;
    nccl::Comm comm_;
    std::size_t device_;
    int rank_;
    int count_;
};

nccl::UniqueId unique_id_of(const CliqueId& id) {
    nccl::UniqueId unique{};
    std::memcpy(unique.internal, id.bytes().data(), sizeof unique.internal);
    return unique;
}

}  // namespace

bool nccl_available(const Queue& queue) { return cuda_context_of(queue) != nullptr && nccl::load() != nullptr; }

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

std::shared_ptr<CommEngine> make_nccl_engine(const Queue& queue, const CliqueId& id, int count, int rank) {
    const nccl::Library& f = nccl::library();
    backend::cuda::CudaContext& context = require_cuda(queue);
    nccl::Comm comm = nullptr;
    {
        const backend::cuda::CurrentContext current(context.driver(), context.cu_context(queue.device().index()));
        nccl::check(f.CommInitRank(&comm, count, unique_id_of(id), rank), "ncclCommInitRank");
    }
    const std::size_t device = queue.device().index();
    const auto owner = std::make_shared<CommOwner>(queue, std::vector<nccl::Comm>{comm}, std::vector<std::size_t>{device});
    return std::make_shared<NcclEngine>(owner, comm, device, rank, count);
}

std::vector<std::shared_ptr<CommEngine>> make_all_nccl_engines(const MultiQueue& queues) {
    const nccl::Library& f = nccl::library();
    const auto& list = queues.queues();
    for (const Queue& queue : list) require_cuda(queue);
    const CliqueId id = new_nccl_clique_id();
    const auto count = static_cast<int>(list.size());
    std::vector<nccl::Comm> comms(list.size(), nullptr);
    // One thread initializing several ranks: the calls must be one group (NCCL's rule), each with
    // its device current.
    nccl::check(f.GroupStart(), "ncclGroupStart");
    try {
        for (std::size_t i = 0; i < list.size(); ++i) {
            backend::cuda::CudaContext& context = require_cuda(list[i]);
            const backend::cuda::CurrentContext current(context.driver(), context.cu_context(list[i].device().index()));
            nccl::check(f.CommInitRank(&comms[i], count, unique_id_of(id), static_cast<int>(i)), "ncclCommInitRank");
        }
    } catch (...) {
        static_cast<void>(f.GroupEnd());
        throw;
    }
    nccl::check(f.GroupEnd(), "ncclGroupEnd");
    std::vector<std::size_t> devices;
    for (const Queue& queue : list) devices.push_back(queue.device().index());
    const auto owner = std::make_shared<CommOwner>(list[0], comms, devices);
    std::vector<std::shared_ptr<CommEngine>> engines;
    for (std::size_t i = 0; i < list.size(); ++i)
        engines.push_back(std::make_shared<NcclEngine>(owner, comms[i], devices[i], static_cast<int>(i), count));
    return engines;
}

void nccl_group(const std::function<void()>& body) {
    const nccl::Library& f = nccl::library();
    nccl::check(f.GroupStart(), "ncclGroupStart");
    try {
        body();
    } catch (...) {
        static_cast<void>(f.GroupEnd());
        throw;
    }
    nccl::check(f.GroupEnd(), "ncclGroupEnd");
}

#else  // built without CUDA

namespace {
[[noreturn]] void no_cuda() { throw UnsupportedError("NCCL (libnccl.so.2): kjarni was built without CUDA"); }
}  // namespace

bool nccl_available(const Queue&) { return false; }
void require_nccl(const Queue&) { no_cuda(); }
CliqueId new_nccl_clique_id() { no_cuda(); }
std::shared_ptr<CommEngine> make_nccl_engine(const Queue&, const CliqueId&, int, int) { no_cuda(); }
std::vector<std::shared_ptr<CommEngine>> make_all_nccl_engines(const MultiQueue&) { no_cuda(); }
void nccl_group(const std::function<void()>&) { no_cuda(); }

#endif

}  // namespace kjarni::detail
