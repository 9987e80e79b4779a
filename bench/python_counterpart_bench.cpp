// The C++ side of bench/python/cupy_compare.py: the same array calls on the same sizes, with the
// same batching (run_batched: `batch` calls, then one wait), so that the Python figures can be
// held against the C++ ones (issue 39: within 2%):
//   axpb_assign            assign(queue, y, a * x + b)          a, b float32 scalars
//   axpb_evaluate_pooled   evaluate(queue, a * x + b, pool)     a new array from a MemoryPool, dropped at once
//   axpb_evaluate_kept     the same, each result kept until the next replaces it, as Python's
//                          `r = kjarni.evaluate(...)` in a loop keeps it: two blocks of the pool alternate
//   sum                    sum(queue, x)                        a new 0-d array from the driver
//   sum_pooled             sum(queue, x, {.allocator = pool})   from a MemoryPool
// x and y hold 2^KJARNI_BENCH_LOG2N float32 (default 28); the batch is KJARNI_BENCH_BATCH calls
// (default 10, cupy_compare.py's --calls). GB/s counts 8 bytes per element for y = a*x + b and 4
// for the sums. On the first device of every available API:
//
//   kjarni_bench_python_counterpart --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "batched_run.hpp"
#include "kjarni/kjarni.hpp"
#include "kjarni/reduction.hpp"

namespace {

int from_env(const char* name, int fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && std::atoi(value) > 0 ? std::atoi(value) : fallback;
}

struct Setup {
    kjarni::Queue queue;
    kjarni::Array x, y;
    // What CuPy's caching allocator is to its new arrays (cupy_compare.py's pooled variants).
    kjarni::MemoryPool pool{};
    // The last result of axpb_evaluate_kept.
    std::optional<kjarni::Array> kept{};
};

std::shared_ptr<Setup> make_setup(const kjarni::Api& api, std::size_t n) {
    auto context = kjarni::Context::from_criteria(api);
    kjarni::Queue queue(context.devices()[0]);
    auto make = [&](double value) {
        const kjarni::Array array = kjarni::Array::empty(queue.device(), {n}, kjarni::dtypes::float32);
        kjarni::fill(queue, array, value);
        return array;
    };
    auto setup = std::make_shared<Setup>(Setup{queue, make(1.25), make(0)});
    queue.synchronize();
    return setup;
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    const std::size_t n = std::size_t{1} << from_env("KJARNI_BENCH_LOG2N", 28);
    const int batch = from_env("KJARNI_BENCH_BATCH", 10);
    const std::size_t bytes = n * sizeof(float);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        const auto s = make_setup(api, n);
        const std::string tag = fmt::format("{}/{}", api.shortcut(), s->queue.device().name());
        auto add = [&](const std::string& name, std::size_t useful, auto work) {
            benchmark::RegisterBenchmark((name + "/" + tag).c_str(),
                                         [s, useful, batch, work](benchmark::State& state) {
                                             kjarni::bench::run_batched(state, s->queue, useful, batch, work);
                                             // Calls per iteration: cupy_compare.py --cpp-json divides by it.
                                             state.counters["batch"] = batch;
                                         })
                ->UseRealTime()
                ->Unit(benchmark::kMicrosecond);
        };
        const float a = 1.5f, b = -0.25f;
        add("axpb_assign", 2 * bytes, [s, a, b] { kjarni::assign(s->queue, s->y, a * s->x + b); });
        add("axpb_evaluate_pooled", 2 * bytes,
            [s, a, b] { benchmark::DoNotOptimize(kjarni::evaluate(s->queue, a * s->x + b, s->pool)); });
        // The new result exists before the old one goes: the pool serves it with its second block.
        add("axpb_evaluate_kept", 2 * bytes,
            [s, a, b] { s->kept = kjarni::evaluate(s->queue, a * s->x + b, s->pool); });
        add("sum", bytes, [s] { benchmark::DoNotOptimize(kjarni::sum(s->queue, s->x)); });
        kjarni::ReduceOptions pooled;
        pooled.allocator = s->pool;
        add("sum_pooled", bytes, [s, pooled] { benchmark::DoNotOptimize(kjarni::sum(s->queue, s->x, pooled)); });
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
