// Planning an expression that uses reductions: the one-kernel row plan (fused_rows.cpp) where it
// applies, else every reduction as a fused reduction into a temporary (inner ones first) and one
// elementwise kernel for the result.

#include "algorithms/expression_plan.hpp"

#include <map>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/expression_codegen.hpp"
#include "algorithms/fused_rows.hpp"
#include "algorithms/reduction_types.hpp"
#include "array/overlap.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace detail {

namespace {

using NodePtr = std::shared_ptr<const ExprNode>;

std::size_t bytes_of(const std::vector<std::size_t>& shape, const DType& dtype) {
    return std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>()) * dtype.itemsize();
}

std::vector<int> axes_of(const ReductionNode& r) {
    std::vector<int> axes;
    for (std::size_t d = 0; d < r.reduced.size(); ++d)
        if (r.reduced[d]) axes.push_back(static_cast<int>(d));
    return axes;
}

NodePtr resolve(const Queue& queue, const NodePtr& node, std::map<const ExprNode*, NodePtr>& done) {
    if (const auto found = done.find(node.get()); found != done.end()) return found->second;
    NodePtr result = node;
    if (node->op == ExprOp::reduction) {
        const ReductionNode& r = *node->reduction;
        const Expr child(resolve(queue, node->children[0], done));
        ReduceOptions options;
        options.axes = axes_of(r);
        options.keepdims = r.keepdims;
        options.allocator = [queue](const BoundDevice&, std::size_t size) { return temporary_buffer(queue, size); };
        result = Expr(reduce_expression(queue, r.kind, child, options, r.dtype, r.ddof)).node();
    } else if (!node->children.empty()) {
        result = with_mapped_children(node, [&](const NodePtr& child) { return resolve(queue, child, done); });
    }
    done.emplace(node.get(), result);
    return result;
}

void collect_arrays(const ExprNode& node, std::vector<Array>& arrays) {
    if (node.array) arrays.push_back(*node.array);
    for (const auto& child : node.children) collect_arrays(*child, arrays);
}

// The bytes a kernel computing `node` reads: its arrays once each, the reductions it uses as
// the temporaries they are.
std::size_t bytes_read(const ExprNode& node) {
    const ExprCode code = generate_expression(node);
    std::size_t bytes = 0;
    for (const Array& a : code.arrays) bytes += a.size() * a.dtype().itemsize();
    for (const ExprNode* r : code.reductions) bytes += bytes_of(r->shape, r->dtype);
    return bytes;
}

void plan_reductions(const ExprNode& node, std::map<const ExprNode*, bool>& planned, FusionPlan& plan) {
    if (node.op == ExprOp::reduction) {
        if (planned[&node]) return;
        planned[&node] = true;
        const ExprNode& child = *node.children[0];
        plan_reductions(child, planned, plan);
        const std::vector<int> axes = axes_of(*node.reduction);
        plan.kernels.push_back(
            FusionPlan::Kernel{fmt::format("{} over axes ({}) of {} values{}",
                                           reduction_kind_name(node.reduction->kind), fmt::join(axes, ", "),
                                           child.dtype.name(),
                                           child.op == ExprOp::array ? "" : ", the expression computed in its loads"),
                               bytes_read(child), bytes_of(node.shape, node.dtype)});
        return;
    }
    for (const auto& child : node.children) plan_reductions(*child, planned, plan);
}

}  // namespace

bool holds_reduction(const ExprNode& node) {
    if (node.op == ExprOp::reduction) return true;
    for (const auto& child : node.children)
        if (holds_reduction(*child)) return true;
    return false;
}

Expr resolve_reductions(const Queue& queue, const Expr& expression) {
    std::map<const ExprNode*, NodePtr> done;
    return Expr(resolve(queue, expression.node(), done));
}

void evaluate_with_reductions(const Queue& queue, const Array& out, const Expr& expression) {
    // `out` sharing bytes with an operand through another view: the value goes through a
    // temporary, as for expressions without reductions (expression_eval.cpp).
    std::vector<Array> arrays;
    collect_arrays(*expression.node(), arrays);
    for (const Array& a : arrays) {
        if (memory_overlap(out, a) != Overlap::partial) continue;
        const Array staged = Array::empty(queue.device(), out.shape(), out.dtype());
        evaluate_with_reductions(queue, staged, expression);
        out.set(queue, staged);
        queue.synchronize();  // `staged` goes now
        return;
    }
    // (an empty result goes through the reductions too: min and max of an empty axis raise even
    // where the result is empty, as numpy's)
    const RowPlan rows = plan_rows(queue, &out, expression);
    if (rows.refused.empty()) return run_rows(queue, out, rows);
    assign(queue, out, resolve_reductions(queue, expression));
}

}  // namespace detail

std::string FusionPlan::describe() const {
    std::string text;
    for (std::size_t k = 0; k < kernels.size(); ++k)
        text += fmt::format("kernel {}: {}; reads {} bytes, writes {} bytes\n", k + 1, kernels[k].what,
                            kernels[k].bytes_read, kernels[k].bytes_written);
    if (!reason.empty()) text += fmt::format("not one kernel: {}\n", reason);
    return text;
}

FusionPlan fusion_plan(const Queue& queue, const Expr& expression) {
    FusionPlan plan;
    const detail::ExprNode& root = *expression.node();
    const std::size_t written = detail::bytes_of(root.shape, root.dtype);
    if (!detail::holds_reduction(root)) {
        plan.kernels.push_back(FusionPlan::Kernel{"elementwise", detail::bytes_read(root), written});
        return plan;
    }
    const detail::RowPlan rows = detail::plan_rows(queue, nullptr, expression);
    if (rows.refused.empty()) {
        std::size_t read = 0;
        for (const Array& a : rows.code.arrays) read += a.size() * a.dtype().itemsize();
        plan.kernels.push_back(
            FusionPlan::Kernel{fmt::format("rows: {} reduction{} and the result, {} rows of {} elements",
                                           rows.code.reductions.size(), rows.code.reductions.size() == 1 ? "" : "s",
                                           rows.rows, rows.row_length),
                               read, written});
        plan.group = rows.group;
        plan.per_item = rows.per_item;
        return plan;
    }
    plan.reason = rows.refused;
    std::map<const detail::ExprNode*, bool> planned;
    detail::plan_reductions(root, planned, plan);
    plan.kernels.push_back(
        FusionPlan::Kernel{"elementwise, the reductions' results broadcast", detail::bytes_read(root), written});
    return plan;
}

}  // namespace kjarni
