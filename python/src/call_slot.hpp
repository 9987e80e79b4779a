#pragma once
// A class's __call__ as its type's tp_call slot, for the launch paths (PreparedKernel,
// _StaticKernel, BoundKernel): Python then calls the C function directly, without looking up a
// bound __call__, copying the arguments into a second tuple and dispatching over nanobind's
// overloads, which together cost more than kjarni's whole C++ launch (docs/python.md has the
// figures). C++ exceptions still reach Python through nanobind's translators (kjarni.errors).
#include <nanobind/nanobind.h>

#include <Python.h>

namespace kjarni::python {

/// For a tp_call function's catch (...) block: sets the Python error for the exception being
/// handled as nanobind's translators make it (kjarni.errors' classes, Python errors carried by
/// nanobind::python_error) and returns nullptr, which the slot returns.
PyObject* raise_current_exception() noexcept;

[[noreturn]] void throw_not_constructed(const char* type_name);

/// The C++ object behind `self` for a tp_call slot of nanobind class T; ArgumentError where its
/// constructor has not run (a Python subclass whose __init__ failed or was skipped).
template <class T>
T& slot_self(PyObject* self) {
    if (!nanobind::inst_ready(nanobind::handle(self))) throw_not_constructed(Py_TYPE(self)->tp_name);
    return *nanobind::inst_ptr<T>(nanobind::handle(self));
}

/// Registers the helper raise_current_exception() calls (module.cpp, after the translators).
void bind_call_slot(nanobind::module_& m);

}  // namespace kjarni::python
