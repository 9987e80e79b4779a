// kjarni::Statements: assignments recorded with eager's checks, run later in their order, with lazy
// values (let) substituted into the statements that use them, so that they fuse as one expression
// would. A let value is a cast node marked statement_value (rounding and no contraction across
// it, expression_codegen.cpp), which the block owns and may redirect to a temporary once a later
// statement overwrites what it reads.

#include "kjarni/statements.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "algorithms/assignment.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/expression_node.hpp"
#include "algorithms/expression_plan.hpp"
#include "algorithms/fused_rows.hpp"
#include "algorithms/operand_checks.hpp"
#include "array/overlap.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace {

using detail::ExprNode;
using detail::ExprOp;
using NodePtr = std::shared_ptr<const ExprNode>;

void collect_arrays(const ExprNode& node, std::vector<Array>& arrays) {
    if (node.array) arrays.push_back(*node.array);
    for (const auto& child : node.children) collect_arrays(*child, arrays);
}

// The root reduction that run() writes straight into `out` (one kernel, as sum(queue, e, {.out})
// runs, where assign() would reduce into a temporary and copy it): out has its dtype and shape and
// the one-kernel row plan does not take it. nullptr otherwise.
const ExprNode* direct_reduction(const Queue& queue, const Array& out, const Expr& expression) {
    const ExprNode& root = *expression.node();
    if (root.op != ExprOp::reduction || !(root.dtype == out.dtype()) || root.shape != out.shape()) return nullptr;
    if (detail::plan_rows(queue, &out, expression).refused.empty()) return nullptr;
    return &root;
}

void run_statement(const Queue& queue, const Array& out, const Expr& expression) {
    const ExprNode* reduction = direct_reduction(queue, out, expression);
    if (reduction == nullptr) return detail::run_assignment(queue, out, expression);
    const detail::ReductionNode& r = *reduction->reduction;
    ReduceOptions options;
    options.axes.emplace();
    for (std::size_t d = 0; d < r.reduced.size(); ++d)
        if (r.reduced[d]) options.axes->push_back(static_cast<int>(d));
    options.keepdims = r.keepdims;
    options.out = out;
    detail::reduce_expression(queue, r.kind, Expr(reduction->children[0]), options, r.dtype, r.ddof);
}

bool refuses_empty(detail::ReductionKind kind) {
    using detail::ReductionKind;
    return kind == ReductionKind::min || kind == ReductionKind::max || kind == ReductionKind::argmin ||
           kind == ReductionKind::argmax;
}

}  // namespace

struct Statements::State {
    State(const Queue& q, const Allocator& a) : queue(q), allocator(a) {}

    // (Nested: members of a class of the library's linkage may not have types of an anonymous
    // namespace, which unity batches would make them.)
    struct PendingStatement {
        Array out;
        Expr expression;  // lazy values substituted, converted to out's dtype
        std::string what;
    };

    struct LetValue {
        std::weak_ptr<ExprNode> marker;  // the user's node; expired once nothing can use the value
        std::vector<Array> reads;        // the arrays its current definition reads
        std::size_t statement = 0;
    };

    Queue queue;
    Allocator allocator;
    std::vector<PendingStatement> pending;
    std::vector<LetValue> lets;
    std::map<const ExprNode*, std::size_t> let_of;  // marker -> index in lets
    std::size_t statements = 0;                     // let(), assign() and evaluate() calls so far

    // The block's own lazy value that `node` is, or nullptr (an address of an expired value may
    // have been reused by another node).
    std::shared_ptr<ExprNode> own_marker(const ExprNode* node) const {
        const auto found = let_of.find(node);
        if (found == let_of.end()) return nullptr;
        std::shared_ptr<ExprNode> marker = lets[found->second].marker.lock();
        return marker.get() == node ? marker : nullptr;
    }

    // The expression with every lazy value of the block replaced by its current definition (a copy
    // of its node: redirecting the value later does not change what this statement computes).
    NodePtr substitute(const NodePtr& node, std::map<const ExprNode*, NodePtr>& done) const {
        if (const auto found = done.find(node.get()); found != done.end()) return found->second;
        NodePtr result = node;
        if (const std::shared_ptr<ExprNode> marker = own_marker(node.get())) {
            result = std::make_shared<const ExprNode>(*marker);
        } else {
            if (node->statement_value)
                throw ArgumentError("expression",
                                    "uses a lazy value of another Statements block (run that block and store "
                                    "the value with its evaluate())");
            result = with_mapped_children(node, [&](const NodePtr& child) { return substitute(child, done); });
        }
        done.emplace(node.get(), result);
        return result;
    }

    Expr substitute(const Expr& expression) const {
        std::map<const ExprNode*, NodePtr> done;
        return Expr(substitute(expression.node(), done));
    }

    // The arrays and reductions the statement itself names (not those inside its lazy values,
    // checked where those were written), in the order eager evaluation meets the reductions
    // (inner ones first).
    void own_parts(const ExprNode& node, std::vector<Array>& arrays, std::vector<const ExprNode*>& reductions) const {
        if (own_marker(&node)) return;
        if (node.array) arrays.push_back(*node.array);
        for (const auto& child : node.children) own_parts(*child, arrays, reductions);
        if (node.op == ExprOp::reduction) reductions.push_back(&node);
    }

    // The expression with each lazy value replaced by an array of its dtype and shape (as eager
    // evaluation has it), for the messages of errors that name operands by their place.
    Expr as_eager(const Expr& expression) const {
        std::map<const ExprNode*, NodePtr> done;
        const std::function<NodePtr(const NodePtr&)> walk = [&](const NodePtr& node) -> NodePtr {
            if (const auto found = done.find(node.get()); found != done.end()) return found->second;
            NodePtr result = node;
            if (own_marker(node.get())) {
                result = Expr(Array::empty(queue.device(), node->shape, node->dtype)).node();
            } else if (!node->children.empty()) {
                auto copy = std::make_shared<ExprNode>(*node);
                for (auto& child : copy->children) child = walk(child);
                result = copy;
            }
            done.emplace(node.get(), result);
            return result;
        };
        return Expr(walk(expression.node()));
    }

    // The checks eager evaluation makes before it runs anything, beyond assign()'s own
    // (checked_assignment): a weak integer that its context's type cannot hold, every operand on
    // the queue's device, no min or max of an empty axis. `out` is nullopt for evaluate().
    void check_operands(const Expr& statement, const Expr& fused, const std::optional<Array>& out) const {
        // Code generation refuses scalars out of range; a lazy value's inside was checked at let().
        (void)detail::generate_expression(*fused.node());
        std::vector<Array> arrays;
        std::vector<const ExprNode*> reductions;
        own_parts(*statement.node(), arrays, reductions);
        for (const ExprNode* r : reductions) (void)detail::generate_expression(*r->children[0]);
        for (const Array& a : arrays) {
            try {
                detail::check_on_queue_device(a, queue, "operand");
            } catch (const Error&) {
                // The eager call's own message (operands named by their place in the expression,
                // lazy values as the arrays eager evaluation would have made).
                const Expr eager = as_eager(statement);
                if (out) kjarni::assign(queue, *out, eager);
                else (void)kjarni::evaluate(queue, eager);
                throw;
            }
        }
        for (const ExprNode* r : reductions) {
            const ExprNode& child = *r->children[0];
            std::size_t reduced = 1;
            for (std::size_t d = 0; d < child.shape.size(); ++d)
                if (r->reduction->reduced[d]) reduced *= child.shape[d];
            if (reduced == 0 && refuses_empty(r->reduction->kind))
                throw ArgumentError("array", fmt::format("{}: the reduction of an empty set has no identity",
                                                         detail::reduction_kind_name(r->reduction->kind)));
        }
    }

    // Lazy values whose expressions read memory that `out` shares are stored now, before the
    // statement that writes it, and read from there afterwards.
    void store_lets_overwritten_by(const Array& out) {
        for (LetValue& let : lets) {
            const std::shared_ptr<ExprNode> marker = let.marker.lock();
            if (!marker) continue;
            bool overwritten = false;
            for (const Array& a : let.reads)
                overwritten = overwritten || detail::memory_overlap(out, a) != detail::Overlap::none;
            if (!overwritten) continue;
            const Array stored = Array::empty(queue.device(), marker->shape, marker->dtype, Order::C, allocator);
            pending.push_back(
                PendingStatement{stored, Expr(marker->children[0]),
                                 fmt::format("the value of statement {} stored before statement {} overwrites "
                                             "what it reads",
                                             let.statement, statements)});
            marker->children[0] = Expr(stored).node();
            let.reads = {stored};
        }
    }

    void record(const Array& out, const Expr& expression) {
        const std::size_t number = statements + 1;
        Expr fused = substitute(expression);
        // A lazy value stored whole: its expression itself (storing it rounds as the value does),
        // so that a reduction stored whole writes into out directly (direct_reduction).
        while (fused.node()->statement_value && fused.node()->children[0]->dtype == fused.dtype())
            fused = Expr(fused.node()->children[0]);
        const Expr converted = detail::checked_assignment(queue, out, fused);
        check_operands(expression, converted, out);
        statements = number;
        store_lets_overwritten_by(out);
        pending.push_back(PendingStatement{out, converted, fmt::format("statement {}", number)});
    }
};

Statements::Statements(const Queue& queue, const Allocator& allocator)
    : state_(std::make_unique<State>(queue, allocator)) {}

Statements::~Statements() {
    if (!state_) return;
    try {
        run();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor cannot throw; run() shows the errors
    }
}

Statements::Statements(Statements&&) noexcept = default;

Expr Statements::let(const Expr& expression) {
    State& s = *state_;
    const Expr fused = s.substitute(expression);
    // (evaluate()'s own message: its result array would have the struct dtype)
    if (fused.dtype().is_struct()) throw ArgumentError("out", fmt::format("has struct dtype {}", fused.dtype().name()));
    s.check_operands(expression, fused, std::nullopt);
    auto marker = std::make_shared<ExprNode>();
    marker->op = ExprOp::cast;
    marker->dtype = marker->compute = fused.dtype();
    marker->shape = fused.shape();
    marker->children = {fused.node()};
    marker->statement_value = true;
    State::LetValue value;
    value.marker = marker;
    collect_arrays(*fused.node(), value.reads);
    value.statement = ++s.statements;
    s.let_of[marker.get()] = s.lets.size();
    s.lets.push_back(std::move(value));
    return Expr(std::shared_ptr<const ExprNode>(std::move(marker)));
}

void Statements::assign(const Array& out, const Expr& expression) { state_->record(out, expression); }

Array Statements::evaluate(const Expr& expression) {
    State& s = *state_;
    Array out = Array::empty(s.queue.device(), expression.shape(), expression.dtype(), Order::C, s.allocator);
    s.record(out, expression);
    return out;
}

void Statements::run() {
    State& s = *state_;
    // Taken out first: a statement that fails drops those after it, never runs one twice.
    const std::vector<State::PendingStatement> work = std::move(s.pending);
    s.pending.clear();
    for (const State::PendingStatement& statement : work) run_statement(s.queue, statement.out, statement.expression);
}

FusionPlan Statements::plan() const {
    const State& s = *state_;
    FusionPlan plan;
    for (const State::PendingStatement& statement : s.pending) {
        FusionPlan one = fusion_plan(s.queue, statement.expression);
        // The root reduction written into out directly: the plan's last kernel (the copy of the
        // reduction's result into out) does not run.
        // (Why the row kernel was not taken does not matter then.)
        if (direct_reduction(s.queue, statement.out, statement.expression) != nullptr) {
            one.kernels.pop_back();
            one.reason.clear();
        }
        for (FusionPlan::Kernel& kernel : one.kernels) {
            kernel.what = fmt::format("{}: {}", statement.what, kernel.what);
            plan.kernels.push_back(std::move(kernel));
        }
        if (!one.reason.empty())
            plan.reason += fmt::format("{}{}: {}", plan.reason.empty() ? "" : "; ", statement.what, one.reason);
    }
    return plan;
}

std::size_t Statements::pending() const noexcept { return state_->pending.size(); }

const Queue& Statements::queue() const noexcept { return state_->queue; }

}  // namespace kjarni
