// numpy's nansum, nanprod, nanmin, nanmax, nanargmin and nanargmax: the reductions with NaN
// elements left out. Integer and bool arrays hold no NaN: they are the plain reductions. out= of
// any dtype as numpy's (reduction_out.hpp): nansum and nanprod are numpy's sums of the array with
// NaN replaced, nanmin and nanmax its fmin and fmax.reduce, nanargmin and nanargmax its argmin.

#include <fmt/format.h>

#include <cstring>

#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/reduction_nan_support.hpp"
#include "algorithms/reduction_out.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/fusion.hpp"
#include "kjarni/reduction.hpp"

namespace kjarni {

using detail::ReductionSpec;
using Kind = DType::Kind;

namespace {

bool nan_reduction_applies(const DType& d) { return is_real(d) || is_complex(d); }

DType compute_of(const DType& d) { return d.kind() == Kind::float16 ? DType(Kind::float32) : d; }

std::string zero_or_one(const DType& acc, int value) {
    if (is_complex(acc)) return fmt::format("{}({}, 0)", complex_ctr(acc), value);
    return fmt::format("({}){}", detail::compute_ctype(acc), value);
}

/// nansum / nanprod of a float or complex array: NaN elements count as the neutral element.
Array nan_arithmetic(const Queue& queue, const Array& array, const ReduceOptions& options,
                     const std::optional<DType>& dtype, bool multiply) {
    const char* what = multiply ? "nanprod" : "nansum";
    const DType d = array.dtype();
    const DType result = dtype ? *dtype : d;
    if (!nan_reduction_applies(result) || (is_complex(d) && !is_complex(result))) {
        // numpy's nansum / nanprod are np.sum / np.prod of the array with its NaNs (a complex
        // element with a NaN part) replaced by 0 / 1, in any dtype= those take: an integer or
        // bool, or a real type of complex elements, each element converted as astype does.
        const Expr replaced = where(isnan(Expr(array)), Expr(multiply ? 1 : 0), Expr(array));
        return multiply ? prod(queue, replaced, options, result) : sum(queue, replaced, options, result);
    }
    const DType acc = compute_of(result);
    const ReductionSpec& built = detail::cached_spec(fmt::format("{} {} {}", what, d.name(), result.name()), [&] {
        ReductionSpec spec = detail::one_array_spec(what, d);
        const std::string v = detail::element_as(d, d);
        // (Into the result's dtype, not the accumulator's: into float16 an element is rounded first.)
        const std::string map = fmt::format("({} ? {} : {})", detail::nan_test(v, d),
                                            zero_or_one(acc, multiply ? 1 : 0), detail::convert_value(v, d, result));
        std::string reduce = multiply ? "a * b" : "a + b";
        if (is_complex(acc))
            reduce = multiply ? fmt::format("{}(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x)", complex_ctr(acc))
                              : fmt::format("{}(a.x + b.x, a.y + b.y)", complex_ctr(acc));
        spec.acc_ctype = detail::compute_ctype(acc);
        spec.acc_size = acc.itemsize() < 4 ? 4 : acc.itemsize();
        spec.result = result;
        spec.code = detail::reduction_code(spec.arguments, "", zero_or_one(acc, multiply ? 1 : 0), reduce, map, "a",
                                           result, {}, what);
        return spec;
    });
    return detail::run_reduction(queue, built, {array}, options);
}

/// nansum / nanprod with out= of any dtype, as numpy's (np.sum of the array with NaN replaced):
/// computed in `dtype`, else in the dtype numpy's add / multiply loop takes for out, then cast.
Array nan_arithmetic_into_out(const Queue& queue, const Array& array, const ReduceOptions& options,
                              const std::optional<DType>& dtype, bool multiply) {
    const std::optional<DType> acc =
        dtype || !options.out ? dtype : detail::accumulation_for_out(array.dtype(), options.out->dtype());
    return detail::into_out(queue, options, acc ? *acc : array.dtype(), multiply ? "nanprod" : "nansum",
                            [&](const ReduceOptions& o) { return nan_arithmetic(queue, array, o, acc, multiply); });
}

std::string less_code(const DType& d) {
    const std::string t = detail::compute_ctype(d);
    if (is_complex(d))
        return fmt::format(
            "FUNCTION INLINE bool kj_less({0} a, {0} b) {{ return a.x < b.x || (a.x == b.x && a.y < b.y); }}\n", t);
    return fmt::format("FUNCTION INLINE bool kj_less({0} a, {0} b) {{ return a < b; }}\n", t);
}

/// nanmin / nanmax of a float or complex array: NaN never wins; a slice of NaN only gives NaN.
Array nan_extremum(const Queue& queue, const Array& array, const ReduceOptions& options, bool maximum) {
    const char* what = maximum ? "nanmax" : "nanmin";
    const DType d = array.dtype();
    const ReductionSpec& built = detail::cached_spec(fmt::format("{} {}", what, d.name()), [&] {
        ReductionSpec spec = detail::one_array_spec(what, d);
        spec.acc_ctype = detail::compute_ctype(d);
        spec.acc_size = d.kind() == Kind::float16 ? 4 : d.itemsize();
        spec.result = d;
        spec.refuse_empty = true;
        const std::string preamble = detail::nan_functions() + less_code(d);
        // The neutral element is NaN: it loses to every number, and stays where nothing else came.
        const std::string reduce = fmt::format("{} ? b : ({} ? a : (kj_less({}) ? b : a))", detail::nan_test("a", d),
                                               detail::nan_test("b", d), maximum ? "a, b" : "b, a");
        spec.code = detail::reduction_code(spec.arguments, preamble, detail::nan_literal(d), reduce,
                                           detail::element_as(d, d), "a", d, {}, what);
        return spec;
    });
    return detail::run_reduction(queue, built, {array}, options);
}

/// nanargmin / nanargmax of a float or complex array: NaN elements are never picked; a slice of
/// NaN only gives -1, refused after the reduction as numpy raises.
Array nan_arg_extremum(const Queue& queue, const Array& array, const ReduceOptions& options, bool maximum) {
    const char* what = maximum ? "nanargmax" : "nanargmin";
    const DType d = array.dtype();
    const ReductionSpec& built = detail::cached_spec(fmt::format("{} {}", what, d.name()), [&] {
        ReductionSpec spec = detail::one_array_spec(what, d);
        const std::string v = detail::compute_ctype(d);
        spec.acc_ctype = "kj_nanarg_t";
        spec.acc_size = 32;  // at least sizeof(kj_nanarg_t) for every value type (complex128: 32)
        spec.result = Kind::int64;
        spec.refuse_empty = true;
        const std::string preamble = detail::nan_functions() + less_code(d) +
                                     fmt::format(R"(typedef struct {{ {0} v; int64_t i; }} kj_nanarg_t;
FUNCTION INLINE kj_nanarg_t kj_nanarg_make({0} v, int64_t i) {{ kj_nanarg_t r; r.v = v; r.i = {1} ? (int64_t)-1 : i; return r; }}
FUNCTION INLINE kj_nanarg_t kj_nanarg_pick(kj_nanarg_t a, kj_nanarg_t b)
{{
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    if (kj_less({2})) return a;
    if (kj_less({3})) return b;
    return a.i <= b.i ? a : b;
}}
)",
                                                 v, detail::nan_test("v", d), maximum ? "b.v, a.v" : "a.v, b.v",
                                                 maximum ? "a.v, b.v" : "b.v, a.v");
        spec.code = detail::reduction_code(spec.arguments, preamble,
                                           fmt::format("kj_nanarg_make({}, (int64_t)-1)", detail::nan_literal(d)),
                                           "kj_nanarg_pick(a, b)",
                                           fmt::format("kj_nanarg_make({}, (int64_t)i)", detail::element_as(d, d)),
                                           "a.i", DType(Kind::int64), {}, what);
        return spec;
    });
    Array result = detail::run_reduction(queue, built, {array}, options);
    if (result.size() > 0) {
        // numpy raises for a slice of NaN only: the smallest index found tells (a wait for one value).
        const HostArray lowest = min(queue, result).get(queue);
        std::int64_t value = 0;
        std::memcpy(&value, lowest.data(), sizeof(value));
        if (value < 0)
            throw ArgumentError("array", fmt::format("{}: an all-NaN slice has no {} (numpy's ValueError)", what,
                                                     maximum ? "maximum" : "minimum"));
    }
    return result;
}

}  // namespace

Array nansum(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    if (!nan_reduction_applies(array.dtype())) return sum(queue, array, options, dtype);
    return nan_arithmetic_into_out(queue, array, options, dtype, false);
}
Array nanprod(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    if (!nan_reduction_applies(array.dtype())) return prod(queue, array, options, dtype);
    return nan_arithmetic_into_out(queue, array, options, dtype, true);
}
Array nanmin(const Queue& queue, const Array& array, const ReduceOptions& options) {
    if (!nan_reduction_applies(array.dtype())) return min(queue, array, options);
    return detail::extremum_into_out(queue, array, options, "nanmin", [&](const Array& a, const ReduceOptions& o) {
        return nan_extremum(queue, a, o, false);
    });
}
Array nanmax(const Queue& queue, const Array& array, const ReduceOptions& options) {
    if (!nan_reduction_applies(array.dtype())) return max(queue, array, options);
    return detail::extremum_into_out(queue, array, options, "nanmax", [&](const Array& a, const ReduceOptions& o) {
        return nan_extremum(queue, a, o, true);
    });
}
Array nanargmin(const Queue& queue, const Array& array, const ReduceOptions& options) {
    if (!nan_reduction_applies(array.dtype())) return argmin(queue, array, options);
    detail::check_index_out(options, "nanargmin");
    return detail::into_out(queue, options, Kind::int64, "nanargmin",
                            [&](const ReduceOptions& o) { return nan_arg_extremum(queue, array, o, false); });
}
Array nanargmax(const Queue& queue, const Array& array, const ReduceOptions& options) {
    if (!nan_reduction_applies(array.dtype())) return argmax(queue, array, options);
    detail::check_index_out(options, "nanargmax");
    return detail::into_out(queue, options, Kind::int64, "nanargmax",
                            [&](const ReduceOptions& o) { return nan_arg_extremum(queue, array, o, true); });
}

}  // namespace kjarni
