// A recorded sequence as a CUDA graph. Recording captures the queue's stream: each launch, copy
// and fill goes through the backend's ordinary call (so a graph node holds exactly what an eager
// launch would pass), and after each launch cuStreamGetCaptureInfo names the node it became, so
// that its arguments can be changed later with cuGraphExecKernelNodeSetParams. finish() ends the
// capture and instantiates the graph once; a replay is one cuGraphLaunch.
//
// The graph entry points are resolved here, from the driver already loaded, rather than in the
// driver table (cuda_driver.hpp): only recordings use them, and a driver without them only loses
// recordings (UnsupportedError), not the backend.

#include "backend/cuda/cuda_graph.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <array>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"
#include "backend/dynamic_library.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

namespace {

/// The graph entry points, with the ABI current at CUDA 12.0 (as the driver table asks for its own).
struct GraphFunctions {
    PFN_cuStreamBeginCapture_v10010 StreamBeginCapture = nullptr;
    PFN_cuStreamEndCapture_v10000 StreamEndCapture = nullptr;
    PFN_cuStreamGetCaptureInfo_v11030 StreamGetCaptureInfo = nullptr;
    PFN_cuGraphInstantiateWithFlags_v11040 GraphInstantiateWithFlags = nullptr;
    PFN_cuGraphLaunch_v10000 GraphLaunch = nullptr;
    PFN_cuGraphKernelNodeGetParams_v12000 GraphKernelNodeGetParams = nullptr;
    PFN_cuGraphExecKernelNodeSetParams_v12000 GraphExecKernelNodeSetParams = nullptr;
    PFN_cuGraphExecDestroy_v10000 GraphExecDestroy = nullptr;
    PFN_cuGraphDestroy_v10000 GraphDestroy = nullptr;
    std::string missing;  // why the table is incomplete; empty when complete
};

template <class Fn>
void resolve_graph_function(const DynamicLibrary& library, PFN_cuGetProcAddress_v12000 get_proc_address, Fn& fn,
                            const char* name, std::string& missing) {
    void* address = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (get_proc_address != nullptr &&
        get_proc_address(name, &address, 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status) == CUDA_SUCCESS &&
        status == CU_GET_PROC_ADDRESS_SUCCESS && address != nullptr) {
        fn = reinterpret_cast<Fn>(address);
        return;
    }
    (void)library;
    missing += missing.empty() ? name : std::string(", ") + name;
}

const GraphFunctions& graph_functions() {
    static const GraphFunctions table = [] {
        GraphFunctions f;
        std::string error;
        // Already loaded by the backend: this only finds it again.
        auto library = DynamicLibrary::open({"libcuda.so.1"}, error);
        if (!library) {
            f.missing = "libcuda.so.1: " + error;
            return f;
        }
        PFN_cuGetProcAddress_v12000 get_proc_address = nullptr;
        library->load(get_proc_address, "cuGetProcAddress_v2");
        if (get_proc_address == nullptr) {
            f.missing = "cuGetProcAddress_v2 (a driver of CUDA 12.0 or later)";
            return f;
        }
        resolve_graph_function(*library, get_proc_address, f.StreamBeginCapture, "cuStreamBeginCapture", f.missing);
        resolve_graph_function(*library, get_proc_address, f.StreamEndCapture, "cuStreamEndCapture", f.missing);
        resolve_graph_function(*library, get_proc_address, f.StreamGetCaptureInfo, "cuStreamGetCaptureInfo",
                               f.missing);
        resolve_graph_function(*library, get_proc_address, f.GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags",
                               f.missing);
        resolve_graph_function(*library, get_proc_address, f.GraphLaunch, "cuGraphLaunch", f.missing);
        resolve_graph_function(*library, get_proc_address, f.GraphKernelNodeGetParams, "cuGraphKernelNodeGetParams",
                               f.missing);
        resolve_graph_function(*library, get_proc_address, f.GraphExecKernelNodeSetParams,
                               "cuGraphExecKernelNodeSetParams", f.missing);
        resolve_graph_function(*library, get_proc_address, f.GraphExecDestroy, "cuGraphExecDestroy", f.missing);
        resolve_graph_function(*library, get_proc_address, f.GraphDestroy, "cuGraphDestroy", f.missing);
        return f;
    }();
    return table;
}

/// One recorded launch: its node in the captured graph and the arguments it was given, kept to
/// rebuild the node's parameter list when one of them changes.
struct GraphLaunchRecord {
    CUgraphNode node = nullptr;
    std::vector<KernelArg> args;
};

class CudaGraphSequence final : public RecordedSequence {
public:
    explicit CudaGraphSequence(CudaQueue& queue) : queue_(queue), f_(graph_functions()) {
        if (!f_.missing.empty()) {
            throw UnsupportedError("recording on CUDA needs the driver's graph entry points; missing: " + f_.missing);
        }
        const CurrentContext current(driver(), cu_context());
        // Relaxed: kjarni's own allocations (cuMemAlloc for outputs and temporaries) may happen
        // while recording; what is enqueued on the stream is what gets captured.
        check(driver(), f_.StreamBeginCapture(queue_.stream(), CU_STREAM_CAPTURE_MODE_RELAXED), "cuStreamBeginCapture");
        capturing_ = true;
    }
    CudaGraphSequence(const CudaGraphSequence&) = delete;
    CudaGraphSequence& operator=(const CudaGraphSequence&) = delete;
    ~CudaGraphSequence() override {
        abandon();
        if (exec_ != nullptr) f_.GraphExecDestroy(exec_);
        if (graph_ != nullptr) f_.GraphDestroy(graph_);
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
        check(driver(), f_.StreamGetCaptureInfo(queue_.stream(), &status, &id, &graph, &dependencies, &count),
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
        check(driver(), f_.StreamEndCapture(queue_.stream(), &graph_), "cuStreamEndCapture");
        check(driver(), f_.GraphInstantiateWithFlags(&exec_, graph_, 0), "cuGraphInstantiateWithFlags");
    }

    void abandon() noexcept override {
        if (!capturing_) return;
        capturing_ = false;
        CUgraph partial = nullptr;
        if (f_.StreamEndCapture(queue_.stream(), &partial) == CUDA_SUCCESS && partial != nullptr) {
            f_.GraphDestroy(partial);
        }
    }

    void set_argument(std::size_t launch, std::size_t argument, const KernelArg& value) override {
        GraphLaunchRecord& record = launches_.at(launch);
        record.args.at(argument) = value;
        CUDA_KERNEL_NODE_PARAMS_v2 params{};
        check(driver(), f_.GraphKernelNodeGetParams(record.node, &params), "cuGraphKernelNodeGetParams");
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
        check(driver(), f_.GraphExecKernelNodeSetParams(exec_, record.node, &params), "cuGraphExecKernelNodeSetParams");
    }

    void replay(Queue& queue) override {
        auto& cuda_queue = static_cast<CudaQueue&>(queue);
        const CurrentContext current(driver(), cu_context());
        check(driver(), f_.GraphLaunch(exec_, cuda_queue.stream()), "cuGraphLaunch");
    }

private:
    const Driver& driver() const { return queue_.context()->driver(); }
    CUcontext cu_context() const { return queue_.context()->cu_context(queue_.device_index()); }

    CudaQueue& queue_;  // kept alive by the public layer
    const GraphFunctions& f_;
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
