#pragma once
// numpy's ufuncs beyond the arithmetic core of expression.cpp: the rounding and division family
// (floor_divide, fmod, floor, ceil, trunc, rint, round), isnan/isinf/isfinite, the other math
// functions, and the bitwise and logical operators. Each has numpy's accepted dtypes, result dtype
// and edge values (division by zero, shifts past the width, NaN); see expression_ops.cpp.

#include <string>

#include "algorithms/expression_node.hpp"

namespace kjarni::detail {

/// The name of an operation of this family (op_name's for them); nullptr for the others.
const char* numpy_op_name(ExprOp op);

/// Sets `node.dtype` and `node.compute` for an operation of this family from the operands'
/// common type (`node.op`, `node.decimals` and `node.children` set). ArgumentError naming the
/// operation and the dtype that numpy refuses (numpy's TypeError); UnsupportedError for the
/// complex values numpy takes and kjarni does not compute (the inverse trigonometric and
/// hyperbolic functions, log1p, expm1).
void type_numpy_op(ExprNode& node, const DType& common);

/// The C expression of the operation's value in node.compute's C type (logical and predicate
/// operations: a truth value), given the operands already converted to node.compute.
std::string numpy_op_code(const ExprNode& node, const std::string& a, const std::string& b);

/// The device functions numpy_op_code calls (kj_floordiv_int8_t, ...), for every type.
std::string numpy_ops_preamble();

}  // namespace kjarni::detail
