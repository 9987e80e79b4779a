// Array operations against the device copy, in one run, on the first device of every platform of
// every API:
//  - concatenate_axis0: two contiguous float32 arrays of 1 GiB each (KJARNI_BENCH_CONCAT_MIB
//    changes the size of one) joined along axis 0 into a given 2 GiB output: one device copy per input;
//  - device_copy: one device-to-device copy of the 2 GiB (Buffer::set, i.e. cuMemcpyDtoDAsync /
//    clEnqueueCopyBuffer), the baseline (goal: concatenate >= 95% of it);
//  - concatenate_axis1: the same two arrays as (rows, 4096) matrices joined along axis 1, where
//    the output's parts are not contiguous (one strided-copy kernel per input), for information
//    (not on CPU devices, where it takes tens of seconds).
// Each iteration ends with the queue synchronized. The counter GB/s counts bytes read plus bytes
// written (2 x 2 GiB per iteration), as copy bandwidths are usually quoted; read the median.
//
//   kjarni_bench_operations --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kjarni/array_operations.hpp"
#include "kjarni/kjarni.hpp"

namespace {

constexpr std::size_t columns = 4096;

std::size_t part_bytes() {
    static const std::size_t bytes = [] {
        const char* mib = std::getenv("KJARNI_BENCH_CONCAT_MIB");
        return (mib != nullptr && std::atoi(mib) > 0 ? static_cast<std::size_t>(std::atoi(mib)) : 1024) << 20;
    }();
    return bytes;
}

struct Setup {
    kjarni::Context context;
    kjarni::Queue queue;
    kjarni::Array a;
    kjarni::Array b;
    kjarni::Array out;   // a and b joined along axis 0
    kjarni::Array copy;  // the device copy's destination, of out's size
};

std::shared_ptr<Setup> make_setup(const kjarni::Device& device) {
    auto context = kjarni::Context::from_devices(device);
    kjarni::Queue queue(context.devices()[0]);
    const std::size_t n = part_bytes() / sizeof(float);
    const auto bound = context.devices()[0];
    auto a = kjarni::Array::empty(bound, {n}, kjarni::dtypes::float32);
    auto b = kjarni::Array::empty(bound, {n}, kjarni::dtypes::float32);
    // Contents do not change a copy's speed, but untouched memory might (first-touch on some devices).
    const float one = 1.0f, two = 2.0f;
    a.base().fill(queue, std::as_bytes(std::span(&one, 1)));
    b.base().fill(queue, std::as_bytes(std::span(&two, 1)));
    auto out = kjarni::Array::zeros(queue, {2 * n}, kjarni::dtypes::float32);
    auto copy = kjarni::Array::zeros(queue, {2 * n}, kjarni::dtypes::float32);
    queue.synchronize();
    return std::make_shared<Setup>(Setup{context, queue, a, b, out, copy});
}

/// A device's arrays, made when its first benchmark runs: a filter that leaves out a device's
/// benchmarks then leaves out its 6 GiB of allocations too (slow on a CPU device).
struct LazySetup {
    kjarni::Device device;
    std::shared_ptr<Setup> setup;
    /// The setup, or nullptr after telling `state` why it could not be made.
    Setup* get(benchmark::State& state) {
        try {
            if (!setup) setup = make_setup(device);
        } catch (const kjarni::Error& e) {
            state.SkipWithError(e.what());
            return nullptr;
        }
        return setup.get();
    }
};

void count_bandwidth(benchmark::State& state) {
    state.counters["GB/s"] = benchmark::Counter(2.0 * 2.0 * static_cast<double>(part_bytes()) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void concatenate_axis0(benchmark::State& state, std::shared_ptr<LazySetup> lazy) {
    Setup* s = lazy->get(state);
    if (s == nullptr) return;
    const std::vector<kjarni::Array> parts{s->a, s->b};
    for (auto _ : state) {
        kjarni::concatenate(s->queue, parts, s->out, 0);
        s->queue.synchronize();
    }
    count_bandwidth(state);
}

void device_copy(benchmark::State& state, std::shared_ptr<LazySetup> lazy) {
    Setup* s = lazy->get(state);
    if (s == nullptr) return;
    for (auto _ : state) {
        s->copy.base().set(s->queue, s->out.base(), true);
        s->queue.synchronize();
    }
    count_bandwidth(state);
}

void concatenate_axis1(benchmark::State& state, std::shared_ptr<LazySetup> lazy) {
    Setup* s = lazy->get(state);
    if (s == nullptr) return;
    const auto rows = static_cast<std::ptrdiff_t>(s->a.size() / columns);
    const std::vector<kjarni::Array> parts{s->a.reshape({rows, static_cast<std::ptrdiff_t>(columns)}),
                                           s->b.reshape({rows, static_cast<std::ptrdiff_t>(columns)})};
    const kjarni::Array out = s->out.reshape({rows, 2 * static_cast<std::ptrdiff_t>(columns)});
    for (auto _ : state) {
        kjarni::concatenate(s->queue, parts, out, 1);
        s->queue.synchronize();
    }
    count_bandwidth(state);
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (part_bytes() % (columns * sizeof(float)) != 0) {
        fmt::print(stderr, "KJARNI_BENCH_CONCAT_MIB must give a multiple of {} floats\n", columns);
        return 1;
    }
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        for (const kjarni::Platform& platform : api.platforms()) {
            if (platform.devices().empty()) continue;
            const kjarni::Device device = platform.devices()[0];
            auto setup = std::make_shared<LazySetup>(LazySetup{device, nullptr});
            const std::string tag = fmt::format("{}MiBx2/{}/{}", part_bytes() >> 20, api.shortcut(), device.name());
            benchmark::RegisterBenchmark(("concatenate_axis0/" + tag).c_str(), concatenate_axis0, setup)->UseRealTime();
            benchmark::RegisterBenchmark(("device_copy/" + tag).c_str(), device_copy, setup)->UseRealTime();
            // The strided kernel moves element by element: tens of seconds per iteration on a CPU device.
            if (device.params().type != kjarni::DeviceType::cpu)
                benchmark::RegisterBenchmark(("concatenate_axis1/" + tag).c_str(), concatenate_axis1, setup)
                    ->UseRealTime();
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
