// kjarni._kjarni: the C++ side of the kjarni Python package. The package (python/kjarni/) adds the
// Python-only conveniences over it (grunnur's names, numpy conversions, kernel hubs).
#include <kjarni/version.hpp>

#include "bindings.hpp"
#include "call_slot.hpp"

NB_MODULE(_kjarni, m) {
    using namespace kjarni::python;
    m.doc() = "kjarni's C++ library (the kjarni package wraps it; import kjarni instead)";
    m.attr("__version__") = kjarni::version();  // the library's, from its CMake project version
    bind_errors(m);
    bind_call_slot(m);
    bind_discovery(m);
    bind_context(m);
    bind_dtype(m);
    bind_buffer(m);
    bind_default_pool(m);
    bind_memory_kinds(m);
    bind_images(m);
    bind_characterize(m);
    bind_array(m);
    bind_templates(m);
    bind_functions(m);
    bind_program(m);
    bind_algorithms(m);
    bind_algorithms_extra(m);
    bind_dlpack(m);
    bind_collectives(m);
    bind_virtual_buffers(m);
    bind_array_api(m);
    bind_recording(m);
    bind_statements(m);
}
