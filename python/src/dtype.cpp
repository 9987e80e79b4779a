// Data types (grunnur.dtypes). The C++ DType is built from numpy dtypes on the Python side
// (kjarni/dtypes.py): scalars by name, structs from their fields with explicit offsets.
#include <nanobind/stl/complex.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <kjarni/dtype.hpp>
#include <kjarni/error.hpp>
#include <kjarni/template.hpp>

#include "bindings.hpp"
#include "value_conversion.hpp"

namespace kjarni::python {

namespace {

DType scalar_by_name(const std::string& name) {
    for (const DType& d : dtypes::all_scalars()) {
        if (d.name() == name) return d;
    }
    throw ArgumentError("dtype", "'" + name +
                                     "' is not a dtype kjarni has (bool, int8..uint64, float16..float64, "
                                     "complex64, complex128, or a struct of those)");
}

using FieldTuple = std::tuple<std::string, DType, std::optional<std::size_t>, std::vector<std::size_t>>;

DType make_struct(const std::vector<FieldTuple>& fields, bool aligned, std::optional<std::size_t> itemsize) {
    std::vector<FieldSpec> specs;
    for (const auto& [name, dtype, offset, shape] : fields) {
        if (offset) specs.emplace_back(name, dtype, Offset{*offset}, shape);
        else specs.emplace_back(name, dtype, shape);
    }
    return DType::struct_(specs, StructOptions{aligned, itemsize});
}

}  // namespace

void bind_dtype(nb::module_& m) {
    nb::class_<DType>(m, "DType", "kjarni's dtype; kjarni.dtypes converts numpy dtypes to and from it.")
        .def_prop_ro("name", &DType::name)
        .def_prop_ro("descr", &DType::descr)
        .def_prop_ro("itemsize", &DType::itemsize)
        .def_prop_ro("alignment", &DType::alignment)
        .def_prop_ro("is_struct", &DType::is_struct)
        .def_prop_ro("is_aligned_struct", &DType::is_aligned_struct)
        .def_prop_ro(
            "fields",
            [](const DType& d) {
                std::vector<std::tuple<std::string, DType, std::size_t, std::vector<std::size_t>>> out;
                for (const Field& f : d.fields()) out.emplace_back(f.name, f.dtype(), f.offset, f.shape);
                return out;
            },
            "(name, dtype, offset, shape) of each field, in the order of offsets.")
        .def("__eq__", [](const DType& a, const DType& b) { return a == b; })
        .def("__hash__", [](const DType& d) { return std::hash<std::string>{}(d.descr()); })
        .def("__repr__", [](const DType& d) { return "<kjarni DType " + d.name() + ">"; });

    m.def("_dtype_scalar", &scalar_by_name, nb::arg("name"));
    m.def("_dtype_struct", &make_struct, nb::arg("fields"), nb::arg("aligned"), nb::arg("itemsize").none());

    m.def("_ctype", &ctype, nb::arg("dtype"));
    m.def("_ctype_struct", &ctype_struct, nb::arg("dtype"), nb::arg("ignore_alignment") = false);
    m.def("_complex_ctr", &complex_ctr, nb::arg("dtype"));
    m.def("_align", &align, nb::arg("dtype"));
    m.def(
        "_c_constant_bytes",
        [](const nb::bytes& element, const DType& dtype) {
            return c_constant(std::span(static_cast<const std::byte*>(element.data()), element.size()), dtype);
        },
        nb::arg("element"), nb::arg("dtype"));
    m.def(
        "_result_type", [](const std::vector<DType>& ds) { return result_type(ds); }, nb::arg("dtypes"));
    m.def("_min_scalar_type_int", [](std::int64_t v, bool s) { return min_scalar_type(v, s); });
    m.def("_min_scalar_type_uint", [](std::uint64_t v, bool s) { return min_scalar_type(v, s); });
    m.def("_min_scalar_type_float", [](double v, bool s) { return min_scalar_type(v, s); });
    m.def("_min_scalar_type_complex", [](std::complex<double> v, bool s) { return min_scalar_type(v, s); });
    m.def("_complex_for", &complex_for);
    m.def("_real_for", &real_for);
    m.def("_is_complex", &is_complex);
    m.def("_is_double", &is_double);
    m.def("_is_integer", &is_integer);
    m.def("_is_real", &is_real);
    m.def("_flatten_dtype", &flatten_dtype, nb::arg("dtype"));
    m.def("_c_path", &c_path, nb::arg("path"));
    m.def("_field_at", &field_at, nb::arg("dtype"), nb::arg("path"));
}

}  // namespace kjarni::python
