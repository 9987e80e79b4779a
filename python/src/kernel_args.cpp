// Packing Python launch arguments (see kernel_args.hpp).
#include "kernel_args.hpp"

#include "value_conversion.hpp"

#include <cstring>
#include <string>

#include <kjarni/array.hpp>
#include <kjarni/multi_array.hpp>

namespace kjarni::python {

namespace nb = nanobind;

namespace {

std::string position_name(std::size_t i) { return "argument " + std::to_string(i); }

detail::KernelArg pack_one(nb::handle value, std::size_t position, const detail::LaunchTarget& target) {
    // The hot path: an exact Array or Buffer is recognized by its type alone.
    static PyTypeObject* const array_type = reinterpret_cast<PyTypeObject*>(nb::type<Array>().ptr());
    static PyTypeObject* const buffer_type = reinterpret_cast<PyTypeObject*>(nb::type<Buffer>().ptr());
    if (Py_TYPE(value.ptr()) == array_type) return pack_kernel_arg(*nb::inst_ptr<Array>(value), target);
    if (Py_TYPE(value.ptr()) == buffer_type) return detail::pack(*nb::inst_ptr<Buffer>(value), target);
    if (Array* array = nullptr; nb::try_cast<Array*>(value, array) && array != nullptr) {
        return pack_kernel_arg(*array, target);
    }
    if (Buffer* buffer = nullptr; nb::try_cast<Buffer*>(value, buffer) && buffer != nullptr) {
        return detail::pack(*buffer, target);
    }
    if (MultiArray* multi = nullptr; nb::try_cast<MultiArray*>(value, multi) && multi != nullptr) {
        return pack_kernel_arg(*multi, target);
    }
    if (PyDict_Check(value.ptr())) {
        nb::dict per_device = nb::borrow<nb::dict>(value);
        nb::int_ key(target.device_index);
        if (per_device.contains(key)) return pack_one(per_device[key], position, target);
        // grunnur 0.6 keys per-device values by BoundDevice, 0.3 by the device's index.
        for (auto [device, item] : per_device) {
            if (BoundDevice* bound = nullptr; nb::try_cast<BoundDevice*>(device, bound) && bound != nullptr &&
                                              bound->index() == target.device_index) {
                return pack_one(item, position, target);
            }
        }
        throw ArgumentError(position_name(position), "a per-device dict has no value for device " +
                                                         std::to_string(target.device_index));
    }
    // Exactly Python's own numbers (numpy.float64 derives from float, and has a C type).
    if (PyBool_Check(value.ptr()) || PyLong_CheckExact(value.ptr()) || PyFloat_CheckExact(value.ptr()) ||
        PyComplex_CheckExact(value.ptr())) {
        throw ArgumentError(position_name(position),
                            "a Python number has no C type: pass a numpy scalar (numpy.int32(3), numpy.float32(0.5), "
                            "...) of the type the kernel declares");
    }
    // numpy scalars (and any other object exposing a small buffer): their bytes, by value.
    Py_buffer view{};
    if (PyObject_GetBuffer(value.ptr(), &view, PyBUF_SIMPLE) == 0) {
        detail::KernelArg arg;
        const auto size = static_cast<std::size_t>(view.len);
        const bool fits = size > 0 && size <= sizeof(arg.scalar);
        if (fits) std::memcpy(arg.scalar, view.buf, size);
        PyBuffer_Release(&view);
        if (!fits) {
            throw ArgumentError(position_name(position), "a value passed by value must have 1 to 16 bytes, this has " +
                                                             std::to_string(size));
        }
        arg.size = size;
        return arg;
    }
    PyErr_Clear();
    throw ArgumentError(position_name(position),
                        "cannot be passed to a kernel: give an Array, MultiArray, Buffer or numpy scalar, not " +
                            text_of(value.type().attr("__name__")));
}

// An Array or MultiArray for a pointer parameter declared with a known element type must have it.
void check_element_type(nb::handle value, nb::handle parameter, std::size_t position) {
    if (!parameter.is_valid() || parameter.is_none()) return;
    const DType* dtype = nullptr;
    if (Array* array = nullptr; nb::try_cast<Array*>(value, array) && array != nullptr) {
        dtype = &array->dtype();
    } else if (MultiArray* multi = nullptr; nb::try_cast<MultiArray*>(value, multi) && multi != nullptr) {
        dtype = &multi->dtype();
    } else {
        return;
    }
    const nb::tuple declared = nb::borrow<nb::tuple>(parameter);
    const DType& expected = nb::cast<const DType&>(declared[0]);
    if (*dtype == expected) return;
    throw ArgumentError(position_name(position), "an array of " + dtype->name() + " for the parameter `" +
                                                     text_of(declared[1]) + "`, whose elements are " +
                                                     expected.name() + ": convert it first (astype)");
}

}  // namespace

void pack_args(const nb::args& args, std::size_t first, const detail::LaunchTarget& target, PackedArgs& out,
               nb::handle parameters) {
    const std::size_t n = args.size() - first;
    if (n > max_kernel_args) {
        throw ArgumentError("args", "a launch takes at most " + std::to_string(max_kernel_args) + " arguments");
    }
    const bool checked = parameters.is_valid() && !parameters.is_none();
    const std::size_t declared = checked ? nb::len(parameters) : 0;
    for (std::size_t i = 0; i < n; ++i) {
        out.add(pack_one(args[first + i], i, target));
        if (i < declared) check_element_type(args[first + i], nb::borrow<nb::tuple>(parameters)[i], i);
    }
}

}  // namespace kjarni::python
