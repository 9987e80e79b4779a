#pragma once
// `kjarni render FILE [-a NAME=VALUE]... [--def NAME [-p VALUE]...]`: a template file rendered
// with arguments, as source text; a template error names the file, line and column.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kjarni::tool {

struct RenderRequest {
    std::string file;
    std::vector<std::string> globals;   // NAME=VALUE
    std::optional<std::string> def;     // render this <%def> instead of the top level
    std::vector<std::string> def_args;  // its positional arguments (JSON or strings)
};

/// The rendered source; RenderError (with the position) if the template fails.
std::string render_file(const RenderRequest& request);

/// A RenderError or other kjarni::Error as JSON: {"error": {"message", "file", "line", ...}}.
nlohmann::json error_json(const std::exception& error);

}  // namespace kjarni::tool
