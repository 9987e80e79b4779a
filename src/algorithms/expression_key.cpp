#include "algorithms/expression_key.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace kjarni::detail {

namespace {

// Where a weak integer lies among the bounds of bool and the integer types: two values of one class
// fit the same types, and only the last class is past int64's range (the code generator reads no
// more of a scalar's value than that).
char integer_class(const ScalarValue& v) {
    if (v.kind == ScalarValue::Kind::signed_integer && v.i < 0) {
        return v.i >= std::numeric_limits<std::int8_t>::min()    ? 1
               : v.i >= std::numeric_limits<std::int16_t>::min() ? 2
               : v.i >= std::numeric_limits<std::int32_t>::min() ? 3
                                                                 : 4;
    }
    const std::uint64_t u = v.kind == ScalarValue::Kind::signed_integer ? static_cast<std::uint64_t>(v.i) : v.u;
    if (u <= 1) return static_cast<char>(5 + u);  // bool's values
    char c = 7;
    for (const int bits : {7, 8, 15, 16, 31, 32, 63}) {  // below int8's, uint8's, ... int64's bound
        if (u < (std::uint64_t{1} << bits)) return c;
        ++c;
    }
    return c;
}

// Writes the tree in preorder: a node's operation, dtypes and flags, then its children. A node that
// may be reached twice (held by more than one owner) is marked at its first visit and named by its
// number at the others, so that the key tells shared subtrees from equal ones, as the code
// generator does (a statement's value is computed once, each scalar leaf is one parameter per visit).
class Walk {
public:
    // The marks of a shared node's first visit and of a visit again, bytes no operation's number is
    // (a node's six bytes start with its operation), so that no two trees write one key.
    static constexpr char first_visit = static_cast<char>(0xF0);
    static constexpr char visit_again = static_cast<char>(0xF1);
    static_assert(static_cast<int>(ExprOp::reduction) < 0xF0, "operations are numbered below the marks");

    std::string key;
    std::vector<const Array*> arrays;      // distinct views, in order of first appearance
    std::vector<const ExprNode*> scalars;  // scalar leaves, in order of first appearance
    bool describable = true;

    void visit(const ExprNode& node, bool maybe_shared) {
        if (!describable) return;
        if (maybe_shared) {
            for (std::size_t k = 0; k < shared_.size(); ++k) {
                if (shared_[k] == &node) {
                    const char reference[2] = {visit_again, small(k)};
                    key.append(reference, 2);
                    return;
                }
            }
            shared_.push_back(&node);
            key += first_visit;
        }
        if (node.dtype.is_struct() || node.compute.is_struct()) {
            describable = false;
            return;
        }
        // Six bytes a node, appended at once: operation, dtype, compute type, flags, and two bytes
        // of what the operation needs (an array's view, a scalar's kind and range class, the number
        // of children).
        char head[6] = {static_cast<char>(node.op),
                        static_cast<char>(node.dtype.kind()),
                        static_cast<char>(node.compute.kind()),
                        static_cast<char>((node.weak ? 1 + static_cast<int>(*node.weak) : 0) |
                                          (node.clip_order ? 8 : 0) | (node.ties_keep_first ? 16 : 0) |
                                          (node.statement_value ? 32 : 0) | (node.exponent_at_stride_zero ? 64 : 0)),
                        0,
                        0};
        switch (node.op) {
        case ExprOp::array:
            if (!node.array) {  // a MultiArray's leaf
                describable = false;
                return;
            }
            head[4] = small(view_index(*node.array));
            key.append(head, 6);
            return;
        case ExprOp::scalar:
            head[4] = static_cast<char>(node.value.kind);
            if (node.weak && node.value.kind != ScalarValue::Kind::floating) head[5] = integer_class(node.value);
            key.append(head, 6);
            scalars.push_back(&node);
            return;
        case ExprOp::reduction: describable = false; return;
        default: break;
        }
        head[4] = small(node.children.size());
        key.append(head, 6);
        if (node.op == ExprOp::round) key.append(reinterpret_cast<const char*>(&node.decimals), sizeof node.decimals);
        for (const auto& child : node.children) visit(*child, child.use_count() > 1);
    }

private:
    std::vector<const ExprNode*> shared_;

    // A count or index as one byte; a tree of 250 or more arrays, shared nodes or children of one
    // node is left to the code generator.
    char small(std::size_t n) {
        if (n >= 250) describable = false;
        return static_cast<char>(n);
    }

    // The index of the array's view among those met (a new one is added).
    std::size_t view_index(const Array& array) {
        std::size_t k = 0;
        while (k < arrays.size() && !same_array_view(*arrays[k], array)) ++k;
        if (k == arrays.size()) arrays.push_back(&array);
        return k;
    }
};

// What the code generator made of a key's scalar leaves: parameter j is leaf leaves[j]'s value in
// dtypes[j] (a leaf visited twice is two parameters; a weak one takes its context's type).
struct Recipe {
    std::vector<std::size_t> leaves;
    std::vector<DType> dtypes;
};

// The recipes of the keys met, shared by every context (they describe code, not devices). Cleared
// when it holds many: a program that builds endless distinct trees pays code generation as before.
class Recipes {
public:
    std::shared_ptr<const Recipe> find(const std::string& key) {
        const std::lock_guard lock(mutex_);
        const auto found = recipes_.find(key);
        return found == recipes_.end() ? nullptr : found->second;
    }
    void insert(const std::string& key, std::shared_ptr<const Recipe> recipe) {
        const std::lock_guard lock(mutex_);
        if (recipes_.size() >= 4096) recipes_.clear();
        recipes_.emplace(key, std::move(recipe));
    }

private:
    std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<const Recipe>> recipes_;
};

Recipes& recipes() {
    static Recipes instance;
    return instance;
}

// The recipe of `code` (generated from the walked tree), or nullptr where its arrays or scalars are
// not the walk's: then the key does not describe the code, and it is not kept.
std::shared_ptr<const Recipe> make_recipe(const ExprCode& code, const Walk& walk) {
    if (code.arrays.size() != walk.arrays.size() || !code.reductions.empty()) return nullptr;
    for (std::size_t k = 0; k < code.arrays.size(); ++k)
        if (!same_array_view(code.arrays[k], *walk.arrays[k])) return nullptr;
    auto recipe = std::make_shared<Recipe>();
    for (const ExprScalarParameter& s : code.scalars) {
        std::size_t leaf = 0;
        while (leaf < walk.scalars.size() && walk.scalars[leaf] != s.node) ++leaf;
        if (leaf == walk.scalars.size()) return nullptr;
        recipe->leaves.push_back(leaf);
        recipe->dtypes.push_back(s.dtype);
    }
    return recipe;
}

}  // namespace

std::optional<BoundExpression> bind_expression(const ExprNode& root) {
    Walk walk;
    walk.key.reserve(64);
    walk.arrays.reserve(4);
    walk.visit(root, false);
    if (!walk.describable) return std::nullopt;
    std::shared_ptr<const Recipe> recipe = recipes().find(walk.key);
    if (!recipe) {
        recipe = make_recipe(generate_expression(root), walk);
        if (!recipe) return std::nullopt;
        recipes().insert(walk.key, recipe);
    }
    BoundExpression bound{std::move(walk.key), std::move(walk.arrays), {}};
    bound.scalars.reserve(recipe->leaves.size());
    for (std::size_t j = 0; j < recipe->leaves.size(); ++j) {
        const ExprNode* leaf = walk.scalars[recipe->leaves[j]];
        bound.scalars.push_back(ExprScalarParameter{leaf->value, recipe->dtypes[j], leaf});
    }
    return bound;
}

BoundExpression bind_generated(const ExprCode& code) {
    BoundExpression bound{{}, {}, code.scalars};
    bound.arrays.reserve(code.arrays.size());
    for (const Array& a : code.arrays) bound.arrays.push_back(&a);
    return bound;
}

}  // namespace kjarni::detail
