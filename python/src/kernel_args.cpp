// Packing Python launch arguments (see kernel_args.hpp).
#include "kernel_args.hpp"

#include "value_conversion.hpp"

#include <cstring>
#include <optional>
#include <string>

#include <kjarni/array.hpp>
#include <kjarni/image.hpp>
#include <kjarni/managed_memory.hpp>
#include <kjarni/multi_array.hpp>
#include <kjarni/svm_pool.hpp>

namespace kjarni::python {

namespace nb = nanobind;

namespace {

std::string position_name(std::size_t i) { return "argument " + std::to_string(i); }

// The managed memory (or pooled SVM block) an array's `base` chain leads to, packed as the
// array's own address inside it (a view may start past the allocation's start); nullopt otherwise.
std::optional<detail::KernelArg> pack_managed_view(nb::handle value, const void* data,
                                                   const detail::LaunchTarget& target) {
    static PyObject* const base_name = PyUnicode_InternFromString("base");
    nb::object seen = nb::borrow(value);
    for (int depth = 0; depth < 32; ++depth) {
        PyObject* base = PyObject_GetAttr(seen.ptr(), base_name);
        if (base == nullptr) {
            PyErr_Clear();
            return std::nullopt;
        }
        seen = nb::steal(base);
        if (seen.is_none()) return std::nullopt;
        if (PyMemoryView_Check(seen.ptr())) seen = nb::borrow(PyMemoryView_GET_BUFFER(seen.ptr())->obj);
        if (!seen.is_valid()) return std::nullopt;
        detail::KernelArg arg;
        const std::byte* start = nullptr;
        std::size_t size = 0;
        if (ManagedMemory* managed = nullptr; nb::try_cast<ManagedMemory*>(seen, managed) && managed != nullptr) {
            arg = pack_kernel_arg(*managed, target);
            start = managed->data();
            size = managed->size();
        } else if (PooledSVM* pooled = nullptr; nb::try_cast<PooledSVM*>(seen, pooled) && pooled != nullptr) {
            arg = pack_kernel_arg(*pooled, target);
            start = pooled->data();
            size = pooled->size();
        } else {
            continue;
        }
        const auto* address = static_cast<const std::byte*>(data);
        if (address < start || address > start + size) return std::nullopt;
        arg.pointer = const_cast<std::byte*>(address);
        arg.size = size - static_cast<std::size_t>(address - start);
        return arg;
    }
    return std::nullopt;
}

// numpy's scalar types (numpy.float32, numpy.int32, ...) keep their value inside the object, at the
// same place in every object of the type. The buffer protocol (about 0.15 us a call, most of a
// scalar argument's cost) says where the first time; later scalars of that type are read from
// there. Only believed for numpy's static types of fixed size whose buffer lies inside the object's
// fixed part (numpy.void, whose bytes lie elsewhere, always takes the buffer protocol).
struct ScalarLayout {
    PyTypeObject* type;
    Py_ssize_t offset;
    Py_ssize_t size;
};
constexpr std::size_t max_scalar_layouts = 32;
ScalarLayout scalar_layouts[max_scalar_layouts];  // touched under the GIL only
std::size_t scalar_layout_count = 0;

const ScalarLayout* known_scalar_layout(PyTypeObject* type) noexcept {
    for (std::size_t i = 0; i < scalar_layout_count; ++i) {
        if (scalar_layouts[i].type == type) return &scalar_layouts[i];
    }
    return nullptr;
}

void learn_scalar_layout(PyObject* value, const Py_buffer& view) noexcept {
    PyTypeObject* type = Py_TYPE(value);
    if (scalar_layout_count == max_scalar_layouts || view.ndim != 0 || view.len <= 0 ||
        (type->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0 || type->tp_itemsize != 0 ||
        std::strncmp(type->tp_name, "numpy.", 6) != 0 || std::strcmp(type->tp_name, "numpy.ndarray") == 0 ||
        std::strcmp(type->tp_name, "numpy.void") == 0 || known_scalar_layout(type) != nullptr) {
        return;  // (0-d arrays and structured scalars: their bytes lie outside the object, their sizes vary)
    }
    const auto offset = static_cast<const char*>(view.buf) - reinterpret_cast<const char*>(value);
    if (offset < static_cast<Py_ssize_t>(sizeof(PyObject)) || offset + view.len > type->tp_basicsize) return;
    scalar_layouts[scalar_layout_count++] = ScalarLayout{type, offset, view.len};
}

// What a kernel parameter declares (kjarni/_kernel_parameters.py): the element type of a pointer
// parameter and the declaration's text, or nothing (not checked).
struct Declared {
    const DType* dtype = nullptr;
    PyObject* declaration = nullptr;
};

Declared declared_at(PyObject* parameters, std::size_t i) {
    if (parameters == nullptr || static_cast<Py_ssize_t>(i) >= PyTuple_GET_SIZE(parameters)) return {};
    PyObject* parameter = PyTuple_GET_ITEM(parameters, i);
    if (!PyTuple_Check(parameter) || PyTuple_GET_SIZE(parameter) != 2) return {};
    static PyTypeObject* const dtype_type = reinterpret_cast<PyTypeObject*>(nb::type<DType>().ptr());
    nb::handle dtype(PyTuple_GET_ITEM(parameter, 0));
    const DType* expected =
        Py_TYPE(dtype.ptr()) == dtype_type ? nb::inst_ptr<DType>(dtype) : &nb::cast<const DType&>(dtype);
    return {expected, PyTuple_GET_ITEM(parameter, 1)};
}

// An Array or MultiArray for a pointer parameter declared with a known element type must have it:
// the kernel would read its bytes as another type.
void check_element_type(const DType& dtype, const Declared& declared, std::size_t position) {
    if (declared.dtype == nullptr || dtype == *declared.dtype) return;
    throw ArgumentError(position_name(position), "an array of " + dtype.name() + " for the parameter `" +
                                                     text_of(nb::handle(declared.declaration)) +
                                                     "`, whose elements are " + declared.dtype->name() +
                                                     ": convert it first (astype)");
}

detail::KernelArg pack_one(nb::handle value, std::size_t position, const detail::LaunchTarget& target,
                           const Declared& declared) {
    // The hot paths: an exact Array or Buffer is recognized by its type alone, and a numpy scalar of
    // a type seen before is read where its value lies.
    static PyTypeObject* const array_type = reinterpret_cast<PyTypeObject*>(nb::type<Array>().ptr());
    static PyTypeObject* const buffer_type = reinterpret_cast<PyTypeObject*>(nb::type<Buffer>().ptr());
    PyTypeObject* const type = Py_TYPE(value.ptr());
    if (type == array_type) {
        const Array& array = *nb::inst_ptr<Array>(value);
        check_element_type(array.dtype(), declared, position);
        return pack_kernel_arg(array, target);
    }
    if (type == buffer_type) return detail::pack(*nb::inst_ptr<Buffer>(value), target);
    if (const ScalarLayout* layout = known_scalar_layout(type)) {
        return detail::pack_bytes(reinterpret_cast<const char*>(value.ptr()) + layout->offset,
                                  static_cast<std::size_t>(layout->size));
    }
    if (Array* array = nullptr; nb::try_cast<Array*>(value, array) && array != nullptr) {
        check_element_type(array->dtype(), declared, position);
        return pack_kernel_arg(*array, target);
    }
    if (Buffer* buffer = nullptr; nb::try_cast<Buffer*>(value, buffer) && buffer != nullptr) {
        return detail::pack(*buffer, target);
    }
    if (MultiArray* multi = nullptr; nb::try_cast<MultiArray*>(value, multi) && multi != nullptr) {
        check_element_type(multi->dtype(), declared, position);
        return pack_kernel_arg(*multi, target);
    }
    // The driver layer's kernel arguments (kjarni/_memory.py, kjarni/_images.py), looked for only
    // among kjarni's own objects: numpy scalars, the common case here, skip the four lookups.
    if (nb::inst_check(value)) {
        if (ManagedMemory* managed = nullptr; nb::try_cast<ManagedMemory*>(value, managed) && managed != nullptr) {
            return pack_kernel_arg(*managed, target);
        }
        if (PooledSVM* pooled = nullptr; nb::try_cast<PooledSVM*>(value, pooled) && pooled != nullptr) {
            return pack_kernel_arg(*pooled, target);
        }
        if (Image* image = nullptr; nb::try_cast<Image*>(value, image) && image != nullptr) {
            return pack_kernel_arg(*image, target);
        }
        if (SampledImage* sampled = nullptr; nb::try_cast<SampledImage*>(value, sampled) && sampled != nullptr) {
            return pack_kernel_arg(*sampled, target);
        }
    }
    if (PyDict_Check(value.ptr())) {
        nb::dict per_device = nb::borrow<nb::dict>(value);
        nb::int_ key(target.device_index);
        if (per_device.contains(key)) return pack_one(per_device[key], position, target, declared);
        // grunnur 0.6 keys per-device values by BoundDevice, 0.3 by the device's index.
        for (auto [device, item] : per_device) {
            if (BoundDevice* bound = nullptr; nb::try_cast<BoundDevice*>(device, bound) && bound != nullptr &&
                                              bound->index() == target.device_index) {
                return pack_one(item, position, target, declared);
            }
        }
        throw ArgumentError(position_name(position),
                            "a per-device dict has no value for device " + std::to_string(target.device_index));
    }
    // Exactly Python's own numbers (numpy.float64 derives from float, and has a C type).
    if (PyBool_Check(value.ptr()) || PyLong_CheckExact(value.ptr()) || PyFloat_CheckExact(value.ptr()) ||
        PyComplex_CheckExact(value.ptr())) {
        throw ArgumentError(position_name(position),
                            "a Python number has no C type: pass a numpy scalar (numpy.int32(3), numpy.float32(0.5), "
                            "...) of the type the kernel declares");
    }
    // numpy scalars (structured ones, numpy.void, of any size: C structs) and 0-d numpy arrays:
    // their bytes, by value. Up to 16 bytes they are copied into the argument; a larger struct's
    // bytes are read where they lie, which stays valid while the launch's argument tuple (or a
    // BoundKernel, which keeps its arguments) holds the object: a numpy scalar's or array's bytes do
    // not move while it lives.
    Py_buffer view{};
    if (PyObject_GetBuffer(value.ptr(), &view, PyBUF_C_CONTIGUOUS) == 0) {
        if (view.ndim > 0) {
            // A numpy array over managed memory (kjarni.managed_empty, svm_empty): its address.
            std::optional<detail::KernelArg> managed = pack_managed_view(value, view.buf, target);
            if (managed) {
                PyBuffer_Release(&view);
                return *managed;
            }
        }
        detail::KernelArg arg;
        const auto size = static_cast<std::size_t>(view.len);
        // A numpy scalar or 0-d array, or raw bytes (no dtype); not a host array, even of one
        // element, which would go by value silently where the kernel wants a pointer.
        const bool by_value = view.ndim == 0 || PyObject_HasAttrString(value.ptr(), "dtype") == 0;
        if (view.ndim == 0) learn_scalar_layout(value.ptr(), view);
        const void* data = view.buf;
        PyBuffer_Release(&view);
        if (size == 0 || !by_value) {
            throw ArgumentError(position_name(position),
                                size == 0 ? std::string("a value passed by value must have at least 1 byte")
                                          : "a host array cannot be passed to a kernel: upload it (Array.from_host) or "
                                            "wrap it in In/Out/InOut; a struct goes as a numpy scalar (array[0])");
        }
        if (size <= sizeof(arg.scalar)) {
            std::memcpy(arg.scalar, data, size);
        } else {
            arg.bytes = data;
        }
        arg.size = size;
        return arg;
    }
    PyErr_Clear();
    throw ArgumentError(position_name(position),
                        "cannot be passed to a kernel: give an Array, MultiArray, Buffer or numpy scalar, not " +
                            text_of(value.type().attr("__name__")));
}

}  // namespace

void pack_args(const nb::args& args, std::size_t first, const detail::LaunchTarget& target, PackedArgs& out,
               nb::handle parameters) {
    const std::size_t n = args.size() - first;
    if (n > max_kernel_args) {
        throw ArgumentError("args", "a launch takes at most " + std::to_string(max_kernel_args) + " arguments");
    }
    PyObject* const declared = parameters.is_valid() && PyTuple_Check(parameters.ptr()) ? parameters.ptr() : nullptr;
    for (std::size_t i = 0; i < n; ++i) {
        out.emplace([&] { return pack_one(args[first + i], i, target, declared_at(declared, i)); });
    }
}

}  // namespace kjarni::python
