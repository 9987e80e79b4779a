// Transfers through kjarni against the raw API calls on the same queue and memory, in one run:
//  - the host cost of a small blocking write, and device-to-device copy bandwidth;
//  - host<->device bandwidth of big transfers (256 MiB; KJARNI_BENCH_TRANSFER_MIB changes it), each
//    direction: kjarni from pageable memory (a pre-touched std::vector, through Buffer and Array:
//    staged by kjarni), raw pageable (CUDA: cuMemcpyHtoD/DtoH from malloc'ed memory; OpenCL:
//    blocking clEnqueueWrite/ReadBuffer from it), raw pinned (CUDA: cuMemHostAlloc; OpenCL: a
//    mapped CL_MEM_ALLOC_HOST_PTR buffer) and kjarni from HostMemory; then kjarni from pageable
//    memory under a few explicit staging settings ("staged_c<chunk MiB>_t<threads>"), to tune the
//    defaults (only with KJARNI_BENCH_TUNE_STAGING=1); and the bound of any staged path on this host
//    ("host_copy_beside_dma_t<threads>": the host copy timed while a pinned DMA of the same size
//    runs). The counter GB/s is bytes / time; read it from the median aggregate;
//  - a sweep of pageable transfers from 4 KiB to that size by factors of 4 ("h2d_sweep_<KiB>",
//    "d2h_sweep_<KiB>"): kjarni beside the raw pageable call (the baseline) and raw pinned memory,
//    to see where staging starts to pay (TransferStaging::threshold); with
//    KJARNI_BENCH_SWEEP_STAGING=1 also staged at every size from 256 KiB under a few chunk sizes and
//    thread counts ("staged_c<chunk MiB>_t<threads>").
// Runs on the first device of every available API. Raw OpenCL baselines exist where the bench was
// linked against libOpenCL, raw CUDA ones where libcuda can be dlopen'ed.
//
//   kjarni_bench_transfers --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//   (--benchmark_filter=256MiB for the bandwidth table alone)

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_OPENCL
#include <CL/cl.h>
#endif
#ifdef KJARNI_BENCH_RAW_CUDA
#include "raw_cuda.hpp"
#endif

namespace {

constexpr std::size_t small_bytes = 4096;
constexpr std::size_t big_bytes = std::size_t{64} << 20;

std::size_t transfer_bytes() {
    static const std::size_t bytes = [] {
        const char* mib = std::getenv("KJARNI_BENCH_TRANSFER_MIB");
        return (mib != nullptr && std::atoi(mib) > 0 ? static_cast<std::size_t>(std::atoi(mib)) : 256) << 20;
    }();
    return bytes;
}

struct Setup {
    kjarni::Context context;
    kjarni::Queue queue;
    kjarni::Buffer small;
    kjarni::Buffer big_a;
    kjarni::Buffer big_b;
    std::vector<std::byte> host;
    // Host <-> device bandwidth.
    kjarni::Buffer device;
    kjarni::Array device_array;
    std::vector<std::byte> pageable;  // pre-touched, as a user's data would be
    kjarni::HostMemory pinned;
};

std::shared_ptr<Setup> make_setup(const kjarni::Api& api) {
    auto context = kjarni::Context::from_criteria(api);
    auto device = context.devices()[0];
    kjarni::Queue queue(device);
    const std::size_t n = transfer_bytes();
    kjarni::Buffer transfer_buffer = kjarni::Buffer::allocate(device, n);
    auto array = kjarni::Array::from_buffer(transfer_buffer, kjarni::dtypes::uint8, kjarni::Layout::contiguous({n}, 1));
    std::vector<std::byte> pageable(n);
    for (std::size_t i = 0; i < n; ++i) pageable[i] = static_cast<std::byte>(i * 2654435761U >> 13);
    auto pinned = kjarni::HostMemory::allocate(context, n);
    std::memcpy(pinned.data(), pageable.data(), n);
    auto setup = std::make_shared<Setup>(
        Setup{context, queue, kjarni::Buffer::allocate(device, small_bytes),
              kjarni::Buffer::allocate(device, big_bytes), kjarni::Buffer::allocate(device, big_bytes),
              std::vector<std::byte>(small_bytes, std::byte{7}), transfer_buffer, array, std::move(pageable), pinned});
    setup->big_a.fill(queue, std::as_bytes(std::span("kjarni!", 8)));
    return setup;
}

void count_bandwidth(benchmark::State& state, std::size_t bytes) {
    state.counters["GB/s"] =
        benchmark::Counter(static_cast<double>(bytes) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void kjarni_small_write(benchmark::State& state, std::shared_ptr<Setup> s) {
    for (auto _ : state) s->small.set(s->queue, std::span<const std::byte>(s->host));
}

void kjarni_big_copy(benchmark::State& state, std::shared_ptr<Setup> s) {
    for (auto _ : state) s->big_b.set(s->queue, s->big_a);
    state.SetBytesProcessed(state.iterations() * 2 * static_cast<std::int64_t>(big_bytes));  // read + write
}

// Staging settings for one benchmark: nullopt keeps the context's defaults.
class Staging {
public:
    Staging(const kjarni::Context& context, std::optional<kjarni::TransferStaging> settings) : context_(context) {
        if (settings) kjarni::set_transfer_staging(context, *settings);
    }
    ~Staging() { kjarni::reset_transfer_staging(context_); }
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;

private:
    kjarni::Context context_;
};

enum class Direction { to_device, to_host };

void kjarni_buffer_transfer(benchmark::State& state, std::shared_ptr<Setup> s, Direction direction, bool pinned,
                            std::optional<kjarni::TransferStaging> settings, std::size_t bytes) {
    const Staging staging(s->context, settings);
    const std::span<std::byte> host = (pinned ? s->pinned.bytes() : std::span<std::byte>(s->pageable)).first(bytes);
    // One untimed transfer first: new staging settings allocate their page-locked slots on the
    // first staged transfer (milliseconds), which is not what the figure is about.
    if (direction == Direction::to_device) {
        s->device.set(s->queue, std::span<const std::byte>(host));
    } else {
        s->device.get(s->queue, host);
    }
    for (auto _ : state) {
        if (direction == Direction::to_device) {
            s->device.set(s->queue, std::span<const std::byte>(host));
        } else {
            s->device.get(s->queue, host);
        }
    }
    count_bandwidth(state, host.size());
}

void kjarni_array_transfer(benchmark::State& state, std::shared_ptr<Setup> s, Direction direction) {
    // One untimed transfer first, as above: a staged variant run before this one leaves slots of
    // its own size, which the defaults allocate anew.
    const std::span<std::uint8_t> host(reinterpret_cast<std::uint8_t*>(s->pageable.data()), s->pageable.size());
    if (direction == Direction::to_device) {
        s->device_array.set(s->queue, std::span<const std::uint8_t>(host));
    } else {
        s->device_array.get(s->queue, host);
    }
    for (auto _ : state) {
        if (direction == Direction::to_device) {
            s->device_array.set(s->queue, std::span<const std::uint8_t>(host));
        } else {
            s->device_array.get(s->queue, host);
        }
    }
    count_bandwidth(state, host.size());
}

/// The host half of a staged pageable transfer on its own: glibc's memcpy between pageable and
/// page-locked memory split over `threads` threads, timed while the device moves the same number of
/// bytes to or from other page-locked memory (the DMA half, which competes for the host's memory).
/// What the staged path's copies can expect from this host when nothing is cache-resident (from
/// the device, DMA writes may land in the last-level cache and the staged copy out runs faster).
void host_copy_beside_dma(benchmark::State& state, std::shared_ptr<Setup> s, Direction direction, unsigned threads) {
    const std::size_t n = s->pageable.size();
    const kjarni::HostMemory other = kjarni::HostMemory::allocate(s->context, n);
    std::memset(other.data(), 1, n);
    const auto copy_part = [&](std::size_t t) {
        const std::size_t per = (n / threads + 4095) / 4096 * 4096;
        const std::size_t begin = std::min(n, t * per), end = std::min(n, begin + per);
        auto* slot = static_cast<std::byte*>(other.data());
        if (direction == Direction::to_device) std::memcpy(slot + begin, s->pageable.data() + begin, end - begin);
        else std::memcpy(s->pageable.data() + begin, slot + begin, end - begin);
    };
    for (auto _ : state) {
        std::thread dma([&] {
            if (direction == Direction::to_device)
                s->device.set(s->queue, std::span<const std::byte>(s->pinned.bytes()));
            else s->device.get(s->queue, s->pinned.bytes());
        });
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::thread> copiers;
        for (unsigned t = 1; t < threads; ++t) copiers.emplace_back(copy_part, t);
        copy_part(0);
        for (std::thread& c : copiers) c.join();
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        dma.join();
        state.SetIterationTime(elapsed.count());
    }
    count_bandwidth(state, n);
}

#ifdef KJARNI_BENCH_RAW_OPENCL
cl_command_queue cl_queue(const Setup& s) { return reinterpret_cast<cl_command_queue>(s.queue.native_handle()); }
cl_mem cl_buffer(const kjarni::Buffer& b) { return reinterpret_cast<cl_mem>(b.native_handle()); }

void raw_opencl_small_write(benchmark::State& state, std::shared_ptr<Setup> s) {
    for (auto _ : state) {
        clEnqueueWriteBuffer(cl_queue(*s), cl_buffer(s->small), CL_TRUE, 0, small_bytes, s->host.data(), 0, nullptr,
                             nullptr);
    }
}

void raw_opencl_big_copy(benchmark::State& state, std::shared_ptr<Setup> s) {
    for (auto _ : state) {
        clEnqueueCopyBuffer(cl_queue(*s), cl_buffer(s->big_a), cl_buffer(s->big_b), 0, 0, big_bytes, 0, nullptr,
                            nullptr);
        clFinish(cl_queue(*s));
    }
    state.SetBytesProcessed(state.iterations() * 2 * static_cast<std::int64_t>(big_bytes));
}

void raw_opencl_transfer(benchmark::State& state, std::shared_ptr<Setup> s, Direction direction, bool pinned,
                         std::size_t n) {
    cl_context context = reinterpret_cast<cl_context>(s->context.native_handle());
    cl_mem host_buffer = nullptr;
    void* host = s->pageable.data();
    if (pinned) {
        // The usual way to get pinned memory in OpenCL: a host-allocated buffer, mapped.
        cl_int status = CL_SUCCESS;
        host_buffer = clCreateBuffer(context, CL_MEM_ALLOC_HOST_PTR, n, nullptr, &status);
        if (status != CL_SUCCESS) {
            state.SkipWithError("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR) failed");
            return;
        }
        host = clEnqueueMapBuffer(cl_queue(*s), host_buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, nullptr,
                                  nullptr, &status);
        std::memcpy(host, s->pageable.data(), n);
    }
    for (auto _ : state) {
        if (direction == Direction::to_device) {
            clEnqueueWriteBuffer(cl_queue(*s), cl_buffer(s->device), CL_TRUE, 0, n, host, 0, nullptr, nullptr);
        } else {
            clEnqueueReadBuffer(cl_queue(*s), cl_buffer(s->device), CL_TRUE, 0, n, host, 0, nullptr, nullptr);
        }
    }
    if (host_buffer != nullptr) {
        clEnqueueUnmapMemObject(cl_queue(*s), host_buffer, host, 0, nullptr, nullptr);
        clFinish(cl_queue(*s));
        clReleaseMemObject(host_buffer);
    }
    count_bandwidth(state, n);
}
#endif

#ifdef KJARNI_BENCH_RAW_CUDA
void raw_cuda_transfer(benchmark::State& state, std::shared_ptr<Setup> s, Direction direction, bool pinned,
                       std::size_t n) {
    const auto* table = kjarni_bench::raw_cuda();
    if (table == nullptr) {  // registered only where the table loaded; g++ 12 cannot see that
        state.SkipWithError("libcuda's functions are missing");
        return;
    }
    const auto& cu = *table;
    cu.set_current(reinterpret_cast<CUcontext>(s->context.native_handle(0)));
    void* host = nullptr;
    if (pinned) {
        if (cu.host_alloc(&host, n, 0) != CUDA_SUCCESS) {
            state.SkipWithError("cuMemHostAlloc failed");
            return;
        }
    } else {
        host = std::malloc(n);
    }
    std::memcpy(host, s->pageable.data(), n);  // touched, as the pageable vector of kjarni's runs
    const auto device = static_cast<CUdeviceptr>(s->device.native_handle());
    for (auto _ : state) {
        if (direction == Direction::to_device) {
            cu.copy_to_device(device, host, n);
        } else {
            cu.copy_to_host(host, device, n);
        }
    }
    if (pinned) {
        cu.free_host(host);
    } else {
        std::free(host);
    }
    count_bandwidth(state, n);
}
#endif

/// The raw pageable and pinned transfers of `bytes` where this build has the API's raw calls.
void add_raw(const std::string& name, const std::string& tag, const std::shared_ptr<Setup>& setup, Direction direction,
             std::size_t bytes) {
    [[maybe_unused]] const auto add = [&](const std::string& variant, auto&&... args) {
        benchmark::RegisterBenchmark((name + "/" + variant + "/" + tag).c_str(), args...)->UseRealTime();
    };
    [[maybe_unused]] const kjarni::ApiId api = setup->context.api().id();
#ifdef KJARNI_BENCH_RAW_OPENCL
    if (api == kjarni::ApiId::opencl()) {
        add("raw_pageable", raw_opencl_transfer, setup, direction, false, bytes);
        add("raw_pinned", raw_opencl_transfer, setup, direction, true, bytes);
    }
#endif
#ifdef KJARNI_BENCH_RAW_CUDA
    if (api == kjarni::ApiId::cuda() && kjarni_bench::raw_cuda() != nullptr) {
        add("raw_pageable", raw_cuda_transfer, setup, direction, false, bytes);
        add("raw_pinned", raw_cuda_transfer, setup, direction, true, bytes);
    }
#endif
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        auto setup = make_setup(api);
        const std::string tag = fmt::format("{}/{}", api.shortcut(), setup->queue.device().name());
        benchmark::RegisterBenchmark(("write_4KiB/kjarni/" + tag).c_str(), kjarni_small_write, setup);
        benchmark::RegisterBenchmark(("copy_64MiB/kjarni/" + tag).c_str(), kjarni_big_copy, setup)->UseRealTime();
#ifdef KJARNI_BENCH_RAW_OPENCL
        if (api.id() == kjarni::ApiId::opencl()) {
            benchmark::RegisterBenchmark(("write_4KiB/raw/" + tag).c_str(), raw_opencl_small_write, setup);
            benchmark::RegisterBenchmark(("copy_64MiB/raw/" + tag).c_str(), raw_opencl_big_copy, setup)->UseRealTime();
        }
#endif
        const std::string size = fmt::format("{}MiB", transfer_bytes() >> 20);
        for (const auto direction : {Direction::to_device, Direction::to_host}) {
            const std::string name = (direction == Direction::to_device ? "h2d_" : "d2h_") + size;
            auto add = [&](const std::string& variant, auto&&... args) {
                benchmark::RegisterBenchmark((name + "/" + variant + "/" + tag).c_str(), args...)->UseRealTime();
            };
            const std::size_t n = transfer_bytes();
            add("kjarni_pageable_buffer", kjarni_buffer_transfer, setup, direction, false, std::nullopt, n);
            add("kjarni_pageable_array", kjarni_array_transfer, setup, direction);
            add("kjarni_pinned_buffer", kjarni_buffer_transfer, setup, direction, true, std::nullopt, n);
            add_raw(name, tag, setup, direction, n);
            // The host copy beside a DMA, with the staging's default thread count and with every hardware thread.
            const unsigned hardware = std::max(1U, std::thread::hardware_concurrency());
            for (const unsigned threads : {std::min(hardware, 12U), hardware}) {
                benchmark::RegisterBenchmark(fmt::format("{}/host_copy_beside_dma_t{}/{}", name, threads, tag).c_str(),
                                             host_copy_beside_dma, setup, direction, threads)
                    ->UseManualTime();
                if (hardware <= 12) break;
            }
            // The staging matrix that chose TransferStaging's defaults: only when asked for (it is long).
            const char* tune = std::getenv("KJARNI_BENCH_TUNE_STAGING");
            if (tune != nullptr && *tune != '\0' && *tune != '0') {
                const unsigned default_slots = kjarni::TransferStaging{}.slots;
                for (const std::size_t chunk_mib : {1U, 2U, 4U, 8U, 16U, 32U, 64U}) {
                    for (const unsigned threads : {8U, 12U, 16U}) {
                        for (const bool streaming : {true, false}) {
                            const kjarni::TransferStaging settings{.threshold = 0,
                                                                   .chunk_size = chunk_mib << 20,
                                                                   .slots = default_slots,
                                                                   .threads = threads,
                                                                   .streaming_stores = streaming};
                            add(fmt::format("staged_c{}_t{}{}", chunk_mib, threads, streaming ? "_nt" : ""),
                                kjarni_buffer_transfer, setup, direction, false, settings, n);
                        }
                    }
                }
                // Other slot counts than the default's, at 8 and 16 MiB, 12 threads, streaming stores.
                for (const std::size_t chunk_mib : {8U, 16U}) {
                    for (const unsigned slots : {2U, 3U, 4U, 6U, 8U}) {
                        if (slots == default_slots) continue;
                        const kjarni::TransferStaging settings{.threshold = 0,
                                                               .chunk_size = chunk_mib << 20,
                                                               .slots = slots,
                                                               .threads = 12,
                                                               .streaming_stores = true};
                        add(fmt::format("staged_c{}_t12_nt_s{}", chunk_mib, slots), kjarni_buffer_transfer, setup,
                            direction, false, settings, n);
                    }
                }
            }
            const char* sweep_env = std::getenv("KJARNI_BENCH_SWEEP_STAGING");
            const bool sweep_staging = sweep_env != nullptr && *sweep_env != '\0' && *sweep_env != '0';
            // The sweep: kjarni's pageable transfer (staged from its threshold up, direct below) beside
            // the raw pageable and pinned calls, for every size from 4 KiB to the transfer size.
            for (std::size_t bytes = 4096; bytes <= n; bytes *= 4) {
                const std::string sweep =
                    fmt::format("{}_sweep_{}KiB", direction == Direction::to_device ? "h2d" : "d2h", bytes >> 10);
                benchmark::RegisterBenchmark((sweep + "/kjarni_pageable/" + tag).c_str(), kjarni_buffer_transfer, setup,
                                             direction, false, std::nullopt, bytes)
                    ->UseRealTime();
                add_raw(sweep, tag, setup, direction, bytes);
                if (sweep_staging && bytes >= (std::size_t{256} << 10)) {
                    // Staged at every size (threshold 0) under a few settings: where staging pays,
                    // and what limits it at the sizes where it does not.
                    static constexpr std::pair<std::size_t, unsigned> variants[] = {{16, 1},
                                                                                    {16, 4},
                                                                                    {16, 12},
                                                                                    {4, 12},
                                                                                    {1, 12}};
                    for (const auto& [chunk_mib, threads] : variants) {
                        const kjarni::TransferStaging settings{.threshold = 0,
                                                               .chunk_size = chunk_mib << 20,
                                                               .slots = 4,
                                                               .threads = threads,
                                                               .streaming_stores = true};
                        benchmark::RegisterBenchmark(fmt::format("{}/staged_c{}_t{}/{}", sweep, chunk_mib, threads, tag)
                                                         .c_str(),
                                                     kjarni_buffer_transfer, setup, direction, false, settings, bytes)
                            ->UseRealTime();
                    }
                }
                if (bytes > n / 4) break;
            }
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
