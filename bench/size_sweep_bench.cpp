// The size sweep: the everyday operations at sizes from launch-bound to bandwidth-bound, on the first
// device of every available API, for bench/size_sweep.py to set beside PyTorch and CuPy:
//   copy        y.set(x)                    (read n, write n)
//   scale       y = 2x                      (expression)
//   add         y = a + b                   (expression)
//   axpb_fused  y = 3x + b                  (expression, one kernel)
//   sum         sum(x), result from a pool  (read n)
//   cumsum      cumsum(x) into y            (read n, write n)
// n float32 = each size of KJARNI_BENCH_SWEEP_MIB MiB per array (a comma list, default
// "1,16,64,256,2048"). GB/s counts useful bytes (elements read and written, times 4), as the
// peers' script does. Each iteration enqueues 10 operations then waits once: at 1 MiB the figure is
// the launch rate, at 2048 MiB the memory's.
//
//   kjarni_bench_size_sweep --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true --benchmark_format=json

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "batched_run.hpp"
#include "kjarni/kjarni.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"

namespace {

constexpr int batch = 10;

std::vector<std::size_t> sizes_mib() {
    const char* list = std::getenv("KJARNI_BENCH_SWEEP_MIB");
    std::istringstream in(list != nullptr ? list : "1,16,64,256,2048");
    std::vector<std::size_t> sizes;
    for (std::string item; std::getline(in, item, ',');) sizes.push_back(std::stoul(item));
    return sizes;
}

struct Arrays {
    kjarni::Array a, b, x, y;
    kjarni::MemoryPool pool{};  // sum's results, as the peers' caching allocators serve theirs
};

/// One size on one queue; its arrays are made when a benchmark of that size first runs, so that
/// a --benchmark_filter leaving out a size or a device never allocates for it.
class Setup {
public:
    Setup(kjarni::Queue on, std::size_t n) : queue(std::move(on)), n_(n) {}
    Arrays& arrays() {
        if (!arrays_) {
            auto make = [&] {
                const kjarni::Array array = kjarni::Array::empty(queue.device(), {n_}, kjarni::dtypes::float32);
                kjarni::fill(queue, array, 1.25);
                return array;
            };
            arrays_ = std::make_unique<Arrays>(Arrays{make(), make(), make(), make()});
            queue.synchronize();
        }
        return *arrays_;
    }
    kjarni::Queue queue;

private:
    std::size_t n_;
    std::unique_ptr<Arrays> arrays_;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        const kjarni::Context context = kjarni::Context::from_criteria(api);
        const kjarni::Queue queue(context.devices()[0]);
        for (const std::size_t mib : sizes_mib()) {
            const std::size_t n = (mib << 20) / sizeof(float);
            const std::size_t bytes = n * sizeof(float);
            const auto s = std::make_shared<Setup>(queue, n);
            const std::string tag = fmt::format("{}MiB/{}/{}", mib, api.shortcut(), queue.device().name());
            auto add = [&](const std::string& name, std::size_t useful, auto work) {
                benchmark::RegisterBenchmark((name + "/" + tag).c_str(), [s, useful, work](benchmark::State& state) {
                    Arrays& arrays = s->arrays();
                    kjarni::bench::run_batched(state, s->queue, useful, batch, [&] { work(s->queue, arrays); });
                })->UseRealTime();
            };
            using Q = const kjarni::Queue&;
            add("copy", 2 * bytes, [](Q q, Arrays& v) { v.y.base().set(q, v.x.base(), true); });
            add("scale", 2 * bytes, [](Q q, Arrays& v) { kjarni::assign(q, v.y, 2.0f * v.x); });
            add("add", 3 * bytes, [](Q q, Arrays& v) { kjarni::assign(q, v.y, v.a + v.b); });
            add("axpb_fused", 3 * bytes, [](Q q, Arrays& v) { kjarni::assign(q, v.y, 3.0f * v.x + v.b); });
            add("sum", bytes, [](Q q, Arrays& v) {
                kjarni::ReduceOptions pooled;
                pooled.allocator = v.pool;
                benchmark::DoNotOptimize(kjarni::sum(q, v.x, pooled));
            });
            add("cumsum", 2 * bytes, [](Q q, Arrays& v) { kjarni::cumsum(q, v.x, 0, kjarni::dtypes::float32, v.y); });
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
