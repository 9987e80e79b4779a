// Expressions over MultiArrays: the same tree with each MultiArray replaced by its part on one
// device, evaluated on that device's queue.

#include <ranges>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/expression_node.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"

namespace kjarni {

namespace {

using detail::ExprNode;
using NodePtr = std::shared_ptr<const ExprNode>;

// The first MultiArray of the tree (depth first), or null.
const MultiArray* first_multi(const ExprNode& node) {
    if (node.multi_array) return &*node.multi_array;
    for (const auto& child : node.children)
        if (const MultiArray* found = first_multi(*child)) return found;
    return nullptr;
}

void check_split(const MultiArray& a, const MultiArray& reference, const std::string& name) {
    if (!(a.devices() == reference.devices()) || a.shapes() != reference.shapes() || a.shape() != reference.shape())
        throw ArgumentError(name, fmt::format("is split into parts ({}) over other devices or shapes than the "
                                              "expression's first MultiArray ({})",
                                              fmt::join(a.shapes() | std::views::transform([](const auto& s) {
                                                            return fmt::format("({})", fmt::join(s, ", "));
                                                        }),
                                                        " "),
                                              fmt::join(reference.shapes() | std::views::transform([](const auto& s) {
                                                            return fmt::format("({})", fmt::join(s, ", "));
                                                        }),
                                                        " ")));
}

NodePtr on_device(const NodePtr& node, const BoundDevice& device, const MultiArray& reference) {
    if (node->array)
        throw ArgumentError("expression",
                            "mixes a plain Array with MultiArrays: evaluate it on one queue, or make it a MultiArray");
    if (node->multi_array) {
        check_split(*node->multi_array, reference, "a MultiArray of the expression");
        return Expr(node->multi_array->part(device)).node();
    }
    if (node->children.empty()) return node;
    auto copy = std::make_shared<ExprNode>(*node);
    for (auto& child : copy->children) child = on_device(child, device, reference);
    // The part's shape: every MultiArray's part has the reference's, scalars have none.
    copy->shape.clear();
    for (const auto& child : copy->children)
        if (child->shape.size() > copy->shape.size()) copy->shape = child->shape;
    return copy;
}

const MultiArray& reference_of(const Expr& expression) {
    const MultiArray* reference = first_multi(*expression.node());
    if (reference == nullptr) throw ArgumentError("expression", "has no MultiArray to split the work by");
    return *reference;
}

}  // namespace

void assign(const MultiQueue& queue, const MultiArray& out, const Expr& expression) {
    const MultiArray& reference = reference_of(expression);
    check_split(out, reference, "out");
    for (const Queue& q : queue.queues()) {
        const Expr part(on_device(expression.node(), q.device(), reference));
        assign(q, out.part(q.device()), part);
    }
}

MultiArray evaluate(const MultiQueue& queue, const Expr& expression, const Allocator& allocator) {
    const MultiArray& reference = reference_of(expression);
    const MultiArray out =
        MultiArray::empty(reference.devices(), reference.shape(), expression.dtype(), allocator, reference.splay());
    assign(queue, out, expression);
    return out;
}

}  // namespace kjarni
