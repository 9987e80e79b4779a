// Elementwise algorithms against the device-to-device copy of the same bytes, in one run, on the
// first device of every available API:
//   copy           Buffer copy of n float32 (read n, write n)
//   scale          y = 2x                          (expression)
//   add            y = a + b                       (expression)
//   add_stepped    y = a[::2] + b                  (expression; a is twice as long)
//   axpb_fused     y = a * x + b, a scalar          (one kernel: reads x, b once, writes y once)
//   axpb_kernel    the same through ElementwiseKernel
// GB/s counts the useful bytes each moves (elements read and written, times 4), so every figure
// is comparable with the copy's. n float32 = KJARNI_BENCH_ALGO_MIB MiB per array (default 2048;
// give a small value on CPU devices). Each iteration enqueues 10 operations then waits, so the wait
// costs under 1% at the default size.
//
//   kjarni_bench_algorithms --benchmark_repetitions=7 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "batched_run.hpp"
#include "kjarni/kjarni.hpp"

namespace {

constexpr int batch = 10;

std::size_t elements() {
    const char* mib = std::getenv("KJARNI_BENCH_ALGO_MIB");
    const std::size_t bytes = (mib != nullptr && std::atoi(mib) > 0 ? static_cast<std::size_t>(std::atoi(mib)) : 2048)
                              << 20;
    return bytes / sizeof(float);
}

struct Setup {
    kjarni::Queue queue;
    kjarni::Array a, b, x, y, wide;
    kjarni::ElementwiseKernel axpb{"float *y, const float *x, float a, const float *b", "y[i] = a * x[i] + b[i]"};
};

std::shared_ptr<Setup> make_setup(const kjarni::Api& api) {
    auto context = kjarni::Context::from_criteria(api);
    kjarni::Queue queue(context.devices()[0]);
    const std::size_t n = elements();
    auto make = [&](std::size_t count) {
        const kjarni::Array array = kjarni::Array::empty(queue.device(), {count}, kjarni::dtypes::float32);
        kjarni::fill(queue, array, 1.25);
        return array;
    };
    auto setup = std::make_shared<Setup>(Setup{queue, make(n), make(n), make(n), make(n), make(2 * n)});
    queue.synchronize();
    return setup;
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    const std::size_t n = elements();
    const std::size_t bytes = n * sizeof(float);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        const auto s = make_setup(api);
        const std::string tag = fmt::format("{}/{}", api.shortcut(), s->queue.device().name());
        auto add = [&](const std::string& name, std::size_t useful, auto work) {
            benchmark::RegisterBenchmark((name + "/" + tag).c_str(), [s, useful, work](benchmark::State& state) {
                kjarni::bench::run_batched(state, s->queue, useful, batch, work);
            })->UseRealTime();
        };
        const kjarni::Array stepped = s->wide[{kjarni::Slice{std::nullopt, std::nullopt, 2}}];
        add("copy", 2 * bytes, [s, bytes] { s->y.base().set(s->queue, s->x.base(), true); });
        add("scale", 2 * bytes, [s] { kjarni::assign(s->queue, s->y, 2.0f * s->x); });
        add("add", 3 * bytes, [s] { kjarni::assign(s->queue, s->y, s->a + s->b); });
        add("add_stepped", 3 * bytes, [s, stepped] { kjarni::assign(s->queue, s->y, stepped + s->b); });
        add("axpb_fused", 3 * bytes, [s] { kjarni::assign(s->queue, s->y, 3.0f * s->x + s->b); });
        add("axpb_kernel", 3 * bytes, [s] { s->axpb(s->queue, s->y, s->x, 3.0f, s->b); });
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
