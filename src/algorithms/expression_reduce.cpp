// Lazy reductions: expression nodes whose dtype and shape are those of the eager reduction's
// result, computed where the node is built so that errors come where the expression is written.

#include <fmt/format.h>

#include "algorithms/expression_node.hpp"
#include "algorithms/reduction_types.hpp"
#include "kjarni/error.hpp"
#include "kjarni/fusion.hpp"

namespace kjarni {

namespace {

using detail::ExprNode;
using detail::ReductionKind;
using Kind = DType::Kind;

bool holds_multi_array(const ExprNode& node) {
    if (node.multi_array) return true;
    for (const auto& child : node.children)
        if (holds_multi_array(*child)) return true;
    return false;
}

bool is_float(const DType& d) {
    return d.kind() == Kind::float16 || d.kind() == Kind::float32 || d.kind() == Kind::float64;
}

// The eager function's result dtype for values of `d` (kjarni/reduction.hpp).
DType result_dtype(ReductionKind kind, const DType& d, const std::optional<DType>& dtype) {
    switch (kind) {
    case ReductionKind::sum:
    case ReductionKind::prod:
        if (dtype) return *dtype;
        if (d.kind() == Kind::bool_ || (is_integer(d) && is_signed(d))) return Kind::int64;
        if (is_integer(d)) return Kind::uint64;
        return d;
    case ReductionKind::mean:
        if (dtype) return *dtype;
        return is_float(d) || is_complex(d) ? d : DType(Kind::float64);
    case ReductionKind::min:
    case ReductionKind::max: return d;
    case ReductionKind::argmin:
    case ReductionKind::argmax: return Kind::int64;
    case ReductionKind::any:
    case ReductionKind::all: return Kind::bool_;
    case ReductionKind::var:
    case ReductionKind::std: {
        const char* what = kind == ReductionKind::var ? "var" : "std";
        if (dtype && (!(is_float(*dtype) || is_complex(*dtype)) || (is_complex(d) && !is_complex(*dtype))))
            throw ArgumentError("dtype",
                                fmt::format("{}: cannot compute {} values in {}", what, d.name(), dtype->name()));
        const DType computed = dtype ? *dtype : (is_float(d) || is_complex(d) ? d : DType(Kind::float64));
        return is_complex(computed) ? real_for(computed) : computed;
    }
    }
    return d;
}

Expr reduction(ReductionKind kind, const Expr& expression, const Axes& axes, bool keepdims,
               const std::optional<DType>& dtype, double ddof) {
    const char* what = reduction_kind_name(kind);
    const ExprNode& child = *expression.node();
    if (holds_multi_array(child))
        throw UnsupportedError(
            fmt::format("{}: a lazy reduction of MultiArrays (reduce_parts and reduce_whole reduce them)", what));
    if (child.dtype.is_struct())
        throw ArgumentError("expression", fmt::format("{}: struct values cannot be reduced", what));
    if (dtype && dtype->is_struct())
        throw ArgumentError("dtype", fmt::format("{}: a struct dtype cannot accumulate", what));
    auto info = std::make_shared<detail::ReductionNode>();
    info->kind = kind;
    info->reduced = detail::reduced_axes(axes.axes, child.shape.size(), what);
    info->keepdims = keepdims;
    info->dtype = dtype;
    info->ddof = ddof;
    auto node = std::make_shared<ExprNode>();
    node->op = detail::ExprOp::reduction;
    node->dtype = node->compute = result_dtype(kind, child.dtype, dtype);
    for (std::size_t d = 0; d < child.shape.size(); ++d) {
        if (!info->reduced[d]) node->shape.push_back(child.shape[d]);
        else if (keepdims) node->shape.push_back(1);
    }
    node->children = {expression.node()};
    node->reduction = std::move(info);
    return Expr(std::shared_ptr<const ExprNode>(std::move(node)));
}

}  // namespace

Expr sum(const Expr& expression, Axes axes, bool keepdims, const std::optional<DType>& dtype) {
    return reduction(ReductionKind::sum, expression, axes, keepdims, dtype, 0);
}
Expr prod(const Expr& expression, Axes axes, bool keepdims, const std::optional<DType>& dtype) {
    return reduction(ReductionKind::prod, expression, axes, keepdims, dtype, 0);
}
Expr mean(const Expr& expression, Axes axes, bool keepdims, const std::optional<DType>& dtype) {
    return reduction(ReductionKind::mean, expression, axes, keepdims, dtype, 0);
}
Expr min(const Expr& expression, Axes axes, bool keepdims) {
    return reduction(ReductionKind::min, expression, axes, keepdims, std::nullopt, 0);
}
Expr max(const Expr& expression, Axes axes, bool keepdims) {
    return reduction(ReductionKind::max, expression, axes, keepdims, std::nullopt, 0);
}
Expr argmin(const Expr& expression, Axes axes, bool keepdims) {
    return reduction(ReductionKind::argmin, expression, axes, keepdims, std::nullopt, 0);
}
Expr argmax(const Expr& expression, Axes axes, bool keepdims) {
    return reduction(ReductionKind::argmax, expression, axes, keepdims, std::nullopt, 0);
}
Expr any(const Expr& expression, Axes axes, bool keepdims) {
    return reduction(ReductionKind::any, expression, axes, keepdims, std::nullopt, 0);
}
Expr all(const Expr& expression, Axes axes, bool keepdims) {
    return reduction(ReductionKind::all, expression, axes, keepdims, std::nullopt, 0);
}
Expr var(const Expr& expression, Axes axes, bool keepdims, double ddof) {
    return reduction(ReductionKind::var, expression, axes, keepdims, std::nullopt, ddof);
}
Expr std(const Expr& expression, Axes axes, bool keepdims, double ddof) {
    return reduction(ReductionKind::std, expression, axes, keepdims, std::nullopt, ddof);
}

}  // namespace kjarni
