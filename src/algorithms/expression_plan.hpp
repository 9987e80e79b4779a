#pragma once
// Expressions that hold reductions (ExprOp::reduction): their reductions as fused reductions
// (fused_reduction.cpp), and their evaluation planned into the fewest kernels
// (expression_plan.cpp, fused_rows.cpp).

#include <optional>
#include <string>

#include "algorithms/expression_node.hpp"
#include "algorithms/reduction_source.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/fusion.hpp"

namespace kjarni::detail {

/// Whether the tree holds a reduction node anywhere.
bool holds_reduction(const ExprNode& node);

/// The source that computes an expression (without reduction nodes) inside a reduction's loads:
/// its arrays (checked on `queue`'s device, named in messages by their place in the expression)
/// and scalars as the reduction's arguments, its value as the element.
ReductionSource expression_source(const Queue& queue, const Expr& expression, const std::string& what);

/// The eager reduction of an expression (reduction nodes inside it resolved first), as the
/// function of kjarni/fusion.hpp for `kind` does it.
Array reduce_expression(const Queue& queue, ReductionKind kind, const Expr& expression, const ReduceOptions& options,
                        const std::optional<DType>& dtype, double ddof);

/// The expression with every reduction node replaced by its value, computed eagerly (inner
/// reductions first, each once however often the tree uses it) into temporaries allocated for
/// work on `queue` (they may be dropped once the work reading them is enqueued).
Expr resolve_reductions(const Queue& queue, const Expr& expression);

/// evaluate() / assign() of an expression that holds reductions: `out` has the expression's
/// dtype and a shape the expression broadcasts to (expression_eval.cpp checked both).
void evaluate_with_reductions(const Queue& queue, const Array& out, const Expr& expression);

}  // namespace kjarni::detail
