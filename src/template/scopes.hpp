#pragma once
// Mako's scoping of the names of a def (and of a template's top level): each is a Python function
// whose locals are every name it assigns anywhere (in <% %> code, as `% for` variables), and which
// takes each other name it reads from the context when it starts (with strict_undefined, a name
// the context lacks is a NameError then, even where the template never reads it). So
// `${n}<% n = 5 %>` is an UnboundLocalError in Mako, and `% if False:` `${nothing}` a NameError.
// A name it deletes (`del x`) without assigning it is taken from the context too, and unbound
// after the delete; in a <%call> or <%block> body it is the body's local (Node::body_deleted),
// unbound there where the enclosing function has it.

#include "ast.hpp"

namespace kjarni::tmpl {

/// Fills def.declared and def.free_names, and the `assigned` names of its <% %> blocks.
void analyze_scopes(Def& def);

/// Refuses `**` in `e` (a filter, a default argument), which Mako fails to compile there.
void refuse_power(const Expr& e, const char* where);

/// Mako evaluates the default arguments of a template's (not nested) defs when it loads the
/// template, where only builtins and the names of <%! %> code are defined: a default reading
/// another name is refused (a NameError in Mako, whether the def is called or not).
void check_def_defaults(const detail::CompiledTemplate& t, const std::vector<std::string>& top_defs);

}  // namespace kjarni::tmpl
