// Building expression trees: numpy's promotion and broadcasting at each node.

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/expression_node.hpp"
#include "algorithms/expression_ops.hpp"
#include "algorithms/iteration_space.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"

namespace kjarni {

namespace detail {

const char* op_name(ExprOp op) {
    switch (op) {
    case ExprOp::array: return "array";
    case ExprOp::scalar: return "scalar";
    case ExprOp::add: return "+";
    case ExprOp::subtract: return "-";
    case ExprOp::multiply: return "*";
    case ExprOp::divide: return "/";
    case ExprOp::remainder: return "%";
    case ExprOp::negate: return "unary -";
    case ExprOp::equal: return "==";
    case ExprOp::not_equal: return "!=";
    case ExprOp::less: return "<";
    case ExprOp::less_equal: return "<=";
    case ExprOp::greater: return ">";
    case ExprOp::greater_equal: return ">=";
    case ExprOp::absolute: return "abs";
    case ExprOp::sqrt: return "sqrt";
    case ExprOp::exp: return "exp";
    case ExprOp::log: return "log";
    case ExprOp::sin: return "sin";
    case ExprOp::cos: return "cos";
    case ExprOp::tanh: return "tanh";
    case ExprOp::power: return "pow";
    case ExprOp::minimum: return "minimum";
    case ExprOp::maximum: return "maximum";
    case ExprOp::where: return "where";
    case ExprOp::cast: return "astype";
    default: break;
    }
    const char* name = numpy_op_name(op);
    return name != nullptr ? name : "?";
}

}  // namespace detail

namespace {

using detail::ExprNode;
using detail::ExprOp;
using NodePtr = std::shared_ptr<const ExprNode>;

bool is_bool(const DType& d) { return d.kind() == DType::Kind::bool_; }

[[noreturn]] void cannot_take(ExprOp op, const DType& dtype) {
    throw ArgumentTypeError(fmt::format("operation '{}'", detail::op_name(op)),
                            fmt::format("is not defined for {} values", dtype.name()));
}

// numpy raises ValueError for an integer raised to a negative integer power wherever its loop meets
// one. A kernel cannot raise, so an exponent array's negative elements give 1 / x^-e truncated
// (docs/numpy-differences.md, int-negative-power); a negative scalar exponent is known here, and
// refused as numpy refuses it, unless the result has no element (numpy's loop then never runs).
void refuse_negative_integer_power(const ExprNode& power) {
    if (!is_integer(power.dtype)) return;
    const ExprNode& exponent = *power.children[1];
    if (exponent.op != ExprOp::scalar) return;
    // (An integer result has an integer exponent: a float one would have made the result a float.)
    const detail::ScalarValue& e = exponent.value;
    const bool negative = e.kind == detail::ScalarValue::Kind::signed_integer && e.i < 0;
    const bool empty = std::find(power.shape.begin(), power.shape.end(), std::size_t{0}) != power.shape.end();
    if (!negative || empty) return;
    // A weak exponent its dtype cannot hold (uint8 ** -1, int8 ** -200) is numpy's OverflowError,
    // which it meets first.
    const auto least = [](const DType& d) -> std::int64_t {
        switch (d.kind()) {
        case DType::Kind::int8: return std::numeric_limits<std::int8_t>::min();
        case DType::Kind::int16: return std::numeric_limits<std::int16_t>::min();
        case DType::Kind::int32: return std::numeric_limits<std::int32_t>::min();
        case DType::Kind::int64: return std::numeric_limits<std::int64_t>::min();
        default: return 0;  // unsigned
        }
    };
    if (exponent.weak && e.i < least(power.dtype))
        throw ScalarOverflowError("exponent",
                                  fmt::format("the integer {} is out of bounds for {}", e.i, power.dtype.name()));
    throw ArgumentError("exponent", fmt::format("is {}: integers to negative integer powers are not allowed", e.i));
}

// Whether numpy's ufunc loop meets `operand`, one of `operands`, at stride 0 (one value for the whole
// call), where some of its loops take shortcuts: power's exponent (ExprNode::exponent_at_stride_zero),
// clip's two bounds (ExprNode::ties_keep_first). Measured on numpy 2.4 over every combination of
// shapes from () to (2, 3, 4) and float16 / 32 / 64 operands (power: 938 cases, clip: 2,744):
// - a 0-d operand: always;
// - one element broadcast against more: always (shape (1,) against (2,));
// - one element, and the result one element too (every axis of size 1): numpy's iterator gives a
//   size-1 axis stride 0, but its trivial loop steps through the operand at its own stride; that
//   loop runs a 1-d result, and any other where no operand but a 0-d one is cast to the loop's
//   type and every operand not 0-d has one shape;
// - more elements, broadcast along some axes: stride 0 or not as numpy's buffering decides (its
//   buffer size, the casts): kjarni answers no (docs/numpy-differences.md,
//   stride-zero-partly-broadcast).
bool at_stride_zero(const ExprNode& operand, const std::vector<NodePtr>& operands,
                    const std::vector<std::size_t>& shape, const DType& loop) {
    const auto elements = [](const std::vector<std::size_t>& s) {
        return std::accumulate(s.begin(), s.end(), std::size_t{1}, std::multiplies<>());
    };
    if (operand.shape.empty()) return true;
    if (elements(operand.shape) != 1) return false;
    if (elements(shape) != 1 || operand.shape != shape) return true;
    if (shape.size() == 1) return false;
    // (numpy casts a 0-d operand before the loop; a weak scalar is made in the loop's type.)
    for (const NodePtr& n : operands)
        if (!n->shape.empty() && (n->dtype != loop || n->shape != operand.shape)) return true;
    return false;
}

// The common type of the operands: arrays and fixed scalars promote by numpy's table, then the
// weak scalars apply NEP 50 to the result; only weak scalars: the widest kind's default.
DType common_type(const std::vector<NodePtr>& operands) {
    // (the strong types of up to 4 operands, every node's case, without a heap allocation: an
    // expression's call is host work on small arrays)
    std::array<DType, 4> few;
    std::vector<DType> many;
    std::size_t strong = 0;
    std::optional<detail::WeakKind> widest_weak;
    for (const auto& n : operands) {
        if (n->weak) {
            if (!widest_weak || *n->weak > *widest_weak) widest_weak = n->weak;
        } else if (operands.size() <= few.size()) {
            few[strong++] = n->dtype;
        } else {
            many.push_back(n->dtype);
            ++strong;
        }
    }
    if (strong == 0) return detail::default_dtype(*widest_weak);
    // numpy.result_type of the three of clip (not a left fold: see promote_types_sequence).
    DType result = detail::promote_types_sequence(
        operands.size() <= few.size() ? std::span<const DType>(few.data(), strong) : std::span<const DType>(many));
    for (const auto& n : operands)
        if (n->weak) result = detail::promote_weak(result, *n->weak);
    return result;
}

std::vector<std::size_t> broadcast(const std::vector<NodePtr>& operands, ExprOp op) {
    // The usual case first, without the general rule or its error's name: operands of one shape,
    // or 0-d (scalars), which broadcast to any shape.
    const std::vector<std::size_t>* common = nullptr;
    bool one_shape = true;
    for (const auto& n : operands) {
        if (n->shape.empty()) continue;
        if (common == nullptr) common = &n->shape;
        else if (n->shape != *common) one_shape = false;
    }
    if (one_shape) return common != nullptr ? *common : std::vector<std::size_t>{};
    std::vector<std::vector<std::size_t>> shapes;
    for (const auto& n : operands) shapes.push_back(n->shape);
    return detail::broadcast_shapes(shapes, fmt::format("operation '{}'", detail::op_name(op)));
}

Expr make(ExprOp op, std::vector<NodePtr> children, int decimals = 0) {
    auto node = std::make_shared<ExprNode>();
    node->op = op;
    node->decimals = decimals;
    node->shape = broadcast(children, op);
    const DType common = common_type(children);
    const bool complex = is_complex(common);
    node->compute = common;
    node->dtype = common;
    node->children = std::move(children);
    switch (op) {
    case ExprOp::add:
    case ExprOp::multiply: break;
    case ExprOp::subtract:
    case ExprOp::negate:
        if (is_bool(common)) cannot_take(op, common);
        break;
    case ExprOp::divide:
        // True division: integers and bool divide as float64.
        if (!complex && !is_real(common)) node->compute = node->dtype = dtypes::float64;
        break;
    case ExprOp::remainder:
        if (complex) cannot_take(op, common);
        if (is_bool(common)) node->compute = node->dtype = dtypes::int8;
        break;
    case ExprOp::less:
    case ExprOp::less_equal:
    case ExprOp::greater:
    case ExprOp::greater_equal:
        // Complex values in numpy's lexicographic order (expression_codegen.cpp).
        node->dtype = dtypes::bool_;
        break;
    case ExprOp::equal:
    case ExprOp::not_equal: node->dtype = dtypes::bool_; break;
    case ExprOp::absolute:
        if (complex) node->dtype = real_for(common);
        break;
    case ExprOp::exp:
    case ExprOp::sqrt:
    case ExprOp::log:
    case ExprOp::sin:
    case ExprOp::cos:
    case ExprOp::tanh: node->compute = node->dtype = detail::float_type_for(common); break;
    case ExprOp::power:
        if (is_bool(common)) node->compute = node->dtype = dtypes::int8;
        refuse_negative_integer_power(*node);
        node->exponent_at_stride_zero = at_stride_zero(*node->children[1], node->children, node->shape, common);
        break;
    case ExprOp::minimum:
    case ExprOp::maximum: break;
    case ExprOp::where: {
        // The condition does not take part in the promotion.
        const std::vector<NodePtr> values(node->children.begin() + 1, node->children.end());
        node->compute = node->dtype = common_type(values);
        // A weak integer that the result dtype cannot hold is refused, as by the ufuncs (NEP 50):
        // numpy 2.5's np.where raises OverflowError there (np.where(c, int8_array, 300)); numpy 2.4
        // wrapped it into the dtype (44), silently: docs/numpy-differences.md, where-weak-int-numpy-2.4.
        break;
    }
    case ExprOp::array:
    case ExprOp::scalar:
    case ExprOp::cast: break;
    default: detail::type_numpy_op(*node, common); break;
    }
    return Expr(NodePtr(std::move(node)));
}

Expr make_scalar(detail::ScalarValue value, const DType& dtype, std::optional<detail::WeakKind> weak) {
    auto node = std::make_shared<ExprNode>();
    node->op = ExprOp::scalar;
    node->dtype = node->compute = dtype;
    node->value = value;
    node->weak = weak;
    return Expr(NodePtr(std::move(node)));
}

// np.clip's first operand as np.asarray makes it: a weak scalar takes its default dtype, strong
// (np.asarray(2**64 - 1) is uint64).
NodePtr clip_operand(const NodePtr& n) {
    if (!n->weak) return n;
    auto node = std::make_shared<ExprNode>(*n);
    node->weak.reset();
    const bool past_int64 = n->value.kind == detail::ScalarValue::Kind::unsigned_integer &&
                            n->value.u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    node->dtype = node->compute =
        past_int64 && *n->weak == detail::WeakKind::integer ? DType(dtypes::uint64) : detail::default_dtype(*n->weak);
    return NodePtr(std::move(node));
}

// Whether `bound` is a weak integer (a Python int, not a bool) at or below the integer `dtype`'s
// least value (`low`) or at or above its greatest: numpy's _clip then leaves it out.
bool clips_nothing(const ExprNode& bound, const DType& dtype, bool low) {
    if (bound.weak != detail::WeakKind::integer || !is_integer(dtype)) return false;
    const detail::ScalarValue& v = bound.value;
    const bool negative = v.kind == detail::ScalarValue::Kind::signed_integer && v.i < 0;
    const std::uint64_t magnitude =
        v.kind == detail::ScalarValue::Kind::signed_integer
            ? (negative ? 0 - static_cast<std::uint64_t>(v.i) : static_cast<std::uint64_t>(v.i))
            : v.u;
    const int value_bits = static_cast<int>(dtype.itemsize() * 8) - (is_signed(dtype) ? 1 : 0);
    if (low) {
        // The least value: 0, or -2^value_bits.
        if (!is_signed(dtype)) return negative || magnitude == 0;
        return negative && magnitude >= (std::uint64_t{1} << value_bits);
    }
    const std::uint64_t greatest = value_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << value_bits) - 1;
    return !negative && magnitude >= greatest;
}

detail::ScalarValue signed_value(std::int64_t v) {
    detail::ScalarValue s;
    s.kind = detail::ScalarValue::Kind::signed_integer;
    s.i = v;
    return s;
}

detail::ScalarValue float_value(std::complex<double> v) {
    detail::ScalarValue s;
    s.kind = detail::ScalarValue::Kind::floating;
    s.c = v;
    return s;
}

/// The leaf of an array (an Array or a MultiArray) without the array itself, which the caller sets.
template <class AnyArray>
std::shared_ptr<ExprNode> array_leaf(const AnyArray& array) {
    if (array.dtype().is_struct())
        throw ArgumentError("array",
                            fmt::format("of struct dtype {} takes no part in arithmetic", array.dtype().name()));
    auto node = std::make_shared<ExprNode>();
    node->op = ExprOp::array;
    node->dtype = node->compute = array.dtype();
    node->shape = array.shape();
    return node;
}

}  // namespace

Expr::Expr(const Array& array) {
    auto node = array_leaf(array);
    node->array = array;
    node_ = std::move(node);
}

Expr::Expr(const MultiArray& array) {
    auto node = array_leaf(array);
    node->multi_array = array;
    node_ = std::move(node);
}

const DType& Expr::dtype() const { return node_->dtype; }
const std::vector<std::size_t>& Expr::shape() const { return node_->shape; }

Expr Expr::weak_bool(bool value) {
    detail::ScalarValue s;
    s.kind = detail::ScalarValue::Kind::unsigned_integer;
    s.u = value ? 1 : 0;
    return make_scalar(s, dtypes::bool_, detail::WeakKind::boolean);
}
Expr Expr::weak_integer(std::int64_t value) {
    return make_scalar(signed_value(value), dtypes::int64, detail::WeakKind::integer);
}
Expr Expr::weak_unsigned(std::uint64_t value) {
    detail::ScalarValue s;
    s.kind = detail::ScalarValue::Kind::unsigned_integer;
    s.u = value;
    return make_scalar(s, dtypes::int64, detail::WeakKind::integer);
}
Expr Expr::weak_float(double value) {
    return make_scalar(float_value(value), dtypes::float64, detail::WeakKind::floating);
}
Expr Expr::weak_complex(std::complex<double> value) {
    return make_scalar(float_value(value), dtypes::complex128, detail::WeakKind::complex);
}

Expr scalar(double value, const DType& dtype) { return make_scalar(float_value(value), dtype, std::nullopt); }
Expr scalar(std::complex<double> value, const DType& dtype) {
    return make_scalar(float_value(value), dtype, std::nullopt);
}
Expr scalar_integer(std::int64_t value, const DType& dtype) {
    return make_scalar(signed_value(value), dtype, std::nullopt);
}

Expr scalar_unsigned(std::uint64_t value, const DType& dtype) {
    detail::ScalarValue s;
    s.kind = detail::ScalarValue::Kind::unsigned_integer;
    s.u = value;
    return make_scalar(s, dtype, std::nullopt);
}

Expr operator+(const Expr& a, const Expr& b) { return make(ExprOp::add, {a.node(), b.node()}); }
Expr operator-(const Expr& a, const Expr& b) { return make(ExprOp::subtract, {a.node(), b.node()}); }
Expr operator*(const Expr& a, const Expr& b) { return make(ExprOp::multiply, {a.node(), b.node()}); }
Expr operator/(const Expr& a, const Expr& b) { return make(ExprOp::divide, {a.node(), b.node()}); }
Expr operator%(const Expr& a, const Expr& b) { return make(ExprOp::remainder, {a.node(), b.node()}); }
Expr operator-(const Expr& a) { return make(ExprOp::negate, {a.node()}); }
Expr operator==(const Expr& a, const Expr& b) { return make(ExprOp::equal, {a.node(), b.node()}); }
Expr operator!=(const Expr& a, const Expr& b) { return make(ExprOp::not_equal, {a.node(), b.node()}); }
Expr operator<(const Expr& a, const Expr& b) { return make(ExprOp::less, {a.node(), b.node()}); }
Expr operator<=(const Expr& a, const Expr& b) { return make(ExprOp::less_equal, {a.node(), b.node()}); }
Expr operator>(const Expr& a, const Expr& b) { return make(ExprOp::greater, {a.node(), b.node()}); }
Expr operator>=(const Expr& a, const Expr& b) { return make(ExprOp::greater_equal, {a.node(), b.node()}); }

Expr abs(const Expr& a) { return make(ExprOp::absolute, {a.node()}); }
Expr sqrt(const Expr& a) { return make(ExprOp::sqrt, {a.node()}); }
Expr exp(const Expr& a) { return make(ExprOp::exp, {a.node()}); }
Expr log(const Expr& a) { return make(ExprOp::log, {a.node()}); }
Expr sin(const Expr& a) { return make(ExprOp::sin, {a.node()}); }
Expr cos(const Expr& a) { return make(ExprOp::cos, {a.node()}); }
Expr tanh(const Expr& a) { return make(ExprOp::tanh, {a.node()}); }
Expr pow(const Expr& base, const Expr& exponent) { return make(ExprOp::power, {base.node(), exponent.node()}); }
Expr minimum(const Expr& a, const Expr& b) { return make(ExprOp::minimum, {a.node(), b.node()}); }
Expr maximum(const Expr& a, const Expr& b) { return make(ExprOp::maximum, {a.node(), b.node()}); }
Expr where(const Expr& condition, const Expr& a, const Expr& b) {
    return make(ExprOp::where, {condition.node(), a.node(), b.node()});
}
Expr clip(const Expr& a, const Expr& low, const Expr& high) {
    // np.clip's first operand goes through np.asarray: a weak scalar there is strong.
    const NodePtr x = clip_operand(a.node());
    // numpy's _clip: a Python integer bound at or past an integer operand's range clips nothing and
    // is left out (np.clip(int8_array, 0, 255) is np.maximum(int8_array, 0)); what is left is
    // np.minimum, np.maximum or the operand itself (np.positive).
    const bool keep_low = !clips_nothing(*low.node(), x->dtype, true);
    const bool keep_high = !clips_nothing(*high.node(), x->dtype, false);
    if (!keep_low && !keep_high) return Expr(x);
    if (!keep_low) return minimum(Expr(x), high);
    if (!keep_high) return maximum(Expr(x), low);
    // np.clip is one ufunc: one promotion over the three operands (NEP 50's weak scalars against
    // all of them: clip(bool_array, 3, float16_array) is float16 where maximum then minimum would
    // give int64, then float64), and np.clip's own order for complex values (ExprNode::clip_order).
    const DType common = common_type({x, low.node(), high.node()});
    // numpy's clip loop keeps the operand where it equals a bound (+0.0 against -0.0) when it meets
    // both bounds at stride 0, and takes the bound otherwise.
    const Expr lower = maximum(Expr(x), low);  // (what does not broadcast is refused here and below)
    const std::vector<std::size_t> shape = minimum(lower, high).node()->shape;
    const std::vector<NodePtr> operands = {x, low.node(), high.node()};
    const bool scalar_bounds =
        at_stride_zero(*low.node(), operands, shape, common) && at_stride_zero(*high.node(), operands, shape, common);
    const auto clip_node = [&common, scalar_bounds](const Expr& e) {
        auto node = std::make_shared<ExprNode>(*e.node());
        node->clip_order = true;
        node->ties_keep_first = scalar_bounds;
        node->dtype = node->compute = common;
        return Expr(NodePtr(std::move(node)));
    };
    return clip_node(minimum(clip_node(lower), high));
}

Expr floor_divide(const Expr& a, const Expr& b) { return make(ExprOp::floor_divide, {a.node(), b.node()}); }
Expr fmod(const Expr& a, const Expr& b) { return make(ExprOp::fmod, {a.node(), b.node()}); }
Expr remainder(const Expr& a, const Expr& b) { return a % b; }
std::pair<Expr, Expr> divmod(const Expr& a, const Expr& b) { return {floor_divide(a, b), a % b}; }
Expr floor(const Expr& a) { return make(ExprOp::floor, {a.node()}); }
Expr ceil(const Expr& a) { return make(ExprOp::ceil, {a.node()}); }
Expr trunc(const Expr& a) { return make(ExprOp::trunc, {a.node()}); }
Expr rint(const Expr& a) { return make(ExprOp::rint, {a.node()}); }
Expr round(const Expr& a, int decimals) { return make(ExprOp::round, {a.node()}, decimals); }
Expr isnan(const Expr& a) { return make(ExprOp::isnan, {a.node()}); }
Expr isinf(const Expr& a) { return make(ExprOp::isinf, {a.node()}); }
Expr isfinite(const Expr& a) { return make(ExprOp::isfinite, {a.node()}); }
Expr sign(const Expr& a) { return make(ExprOp::sign, {a.node()}); }
Expr square(const Expr& a) { return make(ExprOp::square, {a.node()}); }
Expr negative(const Expr& a) { return -a; }
Expr positive(const Expr& a) { return make(ExprOp::positive, {a.node()}); }
Expr reciprocal(const Expr& a) { return make(ExprOp::reciprocal, {a.node()}); }
Expr log2(const Expr& a) { return make(ExprOp::log2, {a.node()}); }
Expr log10(const Expr& a) { return make(ExprOp::log10, {a.node()}); }
Expr log1p(const Expr& a) { return make(ExprOp::log1p, {a.node()}); }
Expr expm1(const Expr& a) { return make(ExprOp::expm1, {a.node()}); }
Expr exp2(const Expr& a) { return make(ExprOp::exp2, {a.node()}); }
Expr tan(const Expr& a) { return make(ExprOp::tan, {a.node()}); }
Expr arcsin(const Expr& a) { return make(ExprOp::arcsin, {a.node()}); }
Expr arccos(const Expr& a) { return make(ExprOp::arccos, {a.node()}); }
Expr arctan(const Expr& a) { return make(ExprOp::arctan, {a.node()}); }
Expr sinh(const Expr& a) { return make(ExprOp::sinh, {a.node()}); }
Expr cosh(const Expr& a) { return make(ExprOp::cosh, {a.node()}); }
Expr arcsinh(const Expr& a) { return make(ExprOp::arcsinh, {a.node()}); }
Expr arccosh(const Expr& a) { return make(ExprOp::arccosh, {a.node()}); }
Expr arctanh(const Expr& a) { return make(ExprOp::arctanh, {a.node()}); }
Expr arctan2(const Expr& y, const Expr& x) { return make(ExprOp::arctan2, {y.node(), x.node()}); }
Expr hypot(const Expr& a, const Expr& b) { return make(ExprOp::hypot, {a.node(), b.node()}); }
Expr copysign(const Expr& a, const Expr& b) { return make(ExprOp::copysign, {a.node(), b.node()}); }
Expr fmin(const Expr& a, const Expr& b) { return make(ExprOp::fmin, {a.node(), b.node()}); }
Expr fmax(const Expr& a, const Expr& b) { return make(ExprOp::fmax, {a.node(), b.node()}); }
Expr cbrt(const Expr& a) { return make(ExprOp::cbrt, {a.node()}); }
Expr deg2rad(const Expr& a) { return make(ExprOp::deg2rad, {a.node()}); }
Expr rad2deg(const Expr& a) { return make(ExprOp::rad2deg, {a.node()}); }
Expr signbit(const Expr& a) { return make(ExprOp::signbit, {a.node()}); }
Expr spacing(const Expr& a) { return make(ExprOp::spacing, {a.node()}); }
Expr conjugate(const Expr& a) { return make(ExprOp::conjugate, {a.node()}); }
Expr bitwise_count(const Expr& a) { return make(ExprOp::bitwise_count, {a.node()}); }
Expr logaddexp(const Expr& a, const Expr& b) { return make(ExprOp::logaddexp, {a.node(), b.node()}); }
Expr logaddexp2(const Expr& a, const Expr& b) { return make(ExprOp::logaddexp2, {a.node(), b.node()}); }
Expr heaviside(const Expr& x, const Expr& h0) { return make(ExprOp::heaviside, {x.node(), h0.node()}); }
Expr nextafter(const Expr& a, const Expr& b) { return make(ExprOp::nextafter, {a.node(), b.node()}); }
Expr float_power(const Expr& base, const Expr& exponent) {
    return make(ExprOp::float_power, {base.node(), exponent.node()});
}
Expr ldexp(const Expr& x, const Expr& exponent) { return make(ExprOp::ldexp, {x.node(), exponent.node()}); }
std::pair<Expr, Expr> frexp(const Expr& x) {
    return {make(ExprOp::frexp_mantissa, {x.node()}), make(ExprOp::frexp_exponent, {x.node()})};
}
Expr gcd(const Expr& a, const Expr& b) { return make(ExprOp::gcd, {a.node(), b.node()}); }
Expr lcm(const Expr& a, const Expr& b) { return make(ExprOp::lcm, {a.node(), b.node()}); }
Expr operator&(const Expr& a, const Expr& b) { return make(ExprOp::bitwise_and, {a.node(), b.node()}); }
Expr operator|(const Expr& a, const Expr& b) { return make(ExprOp::bitwise_or, {a.node(), b.node()}); }
Expr operator^(const Expr& a, const Expr& b) { return make(ExprOp::bitwise_xor, {a.node(), b.node()}); }
Expr operator~(const Expr& a) { return make(ExprOp::invert, {a.node()}); }
Expr operator<<(const Expr& a, const Expr& b) { return make(ExprOp::left_shift, {a.node(), b.node()}); }
Expr operator>>(const Expr& a, const Expr& b) { return make(ExprOp::right_shift, {a.node(), b.node()}); }
namespace {

// numpy's logical functions read only a Python scalar's truth (their loops are bool's): a weak
// integer of any size, or a weak float or complex number, becomes the weak bool of its truth, which
// every dtype holds. (Cast into a float array's dtype first, 1e-300 would underflow to false in
// float16: np.logical_and(1e-300, x) is x != 0.)
NodePtr truth_operand(const NodePtr& node) {
    if (node->op != ExprOp::scalar || !node->weak || *node->weak == detail::WeakKind::boolean) return node;
    const detail::ScalarValue& v = node->value;
    const bool truth = v.kind == detail::ScalarValue::Kind::unsigned_integer ? v.u != 0
                       : v.kind == detail::ScalarValue::Kind::signed_integer ? v.i != 0
                                                                             : v.c != std::complex<double>(0);
    return Expr(truth).node();
}

}  // namespace

Expr logical_and(const Expr& a, const Expr& b) {
    return make(ExprOp::logical_and, {truth_operand(a.node()), truth_operand(b.node())});
}
Expr logical_or(const Expr& a, const Expr& b) {
    return make(ExprOp::logical_or, {truth_operand(a.node()), truth_operand(b.node())});
}
Expr logical_xor(const Expr& a, const Expr& b) {
    return make(ExprOp::logical_xor, {truth_operand(a.node()), truth_operand(b.node())});
}
Expr logical_not(const Expr& a) { return make(ExprOp::logical_not, {truth_operand(a.node())}); }

Expr astype(const Expr& a, const DType& dtype) {
    if (dtype.is_struct()) throw ArgumentError("dtype", fmt::format("{} is not a scalar type", dtype.name()));
    auto node = std::make_shared<ExprNode>();
    node->op = ExprOp::cast;
    node->dtype = node->compute = dtype;
    node->shape = a.shape();
    node->children = {a.node()};
    return Expr(NodePtr(std::move(node)));
}

}  // namespace kjarni
