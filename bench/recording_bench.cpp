// Recorded launch sequences against launching one by one: a sequence of 100 dependent small
// kernels (x = x * a + b in place on 256 floats, each launch reading what the previous wrote)
// enqueued on one queue and waited for, as
//   eager      kjarni's PreparedKernel::enqueue, 100 times
//   bound      kjarni's BoundKernel::enqueue (arguments checked once), 100 times
//   replay     kjarni's Recording::replay of the 100 launches (CUDA graph / OpenCL command buffer)
//   list       the same recording replayed as a launch list (RecordingOptions::native = false)
//   raw        the driver's launch, 100 times (cuLaunchKernel / clEnqueueNDRangeKernel on a
//              kernel object of its own, arguments set once)
//   raw_graph  CUDA only: the raw launches captured into a graph by the driver, cuGraphLaunch
// Each repetition runs every variant once, in turn (interleaved); the figures are medians over
// the repetitions: the whole sequence's time (enqueue to finish, microseconds), the host's time
// to enqueue it per kernel, and eager / replay.
//
//   kjarni_bench_recording [device specifier, e.g. cuda0, opencl0:0] [repetitions]

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"
#include "kjarni/recording.hpp"

#ifdef KJARNI_BENCH_RAW_OPENCL
#include <CL/cl.h>
#endif
#ifdef KJARNI_BENCH_RAW_CUDA
#include <cudaTypedefs.h>

#include "raw_cuda.hpp"
#endif

namespace {

constexpr const char* bench_source = R"(
KERNEL void advance(GLOBAL_MEM float* x, float a, float b, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) x[i] = x[i] * a + b;
}
)";

constexpr unsigned bench_n = 256;
constexpr int sequence_length = 100;
constexpr float step_a = 0.999f;
constexpr float step_b = 0.001f;

using Clock = std::chrono::steady_clock;

double microseconds(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

struct Timing {
    std::vector<double> total;  // enqueue to finish
    std::vector<double> host;   // enqueue only
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

/// Times `enqueue` (the whole sequence) and then `finish`.
void time_once(Timing& timing, const std::function<void()>& enqueue, const std::function<void()>& finish) {
    const auto start = Clock::now();
    enqueue();
    const auto enqueued = Clock::now();
    finish();
    const auto done = Clock::now();
    timing.host.push_back(microseconds(enqueued - start));
    timing.total.push_back(microseconds(done - start));
}

#ifdef KJARNI_BENCH_RAW_CUDA
/// The raw CUDA launches, and the same captured into a graph by the driver.
class RawCudaSequence {
public:
    RawCudaSequence(const kjarni::Queue& queue, const kjarni::Program& program, const kjarni::Buffer& x)
        : cu_(*kjarni_bench::raw_cuda()), stream_(reinterpret_cast<CUstream>(queue.native_handle())) {
        function_ = reinterpret_cast<CUfunction>(program.kernel("advance").native_handle(queue.device()));
        pointer_ = x.native_handle();
        params_ = {&pointer_, &a_, &b_, &n_};
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        begin_ = reinterpret_cast<PFN_cuStreamBeginCapture_v10010>(dlsym(lib, "cuStreamBeginCapture_v2"));
        end_ = reinterpret_cast<PFN_cuStreamEndCapture_v10000>(dlsym(lib, "cuStreamEndCapture"));
        instantiate_ =
            reinterpret_cast<PFN_cuGraphInstantiateWithFlags_v11040>(dlsym(lib, "cuGraphInstantiateWithFlags"));
        graph_launch_ = reinterpret_cast<PFN_cuGraphLaunch_v10000>(dlsym(lib, "cuGraphLaunch"));
        if (begin_ && end_ && instantiate_ && graph_launch_ &&
            begin_(stream_, CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS) {
            launch_all();
            CUgraph graph = nullptr;
            if (end_(stream_, &graph) == CUDA_SUCCESS) instantiate_(&exec_, graph, 0);
        }
    }
    void launch_all() {
        for (int k = 0; k < sequence_length; ++k) {
            cu_.launch(function_, (bench_n + 255) / 256, 1, 1, 256, 1, 1, 0, stream_, params_.data(), nullptr);
        }
    }
    bool has_graph() const { return exec_ != nullptr; }
    void replay() { graph_launch_(exec_, stream_); }
    void synchronize() { cu_.synchronize(stream_); }

private:
    const kjarni_bench::RawCuda& cu_;
    CUstream stream_;
    CUfunction function_ = nullptr;
    CUdeviceptr pointer_ = 0;
    float a_ = step_a, b_ = step_b;
    unsigned n_ = bench_n;
    std::array<void*, 4> params_{};
    PFN_cuStreamBeginCapture_v10010 begin_ = nullptr;
    PFN_cuStreamEndCapture_v10000 end_ = nullptr;
    PFN_cuGraphInstantiateWithFlags_v11040 instantiate_ = nullptr;
    PFN_cuGraphLaunch_v10000 graph_launch_ = nullptr;
    CUgraphExec exec_ = nullptr;
};
#endif

#ifdef KJARNI_BENCH_RAW_OPENCL
/// The raw OpenCL launches on a kernel object of its own, made from kjarni's program binary.
class RawOpenclSequence {
public:
    RawOpenclSequence(const kjarni::Context& context, const kjarni::Queue& queue, const kjarni::Program& program,
                      const kjarni::Buffer& x, std::size_t local)
        : queue_(reinterpret_cast<cl_command_queue>(queue.native_handle())), local_(local) {
        const std::vector<std::byte> binary = program.binary(queue.device());
        const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
        const std::size_t size = binary.size();
        auto device = reinterpret_cast<cl_device_id>(queue.device().device().native_handle());
        cl_int error = CL_SUCCESS, status = CL_SUCCESS;
        program_ = clCreateProgramWithBinary(reinterpret_cast<cl_context>(context.native_handle()), 1, &device, &size,
                                             &bytes, &status, &error);
        if (error == CL_SUCCESS) error = status;
        if (error == CL_SUCCESS) error = clBuildProgram(program_, 1, &device, "-cl-kernel-arg-info", nullptr, nullptr);
        if (error == CL_SUCCESS) kernel_ = clCreateKernel(program_, "advance", &error);
        if (error != CL_SUCCESS) throw std::runtime_error(fmt::format("the raw OpenCL kernel: error {}", error));
        cl_mem mem = reinterpret_cast<cl_mem>(x.native_handle());
        const float a = step_a, b = step_b;
        const unsigned n = bench_n;
        clSetKernelArg(kernel_, 0, sizeof mem, &mem);
        clSetKernelArg(kernel_, 1, sizeof a, &a);
        clSetKernelArg(kernel_, 2, sizeof b, &b);
        clSetKernelArg(kernel_, 3, sizeof n, &n);
    }
    ~RawOpenclSequence() {
        if (kernel_ != nullptr) clReleaseKernel(kernel_);
        if (program_ != nullptr) clReleaseProgram(program_);
    }
    RawOpenclSequence(const RawOpenclSequence&) = delete;
    RawOpenclSequence& operator=(const RawOpenclSequence&) = delete;
    void launch_all() {
        const std::size_t global = (bench_n + local_ - 1) / local_ * local_;
        for (int k = 0; k < sequence_length; ++k) {
            clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &local_, 0, nullptr, nullptr);
        }
    }
    void synchronize() { clFinish(queue_); }

private:
    cl_command_queue queue_;
    std::size_t local_;
    cl_program program_ = nullptr;
    cl_kernel kernel_ = nullptr;
};
#endif

}  // namespace

int main(int argc, char** argv) {
    const kjarni::Context context = argc > 1 ? kjarni::context_from_specifier(argv[1])
                                             : kjarni::Context::from_criteria(kjarni::Api::all_available().at(0));
    const int repetitions = argc > 2 ? std::atoi(argv[2]) : 21;
    const kjarni::BoundDevice device = context.devices()[0];
    const kjarni::Queue queue(device);
    const kjarni::Program program(device, bench_source);
    const kjarni::PreparedKernel step = program.kernel("advance").prepare({bench_n});
    const kjarni::Buffer x = kjarni::Buffer::allocate(device, bench_n * sizeof(float));
    const std::vector<float> ones(bench_n, 1.0f);
    x.set(queue, std::span<const float>(ones));
    const kjarni::BoundKernel bound = step.bind(queue, x, step_a, step_b, bench_n);

    auto record = [&](bool native) {
        kjarni::Recorder recorder(queue, kjarni::RecordingOptions{native});
        for (int k = 0; k < sequence_length; ++k) step.enqueue(queue, x, step_a, step_b, bench_n);
        return recorder.finish();
    };
    const kjarni::Recording native = record(true);
    const kjarni::Recording listed = record(false);
    auto sync = [&] { queue.synchronize(); };

    std::vector<std::pair<std::string, std::function<void()>>> variants = {
        {"eager",
         [&] {
             for (int k = 0; k < sequence_length; ++k) step.enqueue(queue, x, step_a, step_b, bench_n);
         }},
        {"bound",
         [&] {
             for (int k = 0; k < sequence_length; ++k) bound.enqueue();
         }},
        {"replay", [&] { native.replay(); }},
        {"list", [&] { listed.replay(); }},
    };
#ifdef KJARNI_BENCH_RAW_CUDA
    std::unique_ptr<RawCudaSequence> raw_cuda;
    if (context.api().id() == kjarni::ApiId::cuda() && kjarni_bench::raw_cuda() != nullptr) {
        raw_cuda = std::make_unique<RawCudaSequence>(queue, program, x);
        variants.emplace_back("raw", [&] { raw_cuda->launch_all(); });
        if (raw_cuda->has_graph()) variants.emplace_back("raw_graph", [&] { raw_cuda->replay(); });
    }
#endif
#ifdef KJARNI_BENCH_RAW_OPENCL
    std::unique_ptr<RawOpenclSequence> raw_opencl;
    if (context.api().id() == kjarni::ApiId::opencl()) {
        raw_opencl =
            std::make_unique<RawOpenclSequence>(context, queue, program, x, step.local_size(device.index())[0]);
        variants.emplace_back("raw", [&] { raw_opencl->launch_all(); });
    }
#endif

    std::map<std::string, Timing> timings;
    for (auto& [name, run] : variants) run(), sync();  // warm-up
    for (int r = 0; r < repetitions; ++r) {
        for (auto& [name, run] : variants) time_once(timings[name], run, sync);
    }

    fmt::print("device: {} ({}); {} dependent launches of {} floats; replay mechanism: {}; medians of {} "
               "interleaved repetitions\n",
               device.name(), context.api().id() == kjarni::ApiId::cuda() ? "CUDA" : "OpenCL", sequence_length, bench_n,
               native.mechanism(), repetitions);
    fmt::print("{:<10} {:>14} {:>18} {:>16}\n", "variant", "sequence_us", "host_us_per_kernel", "eager_over_this");
    const double eager = median(timings["eager"].total);
    for (auto& [name, run] : variants) {
        const double total = median(timings[name].total);
        fmt::print("{:<10} {:>14.1f} {:>18.3f} {:>16.2f}\n", name, total, median(timings[name].host) / sequence_length,
                   eager / total);
    }
    return 0;
}
