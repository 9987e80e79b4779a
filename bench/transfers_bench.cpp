// Transfers through kjarni against the raw API calls on the same queue and memory: the host cost of
// a small blocking write, and device-to-device copy bandwidth. Runs on the first device of every
// available API; the raw OpenCL baseline exists where the bench was linked against libOpenCL.
//
//   kjarni_bench_transfers --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_OPENCL
#include <CL/cl.h>
#endif

namespace {

struct Setup {
    kjarni::Context context;
    kjarni::Queue queue;
    kjarni::Buffer small;
    kjarni::Buffer big_a;
    kjarni::Buffer big_b;
    std::vector<std::byte> host;
};

constexpr std::size_t small_bytes = 4096;
constexpr std::size_t big_bytes = std::size_t{64} << 20;

std::shared_ptr<Setup> make_setup(const kjarni::Api& api) {
    auto context = kjarni::Context::from_criteria(api);
    auto device = context.devices()[0];
    kjarni::Queue queue(device);
    auto setup = std::make_shared<Setup>(Setup{context, queue, kjarni::Buffer::allocate(device, small_bytes),
                                               kjarni::Buffer::allocate(device, big_bytes),
                                               kjarni::Buffer::allocate(device, big_bytes),
                                               std::vector<std::byte>(small_bytes, std::byte{7})});
    setup->big_a.fill(queue, std::as_bytes(std::span("kjarni!", 8)));
    return setup;
}

void kjarni_small_write(benchmark::State& state, std::shared_ptr<Setup> s) {
    for (auto _ : state) s->small.set(s->queue, std::span<const std::byte>(s->host));
}

void kjarni_big_copy(benchmark::State& state, std::shared_ptr<Setup> s) {
    for (auto _ : state) s->big_b.set(s->queue, s->big_a);
    state.SetBytesProcessed(state.iterations() * 2 * static_cast<std::int64_t>(big_bytes));  // read + write
}

#ifdef KJARNI_BENCH_RAW_OPENCL
cl_command_queue cl_queue(const Setup& s) { return reinterpret_cast<cl_command_queue>(s.queue.native_handle()); }
cl_mem cl_buffer(const kjarni::Buffer& b) { return reinterpret_cast<cl_mem>(b.native_handle()); }

void raw_opencl_small_write(benchmark::State& state, std::shared_ptr<Setup> s) {
    for (auto _ : state) {
        clEnqueueWriteBuffer(cl_queue(*s), cl_buffer(s->small), CL_TRUE, 0, small_bytes, s->host.data(), 0, nullptr,
                             nullptr);
    }
}

void raw_opencl_big_copy(benchmark::State& state, std::shared_ptr<Setup> s) {
    for (auto _ : state) {
        clEnqueueCopyBuffer(cl_queue(*s), cl_buffer(s->big_a), cl_buffer(s->big_b), 0, 0, big_bytes, 0, nullptr,
                            nullptr);
        clFinish(cl_queue(*s));
    }
    state.SetBytesProcessed(state.iterations() * 2 * static_cast<std::int64_t>(big_bytes));
}
#endif

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        auto setup = make_setup(api);
        const std::string tag = fmt::format("{}/{}", api.shortcut(), setup->queue.device().name());
        benchmark::RegisterBenchmark(("write_4KiB/kjarni/" + tag).c_str(), kjarni_small_write, setup);
        benchmark::RegisterBenchmark(("copy_64MiB/kjarni/" + tag).c_str(), kjarni_big_copy, setup)->UseRealTime();
#ifdef KJARNI_BENCH_RAW_OPENCL
        if (api.id() == kjarni::ApiId::opencl()) {
            benchmark::RegisterBenchmark(("write_4KiB/raw/" + tag).c_str(), raw_opencl_small_write, setup);
            benchmark::RegisterBenchmark(("copy_64MiB/raw/" + tag).c_str(), raw_opencl_big_copy, setup)
                ->UseRealTime();
        }
#endif
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
