// Reductions of expressions in one kernel: the expression's value becomes the element the
// built-in reduction reads (a device function of the element's position computing the value from
// the operands' elements), so that the reduction's dtype rules, kernels and order are those of the
// array the expression would have been evaluated into.

#include <algorithm>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/expression_math.hpp"
#include "algorithms/expression_plan.hpp"
#include "algorithms/operand_checks.hpp"
#include "algorithms/promotion.hpp"
#include "algorithms/reduction_out.hpp"
#include "array/overlap.hpp"
#include "kjarni/error.hpp"
#include "kjarni/fusion.hpp"

namespace kjarni {

namespace detail {

ReductionSource expression_source(const Queue& queue, const Expr& expression, const std::string& what) {
    const ExprNode& root = *expression.node();
    if (root.dtype.is_struct())
        throw ArgumentError("expression", fmt::format("{}: struct values cannot be reduced", what));
    const ExprCode code = generate_expression(root);
    if (!code.reductions.empty())
        throw ArgumentError("expression", fmt::format("{}: holds unresolved reductions", what));
    for (std::size_t k = 0; k < code.arrays.size(); ++k) {
        const Array& a = code.arrays[k];
        check_on_queue_device(a, queue,
                              fmt::format("{}: operand {} of the expression (shape ({}), {})", what, k,
                                          fmt::join(a.shape(), ", "), a.dtype().name()));
    }
    // The largest array first: the reduction engine takes the first array's strides to choose
    // whether work items run along the reduced axes (a broadcast operand would mislead it).
    std::vector<std::size_t> order(code.arrays.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return code.arrays[a].size() > code.arrays[b].size(); });

    ReductionSource source;
    source.dtype = root.dtype;
    source.plain = false;
    std::string params, args;
    for (const std::size_t k : order) {
        const Array& a = code.arrays[k];
        const std::string name = fmt::format("in{}", k);
        source.arguments.push_back(CArgument{name, a.dtype(), true, true, c_type_name(a.dtype())});
        source.operands.emplace_back(a);
        params += fmt::format(", GLOBAL_MEM const {}* {}", storage_ctype(a.dtype()), name);
        args += ", " + name;
    }
    for (std::size_t j = 0; j < code.scalars.size(); ++j) {
        const DType passed = scalar_parameter_dtype(code.scalars[j].dtype);
        const auto bytes = code.scalars[j].value.write_parameter(code.scalars[j].dtype, passed);
        const std::string name = fmt::format("s{}", j);
        source.arguments.push_back(CArgument{name, passed, false, false, c_type_name(passed)});
        source.operands.emplace_back(std::span<const std::byte>(bytes.data(), passed.itemsize()), passed);
        params += fmt::format(", {} {}", storage_ctype(passed), name);
        args += ", " + name;
    }
    std::string body;
    for (const std::size_t k : order) {
        const DType& d = code.arrays[k].dtype();
        body += fmt::format("    const {} v{} = {};\n", compute_ctype(d), k, load_value(fmt::format("in{}[i]", k), d));
    }
    const std::string function =
        fmt::format("FUNCTION INLINE {0} kjarni_fused_element(KJARNI_IDX i{1})\n{{\n{2}    return {3};\n}}\n",
                    storage_ctype(root.dtype), params, body, store_value(code.value, root.dtype));
    source.element = fmt::format("kjarni_fused_element(i{})", args);
    source.code = expression_math_preamble() + "\n" + function;
    source.key = " fused " + function;
    return source;
}

Array reduce_expression(const Queue& queue, ReductionKind kind, const Expr& expression, const ReduceOptions& options,
                        const std::optional<DType>& dtype, double ddof) {
    const Expr resolved = holds_reduction(*expression.node()) ? resolve_reductions(queue, expression) : expression;
    // `out` sharing memory with an operand: the reduction goes through a temporary (a work group
    // could otherwise overwrite elements another one still reads).
    if (options.out) {
        const ExprCode code = generate_expression(*resolved.node());
        for (const Array& a : code.arrays) {
            if (memory_overlap(*options.out, a) == Overlap::none) continue;
            ReduceOptions staged = options;
            staged.out.reset();
            staged.allocator = {};
            const Array value = reduce_expression(queue, kind, resolved, staged, dtype, ddof);
            const Array& out = *options.out;
            if (!(value.dtype() == out.dtype()) || value.shape() != out.shape())
                reduce_expression(queue, kind, resolved, options, dtype, ddof);  // the usual error about `out`
            out.set(queue, value);
            queue.synchronize();  // `value` goes now
            return out;
        }
    }
    const auto source = [&](const char* what) { return expression_source(queue, resolved, what); };
    switch (kind) {
    case ReductionKind::sum: return reduce_arithmetic(queue, source("sum"), options, dtype, false, false, "sum");
    case ReductionKind::prod: return reduce_arithmetic(queue, source("prod"), options, dtype, true, false, "prod");
    case ReductionKind::mean: return reduce_arithmetic(queue, source("mean"), options, dtype, false, true, "mean");
    case ReductionKind::min: return reduce_extremum(queue, source("min"), options, false);
    case ReductionKind::max: return reduce_extremum(queue, source("max"), options, true);
    case ReductionKind::argmin: return reduce_arg_extremum(queue, source("argmin"), options, false);
    case ReductionKind::argmax: return reduce_arg_extremum(queue, source("argmax"), options, true);
    case ReductionKind::any: return reduce_logical(queue, source("any"), options, false);
    case ReductionKind::all: return reduce_logical(queue, source("all"), options, true);
    case ReductionKind::var: return reduce_variance(queue, source("var"), options, ddof, dtype, false);
    case ReductionKind::std: return reduce_variance(queue, source("std"), options, ddof, dtype, true);
    }
    throw ArgumentError("reduction", "unknown kind");
}

}  // namespace detail

using detail::ReductionKind;

Array sum(const Queue& queue, const Expr& expression, const ReduceOptions& options, const std::optional<DType>& dtype) {
    return detail::reduce_expression(queue, ReductionKind::sum, expression, options, dtype, 0);
}
Array prod(const Queue& queue, const Expr& expression, const ReduceOptions& options,
           const std::optional<DType>& dtype) {
    return detail::reduce_expression(queue, ReductionKind::prod, expression, options, dtype, 0);
}
Array mean(const Queue& queue, const Expr& expression, const ReduceOptions& options,
           const std::optional<DType>& dtype) {
    return detail::reduce_expression(queue, ReductionKind::mean, expression, options, dtype, 0);
}
Array min(const Queue& queue, const Expr& expression, const ReduceOptions& options) {
    return detail::reduce_expression(queue, ReductionKind::min, expression, options, std::nullopt, 0);
}
Array max(const Queue& queue, const Expr& expression, const ReduceOptions& options) {
    return detail::reduce_expression(queue, ReductionKind::max, expression, options, std::nullopt, 0);
}
Array argmin(const Queue& queue, const Expr& expression, const ReduceOptions& options) {
    return detail::reduce_expression(queue, ReductionKind::argmin, expression, options, std::nullopt, 0);
}
Array argmax(const Queue& queue, const Expr& expression, const ReduceOptions& options) {
    return detail::reduce_expression(queue, ReductionKind::argmax, expression, options, std::nullopt, 0);
}
Array any(const Queue& queue, const Expr& expression, const ReduceOptions& options) {
    return detail::reduce_expression(queue, ReductionKind::any, expression, options, std::nullopt, 0);
}
Array all(const Queue& queue, const Expr& expression, const ReduceOptions& options) {
    return detail::reduce_expression(queue, ReductionKind::all, expression, options, std::nullopt, 0);
}
Array var(const Queue& queue, const Expr& expression, const ReduceOptions& options, double ddof,
          const std::optional<DType>& dtype) {
    return detail::reduce_expression(queue, ReductionKind::var, expression, options, dtype, ddof);
}
Array std(const Queue& queue, const Expr& expression, const ReduceOptions& options, double ddof,
          const std::optional<DType>& dtype) {
    return detail::reduce_expression(queue, ReductionKind::std, expression, options, dtype, ddof);
}

Array dot(const Queue& queue, const Expr& a, const Expr& b, const std::optional<Array>& out) {
    if (a.shape().size() != 1)
        throw ArgumentError("a", fmt::format("dot: a 1-d expression is needed, given {} dimensions", a.shape().size()));
    if (b.shape().size() != 1)
        throw ArgumentError("b", fmt::format("dot: a 1-d expression is needed, given {} dimensions", b.shape().size()));
    if (a.shape() != b.shape())
        throw ArgumentError("b", fmt::format("dot: lengths differ ({} and {})", a.shape()[0], b.shape()[0]));
    if (a.dtype().is_struct()) throw ArgumentError("a", "dot: struct values cannot be multiplied");
    if (b.dtype().is_struct()) throw ArgumentError("b", "dot: struct values cannot be multiplied");
    // As dot() of arrays: numpy's promoted dtype, the products computed and summed in what numpy's
    // dot accumulates in (dot_accumulator), the total then converted as astype does.
    const DType result = detail::promote_types(a.dtype(), b.dtype());
    const DType acc = detail::dot_accumulator(result);
    const Expr products = astype(a, acc) * astype(b, acc);
    if (acc == result) {
        ReduceOptions options;
        options.out = out;
        return sum(queue, products, options);
    }
    if (out && out->dtype() != result)
        throw ArgumentError("out", fmt::format("dot: has dtype {}, the result has dtype {}", out->dtype().name(),
                                               result.name()));
    const Array total = sum(queue, products, ReduceOptions{});
    Array stored = out ? *out : Array::empty(queue.device(), {}, result);
    detail::convert_into_out(queue, total, stored, "dot");
    return stored;
}

}  // namespace kjarni
