#pragma once
// The parts of the extension module kjarni._kjarni, one per area; module.cpp calls them in order
// (errors first: the others' docstrings and conversions refer to the exception types).
#include <nanobind/nanobind.h>

namespace kjarni::python {

namespace nb = nanobind;

/// Raises kjarni.errors.ArgumentTypeError for a constructor call of `cls` that matched none of its
/// forms (kjarni/_signatures.py words it, listing the forms), instead of nanobind's dump.
[[noreturn]] void refuse_construction(nb::handle cls, const nb::args& args, const nb::kwargs& kwargs);

/// The last constructor of `cls`: what matched none of the others is refused with kjarni's message.
template <class T, class... Extra>
void refuse_other_constructors(nb::class_<T, Extra...>& cls) {
    cls.def("__init__", [](T*, nb::args args, nb::kwargs kwargs) { refuse_construction(nb::type<T>(), args, kwargs); });
}

void bind_errors(nb::module_& m);
void bind_discovery(nb::module_& m);
void bind_context(nb::module_& m);
void bind_dtype(nb::module_& m);
void bind_buffer(nb::module_& m);
void bind_default_pool(nb::module_& m);  // default_pool.cpp
void bind_memory_kinds(nb::module_& m);
void bind_images(nb::module_& m);
void bind_characterize(nb::module_& m);
void bind_array(nb::module_& m);
void bind_templates(nb::module_& m);
void bind_functions(nb::module_& m);
void bind_program(nb::module_& m);
void bind_algorithms(nb::module_& m);
void bind_algorithms_extra(nb::module_& m);
void bind_dlpack(nb::module_& m);
void bind_collectives(nb::module_& m);
void bind_virtual_buffers(nb::module_& m);
void bind_array_api(nb::module_& m);
void bind_recording(nb::module_& m);   // recording.cpp
void bind_statements(nb::module_& m);  // statements.cpp

}  // namespace kjarni::python
