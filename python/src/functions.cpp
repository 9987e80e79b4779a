// Function modules (grunnur.functions): factories returning Modules for complex-safe arithmetic.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <kjarni/functions.hpp>

#include "bindings.hpp"

namespace kjarni::python {

void bind_functions(nb::module_& m) {
    nb::module_ f = m.def_submodule("_functions", "Modules rendering one C function named by the prefix.");
    f.def("add", &functions::add, nb::arg("in_dtypes"), nb::arg("out_dtype") = nb::none());
    f.def("mul", &functions::mul, nb::arg("in_dtypes"), nb::arg("out_dtype") = nb::none());
    f.def("div", &functions::div, nb::arg("dividend_dtype"), nb::arg("divisor_dtype"),
          nb::arg("out_dtype") = nb::none());
    f.def("cast", &functions::cast, nb::arg("in_dtype"), nb::arg("out_dtype"));
    f.def("conj", &functions::conj, nb::arg("dtype"));
    f.def("exp", &functions::exp, nb::arg("dtype"));
    f.def("norm", &functions::norm, nb::arg("dtype"));
    f.def("polar", &functions::polar, nb::arg("dtype"));
    f.def("polar_unit", &functions::polar_unit, nb::arg("dtype"));
    f.def("pow", &functions::pow, nb::arg("base_dtype"), nb::arg("exponent_dtype") = nb::none(),
          nb::arg("out_dtype") = nb::none());
}

}  // namespace kjarni::python
