// ReductionKernel and numpy's reductions, all specs for the reduction engine.

#include "kjarni/reduction.hpp"

#include <fmt/format.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/multi_parts.hpp"
#include "algorithms/promotion.hpp"
#include "algorithms/reduction_engine.hpp"
#include "algorithms/reduction_nan_support.hpp"
#include "algorithms/reduction_out.hpp"
#include "algorithms/reduction_source.hpp"
#include "algorithms/reduction_types.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/functions.hpp"

namespace kjarni {

using detail::CArgument;
using detail::into_out;
using detail::ReductionSpec;
using Kind = DType::Kind;

struct ReductionKernel::Impl {
    ReductionSpec spec;
};

ReductionKernel::ReductionKernel(const DType& dtype_out, std::string neutral, std::string reduce_expr,
                                 std::string map_expr, const std::string& arguments, std::string preamble,
                                 Globals render_globals, std::string name) {
    if (dtype_out.is_struct()) throw ArgumentError("dtype_out", "ReductionKernel: struct results are not supported");
    auto impl = std::make_shared<Impl>();
    impl->spec.what = name;
    impl->spec.arguments = detail::parse_c_arguments(arguments, "arguments");
    for (const CArgument& a : impl->spec.arguments)
        if (a.pointer && !a.is_const)
            throw ArgumentError(a.name, fmt::format("{}: arrays of a reduction are read only; declare it const", name));
    impl->spec.acc_ctype = detail::compute_ctype(dtype_out);
    impl->spec.acc_size = dtype_out.kind() == Kind::float16 ? 4 : dtype_out.itemsize();
    impl->spec.result = dtype_out;
    impl->spec.code = detail::reduction_code(impl->spec.arguments, preamble, neutral, reduce_expr, map_expr, "a",
                                             dtype_out, render_globals, name);
    impl_ = std::move(impl);
}

Array ReductionKernel::operator()(const Queue& queue, const std::vector<Operand>& arguments,
                                  const ReduceOptions& options) const {
    return detail::run_reduction(queue, impl_->spec, arguments, options);
}

namespace {

bool is_float(const DType& d) {
    return d.kind() == Kind::float16 || d.kind() == Kind::float32 || d.kind() == Kind::float64;
}
bool is_signed_int(const DType& d) {
    return d.kind() == Kind::int8 || d.kind() == Kind::int16 || d.kind() == Kind::int32 || d.kind() == Kind::int64;
}

/// A spec reading the source's arguments.
ReductionSpec one_array(const std::string& what, const detail::ReductionSource& source) {
    ReductionSpec spec;
    spec.what = what;
    spec.arguments = source.arguments;
    return spec;
}

/// `text` with every "x[i]" replaced by the source's element.
std::string at_element(std::string text, const detail::ReductionSource& source) {
    if (source.element == "x[i]") return text;
    for (std::size_t at = text.find("x[i]"); at != std::string::npos;
         at = text.find("x[i]", at + source.element.size()))
        text.replace(at, 4, source.element);
    return text;
}

/// ReductionSpec::value_code for a one-array map that reads `x[i]` only: the map with the element's
/// value `v` in its place, where the element is 4 or 8 bytes of a plain C type and the map needs no
/// module (a conversion module would have to be rendered again); empty otherwise.
std::string value_code(const DType& dtype, const std::string& map) {
    const Kind kind = dtype.kind();
    const bool plain = kind == Kind::float32 || kind == Kind::int32 || kind == Kind::uint32 || kind == Kind::float64 ||
                       kind == Kind::int64 || kind == Kind::uint64;
    if (!plain || map.find('$') != std::string::npos) return "";
    std::string body = map;
    for (std::size_t at = body.find("x[i]"); at != std::string::npos; at = body.find("x[i]", at + 1))
        body.replace(at, 4, "v");
    return fmt::format("FUNCTION INLINE KJARNI_ACC kjarni_map_value({} v) {{ return ({}); }}\n",
                       detail::storage_ctype(dtype), body);
}

std::string zero_of(const DType& d, int value) {
    if (d.kind() == Kind::complex64) return fmt::format("COMPLEX64_CTR({}.0f, 0.0f)", value);
    if (d.kind() == Kind::complex128) return fmt::format("COMPLEX128_CTR({}.0, 0.0)", value);
    return fmt::format("({}){}", detail::compute_ctype(d), value);
}

/// sum's accumulation dtype for an input dtype (numpy's).
DType sum_dtype(const DType& d) {
    if (d.kind() == Kind::bool_ || is_signed_int(d)) return Kind::int64;
    if (d.kind() == Kind::uint8 || d.kind() == Kind::uint16 || d.kind() == Kind::uint32 || d.kind() == Kind::uint64)
        return Kind::uint64;
    return d;
}

/// sum / prod / mean: `op` "add" or "mul"; `mean` divides by the count.
Array arithmetic(const Queue& queue, const detail::ReductionSource& source, const ReduceOptions& options,
                 const std::optional<DType>& dtype, bool multiply, bool mean, const char* what) {
    DType result =
        dtype ? *dtype
              : (mean ? (is_float(source.dtype) || is_complex(source.dtype) ? source.dtype : DType(Kind::float64))
                      : sum_dtype(source.dtype));
    if (result.is_struct()) throw ArgumentError("dtype", fmt::format("{}: a struct dtype cannot accumulate", what));
    const DType acc = result.kind() == Kind::float16 ? DType(Kind::float32) : result;
    // The spec's key, "<what> <mean|prod|sum> <dtype> <result><source key>", appended (fmt::format
    // costs a call of a thousand instructions more, on every call).
    std::string key(what);
    key.append(mean       ? " mean "
               : multiply ? " prod "
                          : " sum ")
        .append(source.dtype.name())
        .append(" ")
        .append(result.name())
        .append(source.key);
    const ReductionSpec& built = detail::cached_spec(key, [&] {
        ReductionSpec spec = one_array(what, source);
        Globals globals;
        const std::string map = detail::load_as(source.dtype, source.element, result, "load", globals);
        // Integers wrap as numpy's (in unsigned types: signed overflow is undefined in C).
        std::string reduce = detail::wrapping_arithmetic(acc, multiply ? '*' : '+', "a", "b");
        if (is_complex(acc)) {
            globals["op"] = multiply ? functions::mul({acc, acc}) : functions::add({acc, acc});
            reduce = "${op}(a, b)";
        }
        std::string finish = "a";
        if (mean) {
            if (is_complex(acc)) {
                // numpy divides the sum by the count as a complex number, count + 0j: its
                // division's (x + y * 0) / count and (y - x * 0) / count are the parts over the
                // count, but NaN where the other part is infinite (mean of [inf+2j] is inf+nanj).
                finish = acc.kind() == Kind::complex64
                             ? "COMPLEX64_CTR(kj_div_count_f(a.x + a.y * 0.0f, count), "
                               "kj_div_count_f(a.y - a.x * 0.0f, count))"
                             : "COMPLEX128_CTR((a.x + a.y * 0.0) / (double)count, (a.y - a.x * 0.0) / (double)count)";
            } else if (acc.kind() == Kind::float32) {
                finish = "kj_div_count_f(a, count)";  // correctly rounded (device_code.cpp)
            } else if (is_float(acc)) {
                finish = fmt::format("a / ({})count", detail::compute_ctype(acc));
            } else {
                // An integer (or bool) dtype asked for: numpy sums in it, divides in float64 and
                // converts back as astype does (mean([-1], dtype=uint64) is 0: 2**64 - 1 over 1
                // rounds to 2**64; mean of bools with dtype=bool is True where any is).
                finish = detail::convert_value("((double)a / (double)count)", DType(Kind::float64), acc);
            }
        }
        spec.acc_ctype = detail::compute_ctype(acc);
        spec.acc_size = acc.itemsize();
        spec.result = result;
        spec.code = source.code + detail::reduction_code(spec.arguments, "", zero_of(acc, multiply ? 1 : 0), reduce,
                                                         map, finish, result, globals, what);
        // Both let a kernel read the array's elements itself, which only a plain array allows (a
        // fused expression's element is its function of the operands, not the first operand).
        if (source.plain) spec.value_code = value_code(source.dtype, map);
        // (Not into float16, whose map rounds each element to float16 first.)
        if (source.plain && (acc.kind() == Kind::float32 || acc.kind() == Kind::float64) && acc == result)
            spec.float_operator = multiply ? '*' : '+';
        return spec;
    });
    return detail::run_reduction(queue, built, source.operands, options);
}

std::string int_limit(const DType& d, bool maximum) {
    switch (d.kind()) {
    case Kind::bool_: return maximum ? "(uint8_t)1" : "(uint8_t)0";
    case Kind::int8: return maximum ? "(int8_t)127" : "(int8_t)(-128)";
    case Kind::uint8: return maximum ? "(uint8_t)255" : "(uint8_t)0";
    case Kind::int16: return maximum ? "(int16_t)32767" : "(int16_t)(-32768)";
    case Kind::uint16: return maximum ? "(uint16_t)65535" : "(uint16_t)0";
    case Kind::int32: return maximum ? "(int32_t)2147483647" : "(int32_t)(-2147483647 - 1)";
    case Kind::uint32: return maximum ? "(uint32_t)4294967295u" : "(uint32_t)0";
    case Kind::int64: return maximum ? "(int64_t)0x7fffffffffffffffL" : "((int64_t)(-0x7fffffffffffffffL) - 1)";
    case Kind::uint64: return maximum ? "(uint64_t)0xffffffffffffffffUL" : "(uint64_t)0";
    default: break;
    }
    throw ArgumentError("dtype", "not an integer type");
}

/// The extreme value (the neutral element of min when `maximum`, of max otherwise) of a compute type.
std::string extreme(const DType& d, bool maximum) {
    const char* sign = maximum ? "" : "-";
    switch (d.kind()) {
    case Kind::float16:
    case Kind::float32: return fmt::format("{}KJARNI_INF_F", sign);
    case Kind::float64: return fmt::format("{}KJARNI_INF_D", sign);
    case Kind::complex64: return fmt::format("COMPLEX64_CTR({0}KJARNI_INF_F, {0}KJARNI_INF_F)", sign);
    case Kind::complex128: return fmt::format("COMPLEX128_CTR({0}KJARNI_INF_D, {0}KJARNI_INF_D)", sign);
    default: return int_limit(d, maximum);
    }
}

/// Device code: `kjarni_nan(v)`, `kjarni_less(a, b)` for the compute type of `d` (complex:
/// lexicographic; NaN never less).
std::string comparisons(const DType& d) {
    const std::string t = detail::compute_ctype(d);
    if (is_complex(d))
        return fmt::format(
            "FUNCTION INLINE bool kjarni_nan({0} v) {{ return v.x != v.x || v.y != v.y; }}\n"
            "FUNCTION INLINE bool kjarni_less({0} a, {0} b) {{ return a.x < b.x || (a.x == b.x && a.y < b.y); }}\n",
            t);
    if (is_float(d))
        return fmt::format("FUNCTION INLINE bool kjarni_nan({0} v) {{ return v != v; }}\n"
                           "FUNCTION INLINE bool kjarni_less({0} a, {0} b) {{ return a < b; }}\n",
                           t);
    return fmt::format("FUNCTION INLINE bool kjarni_nan({0} v) {{ return false; }}\n"
                       "FUNCTION INLINE bool kjarni_less({0} a, {0} b) {{ return a < b; }}\n",
                       t);
}

std::string element_value(const DType& d) {
    if (d.kind() == Kind::float16) return "kjarni_h2f(x[i])";
    if (d.kind() == Kind::bool_) return "(uint8_t)(x[i] != 0)";
    return "x[i]";
}

Array extremum(const Queue& queue, const detail::ReductionSource& source, const ReduceOptions& options, bool maximum) {
    const char* what = maximum ? "max" : "min";
    const DType d = source.dtype;
    const ReductionSpec& built = detail::cached_spec(fmt::format("{} {}{}", what, d.name(), source.key), [&] {
        ReductionSpec spec = one_array(what, source);
        spec.acc_ctype = detail::compute_ctype(d);
        spec.acc_size = d.kind() == Kind::float16 ? 4 : d.itemsize();
        spec.result = d;
        spec.refuse_empty = true;
        // NaN propagates: a NaN operand wins (the left one when both are).
        const std::string reduce = maximum ? "kjarni_nan(a) ? a : (kjarni_nan(b) ? b : (kjarni_less(a, b) ? b : a))"
                                           : "kjarni_nan(a) ? a : (kjarni_nan(b) ? b : (kjarni_less(b, a) ? b : a))";
        spec.code = source.code + detail::reduction_code(spec.arguments, comparisons(d), extreme(d, !maximum), reduce,
                                                         at_element(element_value(d), source), "a", d, {}, what);
        if (source.plain) spec.value_code = value_code(d, element_value(d));
        return spec;
    });
    return detail::run_reduction(queue, built, source.operands, options);
}

/// argmin / argmax; with `indices` (an int64 array of the values' shape) the position reported for
/// each element is the index found there instead of its own (combining the parts of a MultiArray).
Array arg_extremum(const Queue& queue, const detail::ReductionSource& source, const ReduceOptions& options,
                   bool maximum, const Array* indices = nullptr) {
    const char* what = maximum ? "argmax" : "argmin";
    const DType d = source.dtype;
    const ReductionSpec& built =
        detail::cached_spec(fmt::format("{} {}{}{}", what, d.name(), indices ? " indexed" : "", source.key), [&] {
            ReductionSpec spec = one_array(what, source);
            if (indices) spec.arguments.push_back(CArgument{"g", DType(Kind::int64), true, true, "int64_t"});
            const std::string v = detail::compute_ctype(d);
            spec.acc_ctype = "kjarni_arg_t";
            spec.acc_size = 32;  // at least sizeof(kjarni_arg_t) for every value type (complex128: 32)
            spec.result = Kind::int64;
            spec.refuse_empty = true;
            const std::string preamble =
                comparisons(d) + fmt::format(R"(typedef struct {{ {0} v; int64_t i; }} kjarni_arg_t;
    FUNCTION INLINE kjarni_arg_t kjarni_arg_make({0} v, int64_t i) {{ kjarni_arg_t r; r.v = v; r.i = i; return r; }}
    FUNCTION INLINE kjarni_arg_t kjarni_arg_pick(kjarni_arg_t a, kjarni_arg_t b)
    {{
        const bool an = kjarni_nan(a.v), bn = kjarni_nan(b.v);
        if (an || bn) {{ if (an && bn) return a.i <= b.i ? a : b; return an ? a : b; }}
        if (kjarni_less({1}, {2})) return a;
        if (kjarni_less({2}, {1})) return b;
        return a.i <= b.i ? a : b;
    }}
    )",
                                             v, maximum ? "b.v" : "a.v", maximum ? "a.v" : "b.v");
            spec.code =
                source.code +
                detail::reduction_code(spec.arguments, preamble,
                                       fmt::format("kjarni_arg_make({}, (int64_t)0x7fffffffffffffffL)",
                                                   extreme(d, !maximum)),
                                       "kjarni_arg_pick(a, b)",
                                       fmt::format("kjarni_arg_make({}, {})", at_element(element_value(d), source),
                                                   indices ? "g[i]" : "(int64_t)i"),
                                       "a.i", DType(Kind::int64), {}, what);
            return spec;
        });
    if (indices) {
        std::vector<Operand> operands = source.operands;
        operands.emplace_back(*indices);
        return detail::run_reduction(queue, built, operands, options);
    }
    return detail::run_reduction(queue, built, source.operands, options);
}

Array logical(const Queue& queue, const detail::ReductionSource& source, const ReduceOptions& options, bool all) {
    const char* what = all ? "all" : "any";
    const DType d = source.dtype;
    const ReductionSpec& built = detail::cached_spec(fmt::format("{} {}{}", what, d.name(), source.key), [&] {
        ReductionSpec spec = one_array(what, source);
        std::string truth;
        if (is_complex(d)) truth = "(x[i].x != 0 || x[i].y != 0)";
        else if (d.kind() == Kind::float16) truth = "((x[i] & 0x7fff) != 0)";
        else truth = "(x[i] != 0)";
        spec.acc_ctype = "uint8_t";
        spec.acc_size = 1;
        spec.result = Kind::bool_;
        spec.code =
            source.code + detail::reduction_code(spec.arguments, "", all ? "(uint8_t)1" : "(uint8_t)0",
                                                 all ? "a & b" : "a | b", "(uint8_t)" + at_element(truth, source), "a",
                                                 Kind::bool_, {}, what);
        return spec;
    });
    return detail::run_reduction(queue, built, source.operands, options);
}

}  // namespace

namespace {

Array sum_or_prod(const Queue& queue, const Array& array, const ReduceOptions& options,
                  const std::optional<DType>& dtype, bool multiply) {
    const char* what = multiply ? "prod" : "sum";
    // numpy's loop for out= without dtype= is the add / multiply of out's dtype and the array's.
    const std::optional<DType> acc =
        dtype || !options.out ? dtype : detail::accumulation_for_out(array.dtype(), options.out->dtype());
    return into_out(queue, options, acc ? *acc : sum_dtype(array.dtype()), what, [&](const ReduceOptions& o) {
        return arithmetic(queue, detail::array_source(what, array), o, acc, multiply, false, what);
    });
}

/// numpy's mean (numpy/_core/_methods.py's _mean) into an out of another dtype than its result's:
/// the sum (in dtype, else float64 for integers and bool, float32 for float16, else in the loop
/// numpy's add takes for out) cast into out, then out divided by the count in out's dtype (true
/// division: an integer out is divided in float64 and truncated), each step rounded into out.
void mean_into_out(const Queue& queue, const Array& array, const ReduceOptions& options,
                   const std::optional<DType>& dtype) {
    const Array& out = *options.out;
    std::optional<DType> acc = dtype;
    if (!acc) {
        if (array.dtype().kind() == Kind::bool_ || is_integer(array.dtype())) acc = Kind::float64;
        else if (array.dtype().kind() == Kind::float16) acc = Kind::float32;
        else acc = detail::accumulation_for_out(array.dtype(), out.dtype());
    }
    ReduceOptions temporary = options;
    temporary.out.reset();
    const Array total = arithmetic(queue, detail::array_source("mean", array), temporary, acc, false, false, "mean");
    detail::convert_into_out(queue, total, out, "mean");
    const auto count = static_cast<std::int64_t>(total.size() == 0 ? 0 : array.size() / total.size());
    fill(queue, out, Expr(out) / Expr(count));
}

}  // namespace

Array sum(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    return sum_or_prod(queue, array, options, dtype, false);
}
Array prod(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    return sum_or_prod(queue, array, options, dtype, true);
}
Array mean(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    const DType natural = dtype                                                  ? *dtype
                          : is_float(array.dtype()) || is_complex(array.dtype()) ? array.dtype()
                                                                                 : DType(Kind::float64);
    if (options.out && !(options.out->dtype() == natural)) {
        mean_into_out(queue, array, options, dtype);
        return *options.out;
    }
    return arithmetic(queue, detail::array_source("mean", array), options, dtype, false, true, "mean");
}
Array min(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return detail::extremum_into_out(queue, array, options, "min", [&](const Array& a, const ReduceOptions& o) {
        return extremum(queue, detail::array_source("min", a), o, false);
    });
}
Array max(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return detail::extremum_into_out(queue, array, options, "max", [&](const Array& a, const ReduceOptions& o) {
        return extremum(queue, detail::array_source("max", a), o, true);
    });
}
Array argmin(const Queue& queue, const Array& array, const ReduceOptions& options) {
    detail::check_index_out(options, "argmin");
    return into_out(queue, options, Kind::int64, "argmin", [&](const ReduceOptions& o) {
        return arg_extremum(queue, detail::array_source("argmin", array), o, false);
    });
}
Array argmax(const Queue& queue, const Array& array, const ReduceOptions& options) {
    detail::check_index_out(options, "argmax");
    return into_out(queue, options, Kind::int64, "argmax", [&](const ReduceOptions& o) {
        return arg_extremum(queue, detail::array_source("argmax", array), o, true);
    });
}
Array any(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return into_out(queue, options, Kind::bool_, "any", [&](const ReduceOptions& o) {
        return logical(queue, detail::array_source("any", array), o, false);
    });
}
Array all(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return into_out(queue, options, Kind::bool_, "all", [&](const ReduceOptions& o) {
        return logical(queue, detail::array_source("all", array), o, true);
    });
}

Array dot(const Queue& queue, const Array& a, const Array& b, const std::optional<Array>& out) {
    if (a.ndim() != 1)
        throw ArgumentError("a", fmt::format("dot: a 1-d array is needed, given {} dimensions", a.ndim()));
    if (b.ndim() != 1)
        throw ArgumentError("b", fmt::format("dot: a 1-d array is needed, given {} dimensions", b.ndim()));
    if (a.shape() != b.shape())
        throw ArgumentError("b", fmt::format("dot: lengths differ ({} and {})", a.shape()[0], b.shape()[0]));
    if (a.dtype().is_struct()) throw ArgumentError("a", "dot: struct arrays cannot be multiplied");
    if (b.dtype().is_struct()) throw ArgumentError("b", "dot: struct arrays cannot be multiplied");
    // numpy's: the inputs' promoted dtype, accumulated as numpy's dot does (dot_accumulator).
    const DType result = detail::promote_types(a.dtype(), b.dtype());
    const DType acc = detail::dot_accumulator(result);
    const ReductionSpec& built = detail::cached_spec(fmt::format("dot {} {}", a.dtype().name(), b.dtype().name()), [&] {
        ReductionSpec spec;
        spec.what = "dot";
        spec.arguments = {CArgument{"x", a.dtype(), true, true, detail::c_type_name(a.dtype())},
                          CArgument{"y", b.dtype(), true, true, detail::c_type_name(b.dtype())}};
        Globals globals;
        const std::string ea = detail::load_as(a.dtype(), "x[i]", acc, "load_x", globals);
        const std::string eb = detail::load_as(b.dtype(), "y[i]", acc, "load_y", globals);
        globals["times"] = functions::mul({acc, acc});
        std::string reduce = detail::wrapping_arithmetic(acc, '+', "a", "b");
        if (is_complex(acc)) {
            globals["plus"] = functions::add({acc, acc});
            reduce = "${plus}(a, b)";
        }
        // The total wraps into an integer result and is tested for truth into a bool one (astype's
        // conversions); a float16 result is rounded from float when it is stored.
        std::string finish = "a";
        if (result.kind() == Kind::bool_) finish = "(a != 0)";
        else if (is_integer(result) && acc != result) finish = fmt::format("({})(a)", detail::compute_ctype(result));
        spec.acc_ctype = detail::compute_ctype(acc);
        spec.acc_size = acc.itemsize();
        spec.result = result;
        spec.code = detail::reduction_code(spec.arguments, "", zero_of(acc, 0), reduce,
                                           fmt::format("${{times}}({}, {})", ea, eb), finish, result, globals, "dot");
        return spec;
    });
    ReduceOptions options;
    options.out = out;
    return detail::run_reduction(queue, built, {a, b}, options);
}

MultiArray reduce_parts(const MultiQueue& queue, const MultiArray& array, const PartReduction& reduction,
                        const ReduceOptions& options) {
    if (options.out) throw ArgumentError("options", "reduce_parts: `out` cannot be given (the result is a MultiArray)");
    const std::vector<bool> reduced = detail::reduced_axes(options.axes, array.shape().size(), "reduce_parts");
    const bool clone = dynamic_cast<const CloneSplay*>(array.splay().get()) != nullptr;
    if (!clone && (reduced.empty() || reduced[0]))
        throw UnsupportedError("reduce_parts: the reduction crosses the parts (it reduces the axis they split); "
                               "reduce_whole combines the parts into one result");
    std::vector<std::size_t> result_shape;
    for (std::size_t d = 0; d < array.shape().size(); ++d) {
        if (!reduced[d]) result_shape.push_back(array.shape()[d]);
        else if (options.keepdims) result_shape.push_back(1);
    }
    const auto& devices = array.devices();
    const Queue& q0 = queue[devices[0]];
    const Array first = reduction(q0, array.parts()[0], options);
    MultiArray out = MultiArray::empty(devices, result_shape, first.dtype(), {}, array.splay());
    out.parts()[0].set(q0, first, true);
    for (std::size_t k = 1; k < devices.size(); ++k) {
        ReduceOptions part = options;
        part.out = out.parts()[k];
        reduction(queue[devices[k]], array.parts()[k], part);
    }
    q0.synchronize();  // `first` goes now
    return out;
}

namespace {

const char* name_of(Reduction r) {
    switch (r) {
    case Reduction::sum: return "sum";
    case Reduction::prod: return "prod";
    case Reduction::min: return "min";
    case Reduction::max: return "max";
    case Reduction::argmin: return "argmin";
    case Reduction::argmax: return "argmax";
    case Reduction::any: return "any";
    case Reduction::all: return "all";
    case Reduction::mean: return "mean";
    }
    return "?";
}

Array reduce_one(Reduction r, const Queue& queue, const Array& array, const ReduceOptions& options,
                 const std::optional<DType>& dtype) {
    switch (r) {
    case Reduction::sum: return sum(queue, array, options, dtype);
    case Reduction::prod: return prod(queue, array, options, dtype);
    case Reduction::min: return min(queue, array, options);
    case Reduction::max: return max(queue, array, options);
    case Reduction::argmin: return argmin(queue, array, options);
    case Reduction::argmax: return argmax(queue, array, options);
    case Reduction::any: return any(queue, array, options);
    case Reduction::all: return all(queue, array, options);
    case Reduction::mean: return mean(queue, array, options, dtype);
    }
    throw ArgumentError("reduction", "unknown");
}

/// The indices of argmin / argmax over a part's reduced axes (its flat C-order index over them)
/// mapped to the whole array's: each coordinate c along reduced axis d becomes start + step * c.
HostArray whole_indices(const HostArray& local, const detail::PartRegion& part, const std::vector<std::size_t>& shape,
                        const std::vector<bool>& reduced) {
    HostArray out(DType(Kind::int64), local.shape());
    const auto in = local.to_vector<std::int64_t>();
    std::vector<std::int64_t> mapped(in.size());
    for (std::size_t o = 0; o < in.size(); ++o) {
        auto rest = static_cast<std::size_t>(in[o]);
        std::size_t global = 0, weight = 1;
        for (std::size_t d = shape.size(); d-- > 0;) {
            if (!reduced[d]) continue;
            const std::size_t c = rest % part.extent[d];
            rest /= part.extent[d];
            global += (part.start[d] + part.step[d] * c) * weight;
            weight *= shape[d];
        }
        mapped[o] = static_cast<std::int64_t>(global);
    }
    std::memcpy(out.data(), mapped.data(), mapped.size() * sizeof(std::int64_t));
    return out;
}

}  // namespace

Array reduce_whole(const MultiQueue& queue, const MultiArray& array, Reduction reduction, const ReduceOptions& options,
                   const std::optional<DType>& dtype) {
    const std::string what = fmt::format("reduce_whole ({})", name_of(reduction));
    const bool takes_dtype =
        reduction == Reduction::sum || reduction == Reduction::prod || reduction == Reduction::mean;
    if (dtype && !takes_dtype) throw ArgumentError("dtype", fmt::format("{}: takes no dtype", what));
    const std::vector<std::size_t>& shape = array.shape();
    const std::vector<bool> reduced = detail::reduced_axes(options.axes, shape.size(), what);
    const detail::Partition partition = detail::partition_of(array);
    bool crossing = false;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (!partition.split[d]) continue;
        if (!reduced[d])
            throw UnsupportedError(
                fmt::format("{}: the parts split axis {}, which is kept; reduce every split axis, or "
                            "keep the parts apart with reduce_parts",
                            what, d));
        crossing = true;
    }
    const BoundMultiDevice& devices = array.devices();
    const Queue& q0 = queue[devices[0]];
    if (options.out) detail::check_device(q0, *options.out, "out");
    // Clones (or a single part): the first part is the whole array.
    if (!crossing) return reduce_one(reduction, q0, array.parts()[0], options, dtype);

    // Every part's partial result keeps the reduced axes (extent 1), so that the parts' results
    // stack along a new leading axis on the first device and one more reduction over it combines them.
    const std::size_t part_count = array.parts().size();
    std::vector<std::size_t> kept_shape, result_shape;
    std::size_t count = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        kept_shape.push_back(reduced[d] ? 1 : shape[d]);
        if (!reduced[d] || options.keepdims) result_shape.push_back(kept_shape.back());
        if (reduced[d]) count *= shape[d];
    }
    std::vector<std::size_t> stack_shape{part_count};
    stack_shape.insert(stack_shape.end(), kept_shape.begin(), kept_shape.end());
    const ReduceOptions part_options{options.axes, true, std::nullopt};
    std::vector<Array> keep;  // partial results, alive until the copies that read them are done
    const auto stack = [&](const DType& partial_dtype,
                           const std::function<Array(const Queue&, const Array&)>& partial) {
        const Array stacked = Array::empty(devices[0], stack_shape, partial_dtype);
        for (std::size_t k = 0; k < part_count; ++k) {
            const Queue& qk = queue[devices[k]];
            const Array p = partial(qk, array.parts()[k]);
            keep.push_back(p);
            if (p.size() == 0) continue;
            if (!(qk == q0)) q0.wait_for(qk.record_event());
            const auto at = static_cast<std::ptrdiff_t>(k);
            stacked.slice(std::vector<Slice>{Slice{at, at + 1}}).data().set(q0, p.data(), true);
        }
        return stacked;
    };
    // The combination writes into `out` (seen with the reduced axes kept) or a new array.
    std::vector<std::ptrdiff_t> kept_dims(kept_shape.begin(), kept_shape.end());
    const std::optional<Array> final_out =
        options.out ? std::optional<Array>(options.keepdims ? *options.out : options.out->reshape(kept_dims))
                    : std::nullopt;
    const ReduceOptions combine{std::vector<int>{0}, false, final_out, options.allocator};
    const DType input = array.dtype();
    std::optional<Array> result;
    // The result (`out`, or a new array of dtype `r`) holding `value`, computed on the first device.
    const auto fill_result = [&](const DType& r, const Expr& value) {
        result = final_out ? *final_out : Array::empty(devices[0], kept_shape, r, std::nullopt, 0, options.allocator);
        fill(q0, *result, value);
    };
    switch (reduction) {
    case Reduction::sum:
    case Reduction::prod: {
        const bool multiply = reduction == Reduction::prod;
        const DType r = dtype ? *dtype : sum_dtype(input);
        const DType acc = r.kind() == Kind::float16 ? DType(Kind::float32) : r;
        const Array s = stack(acc, [&](const Queue& q, const Array& a) {
            return multiply ? prod(q, a, part_options, acc) : sum(q, a, part_options, acc);
        });
        if (r == acc) {
            result = multiply ? prod(q0, s, combine, r) : sum(q0, s, combine, r);
            break;
        }
        // float16: the float32 partials combined in float32 and rounded once (a sum with
        // dtype=float16 would round each partial first, as numpy's dtype= rounds each element).
        const ReduceOptions in_acc{std::vector<int>{0}, false, std::nullopt};
        const Array total = multiply ? prod(q0, s, in_acc, acc) : sum(q0, s, in_acc, acc);
        fill_result(r, astype(Expr(total), r));
        keep.push_back(total);
        break;
    }
    case Reduction::mean: {
        const DType r = dtype ? *dtype : (is_float(input) || is_complex(input) ? input : DType(Kind::float64));
        if (r.is_struct()) throw ArgumentError("dtype", fmt::format("{}: a struct dtype cannot accumulate", what));
        const DType acc = r.kind() == Kind::float16 ? DType(Kind::float32) : r;
        const Array s = stack(acc, [&](const Queue& q, const Array& a) { return sum(q, a, part_options, acc); });
        const Array total = sum(q0, s, ReduceOptions{std::vector<int>{0}, false, std::nullopt}, acc);
        // The single-device mean divides the sum by the count in the accumulation type; this
        // divides in the expression's promoted type (float64 for integer sums), then converts.
        fill_result(r, Expr(total) / Expr(static_cast<std::int64_t>(count)));
        keep.push_back(total);
        break;
    }
    case Reduction::min:
    case Reduction::max:
    case Reduction::any:
    case Reduction::all: {
        const Array s = stack(reduction == Reduction::any || reduction == Reduction::all ? DType(Kind::bool_) : input,
                              [&](const Queue& q, const Array& a) {
                                  return reduce_one(reduction, q, a, part_options, std::nullopt);
                              });
        result = reduce_one(reduction, q0, s, combine, std::nullopt);
        break;
    }
    case Reduction::argmin:
    case Reduction::argmax: {
        const bool maximum = reduction == Reduction::argmax;
        // The parts' extreme values, and where they lie in the whole array: the first occurrence
        // over the whole is the extreme value of the smallest whole index (NaN first, as numpy).
        const Array values = stack(input, [&](const Queue& q, const Array& a) {
            return maximum ? max(q, a, part_options) : min(q, a, part_options);
        });
        const Array indices = Array::empty(devices[0], stack_shape, Kind::int64);
        std::vector<std::ptrdiff_t> row_dims{1};
        row_dims.insert(row_dims.end(), kept_shape.begin(), kept_shape.end());
        for (std::size_t k = 0; k < part_count; ++k) {
            const Queue& qk = queue[devices[k]];
            const Array local =
                maximum ? argmax(qk, array.parts()[k], part_options) : argmin(qk, array.parts()[k], part_options);
            if (local.size() == 0) continue;
            const auto at = static_cast<std::ptrdiff_t>(k);
            indices.slice(std::vector<Slice>{Slice{at, at + 1}})
                .set(q0, whole_indices(local.get(qk), partition.parts[k], shape, reduced).reshape(row_dims));
        }
        result =
            arg_extremum(q0, detail::array_source(maximum ? "argmax" : "argmin", values), combine, maximum, &indices);
        keep.push_back(indices);
        break;
    }
    }
    // Nothing enqueued may outlive the partials it reads.
    q0.synchronize();
    if (options.out) return *options.out;
    return options.keepdims ? *result
                            : result->reshape(std::vector<std::ptrdiff_t>(result_shape.begin(), result_shape.end()));
}

namespace detail {

ReductionSource array_source(const std::string& what, const Array& array) {
    if (array.dtype().is_struct())
        throw ArgumentError("array", fmt::format("{}: struct arrays cannot be reduced", what));
    ReductionSource source;
    source.dtype = array.dtype();
    source.arguments = {CArgument{"x", array.dtype(), true, true, c_type_name(array.dtype())}};
    source.operands = {array};
    return source;
}

Array reduce_arithmetic(const Queue& queue, const ReductionSource& source, const ReduceOptions& options,
                        const std::optional<DType>& dtype, bool multiply, bool mean, const char* what) {
    return arithmetic(queue, source, options, dtype, multiply, mean, what);
}
Array reduce_extremum(const Queue& queue, const ReductionSource& source, const ReduceOptions& options, bool maximum) {
    return extremum(queue, source, options, maximum);
}
Array reduce_arg_extremum(const Queue& queue, const ReductionSource& source, const ReduceOptions& options,
                          bool maximum) {
    return arg_extremum(queue, source, options, maximum);
}
Array reduce_logical(const Queue& queue, const ReductionSource& source, const ReduceOptions& options, bool all) {
    return logical(queue, source, options, all);
}

}  // namespace detail

}  // namespace kjarni
