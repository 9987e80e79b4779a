// The OpenCL BLAS: CLBlast's C API (libclblast.so.1), loaded at run time. Operands are the
// allocation's cl_mem plus an element offset, so views (sub-buffers included) need no sub-buffer
// of their own. Calls go on the queue's cl_command_queue and return once enqueued.

#include "vendor/blas_vendor.hpp"

#if __has_include(<clblast_c.h>)

#include <clblast_c.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "backend/dynamic_library.hpp"
#include "dtype/half.hpp"
#include "kjarni/error.hpp"
#include "vendor/clblast_tuning.hpp"

namespace kjarni::blas::detail {

namespace {

// clang-format off
#define KJARNI_CLBLAST_FUNCTIONS(X)                                                                      \
    X(Sgemm) X(Dgemm) X(Cgemm) X(Zgemm) X(Hgemm)                                                         \
    X(SgemmStridedBatched) X(DgemmStridedBatched) X(CgemmStridedBatched) X(ZgemmStridedBatched)          \
    X(HgemmStridedBatched)                                                                               \
    X(Sgemv) X(Dgemv) X(Cgemv) X(Zgemv) X(Hgemv)                                                         \
    X(Sger) X(Dger) X(Cgeru) X(Zgeru) X(Hger)                                                            \
    X(Sdot) X(Ddot) X(Cdotu) X(Zdotu) X(Cdotc) X(Zdotc) X(Hdot)                                          \
    X(OverrideParameters)
// clang-format on

struct ClblastFunctions {
#define KJARNI_DECLARE(name) decltype(&CLBlast##name) name = nullptr;
    KJARNI_CLBLAST_FUNCTIONS(KJARNI_DECLARE)
#undef KJARNI_DECLARE
};

const char* status_name(CLBlastStatusCode status) {
    switch (status) {
    case CLBlastTempBufferAllocFailure: return "CLBlastTempBufferAllocFailure";
    case CLBlastOpenCLOutOfResources: return "CLBlastOpenCLOutOfResources";
    case CLBlastOpenCLOutOfHostMemory: return "CLBlastOpenCLOutOfHostMemory";
    case CLBlastOpenCLBuildProgramFailure: return "CLBlastOpenCLBuildProgramFailure";
    case CLBlastInvalidValue: return "CLBlastInvalidValue";
    case CLBlastInvalidCommandQueue: return "CLBlastInvalidCommandQueue";
    case CLBlastInvalidMemObject: return "CLBlastInvalidMemObject";
    case CLBlastNotImplemented: return "CLBlastNotImplemented";
    case CLBlastInvalidDimension: return "CLBlastInvalidDimension";
    case CLBlastInvalidLeadDimA: return "CLBlastInvalidLeadDimA";
    case CLBlastInvalidLeadDimB: return "CLBlastInvalidLeadDimB";
    case CLBlastInvalidLeadDimC: return "CLBlastInvalidLeadDimC";
    case CLBlastInsufficientMemoryA: return "CLBlastInsufficientMemoryA";
    case CLBlastInsufficientMemoryB: return "CLBlastInsufficientMemoryB";
    case CLBlastInsufficientMemoryC: return "CLBlastInsufficientMemoryC";
    case CLBlastInsufficientMemoryX: return "CLBlastInsufficientMemoryX";
    case CLBlastInsufficientMemoryY: return "CLBlastInsufficientMemoryY";
    case CLBlastInvalidLocalMemUsage: return "CLBlastInvalidLocalMemUsage";
    case CLBlastNoHalfPrecision: return "CLBlastNoHalfPrecision";
    case CLBlastNoDoublePrecision: return "CLBlastNoDoublePrecision";
    case CLBlastInvalidOverrideKernel: return "CLBlastInvalidOverrideKernel";
    case CLBlastMissingOverrideParameter: return "CLBlastMissingOverrideParameter";
    case CLBlastDatabaseError: return "CLBlastDatabaseError";
    default: return "CLBlast status";
    }
}

void check(CLBlastStatusCode status, const char* call) {
    if (status == CLBlastSuccess) return;
    if (status == CLBlastNoHalfPrecision || status == CLBlastNoDoublePrecision)
        throw UnsupportedError(fmt::format("CLBlast{}: the device has no {} precision", call,
                                           status == CLBlastNoHalfPrecision ? "half" : "double"));
    if (status == CLBlastTempBufferAllocFailure || status == CLBlastOpenCLOutOfResources ||
        status == CLBlastOpenCLOutOfHostMemory)
        throw OutOfMemoryError("CLBlast", std::string("CLBlast") + call, status, status_name(status));
    throw BackendError("CLBlast", std::string("CLBlast") + call, status, status_name(status));
}

template <class Fn>
Fn require(Fn fn, const char* name) {
    if (fn == nullptr) throw UnsupportedError(std::string("CLBlast: this libclblast.so.1 has no CLBlast") + name);
    return fn;
}

CLBlastTranspose transpose_of(Op op) {
    switch (op) {
    case Op::none: return CLBlastTransposeNo;
    case Op::transpose: return CLBlastTransposeYes;
    case Op::adjoint: return CLBlastTransposeConjugate;
    }
    return CLBlastTransposeNo;
}

cl_mem mem(const Memory& m) { return reinterpret_cast<cl_mem>(m.handle); }
std::size_t elements(const Memory& m, std::size_t itemsize) { return m.offset / itemsize; }

cl_float2 to_cfloat(Scalar s) {
    cl_float2 v;
    v.s[0] = static_cast<float>(s.real());
    v.s[1] = static_cast<float>(s.imag());
    return v;
}
cl_double2 to_cdouble(Scalar s) {
    cl_double2 v;
    v.s[0] = s.real();
    v.s[1] = s.imag();
    return v;
}
cl_half to_half(Scalar s) { return kjarni::detail::float_to_half(static_cast<float>(s.real())); }

class Clblast final : public Vendor {
public:
    explicit Clblast(ClblastFunctions f) : f_(f) {}

    void gemm(const Queue& queue, DType::Kind kind, Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k,
              Scalar alpha, const Matrix& a, const Matrix& b, Scalar beta, const Matrix& c) override {
        const std::size_t e = DType(kind).itemsize();
        cl_command_queue q = prepare(queue);
        const auto ta = transpose_of(op_a);
        const auto tb = transpose_of(op_b);
        const auto col = CLBlastLayoutColMajor;
#define KJARNI_ARGS(alpha_v, beta_v)                                                                                 \
    col, ta, tb, m, n, k, alpha_v, mem(a.memory), elements(a.memory, e), a.ld, mem(b.memory), elements(b.memory, e), \
        b.ld, beta_v, mem(c.memory), elements(c.memory, e), c.ld, &q, nullptr
        switch (kind) {
        case DType::Kind::float32:
            check(f_.Sgemm(KJARNI_ARGS(static_cast<float>(alpha.real()), static_cast<float>(beta.real()))), "Sgemm");
            break;
        case DType::Kind::float64: check(f_.Dgemm(KJARNI_ARGS(alpha.real(), beta.real())), "Dgemm"); break;
        case DType::Kind::complex64: check(f_.Cgemm(KJARNI_ARGS(to_cfloat(alpha), to_cfloat(beta))), "Cgemm"); break;
        case DType::Kind::complex128: check(f_.Zgemm(KJARNI_ARGS(to_cdouble(alpha), to_cdouble(beta))), "Zgemm"); break;
        default: check(require(f_.Hgemm, "Hgemm")(KJARNI_ARGS(to_half(alpha), to_half(beta))), "Hgemm"); break;
        }
#undef KJARNI_ARGS
    }

    void gemm_strided_batched(const Queue& queue, DType::Kind kind, Op op_a, Op op_b, std::size_t m, std::size_t n,
                              std::size_t k, Scalar alpha, const Matrix& a, std::size_t stride_a, const Matrix& b,
                              std::size_t stride_b, Scalar beta, const Matrix& c, std::size_t stride_c,
                              std::size_t batch) override {
        const std::size_t e = DType(kind).itemsize();
        cl_command_queue q = prepare(queue);
        const auto ta = transpose_of(op_a);
        const auto tb = transpose_of(op_b);
        const auto col = CLBlastLayoutColMajor;
#define KJARNI_ARGS(alpha_v, beta_v)                                                                                \
    col, ta, tb, m, n, k, alpha_v, mem(a.memory), elements(a.memory, e), a.ld, stride_a, mem(b.memory),             \
        elements(b.memory, e), b.ld, stride_b, beta_v, mem(c.memory), elements(c.memory, e), c.ld, stride_c, batch, \
        &q, nullptr
        switch (kind) {
        case DType::Kind::float32:
            check(require(f_.SgemmStridedBatched, "SgemmStridedBatched")(
                      KJARNI_ARGS(static_cast<float>(alpha.real()), static_cast<float>(beta.real()))),
                  "SgemmStridedBatched");
            break;
        case DType::Kind::float64:
            check(require(f_.DgemmStridedBatched, "DgemmStridedBatched")(KJARNI_ARGS(alpha.real(), beta.real())),
                  "DgemmStridedBatched");
            break;
        case DType::Kind::complex64:
            check(require(f_.CgemmStridedBatched,
                          "CgemmStridedBatched")(KJARNI_ARGS(to_cfloat(alpha), to_cfloat(beta))),
                  "CgemmStridedBatched");
            break;
        case DType::Kind::complex128:
            check(require(f_.ZgemmStridedBatched,
                          "ZgemmStridedBatched")(KJARNI_ARGS(to_cdouble(alpha), to_cdouble(beta))),
                  "ZgemmStridedBatched");
            break;
        default:
            check(require(f_.HgemmStridedBatched, "HgemmStridedBatched")(KJARNI_ARGS(to_half(alpha), to_half(beta))),
                  "HgemmStridedBatched");
            break;
        }
#undef KJARNI_ARGS
    }

    void gemv(const Queue& queue, DType::Kind kind, Op op_a, std::size_t m, std::size_t n, Scalar alpha,
              const Matrix& a, const Vector& x, Scalar beta, const Vector& y) override {
        const std::size_t e = DType(kind).itemsize();
        cl_command_queue q = prepare(queue);
        const auto ta = transpose_of(op_a);
        const auto col = CLBlastLayoutColMajor;
#define KJARNI_ARGS(alpha_v, beta_v)                                                                                 \
    col, ta, m, n, alpha_v, mem(a.memory), elements(a.memory, e), a.ld, mem(x.memory), elements(x.memory, e), x.inc, \
        beta_v, mem(y.memory), elements(y.memory, e), y.inc, &q, nullptr
        switch (kind) {
        case DType::Kind::float32:
            check(f_.Sgemv(KJARNI_ARGS(static_cast<float>(alpha.real()), static_cast<float>(beta.real()))), "Sgemv");
            break;
        case DType::Kind::float64: check(f_.Dgemv(KJARNI_ARGS(alpha.real(), beta.real())), "Dgemv"); break;
        case DType::Kind::complex64: check(f_.Cgemv(KJARNI_ARGS(to_cfloat(alpha), to_cfloat(beta))), "Cgemv"); break;
        case DType::Kind::complex128: check(f_.Zgemv(KJARNI_ARGS(to_cdouble(alpha), to_cdouble(beta))), "Zgemv"); break;
        default: check(require(f_.Hgemv, "Hgemv")(KJARNI_ARGS(to_half(alpha), to_half(beta))), "Hgemv"); break;
        }
#undef KJARNI_ARGS
    }

    void ger(const Queue& queue, DType::Kind kind, std::size_t m, std::size_t n, Scalar alpha, const Vector& x,
             const Vector& y, const Matrix& a) override {
        const std::size_t e = DType(kind).itemsize();
        cl_command_queue q = prepare(queue);
        const auto col = CLBlastLayoutColMajor;
#define KJARNI_ARGS(alpha_v)                                                                                      \
    col, m, n, alpha_v, mem(x.memory), elements(x.memory, e), x.inc, mem(y.memory), elements(y.memory, e), y.inc, \
        mem(a.memory), elements(a.memory, e), a.ld, &q, nullptr
        switch (kind) {
        case DType::Kind::float32: check(f_.Sger(KJARNI_ARGS(static_cast<float>(alpha.real()))), "Sger"); break;
        case DType::Kind::float64: check(f_.Dger(KJARNI_ARGS(alpha.real())), "Dger"); break;
        case DType::Kind::complex64: check(f_.Cgeru(KJARNI_ARGS(to_cfloat(alpha))), "Cgeru"); break;
        case DType::Kind::complex128: check(f_.Zgeru(KJARNI_ARGS(to_cdouble(alpha))), "Zgeru"); break;
        default: check(require(f_.Hger, "Hger")(KJARNI_ARGS(to_half(alpha))), "Hger"); break;
        }
#undef KJARNI_ARGS
    }

    void dot(const Queue& queue, DType::Kind kind, bool conjugate_x, std::size_t n, const Vector& x, const Vector& y,
             const Memory& result) override {
        const std::size_t e = DType(kind).itemsize();
        cl_command_queue q = prepare(queue);
#define KJARNI_ARGS                                                                                  \
    n, mem(result), elements(result, e), mem(x.memory), elements(x.memory, e), x.inc, mem(y.memory), \
        elements(y.memory, e), y.inc, &q, nullptr
        switch (kind) {
        case DType::Kind::float32: check(f_.Sdot(KJARNI_ARGS), "Sdot"); break;
        case DType::Kind::float64: check(f_.Ddot(KJARNI_ARGS), "Ddot"); break;
        case DType::Kind::complex64:
            if (conjugate_x) check(f_.Cdotc(KJARNI_ARGS), "Cdotc");
            else check(f_.Cdotu(KJARNI_ARGS), "Cdotu");
            break;
        case DType::Kind::complex128:
            if (conjugate_x) check(f_.Zdotc(KJARNI_ARGS), "Zdotc");
            else check(f_.Zdotu(KJARNI_ARGS), "Zdotu");
            break;
        default: check(require(f_.Hdot, "Hdot")(KJARNI_ARGS), "Hdot"); break;
        }
#undef KJARNI_ARGS
    }

private:
    /// The queue's cl_command_queue, after loading the tuned parameters for its device (once).
    cl_command_queue prepare(const Queue& queue) {
        const auto device = static_cast<std::uintptr_t>(queue.device().device().native_handle());
        apply_tuned_parameters_once(
            device, queue.device().name(), queue.device().device().properties().driver_version,
            [&](const TunedKernel& kernel) {
                std::vector<const char*> names;
                std::vector<std::size_t> values;
                for (const auto& [name, value] : kernel.parameters) {
                    names.push_back(name.c_str());
                    values.push_back(value);
                }
                const CLBlastStatusCode status =
                    require(f_.OverrideParameters,
                            "OverrideParameters")(reinterpret_cast<cl_device_id>(device),
                                                  kernel.kernel.c_str(),  // NOLINT: native handle
                                                  static_cast<CLBlastPrecision>(kernel.precision), names.size(),
                                                  names.data(), values.data());
                if (status != CLBlastSuccess)
                    throw BackendError("CLBlast", "CLBlastOverrideParameters", status, status_name(status),
                                       fmt::format("tuned parameters of {} (precision {}) for {}", kernel.kernel,
                                                   kernel.precision, queue.device().name()));
            });
        return reinterpret_cast<cl_command_queue>(queue.native_handle());
    }

    ClblastFunctions f_;
};

}  // namespace

Vendor& clblast_vendor() {
    static std::string failure;
    static Clblast* const instance = []() -> Clblast* {
        std::string error;
        const auto library = backend::DynamicLibrary::open({"libclblast.so.1", "libclblast.so"}, error);
        if (!library) {
            failure = "CLBlast (libclblast.so.1) is not available: " + error;
            return nullptr;
        }
        ClblastFunctions f;
#define KJARNI_LOAD(name) library->load(f.name, "CLBlast" #name);
        KJARNI_CLBLAST_FUNCTIONS(KJARNI_LOAD)
#undef KJARNI_LOAD
        // The routines every version has; the H and batched ones are checked where used.
        if (f.Sgemm == nullptr || f.Sgemv == nullptr || f.Sdot == nullptr || f.Sger == nullptr) {
            failure = "CLBlast: " + library->name() + " lacks the basic routines (CLBlastSgemm, ...)";
            return nullptr;
        }
        return new Clblast(f);  // lives for the process, like the library (never unloaded)
    }();
    if (instance == nullptr) throw UnsupportedError(failure);
    return *instance;
}

}  // namespace kjarni::blas::detail

#else  // built without CLBlast's header (libclblast-dev)

#include "kjarni/error.hpp"

namespace kjarni::blas::detail {
Vendor& clblast_vendor() { throw UnsupportedError("CLBlast: kjarni was built without clblast_c.h (libclblast-dev)"); }
}  // namespace kjarni::blas::detail

#endif
