// ReductionKernel and numpy's reductions, all specs for the reduction engine.

#include "kjarni/reduction.hpp"

#include <map>
#include <mutex>

#include <fmt/format.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/reduction_engine.hpp"
#include "algorithms/reduction_types.hpp"
#include "kjarni/error.hpp"
#include "kjarni/functions.hpp"

namespace kjarni {

using detail::CArgument;
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

/// Specs of the built-in reductions, made once per (reduction, dtypes): rendering their templates
/// costs more than a launch.
const ReductionSpec& cached(const std::string& key, const std::function<ReductionSpec()>& make) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<const ReductionSpec>> specs;
    const std::lock_guard lock(mutex);
    auto& slot = specs[key];
    if (!slot) slot = std::make_unique<const ReductionSpec>(make());
    return *slot;
}

bool is_float(const DType& d) {
    return d.kind() == Kind::float16 || d.kind() == Kind::float32 || d.kind() == Kind::float64;
}
bool is_signed_int(const DType& d) {
    return d.kind() == Kind::int8 || d.kind() == Kind::int16 || d.kind() == Kind::int32 || d.kind() == Kind::int64;
}

/// A one-array spec: "const T *x".
ReductionSpec one_array(const std::string& what, const Array& array) {
    if (array.dtype().is_struct()) throw ArgumentError("array", fmt::format("{}: struct arrays cannot be reduced", what));
    ReductionSpec spec;
    spec.what = what;
    spec.arguments = {CArgument{"x", array.dtype(), true, true, detail::c_type_name(array.dtype())}};
    return spec;
}

/// The expression reading element `element` (of `dtype`) converted to `to` (compute types), with
/// the conversion module added to `globals` under `name`.
std::string load_as(const DType& dtype, const std::string& element, const DType& to, const std::string& name,
                    Globals& globals) {
    const DType to_compute = to.kind() == Kind::float16 ? DType(Kind::float32) : to;
    if (dtype.kind() == Kind::float16) {
        if (to_compute.kind() == Kind::float32) return fmt::format("kjarni_h2f({})", element);
        globals[name] = functions::cast(Kind::float32, to_compute);
        return fmt::format("${{{}}}(kjarni_h2f({}))", name, element);
    }
    if (dtype.kind() == Kind::bool_) {
        globals[name] = functions::cast(Kind::bool_, to_compute);
        return fmt::format("${{{}}}({} != 0)", name, element);
    }
    if (dtype == to_compute) return element;
    globals[name] = functions::cast(dtype, to_compute);
    return fmt::format("${{{}}}({})", name, element);
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
Array arithmetic(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype,
                 bool multiply, bool mean, const char* what) {
    DType result = dtype ? *dtype
                         : (mean ? (is_float(array.dtype()) || is_complex(array.dtype()) ? array.dtype() : DType(Kind::float64))
                                 : sum_dtype(array.dtype()));
    if (result.is_struct()) throw ArgumentError("dtype", fmt::format("{}: a struct dtype cannot accumulate", what));
    const DType acc = result.kind() == Kind::float16 ? DType(Kind::float32) : result;
    const ReductionSpec& built = cached(fmt::format("{} {} {}", what, array.dtype().name(), result.name()), [&] {
        ReductionSpec spec = one_array(what, array);
        Globals globals;
        const std::string map = load_as(array.dtype(), "x[i]", acc, "load", globals);
        std::string reduce = multiply ? "a * b" : "a + b";
        if (is_complex(acc)) {
            globals["op"] = multiply ? functions::mul({acc, acc}) : functions::add({acc, acc});
            reduce = "${op}(a, b)";
        }
        std::string finish = "a";
        if (mean) {
            if (is_complex(acc)) {
                const DType real = acc.kind() == Kind::complex64 ? DType(Kind::float32) : DType(Kind::float64);
                globals["divide"] = functions::div(acc, real);
                finish = fmt::format("${{divide}}(a, ({})count)", detail::c_type_name(real));
            } else if (is_float(acc)) {
                finish = fmt::format("a / ({})count", detail::compute_ctype(acc));
            } else {
                finish = "a / count";  // an integer dtype asked for: C's division, as numpy's mean(dtype=int) truncates
            }
        }
        spec.acc_ctype = detail::compute_ctype(acc);
        spec.acc_size = acc.itemsize();
        spec.result = result;
        spec.code = detail::reduction_code(spec.arguments, "", zero_of(acc, multiply ? 1 : 0), reduce, map, finish, result,
                                           globals, what);
        return spec;
    });
    return detail::run_reduction(queue, built, {array}, options);
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
        return fmt::format("FUNCTION INLINE bool kjarni_nan({0} v) {{ return v.x != v.x || v.y != v.y; }}\n"
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

Array extremum(const Queue& queue, const Array& array, const ReduceOptions& options, bool maximum) {
    const char* what = maximum ? "max" : "min";
    const DType d = array.dtype();
    const ReductionSpec& built = cached(fmt::format("{} {}", what, d.name()), [&] {
        ReductionSpec spec = one_array(what, array);
        spec.acc_ctype = detail::compute_ctype(d);
        spec.acc_size = d.kind() == Kind::float16 ? 4 : d.itemsize();
        spec.result = d;
        spec.refuse_empty = true;
        // NaN propagates: a NaN operand wins (the left one when both are).
        const std::string reduce = maximum ? "kjarni_nan(a) ? a : (kjarni_nan(b) ? b : (kjarni_less(a, b) ? b : a))"
                                           : "kjarni_nan(a) ? a : (kjarni_nan(b) ? b : (kjarni_less(b, a) ? b : a))";
        spec.code = detail::reduction_code(spec.arguments, comparisons(d), extreme(d, !maximum), reduce, element_value(d),
                                           "a", d, {}, what);
        return spec;
    });
    return detail::run_reduction(queue, built, {array}, options);
}

Array arg_extremum(const Queue& queue, const Array& array, const ReduceOptions& options, bool maximum) {
    const char* what = maximum ? "argmax" : "argmin";
    const DType d = array.dtype();
    const ReductionSpec& built = cached(fmt::format("{} {}", what, d.name()), [&] {
        ReductionSpec spec = one_array(what, array);
        const std::string v = detail::compute_ctype(d);
        spec.acc_ctype = "kjarni_arg_t";
        spec.acc_size = 32;  // at least sizeof(kjarni_arg_t) for every value type (complex128: 32)
        spec.result = Kind::int64;
        spec.refuse_empty = true;
        const std::string preamble =
            comparisons(d) +
            fmt::format(R"(typedef struct {{ {0} v; int64_t i; }} kjarni_arg_t;
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
        spec.code = detail::reduction_code(spec.arguments, preamble,
                                           fmt::format("kjarni_arg_make({}, (int64_t)0x7fffffffffffffffL)", extreme(d, !maximum)),
                                           "kjarni_arg_pick(a, b)",
                                           fmt::format("kjarni_arg_make({}, (int64_t)i)", element_value(d)), "a.i",
                                           DType(Kind::int64), {}, what);
        return spec;
    });
    return detail::run_reduction(queue, built, {array}, options);
}

Array logical(const Queue& queue, const Array& array, const ReduceOptions& options, bool all) {
    const char* what = all ? "all" : "any";
    const DType d = array.dtype();
    const ReductionSpec& built = cached(fmt::format("{} {}", what, d.name()), [&] {
        ReductionSpec spec = one_array(what, array);
        std::string truth;
        if (is_complex(d)) truth = "(x[i].x != 0 || x[i].y != 0)";
        else if (d.kind() == Kind::float16) truth = "((x[i] & 0x7fff) != 0)";
        else truth = "(x[i] != 0)";
        spec.acc_ctype = "uint8_t";
        spec.acc_size = 1;
        spec.result = Kind::bool_;
        spec.code = detail::reduction_code(spec.arguments, "", all ? "(uint8_t)1" : "(uint8_t)0", all ? "a & b" : "a | b",
                                           "(uint8_t)" + truth, "a", Kind::bool_, {}, what);
        return spec;
    });
    return detail::run_reduction(queue, built, {array}, options);
}

}  // namespace

Array sum(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    return arithmetic(queue, array, options, dtype, false, false, "sum");
}
Array prod(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    return arithmetic(queue, array, options, dtype, true, false, "prod");
}
Array mean(const Queue& queue, const Array& array, const ReduceOptions& options, const std::optional<DType>& dtype) {
    return arithmetic(queue, array, options, dtype, false, true, "mean");
}
Array min(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return extremum(queue, array, options, false);
}
Array max(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return extremum(queue, array, options, true);
}
Array argmin(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return arg_extremum(queue, array, options, false);
}
Array argmax(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return arg_extremum(queue, array, options, true);
}
Array any(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return logical(queue, array, options, false);
}
Array all(const Queue& queue, const Array& array, const ReduceOptions& options) {
    return logical(queue, array, options, true);
}

Array dot(const Queue& queue, const Array& a, const Array& b, const std::optional<Array>& out) {
    if (a.ndim() != 1) throw ArgumentError("a", fmt::format("dot: a 1-d array is needed, given {} dimensions", a.ndim()));
    if (b.ndim() != 1) throw ArgumentError("b", fmt::format("dot: a 1-d array is needed, given {} dimensions", b.ndim()));
    if (a.shape() != b.shape())
        throw ArgumentError("b", fmt::format("dot: lengths differ ({} and {})", a.shape()[0], b.shape()[0]));
    if (a.dtype().is_struct()) throw ArgumentError("a", "dot: struct arrays cannot be multiplied");
    if (b.dtype().is_struct()) throw ArgumentError("b", "dot: struct arrays cannot be multiplied");
    const DType result = sum_dtype(result_type({a.dtype(), b.dtype()}));
    const DType acc = result;
    const ReductionSpec& built = cached(fmt::format("dot {} {}", a.dtype().name(), b.dtype().name()), [&] {
        ReductionSpec spec;
        spec.what = "dot";
        spec.arguments = {CArgument{"x", a.dtype(), true, true, detail::c_type_name(a.dtype())},
                          CArgument{"y", b.dtype(), true, true, detail::c_type_name(b.dtype())}};
        Globals globals;
        const std::string ea = load_as(a.dtype(), "x[i]", acc, "load_x", globals);
        const std::string eb = load_as(b.dtype(), "y[i]", acc, "load_y", globals);
        globals["times"] = functions::mul({acc, acc});
        std::string reduce = "a + b";
        if (is_complex(acc)) {
            globals["plus"] = functions::add({acc, acc});
            reduce = "${plus}(a, b)";
        }
        spec.acc_ctype = detail::compute_ctype(acc);
        spec.acc_size = acc.itemsize();
        spec.result = result;
        spec.code = detail::reduction_code(spec.arguments, "", zero_of(acc, 0), reduce,
                                           fmt::format("${{times}}({}, {})", ea, eb), "a", result, globals, "dot");
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
                               "reduce axis 0 of the parts' results instead");
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

}  // namespace kjarni
