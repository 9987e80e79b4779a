// A recorded sequence as a CUDA graph. Recording captures the queue's stream: each launch, copy
// and fill goes through the backend's ordinary call (so a graph node holds exactly what an eager
// launch would pass), and after each launch cuStreamGetCaptureInfo names the node it became, so
// that its arguments can be changed later with cuGraphExecKernelNodeSetParams. finish() ends the
// capture and instantiates the graph once; a replay is one cuGraphLaunch.
//
// The graph entry points are optional entries of the driver table (cuda_driver.hpp): a driver
// without them only loses recordings (UnsupportedError), not the backend.

#include "backend/cuda/cuda_graph.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>
#include <vector>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

namespace {

/// The graph entries (optional in the driver table) this driver lacks, by exported name; empty
/// when it has them all.
std::string missing_graph_functions(const Driver& driver) {
    std::string missing;
#define KJARNI_CUDA_GRAPH_MISSING(member, abi, exported) \
    if (driver.member == nullptr) {                      \
        missing += missing.empty() ? "" : ", ";          \
        missing += (exported);                           \
    }
    KJARNI_CUDA_GRAPH_DRIVER_FUNCTIONS(KJARNI_CUDA_GRAPH_MISSING)
#undef KJARNI_CUDA_GRAPH_MISSING
    return missing;
}

/// One recorded launch: its node in the captured graph and the arguments it was given, kept to
/// rebuild the node's parameter list when one of them changes.
struct GraphLaunchRecord {
    CUgraphNode node = nullptr;
    std::vector<KernelArg> args;
};

class CudaGraphSequence final : public RecordedSequence {
public:
    explicit CudaGraphSequence(CudaQueue& queue) : queue_(queue) {
        if (const std::string missing = missing_graph_functions(driver()); !missing.empty()) {
            throw UnsupportedError("recording on CUDA needs the driver's graph entry points; missing: " + missing);
        }
        const CurrentContext current(driver(), cu_context());
        // Relaxed: kjarni's own allocations (cuMemAlloc for outputs and temporaries) may happen
        // while recording; what is enqueued on the stream is what gets captured.
        check(driver(), driver().StreamBeginCapture(queue_.stream(), CU_STREAM_CAPTURE_MODE_RELAXED),
              "cuStreamBeginCapture");
        capturing_ = true;
    }
    CudaGraphSequence(const CudaGraphSequence&) = delete;
    CudaGraphSequence& operator=(const CudaGraphSequence&) = delete;
    ~CudaGraphSequence() override {
        abandon();
        if (exec_ != nullptr) driver().GraphExecDestroy(exec_);
        if (graph_ != nullptr) driver().GraphDestroy(graph_);
    }

    const char* mechanism() const noexcept override { return "CUDA graph"; }

    void launch(Kernel& kernel, unsigned dims, const std::size_t* global_size, const std::size_t* local_size,
                std::size_t dynamic_local_mem, std::span<const KernelArg> args) override {
        kernel.launch(queue_, dims, global_size, local_size, dynamic_local_mem, args, false);
        CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
        cuuint64_t id = 0;
        CUgraph graph = nullptr;
        const CUgraphNode* dependencies = nullptr;
        std::size_t count = 0;
        check(driver(), driver().StreamGetCaptureInfo(queue_.stream(), &status, &id, &graph, &dependencies, &count),
              "cuStreamGetCaptureInfo");
        if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE || count != 1) {
            throw BackendError("CUDA", "cuStreamGetCaptureInfo", 0, "",
                               "the stream's capture did not end in the launch just recorded");
        }
        GraphLaunchRecord record{dependencies[0], std::vector<KernelArg>(args.begin(), args.end())};
        launches_.push_back(std::move(record));
    }

    void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size) override {
        queue_.copy(dst, dst_offset, src, src_offset, size, false);
    }

    void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern,
              std::size_t pattern_size) override {
        queue_.fill(dst, offset, size, pattern, pattern_size, false);
    }

    void finish() override {
        const CurrentContext current(driver(), cu_context());
        capturing_ = false;
        check(driver(), driver().StreamEndCapture(queue_.stream(), &graph_), "cuStreamEndCapture");
        check(driver(), driver().GraphInstantiateWithFlags(&exec_, graph_, 0), "cuGraphInstantiateWithFlags");
    }

    void abandon() noexcept override {
        if (!capturing_) return;
        capturing_ = false;
        CUgraph partial = nullptr;
        if (driver().StreamEndCapture(queue_.stream(), &partial) == CUDA_SUCCESS && partial != nullptr) {
            driver().GraphDestroy(partial);
        }
    }

    void set_argument(std::size_t launch, std::size_t argument, const KernelArg& value) override {
        GraphLaunchRecord& record = launches_.at(launch);
        record.args.at(argument) = value;
        CUDA_KERNEL_NODE_PARAMS_v2 params{};
        check(driver(), driver().GraphKernelNodeGetParams(record.node, &params), "cuGraphKernelNodeGetParams");
        // The values as CudaKernel::launch passes them: device addresses for memory, bytes else.
        std::vector<CUdeviceptr> pointers(record.args.size());
        std::vector<void*> values(record.args.size());
        for (std::size_t i = 0; i < record.args.size(); ++i) {
            const KernelArg& arg = record.args[i];
            if (arg.kind == KernelArg::Kind::buffer) {
                pointers[i] = arg.buffer != nullptr ? static_cast<CudaBuffer*>(arg.buffer)->at(arg.offset) : 0;
                values[i] = &pointers[i];
            } else if (arg.kind == KernelArg::Kind::shared_pointer) {
                pointers[i] = reinterpret_cast<CUdeviceptr>(arg.pointer);
                values[i] = &pointers[i];
            } else {
                values[i] = const_cast<void*>(arg.bytes != nullptr ? arg.bytes : static_cast<const void*>(arg.scalar));
            }
        }
        params.kernelParams = values.empty() ? nullptr : values.data();
        params.extra = nullptr;
        const CurrentContext current(driver(), cu_context());
        // The driver copies the values: `pointers` and `values` may go afterwards.
        check(driver(), driver().GraphExecKernelNodeSetParams(exec_, record.node, &params),
              "cuGraphExecKernelNodeSetParams");
    }

    void replay(Queue& queue) override {
        auto& cuda_queue = static_cast<CudaQueue&>(queue);
        const CurrentContext current(driver(), cu_context());
        check(driver(), driver().GraphLaunch(exec_, cuda_queue.stream()), "cuGraphLaunch");
    }

private:
    const Driver& driver() const { return queue_.context()->driver(); }
    CUcontext cu_context() const { return queue_.context()->cu_context(queue_.device_index()); }

    CudaQueue& queue_;  // kept alive by the public layer
    bool capturing_ = false;
    CUgraph graph_ = nullptr;
    CUgraphExec exec_ = nullptr;
    std::vector<GraphLaunchRecord> launches_;
};

}  // namespace

std::unique_ptr<RecordedSequence> make_cuda_graph(CudaQueue& queue) {
    return std::make_unique<CudaGraphSequence>(queue);
}

}  // namespace kjarni::backend::cuda
