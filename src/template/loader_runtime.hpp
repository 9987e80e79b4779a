#pragma once
// What the evaluator needs from the template loader: the template a loader tag names, and the
// inheritance chain of a template (Mako's `<%inherit>`).

#include "ast.hpp"

#include <kjarni/template/lookup.hpp>
#include <kjarni/template/value.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kjarni::tmpl {

using TemplatePtr = std::shared_ptr<const detail::CompiledTemplate>;
/// A template, then the template it inherits from, then that one's...: [0] is Mako's `self`.
using Chain = std::vector<TemplatePtr>;

/// The template `uri` as named by a tag of `from` (relative to from's URI), through from's lookup.
/// Throws EvalError (no lookup), TemplateNotFound (not found, a URI leaving the directories) or
/// RenderError (the file does not compile).
TemplatePtr load_related(const detail::CompiledTemplate& from, const std::string& uri);

/// `t` and the templates its <%inherit> tags lead to; null when `t` inherits nothing. Throws
/// RenderError at the <%inherit> tag that fails (not found, or a cycle).
std::shared_ptr<const Chain> inheritance_chain(const TemplatePtr& t, const Globals* globals);

}  // namespace kjarni::tmpl
