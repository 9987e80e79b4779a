// Host cost of a call whose kernel is already compiled: an expression (assign of y = 3x + b),
// a reduction (sum) and a scan (cumsum) of 64 float32, against the same y = 3x + b through a
// prepared ElementwiseKernel and through a prepared launch of a Program's kernel with the same
// arguments (kjarni's thinnest path: PreparedKernel::enqueue; and its operator(), which also makes
// the Event it returns), in one run. The arrays are tiny so that the host's work is
// what is timed: each iteration enqueues 100 calls, then waits. A cache hit must not render
// anything; this shows what the rest costs.
//
//   kjarni_bench_expression_overhead --benchmark_repetitions=7 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "kjarni/kjarni.hpp"

namespace {

constexpr int batch = 100;
constexpr std::size_t n = 64;

struct Setup {
    Setup(kjarni::Queue q, kjarni::Array x_, kjarni::Array b_, kjarni::Array y_)
        : queue(std::move(q)), x(std::move(x_)), b(std::move(b_)), y(std::move(y_)) {}
    kjarni::Queue queue;
    kjarni::Array x, b, y;
    kjarni::ElementwiseKernel axpb{"float *y, const float *x, float a, const float *b", "y[i] = a * x[i] + b[i]"};
    std::optional<kjarni::PreparedKernel> raw;
};

std::shared_ptr<Setup> make_setup(const kjarni::Api& api) {
    auto context = kjarni::Context::from_criteria(api);
    kjarni::Queue queue(context.devices()[0]);
    auto make = [&] {
        const kjarni::Array array = kjarni::Array::empty(queue.device(), {n}, kjarni::dtypes::float32);
        kjarni::fill(queue, array, 1.25);
        return array;
    };
    kjarni::Program program(queue.device(), R"(
KERNEL void axpb(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, GLOBAL_MEM const float* b, int n)
{
    const int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + b[i];
}
)");
    auto setup = std::make_shared<Setup>(queue, make(), make(), make());
    setup->raw = program.kernel("axpb").prepare(kjarni::Sizes{n});
    queue.synchronize();
    return setup;
}

template <class Work>
void run(benchmark::State& state, const Setup& s, Work work) {
    work();  // compiles outside the timing
    s.queue.synchronize();
    for (auto _ : state) {
        for (int k = 0; k < batch; ++k) work();
        s.queue.synchronize();
    }
    state.counters["us_per_call"] = benchmark::Counter(static_cast<double>(state.iterations()) * batch,
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        std::shared_ptr<Setup> s;
        try {
            s = make_setup(api);
        } catch (const kjarni::Error& e) {
            fmt::print(stderr, "{}: skipped ({})\n", api.shortcut(), e.what());
            continue;
        }
        const std::string tag = fmt::format("{}/{}", api.shortcut(), s->queue.device().name());
        const auto add = [&](const std::string& name, auto work) {
            benchmark::RegisterBenchmark((name + "/" + tag).c_str(), [s, work](benchmark::State& state) {
                run(state, *s, work);
            })->UseRealTime();
        };
        add("raw_program_launch", [s] { s->raw->enqueue(s->queue, s->y, s->x, 3.0f, s->b, static_cast<int>(n)); });
        add("raw_program_launch_with_event",
            [s] { (void)(*s->raw)(s->queue, s->y, s->x, 3.0f, s->b, static_cast<int>(n)); });
        add("elementwise_kernel", [s] { s->axpb(s->queue, s->y, s->x, 3.0f, s->b); });
        add("expression_assign", [s] { kjarni::assign(s->queue, s->y, 3.0f * s->x + s->b); });
        add("sum", [s] { (void)kjarni::sum(s->queue, s->x); });
        add("cumsum", [s] { (void)kjarni::cumsum(s->queue, s->x); });
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
