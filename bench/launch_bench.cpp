// Host cost of a kernel launch: kjarni's prepared kernel (enqueue: no event; call: with an event)
// against the raw driver call on the same compiled kernel and queue, with 0, 5 and 8 arguments,
// and a launch that returns an event against the raw launch plus the raw event (cuEventRecord of an
// event made once; an OpenCL launch that returns its event, released at once).
// The raw CUDA baseline calls cuLaunchKernel through dlopen'ed libcuda; the raw OpenCL one sets
// the arguments and calls clEnqueueNDRangeKernel each time, as kjarni does.
//
// "<case>_paired/kjarni_then_raw" runs both in one loop, alternating, and reports each one's mean and
// their ratio (counters kjarni_us, raw_us, kjarni_over_raw): the steadiest comparison.
//
//   kjarni_bench_launch --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <string>
#include <tuple>

#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_OPENCL
#include <CL/cl.h>
#endif
#ifdef KJARNI_BENCH_RAW_CUDA
#include "raw_cuda.hpp"
#endif

namespace {

constexpr const char* source = R"(
KERNEL void empty() {}
KERNEL void five(GLOBAL_MEM float* a, GLOBAL_MEM float* b, float c, int d, unsigned int e)
{
    if (c == 12345.0f && d == 1 && e == 2u) a[0] = b[0];
}
KERNEL void eight(GLOBAL_MEM float* a, GLOBAL_MEM float* b, float c, int d, unsigned int e,
                  GLOBAL_MEM float* f, float g, int h)
{
    if (c == 12345.0f && d == 1 && e == 2u && g == 3.0f && h == 4) a[0] = b[0] + f[0];
}
)";

struct Setup {
    kjarni::Context context;
    kjarni::Queue queue;
    kjarni::Program program;
    kjarni::PreparedKernel empty;
    kjarni::PreparedKernel five;
    kjarni::PreparedKernel eight;
    kjarni::Buffer a;
    kjarni::Buffer b;
};

// Launches pile up in the queue; synchronizing every so often keeps it from filling (a full queue
// makes launches block, which would time the device, not the host).
constexpr int sync_every = 256;

std::shared_ptr<Setup> make_setup(const kjarni::Device& first) {
    auto context = kjarni::Context::from_devices(first);
    auto device = context.devices()[0];
    kjarni::Queue queue(device);
    kjarni::Program program(device, source);
    auto empty = program.kernel("empty").prepare({32}, kjarni::Sizes{32});
    auto five = program.kernel("five").prepare({32}, kjarni::Sizes{32});
    auto eight = program.kernel("eight").prepare({32}, kjarni::Sizes{32});
    return std::make_shared<Setup>(Setup{context, queue, program, empty, five, eight,
                                         kjarni::Buffer::allocate(device, 64), kjarni::Buffer::allocate(device, 64)});
}

/// kjarni's launch of the kernel with `arguments` (0, 5 or 8), with or without an event.
void kjarni_launch(const Setup& s, int arguments, bool with_event) {
    if (with_event) {
        benchmark::DoNotOptimize(s.five(s.queue, s.a, s.b, 1.5f, 7, 9u));
    } else if (arguments == 0) {
        s.empty.enqueue(s.queue);
    } else if (arguments == 5) {
        s.five.enqueue(s.queue, s.a, s.b, 1.5f, 7, 9u);
    } else {
        s.eight.enqueue(s.queue, s.a, s.b, 1.5f, 7, 9u, s.a, 2.5f, 11);
    }
}

void kjarni_alone(benchmark::State& state, std::shared_ptr<Setup> s, int arguments, bool with_event) {
    int n = 0;
    for (auto _ : state) {
        kjarni_launch(*s, arguments, with_event);
        if (++n % sync_every == 0) s->queue.synchronize();
    }
    s->queue.synchronize();
}

#ifdef KJARNI_BENCH_RAW_CUDA
using kjarni_bench::RawCuda;
using kjarni_bench::raw_cuda;

/// The raw driver's launch of the same kernel on the same stream: 0, 5 or 8 arguments (the kernels
/// empty, five, eight); with_event: an event recorded after each launch, as a kjarni launch that
/// returns an Event does (the event made once). Holds the argument values the parameters point to.
class RawCudaLaunch {
public:
    RawCudaLaunch(const Setup& s, int arguments, bool with_event)
        : cu_(*raw_cuda()), arguments_(arguments), stream_(reinterpret_cast<CUstream>(s.queue.native_handle())),
          a_(s.a.native_handle()), b_(s.b.native_handle()) {
        const char* name = arguments == 0 ? "empty" : arguments == 5 ? "five" : "eight";
        function_ = reinterpret_cast<CUfunction>(s.program.kernel(name).native_handle(s.queue.device()));
        if (with_event) cu_.event_create(&event_, CU_EVENT_DEFAULT);
    }
    ~RawCudaLaunch() {
        if (event_ != nullptr) cu_.event_destroy(event_);
    }
    RawCudaLaunch(const RawCudaLaunch&) = delete;
    RawCudaLaunch& operator=(const RawCudaLaunch&) = delete;
    void operator()() {
        cu_.launch(function_, 1, 1, 1, 32, 1, 1, 0, stream_, arguments_ != 0 ? params_ : nullptr, nullptr);
        if (event_ != nullptr) cu_.event_record(event_, stream_);
    }
    void synchronize() { cu_.synchronize(stream_); }

private:
    const RawCuda& cu_;
    int arguments_;
    CUstream stream_;
    CUfunction function_ = nullptr;
    CUdeviceptr a_, b_;
    float c_ = 1.5f, g_ = 2.5f;
    int d_ = 7, h_ = 11;
    unsigned e_ = 9;
    void* params_[8] = {&a_, &b_, &c_, &d_, &e_, &a_, &g_, &h_};
    CUevent event_ = nullptr;
};
#endif

#ifdef KJARNI_BENCH_RAW_OPENCL
/// As the CUDA one: the arguments set and clEnqueueNDRangeKernel called each time, as kjarni does;
/// with_event: the launch returns an event, released at once.
class RawOpenclLaunch {
public:
    RawOpenclLaunch(const Setup& s, int arguments, bool with_event)
        : arguments_(arguments), with_event_(with_event), queue_(reinterpret_cast<cl_command_queue>(s.queue.native_handle())),
          a_(reinterpret_cast<cl_mem>(s.a.native_handle())), b_(reinterpret_cast<cl_mem>(s.b.native_handle())) {
        const char* name = arguments == 0 ? "empty" : arguments == 5 ? "five" : "eight";
        kernel_ = reinterpret_cast<cl_kernel>(s.program.kernel(name).native_handle(s.queue.device()));
    }
    void operator()() {
        if (arguments_ >= 5) {
            clSetKernelArg(kernel_, 0, sizeof a_, &a_);
            clSetKernelArg(kernel_, 1, sizeof b_, &b_);
            clSetKernelArg(kernel_, 2, sizeof c_, &c_);
            clSetKernelArg(kernel_, 3, sizeof d_, &d_);
            clSetKernelArg(kernel_, 4, sizeof e_, &e_);
        }
        if (arguments_ == 8) {
            clSetKernelArg(kernel_, 5, sizeof a_, &a_);
            clSetKernelArg(kernel_, 6, sizeof g_, &g_);
            clSetKernelArg(kernel_, 7, sizeof h_, &h_);
        }
        const std::size_t global = 32, local = 32;
        cl_event event = nullptr;
        clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &local, 0, nullptr, with_event_ ? &event : nullptr);
        if (event != nullptr) clReleaseEvent(event);
    }
    void synchronize() { clFinish(queue_); }

private:
    int arguments_;
    bool with_event_;
    cl_command_queue queue_;
    cl_kernel kernel_ = nullptr;
    cl_mem a_, b_;
    float c_ = 1.5f, g_ = 2.5f;
    int d_ = 7, h_ = 11;
    unsigned e_ = 9;
};
#endif

template <class RawLaunch>
void raw_launch(benchmark::State& state, std::shared_ptr<Setup> s, int arguments, bool with_event) {
    RawLaunch raw(*s, arguments, with_event);
    int n = 0;
    for (auto _ : state) {
        raw();
        if (++n % sync_every == 0) raw.synchronize();
    }
    raw.synchronize();
}

/// kjarni's launch and the raw one, one after the other in every iteration (which goes first
/// alternates), each timed on its own: both see the same moment of the machine, so their ratio
/// (counter kjarni_over_raw) holds still where separate benchmarks drift by more than the
/// difference. The iteration's time is the pair's.
template <class RawLaunch>
void paired_launch(benchmark::State& state, std::shared_ptr<Setup> s, int arguments, bool with_event) {
    RawLaunch raw(*s, arguments, with_event);
    using clock = std::chrono::steady_clock;
    clock::duration kjarni_time{}, raw_time{};
    long n = 0;
    for (auto _ : state) {
        const bool kjarni_first = (n & 1) == 0;
        const auto t0 = clock::now();
        if (kjarni_first) kjarni_launch(*s, arguments, with_event);
        else raw();
        const auto t1 = clock::now();
        if (kjarni_first) raw();
        else kjarni_launch(*s, arguments, with_event);
        const auto t2 = clock::now();
        (kjarni_first ? kjarni_time : raw_time) += t1 - t0;
        (kjarni_first ? raw_time : kjarni_time) += t2 - t1;
        state.SetIterationTime(std::chrono::duration<double>(t2 - t0).count());
        if (++n % sync_every == 0) raw.synchronize();
    }
    raw.synchronize();
    const double k = std::chrono::duration<double, std::micro>(kjarni_time).count() / static_cast<double>(n);
    const double r = std::chrono::duration<double, std::micro>(raw_time).count() / static_cast<double>(n);
    state.counters["kjarni_us"] = k;
    state.counters["raw_us"] = r;
    state.counters["kjarni_over_raw"] = k / r;
}

/// The raw launches, alone and paired with kjarni's.
template <class RawLaunch>
void register_raw(const std::string& tag, const std::shared_ptr<Setup>& setup) {
    for (const auto& [name, arguments, with_event] :
         {std::tuple{"launch_0_args", 0, false}, std::tuple{"launch_5_args", 5, false},
          std::tuple{"launch_8_args", 8, false}, std::tuple{"launch_5_args_event", 5, true}}) {
        benchmark::RegisterBenchmark(fmt::format("{}/{}/{}", name, with_event ? "raw_launch_and_event" : "raw", tag).c_str(),
                                     raw_launch<RawLaunch>, setup, arguments, with_event);
        benchmark::RegisterBenchmark(fmt::format("{}_paired/kjarni_then_raw/{}", name, tag).c_str(),
                                     paired_launch<RawLaunch>, setup, arguments, with_event)
            ->UseManualTime();
    }
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    // The first device of every platform of every API.
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
      for (const kjarni::Platform& platform : api.platforms()) {
        if (platform.devices().empty()) continue;
        std::shared_ptr<Setup> setup;
        try {
            setup = make_setup(platform.devices()[0]);
        } catch (const kjarni::Error& e) {
            fmt::print(stderr, "skipping {}: {}\n", platform.name(), e.what());
            continue;
        }
        const std::string tag = fmt::format("{}/{}", api.shortcut(), setup->queue.device().name());
        benchmark::RegisterBenchmark(("launch_0_args/kjarni_enqueue/" + tag).c_str(), kjarni_alone, setup, 0, false);
        benchmark::RegisterBenchmark(("launch_5_args/kjarni_enqueue/" + tag).c_str(), kjarni_alone, setup, 5, false);
        benchmark::RegisterBenchmark(("launch_8_args/kjarni_enqueue/" + tag).c_str(), kjarni_alone, setup, 8, false);
        benchmark::RegisterBenchmark(("launch_5_args_event/kjarni_call/" + tag).c_str(), kjarni_alone, setup, 5, true);
        // The raw launches where the benchmark was built with them (CUDA: where libcuda loads).
#ifdef KJARNI_BENCH_RAW_CUDA
        if (api.id() == kjarni::ApiId::cuda() && raw_cuda() != nullptr) register_raw<RawCudaLaunch>(tag, setup);
#endif
#ifdef KJARNI_BENCH_RAW_OPENCL
        if (api.id() == kjarni::ApiId::opencl()) register_raw<RawOpenclLaunch>(tag, setup);
#endif
      }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
