#pragma once
// The tree behind kjarni::Expr: each node knows its result dtype and broadcast shape, computed
// when it is built so that type and shape errors come where the expression is written.

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "algorithms/promotion.hpp"
#include "algorithms/scalar_value.hpp"
#include "kjarni/array.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/multi_array.hpp"

namespace kjarni::detail {

enum class ExprOp {
    array, scalar,
    add, subtract, multiply, divide, remainder, negate,
    equal, not_equal, less, less_equal, greater, greater_equal,
    absolute, sqrt, exp, log, sin, cos, tanh, power, minimum, maximum,
    where, cast,
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
};

}  // namespace kjarni::detail
