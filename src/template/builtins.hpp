#pragma once
// The Python builtins available to every template.

#include <kjarni/template/value.hpp>

#include <string>

namespace kjarni::tmpl {

/// The builtin `name`, or nullptr when there is none.
const Value* find_builtin(const std::string& name);

}  // namespace kjarni::tmpl
