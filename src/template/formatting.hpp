#pragma once
// Python's string formatting: `"..." % args`, `"...".format(...)` and format(value, spec), with
// Python's format specs ([[fill]align][sign][#][0][width][,|_][.precision][type]).

#include <kjarni/template/value.hpp>

#include <string>

namespace kjarni::tmpl {

/// `format % args`: a tuple gives the positional values, a dict the `%(name)` ones.
std::string percent_format(const std::string& format, const Value& args);
/// `format.format(*args, **kwargs)`.
std::string str_format(const std::string& format, const Args& args);
/// format(value, spec).
std::string format_value(const Value& value, const std::string& spec);
/// Python's ascii(v): repr(v) with each non-ASCII character escaped (\xe9, \u20ac, \U0001f600).
std::string ascii_repr(const Value& v);

}  // namespace kjarni::tmpl
