// The CUDA BLAS: cuBLAS (libcublas.so.13, else libcublas.so.12), loaded at run time through its
// real exported names (the _v2 entry points that cublas_v2.h maps the plain names to).
//
// A cuBLAS handle belongs to the CUDA context current when it is created and runs its work on the
// stream set on it; kjarni keeps one per queue (so per context and stream), made on first use,
// with the queue's stream set once, and serializes calls on one handle (dot switches its pointer
// mode). The handles live in their context's state (a service of it): handles of queues that are
// gone are destroyed when the context's next handle is made, and all of them when the context
// goes, while it still exists, so that their workspaces are freed with it and none is left at exit.

#include "vendor/blas_vendor.hpp"

#ifdef KJARNI_WITH_CUDA

#include <cublas_api.h>
#include <cuda.h>
#include <fmt/format.h>

#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backend/backend.hpp"
#include "backend/dynamic_library.hpp"
#include "core/context_state.hpp"
#include "kjarni/error.hpp"

namespace kjarni::blas::detail {

namespace {

// clang-format off
#define KJARNI_CUBLAS_FUNCTIONS(X)                                                                         \
    X(Create, cublasCreate_v2) X(Destroy, cublasDestroy_v2) X(SetStream, cublasSetStream_v2)                \
    X(SetPointerMode, cublasSetPointerMode_v2)                                                             \
    X(Sgemm, cublasSgemm_v2) X(Dgemm, cublasDgemm_v2) X(Cgemm, cublasCgemm_v2) X(Zgemm, cublasZgemm_v2)    \
    X(SgemmStridedBatched, cublasSgemmStridedBatched) X(DgemmStridedBatched, cublasDgemmStridedBatched)    \
    X(CgemmStridedBatched, cublasCgemmStridedBatched) X(ZgemmStridedBatched, cublasZgemmStridedBatched)    \
    X(Sgemv, cublasSgemv_v2) X(Dgemv, cublasDgemv_v2) X(Cgemv, cublasCgemv_v2) X(Zgemv, cublasZgemv_v2)    \
    X(Sger, cublasSger_v2) X(Dger, cublasDger_v2) X(Cgeru, cublasCgeru_v2) X(Zgeru, cublasZgeru_v2)        \
    X(Sdot, cublasSdot_v2) X(Ddot, cublasDdot_v2) X(Cdotu, cublasCdotu_v2) X(Cdotc, cublasCdotc_v2)        \
    X(Zdotu, cublasZdotu_v2) X(Zdotc, cublasZdotc_v2) X(DotEx, cublasDotEx)
// clang-format on

struct CublasFunctions {
#define KJARNI_DECLARE(member, symbol) decltype(&::symbol) member = nullptr;
    KJARNI_CUBLAS_FUNCTIONS(KJARNI_DECLARE)
#undef KJARNI_DECLARE
    // C++ overloads these (a cudaDataType compute type, deprecated): the cublasComputeType_t ones.
    cublasStatus_t (*GemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                             const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                             cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
    cublasStatus_t (*GemmStridedBatchedEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                           const void*, const void*, cudaDataType, int, long long int, const void*,
                                           cudaDataType, int, long long int, const void*, void*, cudaDataType, int,
                                           long long int, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
    // From libcuda, to make the queue's context current around each call.
    decltype(&::cuCtxGetCurrent) CtxGetCurrent = nullptr;
    decltype(&::cuCtxSetCurrent) CtxSetCurrent = nullptr;
};

const char* status_name(cublasStatus_t status) {
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "cuBLAS status";
}

void check(cublasStatus_t status, const char* call) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError("cuBLAS", call, status, status_name(status));
    throw BackendError("cuBLAS", call, status, status_name(status));
}

void check_cuda(CUresult result, const char* call) {
    if (result != CUDA_SUCCESS)
        throw BackendError("CUDA", call, result, fmt::format("CUresult {}", static_cast<int>(result)));
}

/// cuBLAS's 32-bit sizes.
int to_int(std::size_t value, const char* what) {
    if (value > static_cast<std::size_t>(INT_MAX))
        throw UnsupportedError(fmt::format("cuBLAS: {} = {} exceeds its 32-bit size limit", what, value));
    return static_cast<int>(value);
}

cublasOperation_t operation_of(Op op) {
    switch (op) {
    case Op::none: return CUBLAS_OP_N;
    case Op::transpose: return CUBLAS_OP_T;
    case Op::adjoint: return CUBLAS_OP_C;
    }
    return CUBLAS_OP_N;
}

void* pointer(const Memory& m) { return reinterpret_cast<void*>(m.handle + m.offset); }  // NOLINT: device address

/// The scalars of one call in the dtype's host representation (pointer mode host: read before the
/// call returns). Half-precision products run with float32 accumulation, whose scalars are float.
struct Scalars {
    float f[2];
    double d[2];
    cuComplex c[2];
    cuDoubleComplex z[2];
    Scalars(Scalar alpha, Scalar beta)
        : f{static_cast<float>(alpha.real()), static_cast<float>(beta.real())}, d{alpha.real(), beta.real()},
          c{make_cuComplex(static_cast<float>(alpha.real()), static_cast<float>(alpha.imag())),
            make_cuComplex(static_cast<float>(beta.real()), static_cast<float>(beta.imag()))},
          z{make_cuDoubleComplex(alpha.real(), alpha.imag()), make_cuDoubleComplex(beta.real(), beta.imag())} {}
};

/// One handle, for one queue.
struct Handle {
    cublasHandle_t handle = nullptr;
    CUcontext context = nullptr;
    std::weak_ptr<backend::Queue> queue;
    std::mutex mutex;  // one call at a time
};

/// Makes `context` current for a scope, restoring the previous one after.
struct Current {
    const CublasFunctions& f;
    CUcontext previous = nullptr;
    Current(const CublasFunctions& fn, CUcontext context) : f(fn) {
        check_cuda(f.CtxGetCurrent(&previous), "cuCtxGetCurrent");
        if (previous != context) check_cuda(f.CtxSetCurrent(context), "cuCtxSetCurrent");
    }
    ~Current() { static_cast<void>(f.CtxSetCurrent(previous)); }
    Current(const Current&) = delete;
    Current& operator=(const Current&) = delete;
};

/// The handles of one context's queues (a service of the context's state: destroyed before the
/// backend context, which therefore still exists when the handles go).
class ContextHandles {
public:
    ContextHandles() = default;
    ContextHandles(const ContextHandles&) = delete;
    ContextHandles& operator=(const ContextHandles&) = delete;
    ~ContextHandles() {
        for (auto& [queue, handle] : handles_) destroy(*handle);
    }

    /// The handle of `queue`, made on first use with the functions `f`.
    std::shared_ptr<Handle> handle_for(const CublasFunctions& f, const Queue& queue) {
        const std::lock_guard lock(mutex_);
        f_ = &f;
        const backend::Queue* key = kjarni::detail::backend_of(queue).get();
        auto found = handles_.find(key);
        if (found != handles_.end() && !found->second->queue.expired()) return found->second;
        // A new queue (or a new one at a dead one's address): first drop the handles of dead queues.
        for (auto it = handles_.begin(); it != handles_.end();) {
            if (!it->second->queue.expired()) {
                ++it;
                continue;
            }
            destroy(*it->second);
            it = handles_.erase(it);
        }
        auto handle = std::make_shared<Handle>();
        handle->context = reinterpret_cast<CUcontext>(queue.device().context().native_handle(queue.device().index()));
        handle->queue = kjarni::detail::backend_of(queue);
        {
            const Current current(f, handle->context);
            check(f.Create(&handle->handle), "cublasCreate_v2");
            handles_[key] = handle;  // from here on destroyed with the others
            check(f.SetStream(handle->handle, reinterpret_cast<cudaStream_t>(queue.native_handle())),
                  "cublasSetStream_v2");
            check(f.SetPointerMode(handle->handle, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode_v2");
        }
        return handle;
    }

private:
    void destroy(Handle& handle) noexcept {
        if (f_ == nullptr || handle.handle == nullptr) return;
        try {
            const Current current(*f_, handle.context);
            static_cast<void>(f_->Destroy(handle.handle));
        } catch (const Error&) {
        }
        handle.handle = nullptr;
    }

    const CublasFunctions* f_ = nullptr;
    std::mutex mutex_;
    std::map<const backend::Queue*, std::shared_ptr<Handle>> handles_;
};

class Cublas final : public Vendor {
public:
    Cublas(CublasFunctions f, std::string library) : f_(f), library_(std::move(library)) {}

    void gemm(const Queue& queue, DType::Kind kind, Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k,
              Scalar alpha, const Matrix& a, const Matrix& b, Scalar beta, const Matrix& c) override {
        const Scalars s(alpha, beta);
        const auto ta = operation_of(op_a);
        const auto tb = operation_of(op_b);
        const int im = to_int(m, "m"), in = to_int(n, "n"), ik = to_int(k, "k");
        const int lda = to_int(a.ld, "lda"), ldb = to_int(b.ld, "ldb"), ldc = to_int(c.ld, "ldc");
        call(queue, [&](cublasHandle_t h) {
            switch (kind) {
            case DType::Kind::float32:
                check(f_.Sgemm(h, ta, tb, im, in, ik, &s.f[0], static_cast<const float*>(pointer(a.memory)), lda,
                               static_cast<const float*>(pointer(b.memory)), ldb, &s.f[1],
                               static_cast<float*>(pointer(c.memory)), ldc),
                      "cublasSgemm_v2");
                break;
            case DType::Kind::float64:
                check(f_.Dgemm(h, ta, tb, im, in, ik, &s.d[0], static_cast<const double*>(pointer(a.memory)), lda,
                               static_cast<const double*>(pointer(b.memory)), ldb, &s.d[1],
                               static_cast<double*>(pointer(c.memory)), ldc),
                      "cublasDgemm_v2");
                break;
            case DType::Kind::complex64:
                check(f_.Cgemm(h, ta, tb, im, in, ik, &s.c[0], static_cast<const cuComplex*>(pointer(a.memory)), lda,
                               static_cast<const cuComplex*>(pointer(b.memory)), ldb, &s.c[1],
                               static_cast<cuComplex*>(pointer(c.memory)), ldc),
                      "cublasCgemm_v2");
                break;
            case DType::Kind::complex128:
                check(f_.Zgemm(h, ta, tb, im, in, ik, &s.z[0], static_cast<const cuDoubleComplex*>(pointer(a.memory)),
                               lda, static_cast<const cuDoubleComplex*>(pointer(b.memory)), ldb, &s.z[1],
                               static_cast<cuDoubleComplex*>(pointer(c.memory)), ldc),
                      "cublasZgemm_v2");
                break;
            default:
                check(f_.GemmEx(h, ta, tb, im, in, ik, &s.f[0], pointer(a.memory), CUDA_R_16F, lda, pointer(b.memory),
                                CUDA_R_16F, ldb, &s.f[1], pointer(c.memory), CUDA_R_16F, ldc, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT),
                      "cublasGemmEx");
                break;
            }
        });
    }

    void gemm_strided_batched(const Queue& queue, DType::Kind kind, Op op_a, Op op_b, std::size_t m, std::size_t n,
                              std::size_t k, Scalar alpha, const Matrix& a, std::size_t stride_a, const Matrix& b,
                              std::size_t stride_b, Scalar beta, const Matrix& c, std::size_t stride_c,
                              std::size_t batch) override {
        const Scalars s(alpha, beta);
        const auto ta = operation_of(op_a);
        const auto tb = operation_of(op_b);
        const int im = to_int(m, "m"), in = to_int(n, "n"), ik = to_int(k, "k");
        const int lda = to_int(a.ld, "lda"), ldb = to_int(b.ld, "ldb"), ldc = to_int(c.ld, "ldc");
        const int count = to_int(batch, "batch");
        const auto sa = static_cast<long long>(stride_a);
        const auto sb = static_cast<long long>(stride_b);
        const auto sc = static_cast<long long>(stride_c);
        call(queue, [&](cublasHandle_t h) {
            switch (kind) {
            case DType::Kind::float32:
                check(f_.SgemmStridedBatched(h, ta, tb, im, in, ik, &s.f[0],
                                             static_cast<const float*>(pointer(a.memory)), lda, sa,
                                             static_cast<const float*>(pointer(b.memory)), ldb, sb, &s.f[1],
                                             static_cast<float*>(pointer(c.memory)), ldc, sc, count),
                      "cublasSgemmStridedBatched");
                break;
            case DType::Kind::float64:
                check(f_.DgemmStridedBatched(h, ta, tb, im, in, ik, &s.d[0],
                                             static_cast<const double*>(pointer(a.memory)), lda, sa,
                                             static_cast<const double*>(pointer(b.memory)), ldb, sb, &s.d[1],
                                             static_cast<double*>(pointer(c.memory)), ldc, sc, count),
                      "cublasDgemmStridedBatched");
                break;
            case DType::Kind::complex64:
                check(f_.CgemmStridedBatched(h, ta, tb, im, in, ik, &s.c[0],
                                             static_cast<const cuComplex*>(pointer(a.memory)), lda, sa,
                                             static_cast<const cuComplex*>(pointer(b.memory)), ldb, sb, &s.c[1],
                                             static_cast<cuComplex*>(pointer(c.memory)), ldc, sc, count),
                      "cublasCgemmStridedBatched");
                break;
            case DType::Kind::complex128:
                check(f_.ZgemmStridedBatched(h, ta, tb, im, in, ik, &s.z[0],
                                             static_cast<const cuDoubleComplex*>(pointer(a.memory)), lda, sa,
                                             static_cast<const cuDoubleComplex*>(pointer(b.memory)), ldb, sb, &s.z[1],
                                             static_cast<cuDoubleComplex*>(pointer(c.memory)), ldc, sc, count),
                      "cublasZgemmStridedBatched");
                break;
            default:
                check(f_.GemmStridedBatchedEx(h, ta, tb, im, in, ik, &s.f[0], pointer(a.memory), CUDA_R_16F, lda, sa,
                                              pointer(b.memory), CUDA_R_16F, ldb, sb, &s.f[1], pointer(c.memory),
                                              CUDA_R_16F, ldc, sc, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                      "cublasGemmStridedBatchedEx");
                break;
            }
        });
    }

    void gemv(const Queue& queue, DType::Kind kind, Op op_a, std::size_t m, std::size_t n, Scalar alpha,
              const Matrix& a, const Vector& x, Scalar beta, const Vector& y) override {
        if (kind == DType::Kind::float16) throw UnsupportedError("cuBLAS has no float16 gemv");
        const Scalars s(alpha, beta);
        const auto ta = operation_of(op_a);
        const int im = to_int(m, "m"), in = to_int(n, "n"), lda = to_int(a.ld, "lda");
        const int incx = to_int(x.inc, "incx"), incy = to_int(y.inc, "incy");
        call(queue, [&](cublasHandle_t h) {
            switch (kind) {
            case DType::Kind::float32:
                check(f_.Sgemv(h, ta, im, in, &s.f[0], static_cast<const float*>(pointer(a.memory)), lda,
                               static_cast<const float*>(pointer(x.memory)), incx, &s.f[1],
                               static_cast<float*>(pointer(y.memory)), incy),
                      "cublasSgemv_v2");
                break;
            case DType::Kind::float64:
                check(f_.Dgemv(h, ta, im, in, &s.d[0], static_cast<const double*>(pointer(a.memory)), lda,
                               static_cast<const double*>(pointer(x.memory)), incx, &s.d[1],
                               static_cast<double*>(pointer(y.memory)), incy),
                      "cublasDgemv_v2");
                break;
            case DType::Kind::complex64:
                check(f_.Cgemv(h, ta, im, in, &s.c[0], static_cast<const cuComplex*>(pointer(a.memory)), lda,
                               static_cast<const cuComplex*>(pointer(x.memory)), incx, &s.c[1],
                               static_cast<cuComplex*>(pointer(y.memory)), incy),
                      "cublasCgemv_v2");
                break;
            default:
                check(f_.Zgemv(h, ta, im, in, &s.z[0], static_cast<const cuDoubleComplex*>(pointer(a.memory)), lda,
                               static_cast<const cuDoubleComplex*>(pointer(x.memory)), incx, &s.z[1],
                               static_cast<cuDoubleComplex*>(pointer(y.memory)), incy),
                      "cublasZgemv_v2");
                break;
            }
        });
    }

    void ger(const Queue& queue, DType::Kind kind, std::size_t m, std::size_t n, Scalar alpha, const Vector& x,
             const Vector& y, const Matrix& a) override {
        if (kind == DType::Kind::float16) throw UnsupportedError("cuBLAS has no float16 ger");
        const Scalars s(alpha, 0.0);
        const int im = to_int(m, "m"), in = to_int(n, "n"), lda = to_int(a.ld, "lda");
        const int incx = to_int(x.inc, "incx"), incy = to_int(y.inc, "incy");
        call(queue, [&](cublasHandle_t h) {
            switch (kind) {
            case DType::Kind::float32:
                check(f_.Sger(h, im, in, &s.f[0], static_cast<const float*>(pointer(x.memory)), incx,
                              static_cast<const float*>(pointer(y.memory)), incy,
                              static_cast<float*>(pointer(a.memory)), lda),
                      "cublasSger_v2");
                break;
            case DType::Kind::float64:
                check(f_.Dger(h, im, in, &s.d[0], static_cast<const double*>(pointer(x.memory)), incx,
                              static_cast<const double*>(pointer(y.memory)), incy,
                              static_cast<double*>(pointer(a.memory)), lda),
                      "cublasDger_v2");
                break;
            case DType::Kind::complex64:
                check(f_.Cgeru(h, im, in, &s.c[0], static_cast<const cuComplex*>(pointer(x.memory)), incx,
                               static_cast<const cuComplex*>(pointer(y.memory)), incy,
                               static_cast<cuComplex*>(pointer(a.memory)), lda),
                      "cublasCgeru_v2");
                break;
            default:
                check(f_.Zgeru(h, im, in, &s.z[0], static_cast<const cuDoubleComplex*>(pointer(x.memory)), incx,
                               static_cast<const cuDoubleComplex*>(pointer(y.memory)), incy,
                               static_cast<cuDoubleComplex*>(pointer(a.memory)), lda),
                      "cublasZgeru_v2");
                break;
            }
        });
    }

    void dot(const Queue& queue, DType::Kind kind, bool conjugate_x, std::size_t n, const Vector& x, const Vector& y,
             const Memory& result) override {
        const int in = to_int(n, "n"), incx = to_int(x.inc, "incx"), incy = to_int(y.inc, "incy");
        call(queue, [&](cublasHandle_t h) {
            // The result stays on the device: pointer mode device for this call only, so that the
            // call returns without waiting.
            check(f_.SetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode_v2");
            struct Restore {
                const CublasFunctions& f;
                cublasHandle_t h;
                ~Restore() { static_cast<void>(f.SetPointerMode(h, CUBLAS_POINTER_MODE_HOST)); }
            } restore{f_, h};
            const void* px = pointer(x.memory);
            const void* py = pointer(y.memory);
            void* pr = pointer(result);
            switch (kind) {
            case DType::Kind::float32:
                check(f_.Sdot(h, in, static_cast<const float*>(px), incx, static_cast<const float*>(py), incy,
                              static_cast<float*>(pr)),
                      "cublasSdot_v2");
                break;
            case DType::Kind::float64:
                check(f_.Ddot(h, in, static_cast<const double*>(px), incx, static_cast<const double*>(py), incy,
                              static_cast<double*>(pr)),
                      "cublasDdot_v2");
                break;
            case DType::Kind::complex64:
                check((conjugate_x ? f_.Cdotc : f_.Cdotu)(h, in, static_cast<const cuComplex*>(px), incx,
                                                          static_cast<const cuComplex*>(py), incy,
                                                          static_cast<cuComplex*>(pr)),
                      conjugate_x ? "cublasCdotc_v2" : "cublasCdotu_v2");
                break;
            case DType::Kind::complex128:
                check((conjugate_x ? f_.Zdotc : f_.Zdotu)(h, in, static_cast<const cuDoubleComplex*>(px), incx,
                                                          static_cast<const cuDoubleComplex*>(py), incy,
                                                          static_cast<cuDoubleComplex*>(pr)),
                      conjugate_x ? "cublasZdotc_v2" : "cublasZdotu_v2");
                break;
            default:
                // float16 data, accumulated in float32.
                check(f_.DotEx(h, in, px, CUDA_R_16F, incx, py, CUDA_R_16F, incy, pr, CUDA_R_16F, CUDA_R_32F),
                      "cublasDotEx");
                break;
            }
        });
    }

private:
    /// Runs `body` with the queue's handle, its context current, one call per handle at a time.
    template <class Body>
    void call(const Queue& queue, Body&& body) {
        const std::shared_ptr<Handle> handle =
            kjarni::detail::state_of(queue.device().context()).service<ContextHandles>().handle_for(f_, queue);
        const std::lock_guard lock(handle->mutex);
        const Current current(f_, handle->context);
        body(handle->handle);
    }

    CublasFunctions f_;
    std::string library_;
};

}  // namespace

Vendor& cublas_vendor() {
    static std::string failure;
    static Cublas* const instance = []() -> Cublas* {
        std::string error;
        const auto library = backend::DynamicLibrary::open({"libcublas.so.13", "libcublas.so.12"}, error);
        if (!library) {
            failure = "cuBLAS (libcublas.so.13 or libcublas.so.12) is not available: " + error;
            return nullptr;
        }
        std::string cuda_error;
        const auto cuda = backend::DynamicLibrary::open({"libcuda.so.1"}, cuda_error);
        if (!cuda) {
            failure = "cuBLAS: libcuda.so.1 is not available: " + cuda_error;
            return nullptr;
        }
        CublasFunctions f;
        std::string missing;
#define KJARNI_LOAD(member, symbol) \
    if (!library->load(f.member, #symbol)) missing += " " #symbol;
        KJARNI_CUBLAS_FUNCTIONS(KJARNI_LOAD)
#undef KJARNI_LOAD
        if (!library->load(f.GemmEx, "cublasGemmEx")) missing += " cublasGemmEx";
        if (!library->load(f.GemmStridedBatchedEx, "cublasGemmStridedBatchedEx"))
            missing += " cublasGemmStridedBatchedEx";
        if (!cuda->load(f.CtxGetCurrent, "cuCtxGetCurrent")) missing += " cuCtxGetCurrent";
        if (!cuda->load(f.CtxSetCurrent, "cuCtxSetCurrent")) missing += " cuCtxSetCurrent";
        if (!missing.empty()) {
            failure = "cuBLAS: " + library->name() + " lacks" + missing;
            return nullptr;
        }
        return new Cublas(f, library->name());  // lives for the process, like the library
    }();
    if (instance == nullptr) throw UnsupportedError(failure);
    return *instance;
}

}  // namespace kjarni::blas::detail

#else  // without CUDA headers the CUDA backend does not exist, and neither does its BLAS

#include "kjarni/error.hpp"

namespace kjarni::blas::detail {
Vendor& cublas_vendor() { throw UnsupportedError("cuBLAS: kjarni was built without CUDA"); }
}  // namespace kjarni::blas::detail

#endif
