// Cost of making a Program: a hit in the context's memory cache, a hit in the disk cache from a
// fresh process (module load included), and a cold compile. On the first device of every platform.
// A disk-cache hit in this process (a new Context each time, so that its memory cache is empty)
// is set beside the raw load of the same binary in the same run: clCreateProgramWithBinary plus
// clBuildProgram on OpenCL, cuModuleLoadData on CUDA (variant raw_load_binary, the baseline), and
// beside that load preceded by a plain read of the cache entry's file (raw_read_and_load_binary:
// open, read, close; what any cache of binaries on disk pays), which tells kjarni's own work from
// the file system's.
//
//   kjarni_bench_programs --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// The disk-cache case runs this program again as a child (`--disk-hit-child API PLATFORM`), which
// times one Program construction in a process that has compiled nothing, and prints microseconds.

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_OPENCL
#include <CL/cl.h>
#endif
#ifdef KJARNI_BENCH_RAW_CUDA
#include "raw_cuda.hpp"
#endif

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

/// A disk-cache hit in this process: every iteration makes a new Context (not timed), whose memory
/// cache is empty, then times the Program. A Context kept alive beside them (`kept`) keeps CUDA's
/// primary context of the device alive too, as in any process that made a Context before: else every
/// iteration would make and destroy it, which takes far longer than what is timed.
void disk_hit(benchmark::State& state, std::string api, std::size_t platform) {
    const kjarni::Device device = device_of(api, platform);
    const auto kept = kjarni::Context::from_devices(device);
    { const kjarni::Program populate(kept.devices()[0], source); }  // ensures the disk entry
    for (auto _ : state) {
        const auto context = kjarni::Context::from_devices(device);
        const auto start = std::chrono::steady_clock::now();
        const kjarni::Program program(context.devices()[0], source);
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        state.SetIterationTime(elapsed.count());
    }
}

/// Bytes before the binary in a disk-cache entry (the cache's header).
constexpr std::size_t entry_header_bytes = 64;

/// The disk-cache entry of `binary`: the most recently used entry of its size (the header and the
/// binary). Empty if there is none.
std::filesystem::path entry_file_of(const std::vector<std::byte>& binary) {
    for (const kjarni::DiskCacheEntry& entry : kjarni::disk_cache_contents().entries) {
        if (entry.size == binary.size() + entry_header_bytes) return entry.path;
    }
    return {};
}

/// The whole file, read as a cache of binaries would: open, one read of its size, close.
bool read_whole_file(const std::filesystem::path& path, std::vector<std::byte>& bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const off_t size = ::lseek(fd, 0, SEEK_END);
    bytes.resize(size > 0 ? static_cast<std::size_t>(size) : 0);
    const bool ok = size > 0 && ::pread(fd, bytes.data(), bytes.size(), 0) == size;
    ::close(fd);
    return ok;
}

/// The raw driver's load of the binary a disk-cache hit loads, in a new Context each time as above;
/// with `read_entry`, timed from a plain read of the cache entry's file (the payload after the
/// header is what is loaded).
void raw_load_binary(benchmark::State& state, std::string api, std::size_t platform, bool read_entry) {
    const kjarni::Device device = device_of(api, platform);
    const auto kept = kjarni::Context::from_devices(device);  // keeps CUDA's primary context (see disk_hit)
    const std::vector<std::byte> binary = kjarni::Program(kept.devices()[0], source).binary(kept.devices()[0]);
    const std::filesystem::path entry = read_entry ? entry_file_of(binary) : std::filesystem::path();
    if (read_entry && entry.empty()) {
        state.SkipWithError("the program's disk-cache entry was not found");
        return;
    }
    std::vector<std::byte> file;
    for (auto _ : state) {
        const auto context = kjarni::Context::from_devices(device);
        double seconds = 0;
        const auto read_start = std::chrono::steady_clock::now();
        std::span<const std::byte> image = binary;
        if (read_entry) {
            if (!read_whole_file(entry, file) || file.size() != binary.size() + entry_header_bytes) {
                state.SkipWithError("the disk-cache entry could not be read");
                break;
            }
            image = std::span<const std::byte>(file).subspan(entry_header_bytes);  // as the cache does: no copy
        }
        const std::chrono::duration<double> read_time = std::chrono::steady_clock::now() - read_start;
#ifdef KJARNI_BENCH_RAW_OPENCL
        if (context.api().id() == kjarni::ApiId::opencl()) {
            auto cl_ctx = reinterpret_cast<cl_context>(context.native_handle());
            auto cl_dev = reinterpret_cast<cl_device_id>(context.devices()[0].device().native_handle());
            const auto* bytes = reinterpret_cast<const unsigned char*>(image.data());
            const std::size_t size = image.size();
            const auto start = std::chrono::steady_clock::now();
            cl_int status = CL_SUCCESS, error = CL_SUCCESS;
            cl_program program = clCreateProgramWithBinary(cl_ctx, 1, &cl_dev, &size, &bytes, &status, &error);
            if (error == CL_SUCCESS)
                error = clBuildProgram(program, 1, &cl_dev, "-cl-kernel-arg-info", nullptr, nullptr);
            const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
            seconds = elapsed.count() + read_time.count();
            if (program != nullptr) clReleaseProgram(program);
            if (error != CL_SUCCESS) state.SkipWithError(fmt::format("OpenCL error {}", error).c_str());
        }
#endif
#ifdef KJARNI_BENCH_RAW_CUDA
        if (context.api().id() == kjarni::ApiId::cuda()) {
            const kjarni_bench::RawCuda* cu = kjarni_bench::raw_cuda();
            if (cu == nullptr) {
                state.SkipWithError("libcuda's functions could not be loaded");
                break;
            }
            cu->set_current(reinterpret_cast<CUcontext>(context.native_handle()));
            CUmodule module = nullptr;
            const auto start = std::chrono::steady_clock::now();
            const CUresult result = cu->module_load_data(&module, image.data());
            const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
            seconds = elapsed.count() + read_time.count();
            if (module != nullptr) cu->module_unload(module);
            if (result != CUDA_SUCCESS)
                state.SkipWithError(fmt::format("CUDA error {}", static_cast<int>(result)).c_str());
        }
#endif
        if (seconds == 0) {
            state.SkipWithError("no raw baseline for this API in this build");
            break;
        }
        state.SetIterationTime(seconds);
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
            benchmark::RegisterBenchmark(("program/disk_cache_hit_new_process/" + tag).c_str(), disk_hit_fresh_process,
                                         api.shortcut(), p)
                ->UseManualTime()
                ->Iterations(5)
                ->Unit(benchmark::kMicrosecond);
            // The pair compared in one run (interleave with --benchmark_enable_random_interleaving).
            benchmark::RegisterBenchmark(("program_disk_hit/kjarni/" + tag).c_str(), disk_hit, api.shortcut(), p)
                ->UseManualTime()
                ->Iterations(20)
                ->Unit(benchmark::kMicrosecond);
            for (const bool read_entry : {false, true}) {
                const std::string variant = read_entry ? "raw_read_and_load_binary" : "raw_load_binary";
                benchmark::RegisterBenchmark(("program_disk_hit/" + variant + "/" + tag).c_str(), raw_load_binary,
                                             api.shortcut(), p, read_entry)
                    ->UseManualTime()
                    ->Iterations(20)
                    ->Unit(benchmark::kMicrosecond);
            }
            benchmark::RegisterBenchmark(("program/cold_compile/" + tag).c_str(), cold_compile, api.shortcut(), p)
                ->Iterations(5)
                ->Unit(benchmark::kMillisecond);
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
