// DLPack on CUDA: an Array exported without a copy (its queue's work ordered before the consumer's
// stream), and a CUDA tensor of CuPy, PyTorch, JAX... imported as an Array over the same memory.
// The host paths (OpenCL, or a CPU consumer) are in kjarni/_dlpack.py, through numpy.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <limits>
#include <memory>
#include <vector>

#include <kjarni/array.hpp>

#include "bindings.hpp"
#include "cuda_interop.hpp"
#include "dlpack_abi.hpp"

namespace kjarni::python {

namespace {

dlpack::DataType to_dl(const DType& dtype) {
    const auto bits = static_cast<std::uint8_t>(dtype.itemsize() * 8);
    switch (dtype.kind()) {
    case DType::Kind::bool_: return {dlpack::kDLBool, 8, 1};
    case DType::Kind::int8:
    case DType::Kind::int16:
    case DType::Kind::int32:
    case DType::Kind::int64: return {dlpack::kDLInt, bits, 1};
    case DType::Kind::uint8:
    case DType::Kind::uint16:
    case DType::Kind::uint32:
    case DType::Kind::uint64: return {dlpack::kDLUInt, bits, 1};
    case DType::Kind::float16:
    case DType::Kind::float32:
    case DType::Kind::float64: return {dlpack::kDLFloat, bits, 1};
    case DType::Kind::complex64:
    case DType::Kind::complex128: return {dlpack::kDLComplex, bits, 1};
    case DType::Kind::struct_: break;
    }
    throw UnsupportedError("DLPack has no struct dtypes: " + dtype.name());
}

DType from_dl(const dlpack::DataType& t) {
    if (t.lanes != 1) throw UnsupportedError("DLPack tensors with vector lanes are not supported");
    for (const DType& d : dtypes::all_scalars()) {
        const dlpack::DataType candidate = to_dl(d);
        if (candidate.code == t.code && candidate.bits == t.bits) return d;
    }
    throw UnsupportedError("DLPack dtype code " + std::to_string(t.code) + " with " + std::to_string(t.bits) +
                           " bits has no kjarni dtype (bfloat16 among them)");
}

// What an exported capsule owns: the array (its buffer stays alive) and the shape and strides.
struct Export {
    Array array;
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;
    dlpack::ManagedTensor legacy{};
    dlpack::ManagedTensorVersioned versioned{};
};

void fill_tensor(Export& e, dlpack::Tensor& t) {
    const Array& a = e.array;
    const auto itemsize = static_cast<std::ptrdiff_t>(a.dtype().itemsize());
    for (std::size_t i = 0; i < a.ndim(); ++i) {
        e.shape.push_back(static_cast<std::int64_t>(a.shape()[i]));
        if (a.strides()[i] % itemsize != 0) {
            throw UnsupportedError("DLPack strides count elements: this view's stride " +
                                   std::to_string(a.strides()[i]) + " is not a multiple of the itemsize");
        }
        e.strides.push_back(a.strides()[i] / itemsize);
    }
    t.data = reinterpret_cast<void*>(a.base().native_handle() + a.base().offset() + a.offset());
    t.device = {dlpack::kDLCUDA, static_cast<std::int32_t>(a.device().device().native_handle())};
    t.ndim = static_cast<std::int32_t>(a.ndim());
    t.dtype = to_dl(a.dtype());
    t.shape = e.shape.data();
    t.strides = e.strides.data();
    t.byte_offset = 0;
}

// A capsule not consumed by anyone frees its tensor itself.
void legacy_capsule_destructor(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        auto* t = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
        t->deleter(t);
    }
}
void versioned_capsule_destructor(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        auto* t = static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
        t->deleter(t);
    }
}

nb::object export_cuda(const Array& array, const Queue& queue, nb::handle stream, bool versioned, bool read_only) {
    if (queue.device() != array.device()) throw ArgumentError("queue", "is not on the array's device");
    if (array.device().context().api().shortcut() != "cuda") {
        throw UnsupportedError("zero-copy DLPack export needs a CUDA array (OpenCL exports through the host)");
    }
    // The array API's stream argument: None is the legacy default stream, -1 asks for no ordering.
    std::int64_t consumer = 1;
    if (!stream.is_none()) consumer = nb::cast<std::int64_t>(stream);
    if (consumer != -1) cuda::order_stream_after(queue, static_cast<std::uintptr_t>(consumer));

    auto e = std::make_unique<Export>(Export{array, {}, {}});
    if (versioned) {
        fill_tensor(*e, e->versioned.dl_tensor);
        e->versioned.version = dlpack::current_version;
        e->versioned.flags = read_only ? dlpack::flag_read_only : 0;
        e->versioned.manager_ctx = e.get();
        e->versioned.deleter = [](dlpack::ManagedTensorVersioned* self) {
            delete static_cast<Export*>(self->manager_ctx);
        };
        dlpack::ManagedTensorVersioned* t = &e->versioned;
        PyObject* capsule = PyCapsule_New(t, "dltensor_versioned", versioned_capsule_destructor);
        if (capsule == nullptr) throw nb::python_error();
        e.release();
        return nb::steal(capsule);
    }
    fill_tensor(*e, e->legacy.dl_tensor);
    e->legacy.manager_ctx = e.get();
    e->legacy.deleter = [](dlpack::ManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); };
    dlpack::ManagedTensor* t = &e->legacy;
    PyObject* capsule = PyCapsule_New(t, "dltensor", legacy_capsule_destructor);
    if (capsule == nullptr) throw nb::python_error();
    e.release();
    return nb::steal(capsule);
}

// A consumed tensor: its deleter runs when the last kjarni handle to the memory goes.
struct Imported {
    dlpack::ManagedTensor* legacy = nullptr;
    dlpack::ManagedTensorVersioned* versioned = nullptr;
    ~Imported() {
        // Producers' deleters may touch Python objects (PyTorch's, CuPy's do).
        nb::gil_scoped_acquire gil;
        if (legacy != nullptr && legacy->deleter != nullptr) legacy->deleter(legacy);
        if (versioned != nullptr && versioned->deleter != nullptr) versioned->deleter(versioned);
    }
};

Array import_cuda(nb::handle capsule, const Queue& queue) {
    auto owner = std::make_shared<Imported>();
    const dlpack::Tensor* t = nullptr;
    if (PyCapsule_IsValid(capsule.ptr(), "dltensor_versioned")) {
        owner->versioned =
            static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
        if (owner->versioned->version.major > dlpack::current_version.major) {
            owner->versioned = nullptr;  // not ours to consume
            throw UnsupportedError("the producer's DLPack version is newer than 1.x");
        }
        PyCapsule_SetName(capsule.ptr(), "used_dltensor_versioned");
        t = &owner->versioned->dl_tensor;
    } else if (PyCapsule_IsValid(capsule.ptr(), "dltensor")) {
        owner->legacy = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
        PyCapsule_SetName(capsule.ptr(), "used_dltensor");
        t = &owner->legacy->dl_tensor;
    } else {
        throw ArgumentError("capsule", "is not an unconsumed DLPack capsule");
    }
    const BoundDevice& device = queue.device();
    if (t->device.device_type != dlpack::kDLCUDA && t->device.device_type != dlpack::kDLCUDAManaged) {
        throw ArgumentError("tensor", "is not in CUDA device memory (DLPack device type " +
                                          std::to_string(t->device.device_type) + ")");
    }
    if (static_cast<std::uintptr_t>(t->device.device_id) != device.device().native_handle()) {
        throw ArgumentError("queue", "is on CUDA device " + std::to_string(device.device().native_handle()) +
                                         ", the tensor on device " + std::to_string(t->device.device_id));
    }
    const DType dtype = from_dl(t->dtype);
    const auto itemsize = static_cast<std::ptrdiff_t>(dtype.itemsize());
    Layout layout;
    std::ptrdiff_t low = 0, high = itemsize;
    std::ptrdiff_t contiguous = itemsize;
    std::vector<std::ptrdiff_t> strides(static_cast<std::size_t>(t->ndim));
    for (std::int32_t i = t->ndim - 1; i >= 0; --i) {
        const auto extent = static_cast<std::ptrdiff_t>(t->shape[i]);
        strides[static_cast<std::size_t>(i)] =
            t->strides != nullptr ? static_cast<std::ptrdiff_t>(t->strides[i]) * itemsize : contiguous;
        contiguous *= extent;
    }
    bool empty = false;
    for (std::int32_t i = 0; i < t->ndim; ++i) {
        const auto extent = static_cast<std::ptrdiff_t>(t->shape[i]);
        layout.shape.push_back(static_cast<std::size_t>(extent));
        if (extent == 0) empty = true;
        const std::ptrdiff_t step = strides[static_cast<std::size_t>(i)] * (extent - 1);
        if (step < 0) low += step;
        else high += step;
    }
    if (empty) high = low = 0;
    layout.strides = strides;
    layout.offset = static_cast<std::size_t>(-low);
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(t->data) + t->byte_offset;
    // An empty tensor may have no memory at all (a null data pointer): nothing to share.
    if (empty) return Array::from_buffer(Buffer::allocate(device, 0), dtype, layout);
    const Buffer buffer = Buffer::from_backend_buffer(device, first - static_cast<std::uintptr_t>(-low),
                                                      static_cast<std::size_t>(high - low), false, owner);
    return Array::from_buffer(buffer, dtype, layout);
}

}  // namespace

void bind_dlpack(nb::module_& m) {
    m.def("_dlpack_export_cuda", &export_cuda, nb::arg("array"), nb::arg("queue"), nb::arg("stream").none(),
          nb::arg("versioned"), nb::arg("read_only"));
    m.def("_dlpack_import_cuda", &import_cuda, nb::arg("capsule"), nb::arg("queue"));
    m.def("_order_queue_after_stream",
          [](const Queue& q, std::uintptr_t stream) { cuda::order_queue_after(q, stream); });
    m.def("_dlpack_dtype_code", [](const DType& d) {
        const auto t = to_dl(d);
        return std::make_pair(t.code, t.bits);
    });
}

}  // namespace kjarni::python
