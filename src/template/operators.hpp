#pragma once
// Python semantics of the operators on Values. All throw EvalError on unsupported operands.

#include <kjarni/template/value.hpp>

#include "ast.hpp"

#include <optional>
#include <vector>

namespace kjarni::tmpl {

Value binary(BinOp op, const Value& a, const Value& b);
Value unary(UnOp op, const Value& a);
bool compare(CmpOp op, const Value& a, const Value& b);
Value index(const Value& target, const Value& key);
Value slice(const Value& target, const std::optional<std::int64_t>& start, const std::optional<std::int64_t>& stop,
            const std::optional<std::int64_t>& step);
/// `target.name`: Object attributes, and the methods of str and dict.
Value attribute(const Value& target, const std::string& name);
/// The items a `for` loop (or list(), enumerate()...) walks through.
/// A set of more than one member is refused: Python walks it in hash order, which kjarni does not
/// reproduce (iterate_unordered gives its members for order-free uses).
std::vector<Value> iterate(const Value& v);
/// As iterate, but a set gives its members (in insertion order): for uses whose result does not
/// depend on the order (sorted, len, min, max, any, all, set(), membership...).
std::vector<Value> iterate_unordered(const Value& v);
/// A string built by a template: throws when it exceeds the limit.
Value make_string(std::string s);

}  // namespace kjarni::tmpl
