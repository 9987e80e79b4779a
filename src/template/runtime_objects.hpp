#pragma once
// The objects Mako puts in a template's namespace: `loop` inside `% for`, `context`, `UNDEFINED`,
// and Mako's escape filters (h, u, x, trim, str).

#include <kjarni/template/value.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace kjarni::tmpl {

/// `loop` in a `% for` body: index, reverse_index, first, last, even, odd, parent, cycle(...), len().
Value make_loop_context(std::size_t index, std::size_t length, Value parent);

/// `context`: get(name, default=None), keys(), kwargs, context[name], over the render globals.
Value make_context(std::shared_ptr<const Globals> globals);

/// Mako's UNDEFINED: one object (so `x is UNDEFINED` works); rendering it is an error, as in Mako.
const Value& undefined_value();

/// Mako's escape filter `name` (h, u, x, trim, str, unicode), or nullptr when `name` is not one.
const Function* find_escape_filter(const std::string& name);

}  // namespace kjarni::tmpl
