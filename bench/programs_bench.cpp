// Cost of making a Program: a hit in the context's memory cache, a hit in the disk cache from a
// fresh process (module load included), and a cold compile. On the first device of every platform.
//
//   kjarni_bench_programs --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// The disk-cache case runs this program again as a child (`--disk-hit-child API PLATFORM`), which
// times one Program construction in a process that has compiled nothing, and prints microseconds.

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "kjarni/kjarni.hpp"

namespace {

constexpr const char* source = R"(
KERNEL void axpy(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a) { const SIZE_T i = get_global_id(0); y[i] += a * x[i]; }
KERNEL void scale(GLOBAL_MEM float* y, float a) { y[get_global_id(0)] *= a; }
KERNEL void copy(GLOBAL_MEM float* y, GLOBAL_MEM const float* x) { y[get_global_id(0)] = x[get_global_id(0)]; }
)";

std::string self_path;

kjarni::Device device_of(std::string_view api, std::size_t platform) {
    return kjarni::Platform::from_index(kjarni::Api::all_by_shortcut(api).at(0), platform).devices().at(0);
}

void memory_hit(benchmark::State& state, std::string api, std::size_t platform) {
    const auto context = kjarni::Context::from_devices(device_of(api, platform));
    const kjarni::Program warm(context.devices()[0], source);
    for (auto _ : state) benchmark::DoNotOptimize(kjarni::Program(context.devices()[0], source));
}

void cold_compile(benchmark::State& state, std::string api, std::size_t platform) {
    const auto context = kjarni::Context::from_devices(device_of(api, platform));
    static unsigned unique = 0;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    for (auto _ : state) {
        // A comment no earlier run wrote: misses both caches.
        const std::string fresh = fmt::format("{}// {} {}\n", source, stamp, unique++);
        benchmark::DoNotOptimize(kjarni::Program(context.devices()[0], fresh));
    }
}

void disk_hit_fresh_process(benchmark::State& state, std::string api, std::size_t platform) {
    {
        const auto context = kjarni::Context::from_devices(device_of(api, platform));
        const kjarni::Program populate(context.devices()[0], source);  // ensures the disk entry
    }
    const std::string command = fmt::format("'{}' --disk-hit-child {} {}", self_path, api, platform);
    for (auto _ : state) {
        FILE* child = popen(command.c_str(), "r");
        double microseconds = -1;
        if (child == nullptr || std::fscanf(child, "%lf", &microseconds) != 1) {
            state.SkipWithError("the child process gave no time");
        }
        if (child != nullptr) pclose(child);
        state.SetIterationTime(microseconds * 1e-6);
    }
}

int disk_hit_child(const char* api, const char* platform) {
    const auto context = kjarni::Context::from_devices(device_of(api, std::stoul(platform)));
    const auto start = std::chrono::steady_clock::now();
    const kjarni::Program program(context.devices()[0], source);
    const auto stop = std::chrono::steady_clock::now();
    std::printf("%.3f\n", std::chrono::duration<double, std::micro>(stop - start).count());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "--disk-hit-child") == 0) return disk_hit_child(argv[2], argv[3]);
    self_path = argv[0];
    benchmark::Initialize(&argc, argv);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        const auto platforms = api.platforms();
        for (std::size_t p = 0; p < platforms.size(); ++p) {
            if (platforms[p].devices().empty()) continue;
            const std::string tag = fmt::format("{}/{}", api.shortcut(), platforms[p].devices()[0].name());
            benchmark::RegisterBenchmark(("program/memory_cache_hit/" + tag).c_str(), memory_hit, api.shortcut(), p);
            benchmark::RegisterBenchmark(("program/disk_cache_hit_new_process/" + tag).c_str(),
                                         disk_hit_fresh_process, api.shortcut(), p)
                ->UseManualTime()
                ->Iterations(5)
                ->Unit(benchmark::kMicrosecond);
            benchmark::RegisterBenchmark(("program/cold_compile/" + tag).c_str(), cold_compile, api.shortcut(), p)
                ->Iterations(5)
                ->Unit(benchmark::kMillisecond);
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
