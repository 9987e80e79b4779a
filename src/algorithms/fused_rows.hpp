#pragma once
// The one-kernel plan of an expression that uses reductions: one work group per row (the reduced
// trailing axes), the row's elements held in registers, the reductions computed in dependency
// order, the row written once (see fused_rows.cpp).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/expression_codegen.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/iteration_space.hpp"
#include "kjarni/expression.hpp"

namespace kjarni::detail {

struct RowPlan {
    /// Empty when the one-kernel plan applies; else why not.
    std::string refused;
    /// The values the kernel computes: the result's value and each reduction's child's (`r<k>`
    /// and the arrays `v<k>`, scalars `s<j>` shared).
    ExprCode code;
    std::vector<std::string> reduced_values;
    /// Parts of the result's value that are the same along a row (they read reductions and scalars,
    /// no array: layer normalisation's sqrt(var + eps)), computed once per row into `kj_h<i>`,
    /// which code.value names: each one's C type and code.
    std::vector<std::pair<std::string, std::string>> row_values;
    /// The reductions by level: those of a level use only the values of earlier levels, and are
    /// combined over the work group together.
    std::vector<std::vector<std::size_t>> levels;
    std::size_t rows = 0;
    std::size_t row_length = 0;
    std::size_t group = 0;
    std::size_t per_item = 0;
    /// Elements a work item reads and writes at once (1: one at a time, any strides).
    std::size_t vector = 1;
    IterationSpace kept;     // operand 0 is out, then code.arrays
    IterationSpace reduced;  // the same operands
    std::vector<std::ptrdiff_t> offsets;
    bool use_32_bits = true;
    GeneratedKernel kernel;
};

/// The one-kernel plan of `out = expression` (out of the expression's dtype and shape: nullptr
/// plans for a new C-contiguous array), compiled; `refused` says why when it does not apply.
RowPlan plan_rows(const Queue& queue, const Array* out, const Expr& expression);

/// Runs a plan that applies.
void run_rows(const Queue& queue, const Array& out, const RowPlan& plan);

}  // namespace kjarni::detail
