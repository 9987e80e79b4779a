// GEMM throughput through kjarni::blas against the vendor library called directly, on the same
// device, queue and buffers, in one run:
//   CUDA:   SGEMM, DGEMM, HGEMM (float16 data, float32 accumulation: cublasGemmEx with
//           CUBLAS_COMPUTE_32F on both sides) of N x N x N through kjarni, and through cuBLAS
//           called directly (its own handle on kjarni's stream).
//   OpenCL: SGEMM through CLBlast called directly with its built-in parameters (untuned), then
//           through kjarni, which loads the tuned parameters for the device at its first BLAS
//           call (data/clblast/*.json, KJARNI_CLBLAST_PARAMETERS); CLBlast's compiled-program
//           cache is cleared in between so that the tuned kernels are built. Run with
//           KJARNI_CLBLAST_PARAMETERS=none to see kjarni without tuned parameters.
// Reported as TFLOP/s (2 N^3 per call). N is 8192, or KJARNI_BENCH_GEMM_N; on PoCL (a CPU) 512.
//
//   kjarni_bench_blas --benchmark_min_time=1 --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dtype/half.hpp"
#include "kjarni/blas.hpp"
#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_CUDA
#include <cublas_api.h>
#include <cuda.h>
#endif
#ifdef KJARNI_BENCH_RAW_CLBLAST
#include <clblast_c.h>
#endif

namespace {

std::size_t gemm_size(const kjarni::Platform& platform) {
    if (const char* n = std::getenv("KJARNI_BENCH_GEMM_N")) return std::stoul(n);
    return platform.name().find("Portable") != std::string::npos ? 512 : 8192;
}

/// Square operands of one dtype on one queue, filled with random values in [-1, 1).
struct Setup {
    kjarni::Queue queue;
    std::size_t n;
    kjarni::DType dtype;
    kjarni::Array a, b, c;
};

kjarni::Array random_square(const kjarni::Queue& queue, std::size_t n, const kjarni::DType& dtype) {
    std::mt19937 engine(12345);
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    kjarni::HostArray host(dtype, {n, n});
    for (std::size_t i = 0; i < n * n; ++i) {
        const float v = uniform(engine);
        std::byte* p = host.data() + i * dtype.itemsize();
        if (dtype.kind() == kjarni::DType::Kind::float16) {
            const std::uint16_t h = kjarni::detail::float_to_half(v);
            std::memcpy(p, &h, sizeof h);
        } else if (dtype.kind() == kjarni::DType::Kind::float64) {
            const double d = v;
            std::memcpy(p, &d, sizeof d);
        } else {
            std::memcpy(p, &v, sizeof v);
        }
    }
    return kjarni::Array::from_host(queue, host);
}

std::shared_ptr<Setup> make_setup(const kjarni::Queue& queue, std::size_t n, const kjarni::DType& dtype) {
    return std::make_shared<Setup>(Setup{queue, n, dtype, random_square(queue, n, dtype),
                                         random_square(queue, n, dtype), kjarni::Array::zeros(queue, {n, n}, dtype)});
}

/// Times `call` (one GEMM, enqueued), synchronizing after each; the first call (handle creation,
/// kernel compilation) is not timed.
void run_gemm(benchmark::State& state, const std::shared_ptr<Setup>& s, const std::function<void()>& call) {
    call();
    s->queue.synchronize();
    for (auto _ : state) {
        call();
        s->queue.synchronize();
    }
    const double flop = 2.0 * static_cast<double>(s->n) * static_cast<double>(s->n) * static_cast<double>(s->n);
    state.counters["TFLOP/s"] = benchmark::Counter(flop / 1e12, benchmark::Counter::kIsIterationInvariantRate);
}

void kjarni_gemm(benchmark::State& state, std::shared_ptr<Setup> s) {
    run_gemm(state, s, [&] { kjarni::blas::gemm(s->queue, 1.0, s->a, s->b, 0.0, s->c); });
}

/// Native pointer of an array's first element (CUdeviceptr) or the cl_mem.
std::uintptr_t native(const kjarni::Array& a) { return a.base().native_handle() + a.base().offset() + a.offset(); }

template <class Fn>
Fn load(void* library, const char* name) {
    return library == nullptr ? nullptr : reinterpret_cast<Fn>(dlsym(library, name));
}

#ifdef KJARNI_BENCH_RAW_CUDA
/// cuBLAS called directly: kjarni's C-ordered C = A B is the column-major C^T = B^T A^T, so the
/// direct call passes B first, as kjarni does.
void raw_cublas_gemm(benchmark::State& state, std::shared_ptr<Setup> s) {
    void* library = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) library = dlopen("libcublas.so.12", RTLD_NOW | RTLD_LOCAL);
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    const auto create = load<decltype(&::cublasCreate_v2)>(library, "cublasCreate_v2");
    const auto set_stream = load<decltype(&::cublasSetStream_v2)>(library, "cublasSetStream_v2");
    const auto sgemm = load<decltype(&::cublasSgemm_v2)>(library, "cublasSgemm_v2");
    const auto dgemm = load<decltype(&::cublasDgemm_v2)>(library, "cublasDgemm_v2");
    using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                      const void*, cudaDataType, int, const void*, cudaDataType, int, const void*,
                                      void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
    const auto gemm_ex = load<GemmEx>(library, "cublasGemmEx");
    const auto set_current = load<decltype(&::cuCtxSetCurrent)>(cuda, "cuCtxSetCurrent");
    if (!create || !set_stream || !sgemm || !dgemm || !gemm_ex || !set_current) {
        state.SkipWithError("cuBLAS or libcuda not found");
        return;
    }
    set_current(reinterpret_cast<CUcontext>(s->queue.device().context().native_handle(s->queue.device().index())));
    cublasHandle_t handle = nullptr;
    if (create(&handle) != CUBLAS_STATUS_SUCCESS) {
        state.SkipWithError("cublasCreate_v2 failed");
        return;
    }
    set_stream(handle, reinterpret_cast<cudaStream_t>(s->queue.native_handle()));
    const int n = static_cast<int>(s->n);
    const float alpha_f = 1.0F, beta_f = 0.0F;
    const double alpha_d = 1.0, beta_d = 0.0;
    void* a = reinterpret_cast<void*>(native(s->a));
    void* b = reinterpret_cast<void*>(native(s->b));
    void* c = reinterpret_cast<void*>(native(s->c));
    run_gemm(state, s, [&] {
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        switch (s->dtype.kind()) {
        case kjarni::DType::Kind::float32:
            status = sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha_f, static_cast<const float*>(b), n,
                           static_cast<const float*>(a), n, &beta_f, static_cast<float*>(c), n);
            break;
        case kjarni::DType::Kind::float64:
            status = dgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha_d, static_cast<const double*>(b), n,
                           static_cast<const double*>(a), n, &beta_d, static_cast<double*>(c), n);
            break;
        default:
            status = gemm_ex(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha_f, b, CUDA_R_16F, n, a, CUDA_R_16F, n,
                             &beta_f, c, CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            break;
        }
        if (status != CUBLAS_STATUS_SUCCESS)
            throw std::runtime_error(fmt::format("cuBLAS status {}", static_cast<int>(status)));
    });
    // The handle is left to the process's end (destroying it would need the context current again).
}
#endif

#ifdef KJARNI_BENCH_RAW_CLBLAST
void* clblast_library() {
    static void* library = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
    return library;
}

/// CLBlast called directly, with whatever parameters it has for the device: registered before any
/// kjarni BLAS call, that is its built-in database (untuned on devices it does not know).
void raw_clblast_sgemm(benchmark::State& state, std::shared_ptr<Setup> s) {
    const auto sgemm = load<decltype(&::CLBlastSgemm)>(clblast_library(), "CLBlastSgemm");
    if (!sgemm) {
        state.SkipWithError("libclblast.so.1 not found");
        return;
    }
    cl_command_queue queue = reinterpret_cast<cl_command_queue>(s->queue.native_handle());
    const auto mem = [](const kjarni::Array& x) { return reinterpret_cast<cl_mem>(x.base().native_handle()); };
    const auto offset = [](const kjarni::Array& x) { return (x.base().offset() + x.offset()) / x.dtype().itemsize(); };
    const std::size_t n = s->n;
    run_gemm(state, s, [&] {
        const auto status =
            sgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0F, mem(s->b), offset(s->b),
                  n, mem(s->a), offset(s->a), n, 0.0F, mem(s->c), offset(s->c), n, &queue, nullptr);
        if (status != CLBlastSuccess)
            throw std::runtime_error(fmt::format("CLBlast status {}", static_cast<int>(status)));
    });
}

/// kjarni after CLBlast's program cache is cleared, so that the kernels are rebuilt with the
/// parameters kjarni loads at its first call.
void kjarni_sgemm_after_clearing(benchmark::State& state, std::shared_ptr<Setup> s) {
    if (const auto clear = load<decltype(&::CLBlastClearCache)>(clblast_library(), "CLBlastClearCache")) clear();
    kjarni_gemm(state, std::move(s));
}
#endif

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        for (const kjarni::Platform& platform : api.platforms()) {
            if (platform.devices().empty()) continue;
            const std::size_t n = gemm_size(platform);
            try {
                const auto context = kjarni::Context::from_devices(platform.devices()[0]);
                const kjarni::Queue queue(context.devices()[0]);
                const std::string tag = fmt::format("{}/{}/{}", api.shortcut(), queue.device().name(), n);
                if (api.id() == kjarni::ApiId::cuda()) {
                    for (const auto& [name, kind] : {std::pair{"sgemm", kjarni::DType::Kind::float32},
                                                     std::pair{"dgemm", kjarni::DType::Kind::float64},
                                                     std::pair{"hgemm", kjarni::DType::Kind::float16}}) {
                        const auto setup = make_setup(queue, n, kind);
                        benchmark::RegisterBenchmark(fmt::format("{}/kjarni/{}", name, tag).c_str(), kjarni_gemm, setup)
                            ->UseRealTime()
                            ->Unit(benchmark::kMillisecond);
#ifdef KJARNI_BENCH_RAW_CUDA
                        benchmark::RegisterBenchmark(fmt::format("{}/cublas_direct/{}", name, tag).c_str(),
                                                     raw_cublas_gemm, setup)
                            ->UseRealTime()
                            ->Unit(benchmark::kMillisecond);
#endif
                    }
                } else {
                    const auto setup = make_setup(queue, n, kjarni::DType::Kind::float32);
#ifdef KJARNI_BENCH_RAW_CLBLAST
                    benchmark::RegisterBenchmark(fmt::format("sgemm/clblast_direct_untuned/{}", tag).c_str(),
                                                 raw_clblast_sgemm, setup)
                        ->UseRealTime()
                        ->Unit(benchmark::kMillisecond);
                    benchmark::RegisterBenchmark(fmt::format("sgemm/kjarni_tuned/{}", tag).c_str(),
                                                 kjarni_sgemm_after_clearing, setup)
                        ->UseRealTime()
                        ->Unit(benchmark::kMillisecond);
#else
                    benchmark::RegisterBenchmark(fmt::format("sgemm/kjarni/{}", tag).c_str(), kjarni_gemm, setup)
                        ->UseRealTime()
                        ->Unit(benchmark::kMillisecond);
#endif
                }
            } catch (const kjarni::Error& e) {
                fmt::print(stderr, "skipping {}: {}\n", platform.name(), e.what());
            }
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
