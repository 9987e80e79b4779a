#pragma once
// Renders defs of a compiled template: evaluates expressions and walks the node tree.

#include <kjarni/template/template.hpp>
#include <kjarni/template/value.hpp>

#include "ast.hpp"

#include <cstdint>
#include <exception>
#include <memory>
#include <string>

namespace kjarni::tmpl {

/// Renders the def `def_name` of `t` with `args` and `globals`. Every failure comes out as a
/// RenderError (naming `t` and the position, or the innermost template that failed).
std::string render_def(const std::shared_ptr<const detail::CompiledTemplate>& t, const std::string& def_name,
                       const Args& args, const Globals& globals);

/// The public error for a failure at `offset` in `t`, with the render's globals (null while
/// compiling) and the exception it started as (`cause`; null: a kjarni::Error of `message`).
RenderError make_render_error(const detail::CompiledTemplate& t, std::uint32_t offset, const std::string& message,
                              const Globals* globals, std::exception_ptr cause = {});

}  // namespace kjarni::tmpl
