// tp_call slots' error path (see call_slot.hpp).
#include "call_slot.hpp"

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include <kjarni/error.hpp>

namespace kjarni::python {

namespace nb = nanobind;

namespace {

// The exception a slot caught, handed to _rethrow_pending on the same thread.
thread_local std::exception_ptr pending;

}  // namespace

PyObject* raise_current_exception() noexcept {
    pending = std::current_exception();
    // A nanobind function that rethrows it: nanobind translates it as for any bound function, and
    // the call returns nullptr with the Python error set. (Looked up on each error rather than kept:
    // a reference held for the process would show in nanobind's leak report at exit.)
    // (The nanobind function itself, not kjarni._signatures' wrapper of it, whose frame would only
    // add a confusing line to the traceback.)
    PyObject* module = PyImport_ImportModule("kjarni._kjarni");
    PyObject* function = module != nullptr ? PyObject_GetAttrString(module, "_rethrow_pending") : nullptr;
    if (function != nullptr && PyObject_HasAttrString(function, "__wrapped__") == 1) {
        PyObject* wrapped = PyObject_GetAttrString(function, "__wrapped__");
        Py_SETREF(function, wrapped);
    }
    PyObject* result = function != nullptr ? PyObject_CallNoArgs(function) : nullptr;
    Py_XDECREF(result);
    Py_XDECREF(function);
    Py_XDECREF(module);
    pending = nullptr;
    return nullptr;
}

void throw_not_constructed(const char* type_name) {
    throw ArgumentError("self", std::string("this ") + type_name + " was never constructed (did its __init__ run?)");
}

void bind_call_slot(nb::module_& m) {
    m.def("_rethrow_pending", [] {
        std::exception_ptr p = std::exchange(pending, nullptr);
        if (p) std::rethrow_exception(p);
        throw std::logic_error("kjarni._kjarni._rethrow_pending: no exception is pending");
    });
}

}  // namespace kjarni::python
