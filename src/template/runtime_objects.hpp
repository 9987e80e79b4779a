#pragma once
// The objects Mako puts in a template's namespace: `loop` inside `% for`, `context`, `UNDEFINED`,
// and Mako's escape filters (h, u, x, trim, str).

#include <kjarni/template/value.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kjarni::tmpl {

/// `loop` in a `% for` body: index, reverse_index, first, last, even, odd, parent, cycle(...), len().
Value make_loop_context(std::size_t index, std::size_t length, Value parent);

/// Names Mako's inheritance adds to a template's context: `parent` where the template inherits
/// another, `next` in a template another inherits (each a namespace of the chain).
using InheritedNames = std::vector<std::pair<std::string, Value>>;

/// Mako's `context`: get(name, default=None), keys(), kwargs, context['n'] over the render globals
/// and `inherited` (which hide a global of the same name, as in Mako), and write(text) through
/// `write`.
Value make_context(std::shared_ptr<const Globals> globals, Function write = {}, InheritedNames inherited = {});

/// Mako's UNDEFINED: one object (so `x is UNDEFINED` works); rendering it is an error, as in Mako.
const Value& undefined_value();

/// A Python type as a value (`int`, `str`, `list`..., and what `type(x)` returns): callable as the
/// builtin conversion `make` (none: "cannot create instances"), with `__name__`; printed `<class 'int'>`.
class TypeObject final : public Object {
public:
    TypeObject(std::string name, Function make) : name_(std::move(name)), make_(std::move(make)) {}
    std::string type_name() const override { return "type"; }
    std::string to_string() const override { return "<class '" + name_ + "'>"; }
    Value attribute(const std::string& name) const override;
    Value call(const Args& args) const override;
    const std::string& name() const noexcept { return name_; }

private:
    std::string name_;
    Function make_;
};

/// What iter(x) returns: next() walks a list or tuple live (items appended meanwhile come too, as
/// in Python), anything else from the items it had when iter() was called.
class IteratorObject final : public Object {
public:
    explicit IteratorObject(Value source) : source_(std::move(source)) {}
    std::string type_name() const override;
    std::string to_string() const override { return "<" + type_name() + " object>"; }
    /// The next item, or nullptr when exhausted (the iterator belongs to one render: not thread-safe).
    const Value* next() const;
    /// The items not yet taken (taking them all).
    std::vector<Value> rest() const;
    const Value& source() const noexcept { return source_; }

private:
    Value source_;  // a list or tuple
    mutable std::size_t index_ = 0;
};

/// Python's module math as a value (what `import math` binds): its constants and the functions
/// kernel templates use, with Python's results (floor and ceil give ints; a domain error is an error).
const Value& math_module();

/// Mako's escape filter `name` (h, u, x, trim, str, unicode), or nullptr when `name` is not one.
const Function* find_escape_filter(const std::string& name);

}  // namespace kjarni::tmpl
