#pragma once
// The Python statements of a `<% %>` block: logical lines (brackets continue a line), indentation
// (relative to the block's first line, as Mako dedents it), and the statements kjarni runs.

#include "ast.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace kjarni::tmpl {

/// Parses the code source[begin, end). Throws PositionedError naming what is not supported.
std::vector<Stmt> parse_code_block(std::string_view source, std::size_t begin, std::size_t end);

}  // namespace kjarni::tmpl
