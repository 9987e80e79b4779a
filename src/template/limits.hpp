#pragma once
// Internal shorthand for the public TemplateLimits (kjarni/template/template.hpp).

#include <kjarni/template/template.hpp>

namespace kjarni::tmpl {

using Limits = TemplateLimits;
inline Limits& limits() noexcept { return template_limits(); }

}  // namespace kjarni::tmpl
