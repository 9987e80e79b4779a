// Memory pool: an allocate + free pair served from the pool (a hit, same queue), against the raw
// driver: cuMemAlloc/cuMemFree and cuMemAllocAsync/cuMemFreeAsync (CUDA's stream-ordered pool), and
// against Buffer::allocate (OpenCL: clCreateBuffer/clReleaseMemObject behind it).
//
//   kjarni_bench_pool --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <memory>

#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_CUDA
#include "raw_cuda.hpp"
#endif

namespace {

constexpr std::size_t block_size = 1 << 20;

struct Setup {
    kjarni::Context context;
    kjarni::Queue queue;
    kjarni::MemoryPool pool;
};

void pool_pair(benchmark::State& state, std::shared_ptr<Setup> s) {
    { kjarni::Buffer warm = s->pool.allocate(s->queue, block_size); }  // the hit to come
    for (auto _ : state) {
        kjarni::Buffer b = s->pool.allocate(s->queue, block_size);
        benchmark::DoNotOptimize(b.native_handle());
    }
}

void buffer_allocate_pair(benchmark::State& state, std::shared_ptr<Setup> s) {
    const auto device = s->queue.device();
    for (auto _ : state) {
        kjarni::Buffer b = kjarni::Buffer::allocate(device, block_size);
        benchmark::DoNotOptimize(b.native_handle());
    }
}

#ifdef KJARNI_BENCH_RAW_CUDA
using kjarni_bench::raw_cuda;
using kjarni_bench::RawCuda;

void raw_cuda_pair(benchmark::State& state, std::shared_ptr<Setup> s) {
    const auto* table = raw_cuda();
    if (table == nullptr) {  // registered only where the table loaded; g++ 12 cannot see that
        state.SkipWithError("libcuda's functions are missing");
        return;
    }
    const auto& cu = *table;
    cu.set_current(reinterpret_cast<CUcontext>(s->context.native_handle(0)));
    for (auto _ : state) {
        CUdeviceptr p = 0;
        cu.alloc(&p, block_size);
        cu.free(p);
    }
}

void raw_cuda_async_pair(benchmark::State& state, std::shared_ptr<Setup> s) {
    const auto* table = raw_cuda();
    if (table == nullptr) {  // registered only where the table loaded; g++ 12 cannot see that
        state.SkipWithError("libcuda's functions are missing");
        return;
    }
    const auto& cu = *table;
    cu.set_current(reinterpret_cast<CUcontext>(s->context.native_handle(0)));
    auto stream = reinterpret_cast<CUstream>(s->queue.native_handle());
    int n = 0;
    for (auto _ : state) {
        CUdeviceptr p = 0;
        cu.alloc_async(&p, block_size, stream);
        cu.free_async(p, stream);
        if (++n % 1024 == 0) cu.synchronize(stream);
    }
    cu.synchronize(stream);
}
#endif

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        for (const kjarni::Platform& platform : api.platforms()) {
            if (platform.devices().empty()) continue;
            auto context = kjarni::Context::from_devices(platform.devices()[0]);
            kjarni::Queue queue(context.devices()[0]);
            auto setup = std::make_shared<Setup>(Setup{context, queue, kjarni::MemoryPool()});
            const std::string tag = fmt::format("{}/{}", api.shortcut(), platform.devices()[0].name());
            benchmark::RegisterBenchmark(("alloc_free_1MiB/kjarni_pool_hit/" + tag).c_str(), pool_pair, setup);
            benchmark::RegisterBenchmark(("alloc_free_1MiB/kjarni_buffer_allocate/" + tag).c_str(),
                                         buffer_allocate_pair, setup);
#ifdef KJARNI_BENCH_RAW_CUDA
            if (api.id() == kjarni::ApiId::cuda() && raw_cuda() != nullptr) {
                benchmark::RegisterBenchmark(("alloc_free_1MiB/raw_cuMemAlloc/" + tag).c_str(), raw_cuda_pair, setup);
                benchmark::RegisterBenchmark(("alloc_free_1MiB/raw_cuMemAllocAsync/" + tag).c_str(),
                                             raw_cuda_async_pair, setup);
            }
#endif
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
