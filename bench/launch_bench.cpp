// Host cost of a kernel launch: kjarni's prepared kernel (enqueue: no event; call: with an event)
// against the raw driver call on the same compiled kernel and queue, with 0, 5 and 8 arguments,
// and a launch that returns an event against the raw launch plus the raw event (cuEventRecord of an
// event made once; an OpenCL launch that returns its event, released at once).
// The raw CUDA baseline calls cuLaunchKernel through dlopen'ed libcuda; the raw OpenCL one sets
// every argument and calls clEnqueueNDRangeKernel each time, on a kernel object of its own made
// from the same binary (kjarni skips the arguments its kernel object already holds, which
// someone else's clSetKernelArg on that object would defeat). "launch_8_args_changing" switches
// every argument between two sets at every launch: the case where kjarni skips none.
//
// "<case>_paired/kjarni_then_raw" runs both in one loop, alternating, and reports each one's mean and
// their ratio (counters kjarni_us, raw_us, kjarni_over_raw): the steadiest comparison.
//
//   kjarni_bench_launch --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <array>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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
    // The same launches with their arguments bound once (set 0).
    kjarni::BoundKernel five_bound;
    kjarni::BoundKernel eight_bound;
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
    auto a = kjarni::Buffer::allocate(device, 64), b = kjarni::Buffer::allocate(device, 64);
    auto five_bound = five.bind(queue, a, b, 1.5f, 7, 9u);
    auto eight_bound = eight.bind(queue, a, b, 1.5f, 7, 9u, a, 2.5f, 11);
    return std::make_shared<Setup>(Setup{context, queue, program, empty, five, eight, a, b, five_bound, eight_bound});
}

/// What a benchmark launches: the kernel with `arguments` (0, 5 or 8), with or without an event;
/// `changing`: every argument switches between two sets from one launch to the next; `bound`:
/// kjarni launches a BoundKernel (arguments checked and packed once).
struct Case {
    const char* name;
    int arguments;
    bool with_event;
    bool changing;
    bool bound = false;
};

constexpr Case cases[] = {{"launch_0_args", 0, false, false},
                          {"launch_5_args", 5, false, false},
                          {"launch_8_args", 8, false, false},
                          {"launch_8_args_changing", 8, false, true},
                          {"launch_5_args_bound", 5, false, false, true},
                          {"launch_8_args_bound", 8, false, false, true},
                          {"launch_5_args_event", 5, true, false}};

/// The argument values of set 0 or 1 (the kernels compare them with values they never equal, so
/// they write nothing).
struct Values {
    float c, g;
    int d, h;
    unsigned e;
};
constexpr Values value_sets[2] = {{1.5f, 2.5f, 7, 11, 9u}, {3.5f, 4.5f, 8, 12, 10u}};

/// kjarni's launch of `c`, with argument set `set`.
void kjarni_launch(const Setup& s, const Case& c, int set) {
    const Values& v = value_sets[set];
    const kjarni::Buffer& a = set == 0 ? s.a : s.b;
    const kjarni::Buffer& b = set == 0 ? s.b : s.a;
    if (c.bound) {
        (c.arguments == 5 ? s.five_bound : s.eight_bound).enqueue();
    } else if (c.with_event) {
        benchmark::DoNotOptimize(s.five(s.queue, a, b, v.c, v.d, v.e));
    } else if (c.arguments == 0) {
        s.empty.enqueue(s.queue);
    } else if (c.arguments == 5) {
        s.five.enqueue(s.queue, a, b, v.c, v.d, v.e);
    } else {
        s.eight.enqueue(s.queue, a, b, v.c, v.d, v.e, a, v.g, v.h);
    }
}

/// The argument set of a case's n-th launch.
int set_of(const Case& c, long n) { return c.changing ? static_cast<int>(n & 1) : 0; }

void kjarni_alone(benchmark::State& state, std::shared_ptr<Setup> s, Case c) {
    long n = 0;
    for (auto _ : state) {
        kjarni_launch(*s, c, set_of(c, n));
        if (++n % sync_every == 0) s->queue.synchronize();
    }
    s->queue.synchronize();
}

#ifdef KJARNI_BENCH_RAW_CUDA
using kjarni_bench::raw_cuda;
using kjarni_bench::RawCuda;

/// The raw driver's launch of the same kernel on the same stream: 0, 5 or 8 arguments (the kernels
/// empty, five, eight); with_event: an event recorded after each launch, as a kjarni launch that
/// returns an Event does (the event made once). Holds the argument values the parameters point to.
class RawCudaLaunch {
public:
    RawCudaLaunch(const Setup& s, const Case& c)
        : cu_(*raw_cuda()), arguments_(c.arguments), stream_(reinterpret_cast<CUstream>(s.queue.native_handle())) {
        const char* name = c.arguments == 0 ? "empty" : c.arguments == 5 ? "five" : "eight";
        function_ = reinterpret_cast<CUfunction>(s.program.kernel(name).native_handle(s.queue.device()));
        if (c.with_event) cu_.event_create(&event_, CU_EVENT_DEFAULT);
        for (int set = 0; set < 2; ++set) {
            Set& p = sets_[set];
            p.v = value_sets[set];
            p.a = (set == 0 ? s.a : s.b).native_handle();
            p.b = (set == 0 ? s.b : s.a).native_handle();
            p.params = {&p.a, &p.b, &p.v.c, &p.v.d, &p.v.e, &p.a, &p.v.g, &p.v.h};
        }
    }
    ~RawCudaLaunch() {
        if (event_ != nullptr) cu_.event_destroy(event_);
    }
    RawCudaLaunch(const RawCudaLaunch&) = delete;
    RawCudaLaunch& operator=(const RawCudaLaunch&) = delete;
    void operator()(int set) {
        cu_.launch(function_, 1, 1, 1, 32, 1, 1, 0, stream_, arguments_ != 0 ? sets_[set].params.data() : nullptr,
                   nullptr);
        if (event_ != nullptr) cu_.event_record(event_, stream_);
    }
    void synchronize() { cu_.synchronize(stream_); }

private:
    const RawCuda& cu_;
    int arguments_;
    CUstream stream_;
    CUfunction function_ = nullptr;
    struct Set {
        Values v;
        CUdeviceptr a, b;
        std::array<void*, 8> params;
    };
    Set sets_[2];  // pointed into: the object stays where it was made
    CUevent event_ = nullptr;
};
#endif

#ifdef KJARNI_BENCH_RAW_OPENCL
/// As the CUDA one: every argument set and clEnqueueNDRangeKernel called each time, on a kernel
/// object made here from kjarni's program binary, as kjarni makes it (not kjarni's object);
/// with_event: the launch returns an event, released at once.
class RawOpenclLaunch {
public:
    RawOpenclLaunch(const Setup& s, const Case& c)
        : arguments_(c.arguments), with_event_(c.with_event),
          queue_(reinterpret_cast<cl_command_queue>(s.queue.native_handle())),
          a_(reinterpret_cast<cl_mem>(s.a.native_handle())), b_(reinterpret_cast<cl_mem>(s.b.native_handle())) {
        const char* name = c.arguments == 0 ? "empty" : c.arguments == 5 ? "five" : "eight";
        const std::vector<std::byte> binary = s.program.binary(s.queue.device());
        const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
        const std::size_t size = binary.size();
        auto device = reinterpret_cast<cl_device_id>(s.queue.device().device().native_handle());
        cl_int error = CL_SUCCESS, status = CL_SUCCESS;
        program_ = clCreateProgramWithBinary(reinterpret_cast<cl_context>(s.context.native_handle()), 1, &device, &size,
                                             &bytes, &status, &error);
        // With the option kjarni builds with (its launches check arguments against their info).
        if (error == CL_SUCCESS) error = status;
        if (error == CL_SUCCESS) error = clBuildProgram(program_, 1, &device, "-cl-kernel-arg-info", nullptr, nullptr);
        if (error == CL_SUCCESS) kernel_ = clCreateKernel(program_, name, &error);
        if (error != CL_SUCCESS) throw std::runtime_error(fmt::format("the raw OpenCL kernel: error {}", error));
    }
    ~RawOpenclLaunch() {
        if (kernel_ != nullptr) clReleaseKernel(kernel_);
        if (program_ != nullptr) clReleaseProgram(program_);
    }
    RawOpenclLaunch(const RawOpenclLaunch&) = delete;
    RawOpenclLaunch& operator=(const RawOpenclLaunch&) = delete;
    void operator()(int set) {
        const Values& v = value_sets[set];
        const cl_mem a = set == 0 ? a_ : b_, b = set == 0 ? b_ : a_;
        if (arguments_ >= 5) {
            clSetKernelArg(kernel_, 0, sizeof a, &a);
            clSetKernelArg(kernel_, 1, sizeof b, &b);
            clSetKernelArg(kernel_, 2, sizeof v.c, &v.c);
            clSetKernelArg(kernel_, 3, sizeof v.d, &v.d);
            clSetKernelArg(kernel_, 4, sizeof v.e, &v.e);
        }
        if (arguments_ == 8) {
            clSetKernelArg(kernel_, 5, sizeof a, &a);
            clSetKernelArg(kernel_, 6, sizeof v.g, &v.g);
            clSetKernelArg(kernel_, 7, sizeof v.h, &v.h);
        }
        const std::size_t global = 32, local = 32;
        cl_event event = nullptr;
        clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &local, 0, nullptr,
                               with_event_ ? &event : nullptr);
        if (event != nullptr) clReleaseEvent(event);
    }
    void synchronize() { clFinish(queue_); }

private:
    int arguments_;
    bool with_event_;
    cl_command_queue queue_;
    cl_program program_ = nullptr;
    cl_kernel kernel_ = nullptr;
    cl_mem a_, b_;
};
#endif

/// The raw launcher of case `c`, or none (the benchmark skipped, naming why) where the driver
/// refused to make it.
template <class RawLaunch>
std::unique_ptr<RawLaunch> make_raw(benchmark::State& state, const Setup& s, const Case& c) {
    try {
        return std::make_unique<RawLaunch>(s, c);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return nullptr;
    }
}

template <class RawLaunch>
void raw_launch(benchmark::State& state, std::shared_ptr<Setup> s, Case c) {
    const auto made = make_raw<RawLaunch>(state, *s, c);
    if (!made) return;
    RawLaunch& raw = *made;
    long n = 0;
    for (auto _ : state) {
        raw(set_of(c, n));
        if (++n % sync_every == 0) raw.synchronize();
    }
    raw.synchronize();
}

/// kjarni's launch and the raw one, one after the other in every iteration (which goes first
/// alternates), each timed on its own: both see the same moment of the machine, so their ratio
/// (counter kjarni_over_raw) holds still where separate benchmarks drift by more than the
/// difference. The iteration's time is the pair's.
template <class RawLaunch>
void paired_launch(benchmark::State& state, std::shared_ptr<Setup> s, Case c) {
    const auto made = make_raw<RawLaunch>(state, *s, c);
    if (!made) return;
    RawLaunch& raw = *made;
    using clock = std::chrono::steady_clock;
    clock::duration kjarni_time{}, raw_time{};
    long n = 0;
    for (auto _ : state) {
        const bool kjarni_first = (n & 2) == 0;  // set_of takes bit 0
        const int set = set_of(c, n);
        const auto t0 = clock::now();
        if (kjarni_first) kjarni_launch(*s, c, set);
        else raw(set);
        const auto t1 = clock::now();
        if (kjarni_first) raw(set);
        else kjarni_launch(*s, c, set);
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
    for (const Case& c : cases) {
        benchmark::RegisterBenchmark(fmt::format("{}/{}/{}", c.name, c.with_event ? "raw_launch_and_event" : "raw", tag)
                                         .c_str(),
                                     raw_launch<RawLaunch>, setup, c);
        benchmark::RegisterBenchmark(fmt::format("{}_paired/kjarni_then_raw/{}", c.name, tag).c_str(),
                                     paired_launch<RawLaunch>, setup, c)
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
            for (const Case& c : cases) {
                benchmark::RegisterBenchmark(
                    fmt::format("{}/{}/{}", c.name, c.with_event ? "kjarni_call" : "kjarni_enqueue", tag).c_str(),
                    kjarni_alone, setup, c);
            }
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
