#pragma once
// Python values to and from kjarni::Value, the one value type templates see: None, bool, int,
// float, str, list, tuple, dict, dtypes (numpy's too), Modules, Snippets, Python callables (called
// back, with the GIL, when the template calls them) and any other object (its attributes and
// calls reach Python; grunnur's __process_modules__ is honoured).
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>

#include <kjarni/template/value.hpp>

namespace kjarni::python {

/// A C++ template object (a dtype's value, ...) seen from Python: str(), attributes, calls.
struct ObjectHandle {
    std::shared_ptr<const Object> object;
};

Value to_value(nanobind::handle object);
/// The text of a Python str (str() of anything else).
std::string text_of(nanobind::handle object);
nanobind::object from_value(const Value& value);
/// A dict (or None) of render globals.
Globals globals_from_python(const nanobind::handle& mapping);

}  // namespace kjarni::python

namespace nanobind::detail {

template <>
struct type_caster<kjarni::Value> {
    NB_TYPE_CASTER(kjarni::Value, const_name("object"))

    bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
        try {
            value = kjarni::python::to_value(src);
            return true;
        } catch (...) {
            PyErr_Clear();
            return false;
        }
    }
    static handle from_cpp(const kjarni::Value& v, rv_policy, cleanup_list*) noexcept {
        try {
            return kjarni::python::from_value(v).release();
        } catch (...) {
            return handle();
        }
    }
};

}  // namespace nanobind::detail
