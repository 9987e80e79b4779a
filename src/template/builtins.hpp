#pragma once
// The Python builtins available to every template.

#include <kjarni/template/value.hpp>

#include <string>
#include <vector>

namespace kjarni::tmpl {

/// The builtin `name`, or nullptr when there is none.
const Value* find_builtin(const std::string& name);

/// Calls a template value (a function or a callable object) with `args`.
Value call_value(const Value& f, const Args& args);

/// Python's sort: stable, on `key(item)` when `key` is given and not None, reversed keeping equal
/// items in their order.
std::vector<Value> sort_values(std::vector<Value> items, const Value* key, bool descending);

}  // namespace kjarni::tmpl
