// The algorithms algorithms.cpp does not cover: custom reductions and scans (PyOpenCL's
// ReductionKernel and GenericScanKernel), cumsum / cumprod, the vector dot, reductions of a whole
// MultiArray, and the rest of numpy's array operations (stacking, splitting at positions,
// atleast_Nd, reshape with copy, asarray and its kin, transfer between contexts).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <variant>

#include <kjarni/array_operations.hpp>
#include <kjarni/operand.hpp>
#include <kjarni/reduction.hpp>
#include <kjarni/scan.hpp>

#include "bindings.hpp"
#include "value_conversion.hpp"

namespace kjarni::python {

namespace {

// A call's argument: an Array, or a numpy scalar (its dtype is its C type). A Python number has no
// C type (the kernel's declaration says it, but a guess here would hide a mismatch): refused.
Operand to_operand(nb::handle value, std::size_t position) {
    if (Array* array = nullptr; nb::try_cast<Array*>(value, array) && array != nullptr) return Operand(*array);
    if (!PyLong_CheckExact(value.ptr()) && !PyFloat_CheckExact(value.ptr()) && !PyBool_Check(value.ptr()) &&
        !PyComplex_CheckExact(value.ptr()) && nb::hasattr(value, "dtype") && nb::hasattr(value, "tobytes")) {
        const DType dtype = nb::cast<DType>(nb::module_::import_("kjarni.dtypes").attr("dtype")(value.attr("dtype")));
        nb::bytes raw = nb::borrow<nb::bytes>(value.attr("tobytes")());
        if (raw.size() != dtype.itemsize()) {
            throw ArgumentError("argument " + std::to_string(position), "must be one scalar, not an array");
        }
        return Operand(std::span(static_cast<const std::byte*>(raw.data()), raw.size()), dtype);
    }
    throw ArgumentError("argument " + std::to_string(position),
                        "must be an Array or a numpy scalar (numpy.float32(2), ...), not " +
                            text_of(value.type().attr("__name__")));
}

std::vector<Operand> to_operands(const nb::args& args) {
    std::vector<Operand> out;
    for (std::size_t i = 0; i < args.size(); ++i) out.push_back(to_operand(args[i], i));
    return out;
}

std::optional<std::vector<int>> to_axes(nb::handle axis) {
    if (axis.is_none()) return std::nullopt;
    if (PyLong_Check(axis.ptr())) return std::vector<int>{nb::cast<int>(axis)};
    return nb::cast<std::vector<int>>(axis);
}

Order to_order(const std::string& order) {
    if (order == "C") return Order::C;
    if (order == "F") return Order::F;
    throw ArgumentError("order", "must be 'C' or 'F', not '" + order + "'");
}

// numpy's `copy`: None (a view where possible), True (always), False (never a copy).
CopyMode to_copy_mode(nb::handle copy) {
    if (copy.is_none()) return CopyMode::if_needed;
    if (!PyBool_Check(copy.ptr())) throw ArgumentError("copy", "must be None, True or False");
    return copy.ptr() == Py_True ? CopyMode::always : CopyMode::never;
}

TakeMode to_take_mode(const std::string& mode) {
    if (mode == "raise") return TakeMode::raise;
    if (mode == "wrap") return TakeMode::wrap;
    if (mode == "clip") return TakeMode::clip;
    throw ArgumentError("mode", "must be 'raise', 'wrap' or 'clip', not '" + mode + "'");
}

Reduction to_reduction(const std::string& name) {
    static const std::pair<const char*, Reduction> names[] =
        {{"sum", Reduction::sum}, {"prod", Reduction::prod},     {"min", Reduction::min},
         {"max", Reduction::max}, {"argmin", Reduction::argmin}, {"argmax", Reduction::argmax},
         {"any", Reduction::any}, {"all", Reduction::all},       {"mean", Reduction::mean}};
    for (const auto& [n, r] : names)
        if (name == n) return r;
    throw ArgumentError("reduction",
                        "unknown reduction '" + name + "': sum, prod, min, max, argmin, argmax, any, all or mean");
}

// A built-in reduction, by name, as reduce_parts takes it; `dtype` only where the function has one.
PartReduction part_reduction(Reduction reduction, std::optional<DType> dtype) {
    if (dtype && reduction != Reduction::sum && reduction != Reduction::prod && reduction != Reduction::mean) {
        throw ArgumentError("dtype", "only sum, prod and mean take a dtype");
    }
    using Q = const Queue&;
    using A = const Array&;
    using O = const ReduceOptions&;
    switch (reduction) {
    case Reduction::sum: return [dtype](Q q, A a, O o) { return sum(q, a, o, dtype); };
    case Reduction::prod: return [dtype](Q q, A a, O o) { return prod(q, a, o, dtype); };
    case Reduction::mean: return [dtype](Q q, A a, O o) { return mean(q, a, o, dtype); };
    case Reduction::min: return [](Q q, A a, O o) { return min(q, a, o); };
    case Reduction::max: return [](Q q, A a, O o) { return max(q, a, o); };
    case Reduction::argmin: return [](Q q, A a, O o) { return argmin(q, a, o); };
    case Reduction::argmax: return [](Q q, A a, O o) { return argmax(q, a, o); };
    case Reduction::any: return [](Q q, A a, O o) { return any(q, a, o); };
    case Reduction::all: return [](Q q, A a, O o) { return all(q, a, o); };
    }
    throw ArgumentError("reduction", "unknown");
}

// A split given as numpy takes it: a number of sections or a list of positions.
using Sections = std::variant<std::size_t, std::vector<std::ptrdiff_t>>;

Sections to_sections(nb::handle value) {
    if (PyLong_Check(value.ptr())) {
        const auto n = nb::cast<std::int64_t>(value);
        if (n <= 0) throw ArgumentError("indices_or_sections", "a number of sections must be > 0");
        return static_cast<std::size_t>(n);
    }
    std::vector<std::ptrdiff_t> positions;
    if (!nb::try_cast(value, positions)) {
        throw ArgumentError("indices_or_sections", "must be a number of sections or a list of positions");
    }
    return positions;
}

template <class BySections, class ByPositions>
std::vector<Array> split_by(nb::handle sections, BySections by_sections, ByPositions by_positions) {
    Sections s = to_sections(sections);
    if (auto* n = std::get_if<std::size_t>(&s)) return by_sections(*n);
    const auto& positions = std::get<std::vector<std::ptrdiff_t>>(s);
    return by_positions(std::span<const std::ptrdiff_t>(positions));
}

}  // namespace

void bind_algorithms_extra(nb::module_& m) {
    refuse_other_constructors(
        nb::class_<ReductionKernel>(m, "_ReductionKernel",
                                    "PyOpenCL's ReductionKernel: map_expr over the (broadcast) arguments, combined by "
                                    "reduce_expr over the reduced axes. Deterministic.")
            .def(
                "__init__",
                [](ReductionKernel* self, const DType& dtype_out, std::string neutral, std::string reduce_expr,
                   std::string map_expr, const std::string& arguments, std::string preamble, nb::handle render_globals,
                   std::string name) {
                    new (self) ReductionKernel(dtype_out, std::move(neutral), std::move(reduce_expr),
                                               std::move(map_expr), arguments, std::move(preamble),
                                               globals_from_python(render_globals), std::move(name));
                },
                nb::arg("dtype_out"), nb::arg("neutral"), nb::arg("reduce_expr"), nb::arg("map_expr"),
                nb::arg("arguments"), nb::arg("preamble") = "", nb::arg("render_globals") = nb::none(),
                nb::arg("name") = "reduction")
            .def(
                "_call",
                [](const ReductionKernel& k, const Queue& queue, nb::handle axis, bool keepdims,
                   std::optional<Array> out, nb::args args) {
                    ReduceOptions options;
                    options.axes = to_axes(axis);
                    options.keepdims = keepdims;
                    options.out = std::move(out);
                    return k(queue, to_operands(args), options);
                },
                nb::arg("queue"), nb::arg("axis").none(), nb::arg("keepdims"), nb::arg("out").none(), nb::arg("args")));

    refuse_other_constructors(
        nb::class_<ScanKernel>(m, "_ScanKernel",
                               "PyOpenCL's GenericScanKernel along one axis: input_expr combined by scan_expr, "
                               "output_statement run with item / prev_item / last_item. Deterministic.")
            .def(
                "__init__",
                [](ScanKernel* self, const DType& dtype, std::string neutral, std::string scan_expr,
                   std::string input_expr, std::string output_statement, const std::string& arguments,
                   std::string preamble, nb::handle render_globals, std::string name) {
                    new (self) ScanKernel(dtype, std::move(neutral), std::move(scan_expr), std::move(input_expr),
                                          std::move(output_statement), arguments, std::move(preamble),
                                          globals_from_python(render_globals), std::move(name));
                },
                nb::arg("dtype"), nb::arg("neutral"), nb::arg("scan_expr"), nb::arg("input_expr"),
                nb::arg("output_statement"), nb::arg("arguments"), nb::arg("preamble") = "",
                nb::arg("render_globals") = nb::none(), nb::arg("name") = "scan")
            .def(
                "_call",
                [](const ScanKernel& k, const Queue& queue, int axis, nb::args args) {
                    k(queue, to_operands(args), axis);
                },
                nb::arg("queue"), nb::arg("axis"), nb::arg("args")));

    // Lambdas: the C++ functions take an Allocator last too (issue 43 item 18), which Python does not pass.
    m.def(
        "_cumsum",
        [](const Queue& q, const Array& a, std::optional<int> axis, const std::optional<DType>& dtype,
           const std::optional<Array>& out) { return cumsum(q, a, axis, dtype, out); },
        nb::arg("queue"), nb::arg("array"), nb::arg("axis") = nb::none(), nb::arg("dtype") = nb::none(),
        nb::arg("out") = nb::none(), "numpy's cumsum along `axis` (the flattened array when None).");
    m.def(
        "_cumprod",
        [](const Queue& q, const Array& a, std::optional<int> axis, const std::optional<DType>& dtype,
           const std::optional<Array>& out) { return cumprod(q, a, axis, dtype, out); },
        nb::arg("queue"), nb::arg("array"), nb::arg("axis") = nb::none(), nb::arg("dtype") = nb::none(),
        nb::arg("out") = nb::none());
    m.def("_cumsum_parts", &cumsum_parts, nb::arg("queue"), nb::arg("array"), nb::arg("axis"),
          nb::arg("dtype") = nb::none(), "The cumsum of a MultiArray along `axis`, across its parts.");
    m.def("_cumprod_parts", &cumprod_parts, nb::arg("queue"), nb::arg("array"), nb::arg("axis"),
          nb::arg("dtype") = nb::none(), "The cumprod of a MultiArray along `axis`, across its parts.");
    m.def("_dot", &kjarni::dot, nb::arg("queue"), nb::arg("a"), nb::arg("b"), nb::arg("out") = nb::none(),
          "numpy's dot of two 1-d arrays (no conjugation), a 0-d array.");
    m.def(
        "_reduce_whole",
        [](const MultiQueue& queue, const MultiArray& array, const std::string& reduction, nb::handle axis,
           bool keepdims, std::optional<Array> out, std::optional<DType> dtype) {
            ReduceOptions options;
            options.axes = to_axes(axis);
            options.keepdims = keepdims;
            options.out = std::move(out);
            return reduce_whole(queue, array, to_reduction(reduction), options, dtype);
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("reduction"), nb::arg("axis") = nb::none(),
        nb::arg("keepdims") = false, nb::arg("out") = nb::none(), nb::arg("dtype") = nb::none(),
        "A reduction ('sum', 'max', ...) of a whole MultiArray across its parts: one Array on the first device.");

    m.def(
        "_reduce_parts",
        [](const MultiQueue& queue, const MultiArray& array, const std::string& reduction, nb::handle axis,
           bool keepdims, std::optional<DType> dtype) {
            ReduceOptions options;
            options.axes = to_axes(axis);
            options.keepdims = keepdims;
            return reduce_parts(queue, array, part_reduction(to_reduction(reduction), dtype), options);
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("reduction"), nb::arg("axis") = nb::none(),
        nb::arg("keepdims") = false, nb::arg("dtype") = nb::none());

    m.def(
        "_hstack", [](const Queue& q, const std::vector<Array>& a) { return hstack(q, a); }, nb::arg("queue"),
        nb::arg("arrays"));
    m.def(
        "_vstack", [](const Queue& q, const std::vector<Array>& a) { return vstack(q, a); }, nb::arg("queue"),
        nb::arg("arrays"));
    m.def(
        "_dstack", [](const Queue& q, const std::vector<Array>& a) { return dstack(q, a); }, nb::arg("queue"),
        nb::arg("arrays"));
    m.def(
        "_concatenate_into",
        [](const Queue& q, const std::vector<Array>& arrays, const Array& out, std::ptrdiff_t axis) {
            concatenate(q, arrays, out, axis);
        },
        nb::arg("queue"), nb::arg("arrays"), nb::arg("out"), nb::arg("axis"));
    m.def(
        "_split",
        [](const Array& a, nb::handle sections, std::ptrdiff_t axis) {
            return split_by(
                sections, [&](std::size_t n) { return split(a, n, axis); },
                [&](std::span<const std::ptrdiff_t> p) { return split(a, p, axis); });
        },
        nb::arg("array"), nb::arg("indices_or_sections"), nb::arg("axis") = 0);
    m.def(
        "array_split",
        [](const Array& a, nb::handle sections, std::ptrdiff_t axis) {
            return split_by(
                sections, [&](std::size_t n) { return array_split(a, n, axis); },
                [&](std::span<const std::ptrdiff_t> p) { return array_split(a, p, axis); });
        },
        nb::arg("array"), nb::arg("indices_or_sections"), nb::arg("axis") = 0);
    m.def(
        "hsplit",
        [](const Array& a, nb::handle sections) {
            return split_by(
                sections, [&](std::size_t n) { return hsplit(a, n); },
                [&](std::span<const std::ptrdiff_t> p) { return hsplit(a, p); });
        },
        nb::arg("array"), nb::arg("indices_or_sections"));
    m.def(
        "vsplit",
        [](const Array& a, nb::handle sections) {
            return split_by(
                sections, [&](std::size_t n) { return vsplit(a, n); },
                [&](std::span<const std::ptrdiff_t> p) { return vsplit(a, p); });
        },
        nb::arg("array"), nb::arg("indices_or_sections"));
    m.def(
        "dsplit",
        [](const Array& a, nb::handle sections) {
            return split_by(
                sections, [&](std::size_t n) { return dsplit(a, n); },
                [&](std::span<const std::ptrdiff_t> p) { return dsplit(a, p); });
        },
        nb::arg("array"), nb::arg("indices_or_sections"));
    m.def("atleast_1d", nb::overload_cast<const Array&>(&atleast_1d), nb::arg("array"));
    m.def("atleast_2d", nb::overload_cast<const Array&>(&atleast_2d), nb::arg("array"));
    m.def("atleast_3d", nb::overload_cast<const Array&>(&atleast_3d), nb::arg("array"));
    m.def(
        "_take",
        [](const Queue& q, const Array& a, const Array& indices, std::optional<std::ptrdiff_t> axis,
           const std::string& mode) { return take(q, a, indices, axis, to_take_mode(mode)); },
        nb::arg("queue"), nb::arg("array"), nb::arg("indices"), nb::arg("axis").none(), nb::arg("mode"));
    m.def(
        "_reshape",
        [](const Queue& q, const Array& a, const std::vector<std::ptrdiff_t>& shape, const std::string& order,
           nb::handle copy) { return reshape(q, a, std::span(shape), to_order(order), to_copy_mode(copy)); },
        nb::arg("queue"), nb::arg("array"), nb::arg("shape"), nb::arg("order") = "C", nb::arg("copy") = nb::none(),
        "numpy.reshape: a view where one exists, else a copy (copy=False: ArgumentError instead).");
    m.def(
        "_ascontiguousarray",
        [](const Queue& q, const Array& a, const std::optional<DType>& dtype) {
            return ascontiguousarray(q, a, dtype);
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("dtype") = nb::none());
    m.def(
        "_asfortranarray",
        [](const Queue& q, const Array& a, const std::optional<DType>& dtype) { return asfortranarray(q, a, dtype); },
        nb::arg("queue"), nb::arg("array"), nb::arg("dtype") = nb::none());
    m.def(
        "_asarray",
        [](const Queue& q, const Array& a, std::optional<DType> dtype, std::optional<std::string> order) {
            std::optional<Order> o;
            if (order) o = to_order(*order);
            return asarray(q, a, dtype, o);
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("dtype").none(), nb::arg("order").none());
    m.def(
        "transfer", [](const Array& a, const Queue& q) { return transfer(a, q); }, nb::arg("array"), nb::arg("queue"),
        "pygpu's transfer: a C-contiguous copy on the queue's device, which may be of another context or API.");
}

}  // namespace kjarni::python
