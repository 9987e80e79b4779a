#pragma once
// The Python statements of a `<% %>` block: logical lines (brackets continue a line), indentation
// (relative to the block's first line, as Mako dedents it), and the statements kjarni runs.

#include "ast.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace kjarni::tmpl {

/// Parses the code source[begin, end). Throws PositionedError naming what is not supported.
/// `in_function`: the code runs inside a function in Mako (a <% %> block, in the render function of
/// its def or of the top level), where `return` ends that function; module-level code (<%! %>)
/// may not return.
std::vector<Stmt> parse_code_block(std::string_view source, std::size_t begin, std::size_t end, bool in_function);

}  // namespace kjarni::tmpl
