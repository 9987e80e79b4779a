#pragma once
// Second pass: builds the tree of text, substitutions, if/for blocks and defs from the chunks.

#include "ast.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kjarni::tmpl {

/// Compiles `source`. The top level becomes the def `main_name` with the arguments `main_params`.
/// Throws PositionedError on bad syntax (the caller knows the template's name).
void compile_template(detail::CompiledTemplate& out, const std::string& main_name,
                      const std::vector<std::string>& main_params);

/// Compiles `out.source` as the parts [ranges[k].first, ranges[k].second), each lexed and parsed on
/// its own (no line, tag or block runs from one part into the next): the top level of part k
/// becomes the def `names[k]` (no arguments; names[0] is the main def), while the <%def>s,
/// <%! %> blocks and <%namespace> tags of every part belong to the whole template. Refuses
/// <%inherit> and <%page>. Throws PositionedError on bad syntax.
void compile_template_parts(detail::CompiledTemplate& out,
                            const std::vector<std::pair<std::size_t, std::size_t>>& ranges,
                            const std::vector<std::string>& names);

}  // namespace kjarni::tmpl
