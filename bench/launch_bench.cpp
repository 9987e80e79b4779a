// Host cost of a kernel launch: kjarni's prepared kernel (enqueue: no event; call: with an event)
// against the raw driver call on the same compiled kernel and queue, with 0, 5 and 8 arguments,
// and a launch that returns an event against the raw launch plus the raw event (cuEventRecord of an
// event made once; an OpenCL launch that returns its event, released at once).
// The raw CUDA baseline calls cuLaunchKernel through dlopen'ed libcuda; the raw OpenCL one sets
// the arguments and calls clEnqueueNDRangeKernel each time, as kjarni does.
//
//   kjarni_bench_launch --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <memory>

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

void kjarni_enqueue_0(benchmark::State& state, std::shared_ptr<Setup> s) {
    int n = 0;
    for (auto _ : state) {
        s->empty.enqueue(s->queue);
        if (++n % sync_every == 0) s->queue.synchronize();
    }
    s->queue.synchronize();
}

void kjarni_enqueue_5(benchmark::State& state, std::shared_ptr<Setup> s) {
    int n = 0;
    for (auto _ : state) {
        s->five.enqueue(s->queue, s->a, s->b, 1.5f, 7, 9u);
        if (++n % sync_every == 0) s->queue.synchronize();
    }
    s->queue.synchronize();
}

void kjarni_enqueue_8(benchmark::State& state, std::shared_ptr<Setup> s) {
    int n = 0;
    for (auto _ : state) {
        s->eight.enqueue(s->queue, s->a, s->b, 1.5f, 7, 9u, s->a, 2.5f, 11);
        if (++n % sync_every == 0) s->queue.synchronize();
    }
    s->queue.synchronize();
}

void kjarni_call_with_event_5(benchmark::State& state, std::shared_ptr<Setup> s) {
    int n = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(s->five(s->queue, s->a, s->b, 1.5f, 7, 9u));
        if (++n % sync_every == 0) s->queue.synchronize();
    }
    s->queue.synchronize();
}

#ifdef KJARNI_BENCH_RAW_CUDA
using kjarni_bench::RawCuda;
using kjarni_bench::raw_cuda;

// arguments: 0, 5 or 8 (the kernels empty, five, eight); with_event: an event recorded after each
// launch, as a kjarni launch that returns an Event does (the event made once, outside the loop).
void raw_cuda_launch(benchmark::State& state, std::shared_ptr<Setup> s, int arguments, bool with_event) {
    const auto* table = raw_cuda();
    if (table == nullptr) {  // registered only where the table loaded; g++ 12 cannot see that
        state.SkipWithError("libcuda's functions are missing");
        return;
    }
    const auto& cu = *table;
    const auto device = s->queue.device();
    const char* name = arguments == 0 ? "empty" : arguments == 5 ? "five" : "eight";
    auto function = reinterpret_cast<CUfunction>(s->program.kernel(name).native_handle(device));
    auto stream = reinterpret_cast<CUstream>(s->queue.native_handle());
    CUdeviceptr a = s->a.native_handle(), b = s->b.native_handle();
    float c = 1.5f, g = 2.5f;
    int d = 7, h = 11;
    unsigned e = 9;
    void* params[] = {&a, &b, &c, &d, &e, &a, &g, &h};
    CUevent event = nullptr;
    if (with_event) cu.event_create(&event, CU_EVENT_DEFAULT);
    int n = 0;
    for (auto _ : state) {
        cu.launch(function, 1, 1, 1, 32, 1, 1, 0, stream, arguments != 0 ? params : nullptr, nullptr);
        if (with_event) cu.event_record(event, stream);
        if (++n % sync_every == 0) cu.synchronize(stream);
    }
    cu.synchronize(stream);
    if (with_event) cu.event_destroy(event);
}
#endif

#ifdef KJARNI_BENCH_RAW_OPENCL
// As raw_cuda_launch; with_event: the launch returns an event, released at once.
void raw_opencl_launch(benchmark::State& state, std::shared_ptr<Setup> s, int arguments, bool with_event) {
    const auto device = s->queue.device();
    const char* name = arguments == 0 ? "empty" : arguments == 5 ? "five" : "eight";
    auto kernel = reinterpret_cast<cl_kernel>(s->program.kernel(name).native_handle(device));
    auto queue = reinterpret_cast<cl_command_queue>(s->queue.native_handle());
    cl_mem a = reinterpret_cast<cl_mem>(s->a.native_handle()), b = reinterpret_cast<cl_mem>(s->b.native_handle());
    float c = 1.5f, g = 2.5f;
    int d = 7, h = 11;
    unsigned e = 9;
    const std::size_t global = 32, local = 32;
    int n = 0;
    for (auto _ : state) {
        if (arguments >= 5) {
            clSetKernelArg(kernel, 0, sizeof a, &a);
            clSetKernelArg(kernel, 1, sizeof b, &b);
            clSetKernelArg(kernel, 2, sizeof c, &c);
            clSetKernelArg(kernel, 3, sizeof d, &d);
            clSetKernelArg(kernel, 4, sizeof e, &e);
        }
        if (arguments == 8) {
            clSetKernelArg(kernel, 5, sizeof a, &a);
            clSetKernelArg(kernel, 6, sizeof g, &g);
            clSetKernelArg(kernel, 7, sizeof h, &h);
        }
        cl_event event = nullptr;
        clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, with_event ? &event : nullptr);
        if (event != nullptr) clReleaseEvent(event);
        if (++n % sync_every == 0) clFinish(queue);
    }
    clFinish(queue);
}
#endif

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
        benchmark::RegisterBenchmark(("launch_0_args/kjarni_enqueue/" + tag).c_str(), kjarni_enqueue_0, setup);
        benchmark::RegisterBenchmark(("launch_5_args/kjarni_enqueue/" + tag).c_str(), kjarni_enqueue_5, setup);
        benchmark::RegisterBenchmark(("launch_8_args/kjarni_enqueue/" + tag).c_str(), kjarni_enqueue_8, setup);
        benchmark::RegisterBenchmark(("launch_5_args_event/kjarni_call/" + tag).c_str(), kjarni_call_with_event_5,
                                     setup);
        // The raw launcher of this API, if the benchmark was built with it.
        void (*raw)(benchmark::State&, std::shared_ptr<Setup>, int, bool) = nullptr;
#ifdef KJARNI_BENCH_RAW_CUDA
        if (api.id() == kjarni::ApiId::cuda() && raw_cuda() != nullptr) raw = raw_cuda_launch;
#endif
#ifdef KJARNI_BENCH_RAW_OPENCL
        if (api.id() == kjarni::ApiId::opencl()) raw = raw_opencl_launch;
#endif
        if (raw != nullptr) {
            benchmark::RegisterBenchmark(("launch_0_args/raw/" + tag).c_str(), raw, setup, 0, false);
            benchmark::RegisterBenchmark(("launch_5_args/raw/" + tag).c_str(), raw, setup, 5, false);
            benchmark::RegisterBenchmark(("launch_8_args/raw/" + tag).c_str(), raw, setup, 8, false);
            benchmark::RegisterBenchmark(("launch_5_args_event/raw_launch_and_event/" + tag).c_str(), raw, setup, 5,
                                         true);
        }
      }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
