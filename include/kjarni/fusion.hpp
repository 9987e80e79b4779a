#pragma once
/// Reductions fused with the expressions they reduce, and expressions that use reductions.
///
/// **Reductions of expressions** (eager, like those of kjarni/reduction.hpp): the expression's
/// value is computed inside the reduction's loads, nothing is stored in between:
///
///     kjarni::Array s = kjarni::sum(queue, a * x + b);                         // one kernel
///     kjarni::Array m = kjarni::max(queue, kjarni::abs(x - y), {.axes = {{1}}}); // one kernel
///
/// The result is the reduction of the array that evaluate(queue, expression) would give: the
/// expression's dtype by numpy's promotion (kjarni/expression.hpp), then the reduction's own rules
/// for that dtype (sum of int32 values in int64, mean of integers in float64, `dtype=`, `out=`,
/// `axes`, `keepdims`: kjarni/reduction.hpp), each value rounded to the expression's dtype first
/// (a float16 expression's values are float16 values, as the temporary's would be). The
/// reduction's kernel, its order of combination and so its determinism are the reduction's own:
/// min, max, argmin, argmax, any, all and integer sums give the same values as the unfused
/// evaluation, float sums agree within the summation's rounding bound (the order may differ where
/// the unfused reduction of a contiguous array loads 16 bytes at a time).
///
/// **Expressions that use reductions** (lazy): `sum(e, axes, keepdims)` and the others below
/// without a queue are expression nodes, broadcast where used as numpy broadcasts the reduced
/// array (`keepdims` keeps the reduced axes with extent 1):
///
///     const kjarni::Expr m = kjarni::max(x, -1, true);
///     const kjarni::Expr e = kjarni::exp(x - m);
///     kjarni::Array softmax = kjarni::evaluate(queue, e / kjarni::sum(e, -1, true));
///
/// evaluate() and assign() plan such an expression into the fewest kernels its data dependencies
/// allow, chosen automatically (fusion_plan() shows the plan without running it):
/// - **one kernel** on a GPU when every reduction reduces the same trailing axes of the result's
///   shape (a "row") with keepdims and a row fits one work group (up to 16 elements per work item,
///   fewer when many arrays are read; 1024 work items): each work group
///   reads its row of every array once into registers, computes the reductions in dependency
///   order (a max, then a sum of exp(x - max)) with a fixed tree in local memory, and writes the
///   row once. float16, float32 and float64 values reduced by sum, prod, mean, min, max, var and
///   std. Not on CPU devices, where its barriers cost more than the temporaries (PoCL: 2-4x slower
///   than the unfused kernels); the environment variable KJARNI_FUSION_ROWS=always runs it on any
///   device, =never nowhere (gpu, the default: on GPUs), another value is an ArgumentError;
/// - otherwise **one kernel per reduction** (each a fused reduction as above, inner reductions
///   first) into temporaries, then **one elementwise kernel** for the result.
/// Both are deterministic. The one-kernel plan combines values in another order than the
/// reductions of kjarni/reduction.hpp: a float sum agrees with the unfused one within the bound
/// of the two summations (each (n - 1) u sum |x_i| for n values and unit roundoff u); min and max
/// are exact. Results are numpy's dtypes (a reduction node's dtype is its eager function's).
///
/// Errors come where the expression is written as for other operations (an axis out of range or
/// repeated: ArgumentError naming `axes`; shapes that do not broadcast), and at evaluation as for
/// evaluate() (arrays of another device). Reductions of MultiArrays cannot be lazy
/// (UnsupportedError). \file

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/reduction.hpp"

namespace kjarni {

// ---- eager reductions of expressions: one kernel each (the reductions of kjarni/reduction.hpp) --

Array sum(const Queue& queue, const Expr& expression, const ReduceOptions& options = {},
          const std::optional<DType>& dtype = std::nullopt);
Array prod(const Queue& queue, const Expr& expression, const ReduceOptions& options = {},
           const std::optional<DType>& dtype = std::nullopt);
Array mean(const Queue& queue, const Expr& expression, const ReduceOptions& options = {},
           const std::optional<DType>& dtype = std::nullopt);
Array min(const Queue& queue, const Expr& expression, const ReduceOptions& options = {});
Array max(const Queue& queue, const Expr& expression, const ReduceOptions& options = {});
Array argmin(const Queue& queue, const Expr& expression, const ReduceOptions& options = {});
Array argmax(const Queue& queue, const Expr& expression, const ReduceOptions& options = {});
Array any(const Queue& queue, const Expr& expression, const ReduceOptions& options = {});
Array all(const Queue& queue, const Expr& expression, const ReduceOptions& options = {});
Array var(const Queue& queue, const Expr& expression, const ReduceOptions& options = {}, double ddof = 0,
          const std::optional<DType>& dtype = std::nullopt);
Array std(const Queue& queue, const Expr& expression, const ReduceOptions& options = {}, double ddof = 0,
          const std::optional<DType>& dtype = std::nullopt);
/// dot of two 1-d expressions of the same length, as dot() of arrays (kjarni/reduction.hpp): numpy's
/// dtype for the expressions' dtypes, the products computed and summed in one kernel in what numpy
/// accumulates in; a second, of one element, stores an integer, bool or float16 result.
Array dot(const Queue& queue, const Expr& a, const Expr& b, const std::optional<Array>& out = std::nullopt);

// ---- lazy reductions: expression nodes -----------------------------------------------------------

/// The axes of a lazy reduction: one axis (`-1`), several (`{0, 2}`), or all (nothing, or `{}`).
/// Negative axes count from the end of the reduced expression's shape.
struct Axes {
    Axes() = default;
    Axes(int axis) : axes(std::vector<int>{axis}) {}  // NOLINT: implicit on purpose
    Axes(std::initializer_list<int> list) {           // NOLINT: implicit on purpose
        if (list.size() > 0) axes = std::vector<int>(list);
    }
    Axes(std::vector<int> list) : axes(std::move(list)) {}  // NOLINT: implicit on purpose
    std::optional<std::vector<int>> axes;
};

Expr sum(const Expr& expression, Axes axes = {}, bool keepdims = false,
         const std::optional<DType>& dtype = std::nullopt);
Expr prod(const Expr& expression, Axes axes = {}, bool keepdims = false,
          const std::optional<DType>& dtype = std::nullopt);
Expr mean(const Expr& expression, Axes axes = {}, bool keepdims = false,
          const std::optional<DType>& dtype = std::nullopt);
Expr min(const Expr& expression, Axes axes = {}, bool keepdims = false);
Expr max(const Expr& expression, Axes axes = {}, bool keepdims = false);
/// argmin / argmax of one axis or all (then the flat C-order index), as numpy's.
Expr argmin(const Expr& expression, Axes axes = {}, bool keepdims = false);
Expr argmax(const Expr& expression, Axes axes = {}, bool keepdims = false);
Expr any(const Expr& expression, Axes axes = {}, bool keepdims = false);
Expr all(const Expr& expression, Axes axes = {}, bool keepdims = false);
Expr var(const Expr& expression, Axes axes = {}, bool keepdims = false, double ddof = 0);
Expr std(const Expr& expression, Axes axes = {}, bool keepdims = false, double ddof = 0);

/// How evaluate() / assign() would run an expression on `queue`'s device.
struct FusionPlan {
    struct Kernel {
        /// What the kernel computes ("row kernel: 2 reductions and the result", "sum", "elementwise").
        std::string what;
        /// The bytes it reads and writes at least: every element of every array it reads once (an
        /// array broadcast to a larger shape counts its own size), every element it writes once.
        std::size_t bytes_read = 0;
        std::size_t bytes_written = 0;
    };
    std::vector<Kernel> kernels;
    /// For the one-kernel plan: the work items per row and the elements each holds.
    std::size_t group = 0;
    std::size_t per_item = 0;
    /// Why the one-kernel plan was not taken (empty when it was, or when there is no reduction).
    std::string reason;
    /// One line per kernel.
    std::string describe() const;
};

/// The plan of `evaluate(queue, expression)` (nothing runs; kernels may be compiled to learn the
/// device's limits).
FusionPlan fusion_plan(const Queue& queue, const Expr& expression);

}  // namespace kjarni
