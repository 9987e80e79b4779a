#pragma once
// The tree behind kjarni::Expr: each node knows its result dtype and broadcast shape, computed
// when it is built so that type and shape errors come where the expression is written.

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "algorithms/promotion.hpp"
#include "algorithms/scalar_value.hpp"
#include "kjarni/array.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/multi_array.hpp"

namespace kjarni::detail {

// clang-format off
enum class ExprOp {
    array, scalar,
    add, subtract, multiply, divide, remainder, negate,
    equal, not_equal, less, less_equal, greater, greater_equal,
    absolute, sqrt, exp, log, sin, cos, tanh, power, minimum, maximum,
    where, cast,
    // numpy's rounding and division (expression_rounding.cpp's rules), the predicates, the other
    // math functions and the bitwise and logical operators.
    floor_divide, fmod, floor, ceil, trunc, rint, round,
    isnan, isinf, isfinite,
    sign, square, positive, reciprocal,
    log2, log10, log1p, expm1, exp2, tan, arcsin, arccos, arctan, sinh, cosh, arcsinh, arccosh, arctanh,
    arctan2, hypot, copysign, fmin, fmax,
    bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift,
    logical_and, logical_or, logical_xor, logical_not,
    // numpy's other float functions (cbrt ... nextafter), conjugate, the integer gcd, lcm and
    // bitwise_count, float_power (float64 or complex128 whatever the operands), ldexp and frexp's
    // two parts.
    cbrt, deg2rad, rad2deg, signbit, spacing, conjugate, bitwise_count,
    logaddexp, logaddexp2, heaviside, nextafter, float_power, gcd, lcm,
    ldexp, frexp_mantissa, frexp_exponent,
    // A reduction of its one child (kjarni/fusion.hpp's lazy sum, mean, ...), broadcast where used:
    // planned and evaluated by expression_plan.cpp, never by the elementwise kernel alone.
    reduction,
};
// clang-format on

/// The reductions an expression may hold (ExprOp::reduction).
enum class ReductionKind { sum, prod, mean, min, max, argmin, argmax, any, all, var, std };

/// The name numpy gives each kind ("argmax"), for messages and plans.
inline const char* reduction_kind_name(ReductionKind kind) {
    switch (kind) {
    case ReductionKind::sum: return "sum";
    case ReductionKind::prod: return "prod";
    case ReductionKind::mean: return "mean";
    case ReductionKind::min: return "min";
    case ReductionKind::max: return "max";
    case ReductionKind::argmin: return "argmin";
    case ReductionKind::argmax: return "argmax";
    case ReductionKind::any: return "any";
    case ReductionKind::all: return "all";
    case ReductionKind::var: return "var";
    case ReductionKind::std: return "std";
    }
    return "?";
}

struct ReductionNode {
    ReductionKind kind = ReductionKind::sum;
    /// Per axis of the child's shape, whether it is reduced.
    std::vector<bool> reduced;
    bool keepdims = false;
    /// sum, prod and mean: the dtype asked for (numpy's dtype=).
    std::optional<DType> dtype;
    /// var and std: the delta degrees of freedom.
    double ddof = 0;
};

const char* op_name(ExprOp op);

struct ExprNode {
    ExprOp op = ExprOp::array;
    DType dtype;
    std::vector<std::size_t> shape;
    std::vector<std::shared_ptr<const ExprNode>> children;
    /// Leaves: the array, or the scalar's value (exact) and whether it is weak.
    std::optional<Array> array;
    std::optional<MultiArray> multi_array;
    ScalarValue value;
    std::optional<WeakKind> weak;
    /// The type the operation computes in (its operands are converted to it); for comparisons the
    /// promoted operand type, else dtype.
    DType compute;
    /// round's decimals (the other operations take none).
    int decimals = 0;
    /// minimum / maximum made by clip(): complex values in np.clip's order (which differs from
    /// np.minimum's where a bound has a NaN part); the same for the other types.
    bool clip_order = false;
    /// minimum / maximum of floats: of two equal operands (+0.0 and -0.0) the first is the result,
    /// as in np.clip's loop when both bounds are scalars; numpy's float32 and float64 minimum and
    /// maximum return the second (its float16 loops the first: expression_codegen.cpp).
    bool ties_keep_first = false;
    /// power of floats: numpy's loop meets the exponent at stride 0, one value for the whole call,
    /// where its float32 and float64 loops take an exponent of -1, 0, 0.5, 1 or 2 as a reciprocal,
    /// one, sqrt, the base or its square (np.power(-0.0, 0.5) is -0.0 there, pow's +0.0 elsewhere).
    bool exponent_at_stride_zero = false;
    /// ExprOp::reduction: what it reduces and how.
    std::shared_ptr<const ReductionNode> reduction;
    /// ExprOp::cast of a statement's value (kjarni/statements.hpp's let): the value as eager
    /// evaluation would have stored it, float16 rounded to 16 bits (expression_codegen.cpp; no
    /// fused multiply-add joins work before it with work after it: kjarni's kernels contract none).
    bool statement_value = false;
};

/// `node` with each child replaced by `map(child)`: `node` itself when no child changed, else a copy
/// holding the new children, so that a rewritten tree shares every subtree the rewrite left alone.
template <class Map>
std::shared_ptr<const ExprNode> with_mapped_children(const std::shared_ptr<const ExprNode>& node, Map&& map) {
    std::vector<std::shared_ptr<const ExprNode>> children;
    children.reserve(node->children.size());
    bool changed = false;
    for (const auto& child : node->children) {
        children.push_back(map(child));
        changed = changed || children.back() != child;
    }
    if (!changed) return node;
    auto copy = std::make_shared<ExprNode>(*node);
    copy->children = std::move(children);
    return copy;
}

}  // namespace kjarni::detail
