#pragma once
// assign() in its two halves: the checks it makes before anything runs, and the evaluation. The
// statements of kjarni/statements.hpp make the checks where a statement is written and run it later.

#include "kjarni/array.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

/// The checks assign(queue, out, expression) makes before anything runs, in its order and with its
/// messages (numpy's same_kind casting, a bare weak scalar's value, out's device, shape and dtype):
/// the expression to run into `out`, converted to out's dtype.
Expr checked_assignment(const Queue& queue, const Array& out, const Expr& expression);

/// Runs an expression that checked_assignment gave into `out` (the rest of assign()).
void run_assignment(const Queue& queue, const Array& out, const Expr& expression);

}  // namespace kjarni::detail
