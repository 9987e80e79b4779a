#pragma once
// An expression's kernel found without generating its code: a key of the tree's structure, and the
// arrays and scalar parameters its generated code (expression_codegen.hpp) would name, in the same
// order. Generating the code of `3 * x + b` took a third of a call's host work; the structure is
// written in a fraction of that, and the code is generated only when a new kernel is compiled.

#include <optional>
#include <string>
#include <vector>

#include "algorithms/expression_codegen.hpp"
#include "algorithms/expression_node.hpp"

namespace kjarni::detail {

struct BoundExpression {
    /// Equal for two trees exactly when generate_expression gives them the same code: each node's
    /// operation, dtypes and flags, which nodes are shared (a shared subtree is written once), which
    /// array leaves are one view (same_array_view), each scalar's kind and, for a weak integer, the
    /// integer types it fits (the code compares integers exactly or checks them where one does not).
    std::string key;
    /// generate_expression(root)'s arrays (the tree's own: alive as long as it is) and scalars.
    std::vector<const Array*> arrays;
    std::vector<ExprScalarParameter> scalars;
};

/// The tree's key, arrays and scalars. nullopt where the tree holds what the key does not describe
/// (a reduction, a MultiArray, a struct dtype): generate_expression decides there. Code generation's
/// errors (a weak integer out of an integer type's bounds) come as from generate_expression.
std::optional<BoundExpression> bind_expression(const ExprNode& root);

/// The arrays (pointing into `code`) and scalars of generated code, without a key.
BoundExpression bind_generated(const ExprCode& code);

}  // namespace kjarni::detail
