#pragma once
// Python's binding of a call's arguments to a function's parameters (plain, *args, keyword-only,
// **kwargs), shared by <%def>s and the defs of <% %> blocks.

#include <kjarni/template/value.hpp>

#include "ast.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kjarni::tmpl::evaluation {

// The locals of a call of `function` with `args`: each parameter bound, *args to a tuple of the
// extra positionals, **kwargs to a dict of the extra keywords (in the order given). A missing
// parameter with a default takes default_of(its index in params). Throws EvalError with Python's
// message where Python raises TypeError. `reserved` is a keyword no call may give (Mako passes a
// def's `context` itself, so `f(context=1)` is its "multiple values" error), or "".
std::map<std::string, Value> bind_arguments(const std::string& function, const std::vector<Param>& params,
                                            const Args& args, const std::function<Value(std::size_t)>& default_of,
                                            const std::string& reserved = "");

// The number of parameters that take positional arguments (those before *args or the first
// keyword-only one).
std::size_t positional_count(const std::vector<Param>& params);

// "n word" / "n words".
std::string plural(std::size_t n, const char* word);

}  // namespace kjarni::tmpl::evaluation
