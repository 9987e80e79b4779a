// numpy's var, std, nanvar, nanstd and nanmean, each ONE reduction. var accumulates (count,
// mean, sum of squared deviations) and merges two partial results by Chan, Golub and LeVeque's
// update (mean_ab = mean_a + d * n_b / n, M2_ab = M2_a + M2_b + d^2 * n_a * n_b / n with
// d = mean_b - mean_a): numerically as sound as a two-pass computation (no E[x^2] - E[x]^2
// cancellation), and one read of the data. complex values: the mean is complex, M2 sums |d|^2.

#include <fmt/format.h>

#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/reduction_nan_support.hpp"
#include "algorithms/reduction_source.hpp"
#include "kjarni/error.hpp"
#include "kjarni/reduction.hpp"

namespace kjarni {

using detail::ReductionSpec;
using Kind = DType::Kind;

namespace {

bool holds_nan(const DType& d) { return is_real(d) || is_complex(d); }

/// The dtype var computes in: `dtype` when given (a float or complex type), float64 for integers
/// and bool, else the array's.
DType moments_dtype(const DType& input, const std::optional<DType>& dtype, const char* what) {
    if (!dtype) return holds_nan(input) ? input : DType(Kind::float64);
    if (!holds_nan(*dtype) || (is_complex(input) && !is_complex(*dtype)))
        throw ArgumentError("dtype", fmt::format("{}: cannot compute a {} array in {} (a float or complex dtype, "
                                                 "complex for complex arrays)",
                                                 what, input.name(), dtype->name()));
    return *dtype;
}

std::string ddof_literal(double v, const DType& real) {
    return real.kind() == Kind::float64 ? fmt::format("{:.17e}", v) : fmt::format("{:.9e}f", v);
}

/// var / std / nanvar / nanstd.
Array variance(const Queue& queue, const detail::ReductionSource& source, const ReduceOptions& options, double ddof,
               const std::optional<DType>& dtype, bool root, bool skip_nan) {
    const std::string what = fmt::format("{}{}", skip_nan ? "nan" : "", root ? "std" : "var");
    const DType d = source.dtype;
    const DType computed = moments_dtype(d, dtype, what.c_str());
    const DType result = is_complex(computed) ? real_for(computed) : computed;
    const DType t = computed.kind() == Kind::float16 ? DType(Kind::float32) : computed;
    const DType r = is_complex(t) ? real_for(t) : t;
    const std::string key = fmt::format("{} {} {} {}{}", what, d.name(), computed.name(),
                                        ddof_literal(ddof, DType(Kind::float64)), source.key);
    const ReductionSpec& built = detail::cached_spec(key, [&] {
        ReductionSpec spec;
        spec.what = what;
        spec.arguments = source.arguments;
        const std::string tc = detail::compute_ctype(t);
        const std::string rc = detail::compute_ctype(r);
        std::string merge;
        if (is_complex(t)) {
            merge = fmt::format(R"(    const {0} dx = b.mean.x - a.mean.x, dy = b.mean.y - a.mean.y;
    r.mean = {1}(a.mean.x + dx * fb, a.mean.y + dy * fb);
    r.m2 = a.m2 + b.m2 + (dx * dx + dy * dy) * (({0})a.n * fb);
)",
                                rc, complex_ctr(t));
        } else {
            merge = fmt::format(R"(    const {0} dm = b.mean - a.mean;
    r.mean = a.mean + dm * fb;
    r.m2 = a.m2 + b.m2 + dm * dm * (({0})a.n * fb);
)",
                                rc);
        }
        const std::string zero = is_complex(t) ? fmt::format("{}(0, 0)", complex_ctr(t)) : fmt::format("({})0", tc);
        const std::string preamble = fmt::format(R"(typedef struct {{ {0} mean; {1} m2; int64_t n; }} kj_moments_t;
FUNCTION INLINE kj_moments_t kj_moments_of({0} mean, int64_t n) {{ kj_moments_t r; r.mean = mean; r.m2 = ({1})0; r.n = n; return r; }}
FUNCTION INLINE kj_moments_t kj_moments_merge(kj_moments_t a, kj_moments_t b)
{{
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    kj_moments_t r;
    r.n = a.n + b.n;
    const {1} fb = ({1})b.n / ({1})r.n;
{2}    return r;
}}
)",
                                                 tc, rc, merge);
        const std::string v = detail::convert_value(detail::load_value(source.element, d), d, d);
        const std::string value = detail::convert_value(v, d, t);
        const std::string map = skip_nan ? fmt::format("({} ? kj_moments_of({}, 0) : kj_moments_of({}, 1))",
                                                       detail::nan_test(v, d), zero, value)
                                         : fmt::format("kj_moments_of({}, 1)", value);
        // numpy divides by max(n - ddof, 0): 0 / 0 is NaN, x / 0 infinite.
        std::string finish = fmt::format("a.m2 / fmax(({0})a.n - {1}, ({0})0)", rc, ddof_literal(ddof, r));
        if (root) finish = fmt::format("sqrt({})", finish);
        spec.acc_ctype = "kj_moments_t";
        spec.acc_size = 32;  // at least sizeof(kj_moments_t) for every type (complex128: 32)
        spec.result = result;
        spec.code =
            source.code + detail::reduction_code(spec.arguments, preamble, fmt::format("kj_moments_of({}, 0)", zero),
                                                 "kj_moments_merge(a, b)", map, finish, result, {}, what);
        return spec;
    });
    return detail::run_reduction(queue, built, source.operands, options);
}

}  // namespace

Array var(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
          const std::optional<DType>& dtype) {
    return variance(queue, detail::array_source("var", array), options, ddof, dtype, false, false);
}
Array std(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
          const std::optional<DType>& dtype) {
    return variance(queue, detail::array_source("std", array), options, ddof, dtype, true, false);
}
Array nanvar(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
             const std::optional<DType>& dtype) {
    return variance(queue, detail::array_source("nanvar", array), options, ddof, dtype, false,
                    holds_nan(array.dtype()));
}
Array nanstd(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
             const std::optional<DType>& dtype) {
    return variance(queue, detail::array_source("nanstd", array), options, ddof, dtype, true, holds_nan(array.dtype()));
}

Array nanmean(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    const DType d = array.dtype();
    if (!holds_nan(d)) return mean(queue, array, options, dtype);
    const DType computed = moments_dtype(d, dtype, "nanmean");
    const DType t = computed.kind() == Kind::float16 ? DType(Kind::float32) : computed;
    const DType r = is_complex(t) ? real_for(t) : t;
    const ReductionSpec& built = detail::cached_spec(fmt::format("nanmean {} {}", d.name(), computed.name()), [&] {
        ReductionSpec spec = detail::one_array_spec("nanmean", d);
        const std::string tc = detail::compute_ctype(t);
        const std::string rc = detail::compute_ctype(r);
        const bool complex = is_complex(t);
        const std::string zero = complex ? fmt::format("{}(0, 0)", complex_ctr(t)) : fmt::format("({})0", tc);
        const std::string add = complex ? fmt::format("{}(a.s.x + b.s.x, a.s.y + b.s.y)", complex_ctr(t)) : "a.s + b.s";
        const std::string preamble = fmt::format(R"(typedef struct {{ {0} s; int64_t n; }} kj_nansum_t;
FUNCTION INLINE kj_nansum_t kj_nansum_of({0} s, int64_t n) {{ kj_nansum_t r; r.s = s; r.n = n; return r; }}
FUNCTION INLINE kj_nansum_t kj_nansum_add(kj_nansum_t a, kj_nansum_t b) {{ return kj_nansum_of({1}, a.n + b.n); }}
)",
                                                 tc, add);
        const std::string v = detail::element_as(d, d);
        const std::string map = fmt::format("({} ? kj_nansum_of({}, 0) : kj_nansum_of({}, 1))", detail::nan_test(v, d),
                                            zero, detail::convert_value(v, d, t));
        // numpy: the sum over the count in the sum's type; a slice of NaN only gives 0 / 0 = NaN.
        const std::string finish = complex ? fmt::format("{0}(a.s.x / ({1})a.n, a.s.y / ({1})a.n)", complex_ctr(t), rc)
                                           : fmt::format("a.s / ({})a.n", rc);
        spec.acc_ctype = "kj_nansum_t";
        spec.acc_size = 32;
        spec.result = computed;
        spec.code = detail::reduction_code(spec.arguments, preamble, fmt::format("kj_nansum_of({}, 0)", zero),
                                           "kj_nansum_add(a, b)", map, finish, computed, {}, "nanmean");
        return spec;
    });
    return detail::run_reduction(queue, built, {array}, options);
}

Array detail::reduce_variance(const Queue& queue, const ReductionSource& source, const ReduceOptions& options,
                              double ddof, const std::optional<DType>& dtype, bool root) {
    return variance(queue, source, options, ddof, dtype, root, false);
}

}  // namespace kjarni
