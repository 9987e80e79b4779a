#pragma once
// From an expression tree to the C expression of one element's value: the arrays it reads (each
// once, however often the tree names it), its scalars as kernel parameters, and the code.

#include <string>
#include <vector>

#include "algorithms/expression_node.hpp"
#include "kjarni/array.hpp"

namespace kjarni::detail {

struct ExprScalarParameter {
    ScalarValue value;
    DType dtype;  // the type the kernel computes it in
    const ExprNode* node = nullptr;  // the scalar leaf it is the value of
};

struct ExprCode {
    /// The distinct arrays read, in order of first appearance; in the code, array k's element
    /// value (in its compute type) is the variable `v<k>`.
    std::vector<Array> arrays;
    /// Scalar parameters, named `s<j>` in the code (of scalar_parameter_type(dtype)).
    std::vector<ExprScalarParameter> scalars;
    /// The value of the element in the result's compute type.
    std::string value;
    /// The reduction nodes the value uses (ExprOp::reduction, not entered), in order of first
    /// appearance: reduction k's value (in its dtype's compute type) is the variable `r<k>`.
    std::vector<const ExprNode*> reductions;
};

ExprCode generate_expression(const ExprNode& root);

/// Whether two arrays are one view (the same first byte, dtype, shape and strides): the code reads
/// such arrays once, as one array.
bool same_array_view(const Array& a, const Array& b);
/// The value of `root` in its dtype's compute type, with its arrays, scalars and reductions added
/// to `code` (those already there keep their names), for kernels computing several values.
std::string generate_more(const ExprNode& root, ExprCode& code);
/// The same, where each node of `parts` (none inside another) stands in the value as the variable
/// `names[i]`: its own code, in its dtype's compute type and naming the same arrays, scalars and
/// reductions, is put in `codes[i]` (empty when the value does not use it). For values the caller
/// computes once and uses many times.
std::string generate_more(const ExprNode& root, ExprCode& code, const std::vector<const ExprNode*>& parts,
                          const std::vector<std::string>& names, std::vector<std::string>& codes);

/// Converts a value expression of one compute type to another (C's conversions; complex to real
/// takes the real part; bool is != 0).
std::string convert_value(const std::string& value, const DType& from, const DType& to);
/// The value read from a storage element expression (`p[k]`) of `dtype`, and the storage expression
/// to write for a value.
std::string load_value(const std::string& element, const DType& dtype);
std::string store_value(const std::string& value, const DType& dtype);

}  // namespace kjarni::detail
