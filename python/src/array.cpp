// Arrays on one device and over several (grunnur's Array and MultiArray). numpy conversions live in
// kjarni/_array.py: here the host side is raw C-contiguous bytes with the array's shape and dtype.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <kjarni/array.hpp>
#include <kjarni/multi_array.hpp>

#include "allocator.hpp"
#include "bindings.hpp"
#include "host_memory.hpp"
#include "value_conversion.hpp"

namespace kjarni::python {

namespace {

nb::tuple as_tuple(const auto& values) { return nb::tuple(nb::cast(values)); }

// A Python key (an int, slice, None, Ellipsis, or a tuple of those) as numpy's basic indexing.
std::vector<Index> to_indices(const nb::handle& key) {
    std::vector<Index> out;
    auto one = [&out](const nb::handle& item) {
        if (item.is_none()) {
            out.emplace_back(newaxis);
        } else if (item.ptr() == Py_Ellipsis) {
            out.emplace_back(ellipsis);
        } else if (PySlice_Check(item.ptr())) {
            Py_ssize_t start = 0, stop = 0, step = 0;
            if (PySlice_Unpack(item.ptr(), &start, &stop, &step) != 0) throw nb::python_error();
            // PySlice_Unpack gives PY_SSIZE_T_MIN / MAX for missing bounds: keep them missing.
            const nb::object s = nb::borrow(item);
            Slice slice;
            if (!s.attr("start").is_none()) slice.start = start;
            if (!s.attr("stop").is_none()) slice.stop = stop;
            slice.step = step;
            out.emplace_back(slice);
        } else if (PyIndex_Check(item.ptr()) && !PyBool_Check(item.ptr())) {
            out.emplace_back(static_cast<std::ptrdiff_t>(nb::cast<std::int64_t>(nb::int_(item))));
        } else {
            throw ArgumentError("key", "only basic indexing is supported (integers, slices, None, ...), not " +
                                           text_of(item.type().attr("__name__")));
        }
    };
    if (PyTuple_Check(key.ptr())) {
        for (nb::handle item : nb::borrow<nb::tuple>(key)) one(item);
    } else {
        one(key);
    }
    return out;
}

HostArray wrap_host(const HostBytes& host, const DType& dtype, const std::vector<std::size_t>& shape) {
    return HostArray::wrap_bytes(host.data(), host.size(), dtype, shape);
}

Order to_order(const std::string& order) {
    if (order == "C") return Order::C;
    if (order == "F") return Order::F;
    throw ArgumentError("order", "must be 'C' or 'F', not '" + order + "'");
}

}  // namespace

void bind_array(nb::module_& m) {
    nb::class_<Array>(m, "Array", nb::dynamic_attr(),
                      "An N-d array on one device: a dtype, a shape, byte strides and an offset into a buffer "
                      "shared by its views.")
        .def_static(
            "_empty",
            [](const BoundDevice& device, std::vector<std::size_t> shape, const DType& dtype,
               std::optional<std::vector<std::ptrdiff_t>> strides, std::size_t first_element_offset,
               const nb::object& allocator) {
                return Array::empty(device, std::move(shape), dtype, std::move(strides), first_element_offset,
                                    to_allocator(allocator));
            },
            nb::arg("device"), nb::arg("shape"), nb::arg("dtype"), nb::arg("strides").none(),
            nb::arg("first_element_offset"), nb::arg("allocator").none())
        .def_static(
            "_empty_ordered",
            [](const BoundDevice& device, std::vector<std::size_t> shape, const DType& dtype, const std::string& order,
               const nb::object& allocator) {
                return Array::empty(device, std::move(shape), dtype, to_order(order), to_allocator(allocator));
            },
            nb::arg("device"), nb::arg("shape"), nb::arg("dtype"), nb::arg("order"), nb::arg("allocator").none())
        .def_static(
            "_zeros",
            [](const Queue& queue, std::vector<std::size_t> shape, const DType& dtype, const std::string& order,
               const nb::object& allocator) {
                return Array::zeros(queue, std::move(shape), dtype, to_order(order), to_allocator(allocator, queue));
            },
            nb::arg("queue"), nb::arg("shape"), nb::arg("dtype"), nb::arg("order"), nb::arg("allocator").none())
        .def_static(
            "from_buffer",
            [](const Buffer& base, const DType& dtype, std::vector<std::size_t> shape,
               std::optional<std::vector<std::ptrdiff_t>> strides, std::size_t offset) {
                Layout layout = Layout::contiguous(std::move(shape), dtype.itemsize());
                if (strides) layout.strides = *strides;
                layout.offset = offset;
                return Array::from_buffer(base, dtype, layout);
            },
            nb::arg("base"), nb::arg("dtype"), nb::arg("shape"), nb::arg("strides") = nb::none(), nb::arg("offset") = 0,
            "An array over an existing buffer (the layout must lie inside it).")
        .def("_set_host",
             [](const Array& self, const Queue& queue, nb::object host) {
                 HostBytes bytes(host.ptr(), false, "array");
                 const HostArray h = wrap_host(bytes, self.dtype(), self.shape());
                 nb::gil_scoped_release release;
                 self.set(queue, h, false);
             })
        .def("_get_host",
             [](const Array& self, const Queue& queue, nb::object dest) {
                 HostBytes bytes(dest.ptr(), true, "dest");
                 const HostArray h = wrap_host(bytes, self.dtype(), self.shape());
                 nb::gil_scoped_release release;
                 self.get(queue, h, false);
             })
        .def("_set_array", [](const Array& self, const Queue& queue, const Array& source,
                              bool async_) { self.set(queue, source, async_); })
        .def_prop_ro("device", &Array::device)
        .def_prop_ro("_dtype", &Array::dtype)
        .def_prop_ro("shape", [](const Array& a) { return as_tuple(a.shape()); })
        .def_prop_ro("strides", [](const Array& a) { return as_tuple(a.strides()); })
        .def_prop_ro("offset", &Array::offset, "Bytes from the start of `base` to the first element.")
        .def_prop_ro("base", &Array::base, "The whole buffer, shared by the views.")
        .def_prop_ro("ndim", &Array::ndim)
        .def_prop_ro("size", &Array::size)
        .def_prop_ro("nbytes", &Array::nbytes)
        .def_prop_ro("is_c_contiguous", &Array::is_c_contiguous)
        .def_prop_ro("is_f_contiguous", &Array::is_f_contiguous)
        .def_prop_ro("data", &Array::data, "The region from the first element to the last (what a kernel gets).")
        .def(
            "__getitem__", [](const Array& a, nb::handle key) { return a.index(to_indices(key)); },
            "A view by numpy's basic indexing: integers, slices of any step, None (a new axis), Ellipsis.")
        .def("__len__",
             [](const Array& a) {
                 if (a.ndim() == 0) throw nb::type_error("len() of a 0-d array");
                 return a.shape()[0];
             })
        .def(
            "transpose",
            [](const Array& a, const std::vector<std::size_t>& axes) { return a.transpose(std::span(axes)); },
            nb::arg("axes") = std::vector<std::size_t>{})
        .def_prop_ro("T", [](const Array& a) { return a.transpose(); })
        .def("_reshape", [](const Array& a, const std::vector<std::ptrdiff_t>& shape,
                            const std::string& order) { return a.reshape(std::span(shape), to_order(order)); })
        .def("_view", &Array::view)
        .def(
            "copy",
            [](const Array& a, const Queue& queue, const std::string& order) { return a.copy(queue, to_order(order)); },
            nb::arg("queue"), nb::arg("order") = "C")
        .def("_astype", [](const Array& a, const Queue& queue, const DType& dtype, const std::string& order,
                           bool copy) { return a.astype(queue, dtype, to_order(order), copy); });

    nb::class_<Splay>(m, "Splay", "Which part of an array each device of a MultiArray holds.");
    nb::class_<CloneSplay, Splay>(m, "CloneSplay", "The whole array on every device.").def(nb::init<>());
    nb::class_<EqualSplay, Splay>(m, "EqualSplay", "The outermost dimension split as evenly as possible.")
        .def(nb::init<>());

    nb::class_<MultiArray>(m, "MultiArray", nb::dynamic_attr(), "An array over several devices of one context.")
        .def_static(
            "_empty",
            [](const BoundMultiDevice& devices, std::vector<std::size_t> shape, const DType& dtype,
               const nb::object& allocator, std::shared_ptr<const Splay> splay) {
                return MultiArray::empty(devices, std::move(shape), dtype, to_allocator(allocator), std::move(splay));
            },
            nb::arg("devices"), nb::arg("shape"), nb::arg("dtype"), nb::arg("allocator").none(),
            nb::arg("splay").none())
        .def_static(
            "_from_host",
            [](const MultiQueue& queue, nb::object host, const DType& dtype, const std::vector<std::size_t>& shape,
               std::shared_ptr<const Splay> splay) {
                HostBytes bytes(host.ptr(), false, "host_arr");
                return MultiArray::from_host(queue, wrap_host(bytes, dtype, shape), std::move(splay));
            },
            nb::arg("mqueue"), nb::arg("host"), nb::arg("dtype"), nb::arg("shape"), nb::arg("splay").none())
        .def("_get_host",
             [](const MultiArray& self, const MultiQueue& queue, nb::object dest) {
                 HostBytes bytes(dest.ptr(), true, "dest");
                 self.get(queue, wrap_host(bytes, self.dtype(), self.shape()), false);
             })
        .def("_set_host",
             [](const MultiArray& self, const MultiQueue& queue, nb::object host) {
                 HostBytes bytes(host.ptr(), false, "array");
                 self.set(queue, wrap_host(bytes, self.dtype(), self.shape()), false);
             })
        .def("_set_multi", [](const MultiArray& self, const MultiQueue& queue,
                              const MultiArray& source) { self.set(queue, source, false); })
        .def_prop_ro("devices", &MultiArray::devices)
        .def_prop_ro("_dtype", &MultiArray::dtype)
        .def_prop_ro("shape", [](const MultiArray& a) { return as_tuple(a.shape()); })
        .def_prop_ro(
            "shapes",
            [](const MultiArray& a) {
                nb::dict out;
                const auto shapes = a.shapes();
                for (std::size_t i = 0; i < shapes.size(); ++i) out[nb::cast(a.devices()[i])] = as_tuple(shapes[i]);
                return out;
            },
            "Device -> the shape of its part.")
        .def_prop_ro(
            "subarrays",
            [](const MultiArray& a) {
                nb::dict out;
                for (std::size_t i = 0; i < a.parts().size(); ++i)
                    out[nb::cast(a.devices()[i])] = nb::cast(a.parts()[i]);
                return out;
            },
            "Device -> its part (an Array).")
        .def("part", &MultiArray::part, nb::arg("device"));
}

}  // namespace kjarni::python
