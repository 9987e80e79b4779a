#pragma once
// Compiling a template source (shared by the public API and the template loader).

#include "ast.hpp"

#include <memory>
#include <string>
#include <vector>

namespace kjarni::tmpl {

/// The name of a template's top level among its defs (not a valid def name).
inline constexpr const char* top_level_name = "<top>";

/// Compiles `source` as the template `name`; `main_params` are the top level's arguments (a
/// DefTemplate's). `uri` and `lookup`: where its loader tags find other templates (lookup.hpp).
/// Throws RenderError on bad syntax.
std::shared_ptr<const detail::CompiledTemplate> compile(std::string name, std::string source,
                                                        const std::string& main_name,
                                                        const std::vector<std::string>& main_params,
                                                        std::size_t line_shift = 0, std::string uri = {},
                                                        std::weak_ptr<const detail::LookupState> lookup = {});

/// Compiles `parts` as one template `name` whose source is the parts joined by newlines (for the
/// line numbers of errors); part k, lexed and parsed on its own, is the def part_name(k) (see
/// compile_template_parts). Throws RenderError on bad syntax.
std::shared_ptr<const detail::CompiledTemplate> compile_parts(std::string name, const std::vector<std::string>& parts);

/// The def that holds part k of a template made by compile_parts (not a name a template can write).
std::string part_name(std::size_t k);

}  // namespace kjarni::tmpl
