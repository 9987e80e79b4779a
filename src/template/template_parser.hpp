#pragma once
// Second pass: builds the tree of text, substitutions, if/for blocks and defs from the chunks.

#include "ast.hpp"

#include <memory>
#include <string>
#include <vector>

namespace kjarni::tmpl {

/// Compiles `source`. The top level becomes the def `main_name` with the arguments `main_params`.
/// Throws PositionedError on bad syntax (the caller knows the template's name).
void compile_template(detail::CompiledTemplate& out, const std::string& main_name,
                      const std::vector<std::string>& main_params);

}  // namespace kjarni::tmpl
