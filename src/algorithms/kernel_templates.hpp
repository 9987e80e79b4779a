#pragma once
// The skeletons of the library's own kernels: data/kernels/*.mako, compiled into the library as
// strings (src/CMakeLists.txt) and rendered with kjarni's template engine. The engines render one
// only on a cache miss of generated_kernel(); the globals they give are the small per-call pieces
// (the operation, the arguments' parameters and loads, the layout).

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kjarni/template.hpp"

namespace kjarni::detail {

struct VectorArray;

/// The embedded templates as (file name, text), in the generated kernel_templates_data.cpp.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_kernel_templates();

/// Renders data/kernels/`name` (e.g. "scan.mako") with `globals` (the template's top level as it
/// is: not wrapped in a def as render_with_modules wraps a Program's source, which would add a
/// newline before and after). The templates may include each other by file name. RenderError on a
/// fault of the template itself.
std::string render_kernel_template(const std::string& name, const Globals& globals);

/// The arrays of device_code.hpp's vector_loop as data/kernels/vector_loop.mako takes them (a dict
/// each), for templates that call its def themselves (defined beside vector_loop).
Value vector_loop_arrays(const std::vector<VectorArray>& arrays, std::size_t v);

}  // namespace kjarni::detail
