#pragma once
/// Forward declarations of the template language's types, for headers that name them in
/// declarations only (program.hpp): including this costs no template header. A translation unit
/// that builds or passes a Value, Globals, DefTemplate, Snippet or Module includes
/// kjarni/program_templates.hpp or kjarni/template.hpp for the full types. \file

#include <map>
#include <string>
#include <variant>

namespace kjarni {

class Value;
class DefTemplate;
class Snippet;
class Module;

/// Render globals (and the items of a dict): names to values. Iteration order is the key order.
using Globals = std::map<std::string, Value>;

/// What Program and StaticKernel accept as their source: template text (the body of a def with no
/// arguments), a DefTemplate, or a Snippet.
using TemplateSource = std::variant<std::string, DefTemplate, Snippet>;

}  // namespace kjarni
