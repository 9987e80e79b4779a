// Reductions fused with expressions, and expressions that use reductions (kjarni/fusion.hpp), on
// the first device of every available API, beside the same work unfused in kjarni (the peers'
// figures come from bench/peers/fusion_peers.py, run in the same device call):
//   sum_axpb_fused     sum(a * x + b), a scalar, x and b n float32: one kernel (reads x, b)
//   sum_axpb_unfused   evaluate(a * x + b) then sum: two kernels (reads x, b, writes and reads y)
//   softmax_fused      exp(x - max(x, -1, keepdims)) / sum(..., -1, keepdims) of (rows, cols)
//                      float32 written with kjarni's operations: one kernel (reads x, writes y)
//   softmax_unfused    the same with eager reductions: max, exp, sum, division (four kernels)
//   layernorm_fused    (x - mean(x)) / sqrt(var(x) + 1e-5) * gamma + beta along the last axis:
//                      one kernel (reads x, gamma, beta, writes y)
//   layernorm_unfused  mean, var, then the expression (three kernels)
//   statements_lazy    the three statements y = a*x + b; z = y*y; s = sum(z) on m float32
//                      (a, x, b arrays) in a kjarni::Statements block, y and z let() values: one
//                      kernel (reads a, x, b)
//   statements_eager   the same statements one by one: evaluate, evaluate, sum (three kernels:
//                      y and z written and read back); temporaries from a MemoryPool in both
// GB/s counts the useful bytes (each array read once, the result written once: for sum 8n, for
// softmax and layer normalisation 8 rows cols), so the figures compare with a copy's bandwidth and
// with the peers'; for the statements 12m. Sizes: n = 2^KJARNI_BENCH_FUSION_LOG2 (default 28),
// (rows, cols) = (2^KJARNI_BENCH_FUSION_ROWS_LOG2 (default 16), 4096), m =
// 2^KJARNI_BENCH_STATEMENTS_LOG2 (default 26). Each iteration enqueues 10 operations,
// then waits. On the GPU machine, beside PyTorch and CuPy:
//
//   build/bench/kjarni_bench_fusion --benchmark_repetitions=7 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true
//   python3 bench/peers/fusion_peers.py --repetitions 7

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "batched_run.hpp"
#include "kjarni/fusion.hpp"
#include "kjarni/kjarni.hpp"
#include "kjarni/statements.hpp"

namespace {

constexpr int batch = 10;
constexpr std::size_t cols = 4096;

std::size_t from_env(const char* name, int fallback) {
    const char* value = std::getenv(name);
    const int log2 = value != nullptr && std::atoi(value) > 0 ? std::atoi(value) : fallback;
    return std::size_t{1} << log2;
}

struct Setup {
    kjarni::Queue queue;
    kjarni::Array x, b;                 // n
    kjarni::Array m, out, gamma, beta;  // (rows, cols), cols
    kjarni::Array sa, sx, sb;           // the statements' a, x, b: m3 each
    // Results and temporaries from a pool, as PyTorch's and CuPy's caching allocators serve theirs.
    kjarni::MemoryPool pool{};
};

std::shared_ptr<Setup> make_setup(const kjarni::Api& api, std::size_t n, std::size_t rows, std::size_t m3) {
    auto context = kjarni::Context::from_criteria(api);
    kjarni::Queue queue(context.devices()[0]);
    // Uniform in [-1, 1), as the peers' script fills theirs: constant rows would make layer
    // normalisation divide 0 by the deviation everywhere, the correctly rounded division's slow path.
    std::minstd_rand engine(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    auto make = [&](std::vector<std::size_t> shape) {
        std::vector<float> values(std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>()));
        for (float& v : values) v = uniform(engine);
        return kjarni::Array::from_host(queue, std::span<const float>(values), shape);
    };
    auto setup = std::make_shared<Setup>(Setup{queue, make({n}), make({n}), make({rows, cols}), make({rows, cols}),
                                               make({cols}), make({cols}), make({m3}), make({m3}), make({m3})});
    queue.synchronize();
    return setup;
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    const std::size_t n = from_env("KJARNI_BENCH_FUSION_LOG2", 28);
    const std::size_t rows = from_env("KJARNI_BENCH_FUSION_ROWS_LOG2", 16);
    const std::size_t matrix_bytes = rows * cols * sizeof(float);
    const std::size_t m3 = from_env("KJARNI_BENCH_STATEMENTS_LOG2", 26);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        const auto s = make_setup(api, n, rows, m3);
        const std::string tag = fmt::format("{}/{}", api.shortcut(), s->queue.device().name());
        auto add = [&](const std::string& name, std::size_t useful, auto work) {
            benchmark::RegisterBenchmark((name + "/" + tag).c_str(), [s, useful, work](benchmark::State& state) {
                kjarni::bench::run_batched(state, s->queue, useful, batch, work);
            })->UseRealTime();
        };
        kjarni::ReduceOptions each_row;
        each_row.axes = std::vector<int>{-1};
        each_row.keepdims = true;
        add("sum_axpb_fused", 2 * n * sizeof(float), [s] { (void)kjarni::sum(s->queue, 3.0f * s->x + s->b); });
        add("sum_axpb_unfused", 2 * n * sizeof(float),
            [s] { (void)kjarni::sum(s->queue, kjarni::evaluate(s->queue, 3.0f * s->x + s->b)); });
        add("softmax_fused", 2 * matrix_bytes, [s] {
            const kjarni::Expr e = kjarni::exp(s->m - kjarni::max(s->m, -1, true));
            kjarni::assign(s->queue, s->out, e / kjarni::sum(e, -1, true));
        });
        add("softmax_unfused", 2 * matrix_bytes, [s, each_row] {
            const kjarni::Array e =
                kjarni::evaluate(s->queue, kjarni::exp(s->m - kjarni::max(s->queue, s->m, each_row)));
            kjarni::assign(s->queue, s->out, e / kjarni::sum(s->queue, e, each_row));
        });
        add("layernorm_fused", 2 * matrix_bytes, [s] {
            const kjarni::Expr centred = s->m - kjarni::mean(s->m, -1, true);
            kjarni::assign(s->queue, s->out,
                           centred / kjarni::sqrt(kjarni::var(s->m, -1, true) + 1e-5f) * s->gamma + s->beta);
        });
        add("layernorm_unfused", 2 * matrix_bytes, [s, each_row] {
            const kjarni::Array mu = kjarni::mean(s->queue, s->m, each_row);
            const kjarni::Array sigma2 = kjarni::var(s->queue, s->m, each_row);
            kjarni::assign(s->queue, s->out, (s->m - mu) / kjarni::sqrt(sigma2 + 1e-5f) * s->gamma + s->beta);
        });
        add("statements_lazy", 3 * m3 * sizeof(float), [s] {
            kjarni::Statements block(s->queue, s->pool);
            const kjarni::Expr y = block.let(s->sa * s->sx + s->sb);
            const kjarni::Expr z = block.let(y * y);
            (void)block.evaluate(kjarni::sum(z));
            block.run();
        });
        add("statements_eager", 3 * m3 * sizeof(float), [s] {
            const kjarni::Array y = kjarni::evaluate(s->queue, s->sa * s->sx + s->sb, s->pool);
            const kjarni::Array z = kjarni::evaluate(s->queue, y * y, s->pool);
            kjarni::ReduceOptions options;
            options.allocator = s->pool;
            (void)kjarni::sum(s->queue, z, options);
        });
        {
            kjarni::Statements probe(s->queue, s->pool);
            const kjarni::Expr y = probe.let(s->sa * s->sx + s->sb);
            const kjarni::Expr z = probe.let(y * y);
            (void)probe.evaluate(kjarni::sum(z));
            fmt::print("{}: statements plan:\n{}", tag, probe.plan().describe());
        }
        const kjarni::Expr softmax_probe = kjarni::exp(s->m - kjarni::max(s->m, -1, true));
        fmt::print("{}: softmax plan:\n{}", tag,
                   kjarni::fusion_plan(s->queue, softmax_probe / kjarni::sum(softmax_probe, -1, true)).describe());
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
