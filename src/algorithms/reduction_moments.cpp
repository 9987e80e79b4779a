// numpy's var, std, nanvar, nanstd and nanmean, each ONE reduction. var accumulates (count,
// mean, sum of squared deviations) and merges two partial results by Chan, Golub and LeVeque's
// update (mean_ab = mean_a + d * n_b / n, M2_ab = M2_a + M2_b + d^2 * n_a * n_b / n with
// d = mean_b - mean_a): numerically as sound as a two-pass computation (no E[x^2] - E[x]^2
// cancellation), and one read of the data. complex values: the mean is complex, M2 sums |d|^2.
// An out= of another dtype than the result's takes numpy's steps (the sum of squares cast into
// out, then divided there), a few passes more.

#include <cmath>

#include <fmt/format.h>

#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/reduction_nan_support.hpp"
#include "algorithms/reduction_out.hpp"
#include "algorithms/reduction_source.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/fusion.hpp"
#include "kjarni/reduction.hpp"

namespace kjarni {

using detail::ReductionSpec;
using Kind = DType::Kind;

namespace {

bool holds_nan(const DType& d) { return is_real(d) || is_complex(d); }

/// The dtype var, std and nanmean compute in: `dtype` when given (a float or complex type; a real
/// one of a complex array is numpy's computation on the real parts' mean), float64 for integers
/// and bool, else the array's.
DType moments_dtype(const DType& input, const std::optional<DType>& dtype, const char* what) {
    if (!dtype) return holds_nan(input) ? input : DType(Kind::float64);
    if (!holds_nan(*dtype))
        throw ArgumentError("dtype", fmt::format("{}: cannot compute a {} array in {} (a float or complex dtype)", what,
                                                 input.name(), dtype->name()));
    return *dtype;
}

std::string ddof_literal(double v, const DType& real) {
    return real.kind() == Kind::float64 ? fmt::format("{:.17e}", v) : fmt::format("{:.9e}f", v);
}

/// What a moments reduction gives: the variance, its square root, or the sum of squared deviations
/// from the mean (numpy's var before its division, for out= of another dtype).
enum class Moment { variance, deviation, squares };

/// var / std / nanvar / nanstd (the sum of squared deviations where `moment` says).
Array variance(const Queue& queue, const detail::ReductionSource& source, const ReduceOptions& options, double ddof,
               const std::optional<DType>& dtype, Moment moment, bool skip_nan) {
    const bool root = moment == Moment::deviation;
    const std::string what = fmt::format("{}{}", skip_nan ? "nan" : "", root ? "std" : "var");
    const DType d = source.dtype;
    const DType computed = moments_dtype(d, dtype, what.c_str());
    // A real dtype of a complex array: numpy's mean is the real parts', and its squared deviations
    // |x - mean|^2 are (re - mean)^2 + im^2: each element starts with im^2 as its own sum of squares.
    const bool real_of_complex = is_complex(d) && !is_complex(computed);
    // numpy sums the squared deviations in `dtype` (umr_sum(..., dtype=dtype)): a complex dtype
    // makes the result that complex type (imaginary part 0), for real and complex arrays alike.
    const bool complex_result = dtype && is_complex(*dtype) && moment != Moment::squares;
    const DType result = complex_result || !is_complex(computed) ? computed : real_for(computed);
    const DType t = computed.kind() == Kind::float16 ? DType(Kind::float32) : computed;
    const DType r = is_complex(t) ? real_for(t) : t;
    const bool squares = moment == Moment::squares;
    const std::string key =
        fmt::format("{}{} {} {}{} {}{}", what, squares ? " squares" : "", d.name(), computed.name(),
                    complex_result ? " complex-result" : "", ddof_literal(ddof, DType(Kind::float64)), source.key);
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
        // numpy's var of a slice holding an infinity or a NaN is NaN (its x - mean meets inf - inf
        // or a NaN), even of one element (var([inf]) and var([nan])): such a value starts with a NaN
        // sum of squares, which every merge carries (the merges' means alone would give inf, or 0
        // for one element).
        const std::string finite =
            is_complex(t) ? "isfinite(mean.x) && isfinite(mean.y)" : std::string("isfinite(mean)");
        const std::string preamble = fmt::format(R"(typedef struct {{ {0} mean; {1} m2; int64_t n; }} kj_moments_t;
FUNCTION INLINE kj_moments_t kj_moments_of({0} mean, int64_t n, {1} m2)
{{
    kj_moments_t r;
    r.mean = mean;
    r.m2 = {3} ? m2 : {4};
    r.n = n;
    return r;
}}
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
                                                 tc, rc, merge, finite, detail::nan_literal(r));
        const std::string v = detail::convert_value(detail::load_value(source.element, d), d, d);
        const std::string value = detail::convert_value(v, d, t);
        const std::string own_squares =
            real_of_complex ? fmt::format("(({0})({1}).y * ({0})({1}).y)", rc, v) : fmt::format("({})0", rc);
        const std::string map = skip_nan ? fmt::format("({} ? kj_moments_of({}, 0, ({})0) : kj_moments_of({}, 1, {}))",
                                                       detail::nan_test(v, d), zero, rc, value, own_squares)
                                         : fmt::format("kj_moments_of({}, 1, {})", value, own_squares);
        // numpy's var divides by max(n - ddof, 0): 0 / 0 is NaN, x / 0 infinite; its nanvar gives
        // NaN where n - ddof is not positive.
        std::string finish = fmt::format("a.m2 / fmax(({0})a.n - {1}, ({0})0)", rc, ddof_literal(ddof, r));
        if (skip_nan)
            finish = fmt::format("(({0})a.n - {1} > ({0})0 ? a.m2 / (({0})a.n - {1}) : {2})", rc, ddof_literal(ddof, r),
                                 detail::nan_literal(r));
        if (root) finish = fmt::format("sqrt({})", finish);
        if (squares) finish = "a.m2";
        if (complex_result) finish = fmt::format("{}({}, ({})0)", complex_ctr(t), finish, rc);
        spec.acc_ctype = "kj_moments_t";
        spec.acc_size = 32;  // at least sizeof(kj_moments_t) for every type (complex128: 32)
        spec.result = result;
        spec.code = source.code + detail::reduction_code(spec.arguments, detail::nan_functions() + preamble,
                                                         fmt::format("kj_moments_of({}, 0, ({})0)", zero, rc),
                                                         "kj_moments_merge(a, b)", map, finish, result, {}, what);
        return spec;
    });
    return detail::run_reduction(queue, built, source.operands, options);
}

/// numpy's last steps of var and std into an out= of another dtype: the sum of squared deviations
/// cast into out, divided there by `count` (float64), and for std out's square root in out's dtype.
const Array& divided_into_out(const Queue& queue, const Array& squares, const Array& out, const Expr& count, bool root,
                              const char* what) {
    detail::convert_into_out(queue, squares, out, what);
    fill(queue, out, Expr(out) / count);
    if (root) fill(queue, out, sqrt(Expr(out)));
    return out;
}

/// var, std, nanvar and nanstd with out= of another dtype than their result, as numpy's
/// (numpy/_core/_methods.py's _var and _std, numpy/lib/_nanfunctions_impl.py's nanvar and
/// nanstd): the sum of squared deviations from the mean (computed as the reduction computes) cast
/// into out, then out divided by max(n - ddof, 0) (nanvar: by the count of non-NaN elements less
/// ddof, NaN where that is not positive) in float64 or complex128 and cast into out again; std and
/// nanstd then take out's square root in out's dtype. Each step rounds into out: var of float64
/// into int8 wraps the sum of squares first. numpy refuses (its TypeError; ArgumentTypeError here) an integer or bool
/// out for std and nanstd (its sqrt into out), and for nanvar of float and complex arrays.
Array variance_into_out(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
                        const std::optional<DType>& dtype, bool root, bool skip_nan) {
    const char* what = skip_nan ? (root ? "nanstd" : "nanvar") : (root ? "std" : "var");
    const Array& out = *options.out;
    if (!holds_nan(out.dtype()) && (root || skip_nan))
        throw ArgumentTypeError("out", fmt::format("{}: has dtype {}; numpy writes a {} array's {} into a float or "
                                                   "complex out only",
                                                   what, out.dtype().name(), array.dtype().name(), what));
    ReduceOptions temporary = options;
    temporary.out.reset();
    const Array squares =
        variance(queue, detail::array_source(what, array), temporary, ddof, dtype, Moment::squares, skip_nan);
    if (skip_nan) {
        // numpy's nanvar: NaN where the count less ddof is not positive (where(), not a division by
        // NaN: a complex out takes NaN + 0j, as numpy's).
        detail::convert_into_out(queue, squares, out, what);
        const Expr dof = Expr(detail::count_not_nan(queue, array, options)) - scalar(ddof, DType(Kind::float64));
        fill(queue, out, where(dof > 0, Expr(out) / dof, scalar(std::nan(""), DType(Kind::float64))));
        if (root) fill(queue, out, sqrt(Expr(out)));
        return out;
    }
    // The count of elements each output reduces (a whole number: out has the kept extents).
    const double n = out.size() == 0 ? 0.0 : static_cast<double>(array.size()) / static_cast<double>(out.size());
    return divided_into_out(queue, squares, out, scalar(std::fmax(n - ddof, 0.0), DType(Kind::float64)), root, what);
}

/// nanmean of a float or complex array with out= of another dtype than its result, as numpy's: the
/// sum of the non-NaN elements (in `dtype`, else in the loop numpy's add takes for out) cast into
/// out, then out divided by their count in float64 or complex128 and cast into out again. numpy
/// takes a float or complex out only (ArgumentError here otherwise).
Array nanmean_into_out(const Queue& queue, const Array& array, const ReduceOptions& options,
                       const std::optional<DType>& dtype) {
    const Array& out = *options.out;
    if (!holds_nan(out.dtype()))
        throw ArgumentTypeError("out", fmt::format("nanmean: has dtype {}; numpy writes a {} array's mean into a float "
                                                   "or complex out only",
                                                   out.dtype().name(), array.dtype().name()));
    ReduceOptions temporary = options;
    temporary.out.reset();
    const std::optional<DType> acc = dtype ? dtype : detail::accumulation_for_out(array.dtype(), out.dtype());
    detail::convert_into_out(queue, nansum(queue, array, temporary, acc), out, "nanmean");
    fill(queue, out, Expr(out) / Expr(detail::count_not_nan(queue, array, options)));
    return out;
}

/// var and std with an integer or bool `dtype`, numpy's steps (numpy/_core/_methods.py's _var and
/// _std): the mean is the sum in `dtype` (each element converted, wrapping) divided by the count in
/// float64 and converted back into `dtype`; the deviations x - mean are taken in numpy's promotion
/// of the two dtypes and squared there (wrapping for integers), their sum in `dtype` is divided by
/// max(n - ddof, 0) in float64 and converted into `dtype` (or cast into out, then divided there).
/// std takes the square root of a one-element result (numpy's scalar: the truncated variance's root
/// in float64, truncated) or into a float out; numpy refuses to write it into an integer array
/// (UFuncTypeError), as it refuses booleans subtracted (a bool array in bool): ArgumentError here.
/// Complex arrays in an integer dtype (numpy: the squared magnitudes of the complex deviations, each
/// truncated) are refused too.
Array integer_variance(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
                       const DType& dtype, bool root) {
    const char* what = root ? "std" : "var";
    if (array.dtype().kind() == Kind::bool_ && dtype.kind() == Kind::bool_)
        throw ArgumentError("dtype",
                            fmt::format("{} of a bool array in bool: numpy's mean subtracts booleans, which it "
                                        "refuses (TypeError)",
                                        what));
    if (is_complex(array.dtype()))
        throw ArgumentError("dtype", fmt::format("{}: cannot compute a {} array in {} (a float or complex dtype)", what,
                                                 array.dtype().name(), dtype.name()));
    ReduceOptions kept = options;
    kept.keepdims = true;
    kept.out.reset();
    const Array total = sum(queue, array, kept, dtype);
    const double n = total.size() == 0 ? 0.0 : static_cast<double>(array.size()) / static_cast<double>(total.size());
    const Expr mean = astype(Expr(total) / scalar(n, DType(Kind::float64)), dtype);
    const Expr deviation = Expr(array) - mean;
    ReduceOptions reduced = options;
    reduced.out.reset();
    const Array squares = sum(queue, deviation * deviation, reduced, dtype);
    const Expr count = scalar(std::fmax(n - ddof, 0.0), DType(Kind::float64));
    if (options.out && !(options.out->dtype() == dtype)) {
        const Array& out = *options.out;
        if (root && !holds_nan(out.dtype()))
            throw ArgumentTypeError("out",
                                    fmt::format("std: has dtype {}; numpy writes the square root into a float or "
                                                "complex out only",
                                                out.dtype().name()));
        return divided_into_out(queue, squares, out, count, root, what);
    }
    const Expr variance = astype(Expr(squares) / count, dtype);
    const bool scalar_result = squares.ndim() == 0 && !options.out;
    if (root && !scalar_result)
        throw ArgumentError("dtype",
                            fmt::format("std in {} of an array result: numpy's square root cannot write float64 "
                                        "into it (UFuncTypeError; a scalar result or a float out= can)",
                                        dtype.name()));
    const Expr value = root ? astype(sqrt(astype(variance, DType(Kind::float64))), dtype) : variance;
    if (options.out) {
        fill(queue, *options.out, value);
        return *options.out;
    }
    return evaluate(queue, value, options.allocator);
}

/// var / std / nanvar / nanstd of an array, out= of any dtype.
Array array_variance(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
                     const std::optional<DType>& dtype, bool root, bool skip_nan) {
    const char* what = skip_nan ? (root ? "nanstd" : "nanvar") : (root ? "std" : "var");
    // (nanvar and nanstd of integer arrays are var and std: skip_nan is false there; numpy refuses an
    // integer dtype of an inexact array: moments_dtype's ArgumentError.)
    if (dtype && !holds_nan(*dtype) && !skip_nan) return integer_variance(queue, array, options, ddof, *dtype, root);
    const DType computed = moments_dtype(array.dtype(), dtype, what);
    const DType result = is_complex(computed) ? real_for(computed) : computed;
    if (options.out && !(options.out->dtype() == result))
        return variance_into_out(queue, array, options, ddof, dtype, root, skip_nan);
    return variance(queue, detail::array_source(what, array), options, ddof, dtype,
                    root ? Moment::deviation : Moment::variance, skip_nan);
}

}  // namespace

Array var(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
          const std::optional<DType>& dtype) {
    return array_variance(queue, array, options, ddof, dtype, false, false);
}
Array std(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
          const std::optional<DType>& dtype) {
    return array_variance(queue, array, options, ddof, dtype, true, false);
}
Array nanvar(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
             const std::optional<DType>& dtype) {
    return array_variance(queue, array, options, ddof, dtype, false, holds_nan(array.dtype()));
}
Array nanstd(const Queue& queue, const Array& array, const ReduceOptions& options, double ddof,
             const std::optional<DType>& dtype) {
    return array_variance(queue, array, options, ddof, dtype, true, holds_nan(array.dtype()));
}

Array nanmean(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    const DType d = array.dtype();
    if (!holds_nan(d)) return mean(queue, array, options, dtype);
    // numpy's nanmean is the sum of the array with its NaNs replaced by 0 over their count: a real
    // dtype of a complex array sums the real parts of the elements that are not NaN.
    const DType computed = moments_dtype(d, dtype, "nanmean");
    if (options.out && !(options.out->dtype() == computed)) return nanmean_into_out(queue, array, options, dtype);
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
                                            zero, detail::convert_value(v, d, computed));
        // numpy: the sum over the count in the sum's type; a slice of NaN only gives 0 / 0 = NaN. A
        // complex sum is divided as a complex number by count + 0j (see mean in reduction.cpp).
        const std::string finish =
            complex ? fmt::format("{0}((a.s.x + a.s.y * ({1})0) / ({1})a.n, (a.s.y - a.s.x * ({1})0) / ({1})a.n)",
                                  complex_ctr(t), rc)
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
    return variance(queue, source, options, ddof, dtype, root ? Moment::deviation : Moment::variance, false);
}

}  // namespace kjarni
