#pragma once
// Who may change a list, dict or set in place.
//
// Python's lists, dicts and sets are mutable reference objects: two names bound to one list see
// the same append. kjarni gives templates that semantics for every container made while a render
// runs: each render (the outermost one on its thread; renders nested through defs, modules and
// snippets share it) draws a fresh nonzero token, and containers made on that thread while it runs
// carry the token as their owner. Only the render holding the token changes them, so nothing made
// by one render is changed while another thread reads it.
//
// Containers that come from C++ (the render globals, Module and Snippet globals, values made
// before or between renders) have owner 0 and stay immutable: they are shared between renders and
// threads. Changing one in place is an error naming it, not a silent copy: a copy made on the
// first change would leave the other names bound to the same list unchanged, which Python never
// does, so a template that relies on it would render differently from Mako without a word. The
// message tells the template to copy first (`list(x)`, `dict(x)`, `set(x)`), which is what a
// template that must not touch its caller's data does in Python as well.
//
// A C++ function called from a template runs inside the render: containers it makes are owned by
// it, so it must not keep them for use by other renders (build those outside a render instead).

#include <kjarni/template/value.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kjarni::tmpl {

/// The owner token of the render running on this thread (0 outside renders).
std::uint64_t current_owner() noexcept;

/// Makes this thread's render (the outermost) the owner of the containers made while it lives.
class OwnerScope {
public:
    OwnerScope();
    ~OwnerScope();
    OwnerScope(const OwnerScope&) = delete;
    OwnerScope& operator=(const OwnerScope&) = delete;

private:
    bool outermost_;
};

/// Thrown when a template changes a container it does not own; the evaluator names the variable.
class SharedMutationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The items of the list `v`, to change in place; throws SharedMutationError when this render does
/// not own it, EvalError when it is not a list.
std::vector<Value>& mutable_list(const Value& v);
/// The same for dicts.
DictItems& mutable_dict(const Value& v);

/// The function object of a template's lambda or def statement, with the values it holds strongly
/// (a lambda's captured variables, the defaults of either), so that check_no_cycle sees cycles
/// through functions too (`xs.append(lambda: xs)`).
struct CapturingFunction {
    std::shared_ptr<const std::map<std::string, Value>> captured;
    std::vector<Value> defaults;
    std::function<Value(const Args&)> body;
    Value operator()(const Args& a) const { return body(a); }
};

/// Throws EvalError when putting `item` into `container` would make a container hold itself:
/// kjarni's containers are reference counted, so a cycle would never be freed (Python's garbage
/// collector has no counterpart here) and printing it would recurse without end.
void check_no_cycle(const Value& container, const Value& item);

}  // namespace kjarni::tmpl
