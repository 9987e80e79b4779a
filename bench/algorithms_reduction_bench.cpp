// Reductions and scans at memory speed: full sum of 2 GiB of float32, sum along axis 1 of
// (2^26, 8), along axis 0 of (8, 2^26), cumsum of 2^28 float32 and int32 (and of int32 into int64,
// numpy's default for integers), each beside the
// device-to-device copy of the same bytes in the same run, through the first device of every
// available API. Reductions report bytes read / time (GB/s), the scans and the copies bytes read +
// written / time. An iteration makes `batch` calls, then waits for the queue (bench/batched_run.hpp:
// "GB/s" from the wall clock, "GB/s events" from events around each batch, as the peers' script,
// bench/peers/algorithms_peers.py, times its batches of 10).
//
//   kjarni_bench_algorithms_reduction --benchmark_repetitions=10
//       --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true
//
// KJARNI_BENCH_SMALL=1 divides every size by 256 (for PoCL).

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <numeric>

#include "batched_run.hpp"
#include "kjarni/kjarni.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"

namespace {

std::size_t scale() {
    const char* small = std::getenv("KJARNI_BENCH_SMALL");
    return small != nullptr && std::string(small) != "0" ? 256 : 1;
}

struct Setup {
    kjarni::Context context;
    kjarni::Queue queue;
    kjarni::Array x;       // 2^29 float32 (2 GiB)
    kjarni::Array x_copy;  // same size: the copy target
    kjarni::Array scan_f;  // 2^28 float32
    kjarni::Array scan_i;  // 2^28 int32
    kjarni::Array scan_out_f, scan_out_i;
    kjarni::Array scan_out_wide;  // 2^28 int64
    // Results come from a pool, as PyTorch's and CuPy's caching allocators serve theirs: a 256 MiB
    // result allocated and freed by the driver every call would be timed otherwise.
    kjarni::MemoryPool pool{};
};

std::shared_ptr<Setup> make_setup(const kjarni::Api& api) {
    auto context = kjarni::Context::from_criteria(api);
    auto device = context.devices()[0];
    kjarni::Queue queue(device);
    const std::size_t n = (std::size_t{1} << 29) / scale();
    const std::size_t m = (std::size_t{1} << 28) / scale();
    // Values with an exact float sum are not needed: the figures are times.
    std::vector<float> host(n);
    for (std::size_t k = 0; k < n; ++k) host[k] = static_cast<float>(k % 1000) * 0.001f;
    auto x = kjarni::Array::from_host(queue, std::span<const float>(host), {n});
    auto x_copy = kjarni::Array::empty(device, {n}, kjarni::dtypes::float32);
    auto scan_f = kjarni::Array::from_host(queue, std::span<const float>(host.data(), m), {m});
    std::vector<std::int32_t> ints(m);
    for (std::size_t k = 0; k < m; ++k) ints[k] = static_cast<std::int32_t>(k % 7);
    auto scan_i = kjarni::Array::from_host(queue, std::span<const std::int32_t>(ints), {m});
    auto out_f = kjarni::Array::empty(device, {m}, kjarni::dtypes::float32);
    auto out_i = kjarni::Array::empty(device, {m}, kjarni::dtypes::int32);
    auto out_wide = kjarni::Array::empty(device, {m}, kjarni::dtypes::int64);
    queue.synchronize();
    return std::make_shared<Setup>(
        Setup{context, queue, x, x_copy, scan_f, scan_i, out_f, out_i, out_wide, kjarni::MemoryPool{}});
}

constexpr int batch = 10;

void copy(benchmark::State& state, std::shared_ptr<Setup> s, std::size_t elements) {
    const auto a = s->x[{kjarni::Slice{0, static_cast<std::ptrdiff_t>(elements)}}];
    const auto b = s->x_copy[{kjarni::Slice{0, static_cast<std::ptrdiff_t>(elements)}}];
    kjarni::bench::run_batched(state, s->queue, 2 * elements * sizeof(float), batch, [&] { b.set(s->queue, a, true); });
}

void reduce(benchmark::State& state, std::shared_ptr<Setup> s, std::vector<std::ptrdiff_t> shape, int axis,
            bool pooled) {
    const auto x = shape.size() == 1 ? s->x : s->x.reshape(std::span<const std::ptrdiff_t>(shape));
    kjarni::ReduceOptions options;
    if (shape.size() > 1) options.axes = std::vector<int>{axis};
    if (pooled) options.allocator = s->pool;
    kjarni::bench::run_batched(state, s->queue, x.nbytes(), batch,
                               [&] { benchmark::DoNotOptimize(kjarni::sum(s->queue, x, options)); });
}

/// cumsum of `x` into `y` (whose dtype is the scan's): bytes read + written per call.
void scan(benchmark::State& state, std::shared_ptr<Setup> s, kjarni::Array x, kjarni::Array y) {
    kjarni::bench::run_batched(state, s->queue, x.nbytes() + y.nbytes(), batch,
                               [&] { kjarni::cumsum(s->queue, x, 0, y.dtype(), y); });
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    const std::size_t n = (std::size_t{1} << 29) / scale();
    const std::size_t m = (std::size_t{1} << 28) / scale();
    const auto rows = static_cast<std::ptrdiff_t>(n / 8);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        auto setup = make_setup(api);
        const std::string tag = fmt::format("{}/{}", api.shortcut(), setup->queue.device().name());
        const auto add = [&](const std::string& name, auto&&... args) {
            benchmark::RegisterBenchmark((name + "/" + tag).c_str(), args...)
                ->UseRealTime()
                ->Unit(benchmark::kMicrosecond);
        };
        add("copy_x", copy, setup, n);
        add("sum_full", reduce, setup, std::vector<std::ptrdiff_t>{static_cast<std::ptrdiff_t>(n)}, 0, true);
        add("sum_axis1_(n/8,8)", reduce, setup, std::vector<std::ptrdiff_t>{rows, 8}, 1, true);
        add("sum_axis0_(8,n/8)", reduce, setup, std::vector<std::ptrdiff_t>{8, rows}, 0, true);
        // The same without a pool: the driver allocates and frees the 256 MiB result every call.
        add("sum_axis0_(8,n/8)_unpooled", reduce, setup, std::vector<std::ptrdiff_t>{8, rows}, 0, false);
        add("copy_half_x", copy, setup, m);
        add("cumsum_float32", scan, setup, setup->scan_f, setup->scan_out_f);
        add("cumsum_int32", scan, setup, setup->scan_i, setup->scan_out_i);
        add("cumsum_int32_to_int64", scan, setup, setup->scan_i, setup->scan_out_wide);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
