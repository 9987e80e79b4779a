#include "algorithms/reduction_nan_support.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail {

const ReductionSpec& cached_spec(const std::string& key, const std::function<ReductionSpec()>& make) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<const ReductionSpec>> specs;
    const std::lock_guard lock(mutex);
    auto& slot = specs[key];
    if (!slot) {
        ReductionSpec made = make();
        made.identity = "spec " + key;
        slot = std::make_unique<const ReductionSpec>(std::move(made));
    }
    return *slot;
}

ReductionSpec one_array_spec(const std::string& what, const DType& dtype) {
    if (dtype.is_struct()) throw ArgumentError("array", fmt::format("{}: struct arrays cannot be reduced", what));
    ReductionSpec spec;
    spec.what = what;
    spec.arguments = {CArgument{"x", dtype, true, true, c_type_name(dtype)}};
    return spec;
}

std::string element_as(const DType& dtype, const DType& to) {
    return convert_value(load_value("x[i]", dtype), dtype, to);
}

std::string nan_test(const std::string& v, const DType& dtype) {
    if (is_complex(dtype)) return fmt::format("(isnan(({0}).x) || isnan(({0}).y))", v);
    if (is_real(dtype)) return fmt::format("isnan({})", v);
    return "false";
}

std::string nan_functions() {
    return R"(#ifdef KJARNI_CUDA_API
FUNCTION INLINE float kj_nan_f() { return __int_as_float(0x7fc00000); }
FUNCTION INLINE double kj_nan_d() { return __longlong_as_double(0x7ff8000000000000LL); }
#else
FUNCTION INLINE float kj_nan_f() { return as_float(0x7fc00000u); }
#ifdef cl_khr_fp64
FUNCTION INLINE double kj_nan_d() { return as_double(0x7ff8000000000000UL); }
#endif
#endif
)";
}

std::string nan_literal(const DType& dtype) {
    // Built from the bits: OpenCL's NAN macro is missing through CUDA, and 0.0 / 0.0 may be folded
    // to a signalling or negative NaN.
    const bool wide = dtype.kind() == DType::Kind::float64 || dtype.kind() == DType::Kind::complex128;
    const std::string real = wide ? "kj_nan_d()" : "kj_nan_f()";
    if (is_complex(dtype)) return fmt::format("{}({}, {})", complex_ctr(dtype), real, real);
    return real;
}

}  // namespace kjarni::detail
