// What kjarni.array_api (the Python array API standard's namespace) needs beyond the numpy-style
// bindings: every elementwise function of kjarni/expression.hpp by name (also numpy's ufuncs on
// kjarni arrays: kjarni/_numpy.py), the bitwise operators, and
// the sorting and selection algorithms (sort, argsort, unique, searchsorted, nonzero, boolean and
// integer indexing, count_nonzero).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <string>
#include <utility>

#include <kjarni/error.hpp>
#include <kjarni/expression.hpp>
#include <kjarni/reduction.hpp>
#include <kjarni/selection.hpp>
#include <kjarni/sorting.hpp>

#include "bindings.hpp"
#include "value_conversion.hpp"

namespace kjarni::python {

// algorithms.cpp's: one operand; two, a Python int past 64 bits read beside the other.
Expr expr_from_python(nb::handle h);
std::pair<Expr, Expr> operands_from_python(nb::handle a, nb::handle b);

namespace {

using ArrayApiUnary = Expr (*)(const Expr&);
using ArrayApiBinary = Expr (*)(const Expr&, const Expr&);

const std::map<std::string, ArrayApiUnary, std::less<>>& array_api_unary_table() {
    // clang-format off
    static const std::map<std::string, ArrayApiUnary, std::less<>> table = {
        {"abs", &kjarni::abs},         {"sqrt", &kjarni::sqrt},       {"exp", &kjarni::exp},
        {"log", &kjarni::log},         {"sin", &kjarni::sin},         {"cos", &kjarni::cos},
        {"tanh", &kjarni::tanh},       {"floor", &kjarni::floor},     {"ceil", &kjarni::ceil},
        {"trunc", &kjarni::trunc},     {"rint", &kjarni::rint},       {"isnan", &kjarni::isnan},
        {"isinf", &kjarni::isinf},     {"isfinite", &kjarni::isfinite}, {"sign", &kjarni::sign},
        {"square", &kjarni::square},   {"negative", &kjarni::negative}, {"positive", &kjarni::positive},
        {"reciprocal", &kjarni::reciprocal}, {"log2", &kjarni::log2}, {"log10", &kjarni::log10},
        {"log1p", &kjarni::log1p},     {"expm1", &kjarni::expm1},     {"exp2", &kjarni::exp2},
        {"tan", &kjarni::tan},         {"asin", &kjarni::arcsin},     {"acos", &kjarni::arccos},
        {"atan", &kjarni::arctan},     {"sinh", &kjarni::sinh},       {"cosh", &kjarni::cosh},
        {"asinh", &kjarni::arcsinh},   {"acosh", &kjarni::arccosh},   {"atanh", &kjarni::arctanh},
        {"logical_not", &kjarni::logical_not},
        {"bitwise_invert", [](const Expr& a) { return ~a; }},
        // numpy's ufuncs beyond the standard (kjarni/_numpy.py's table), under numpy's names.
        {"cbrt", &kjarni::cbrt},       {"deg2rad", &kjarni::deg2rad}, {"rad2deg", &kjarni::rad2deg},
        {"signbit", &kjarni::signbit}, {"spacing", &kjarni::spacing}, {"conjugate", &kjarni::conjugate},
        {"bitwise_count", &kjarni::bitwise_count},
        {"frexp_mantissa", [](const Expr& a) { return kjarni::frexp(a).first; }},
        {"frexp_exponent", [](const Expr& a) { return kjarni::frexp(a).second; }},
    };
    // clang-format on
    return table;
}

const std::map<std::string, ArrayApiBinary, std::less<>>& array_api_binary_table() {
    static const std::map<std::string, ArrayApiBinary, std::less<>> table = {
        {"add", [](const Expr& a, const Expr& b) { return a + b; }},
        {"subtract", [](const Expr& a, const Expr& b) { return a - b; }},
        {"multiply", [](const Expr& a, const Expr& b) { return a * b; }},
        {"divide", [](const Expr& a, const Expr& b) { return a / b; }},
        {"pow", &kjarni::pow},
        {"floor_divide", &kjarni::floor_divide},
        {"remainder", &kjarni::remainder},
        {"less", [](const Expr& a, const Expr& b) { return a < b; }},
        {"less_equal", [](const Expr& a, const Expr& b) { return a <= b; }},
        {"greater", [](const Expr& a, const Expr& b) { return a > b; }},
        {"greater_equal", [](const Expr& a, const Expr& b) { return a >= b; }},
        {"equal", [](const Expr& a, const Expr& b) { return a == b; }},
        {"not_equal", [](const Expr& a, const Expr& b) { return a != b; }},
        {"minimum", &kjarni::minimum},
        {"maximum", &kjarni::maximum},
        {"atan2", &kjarni::arctan2},
        {"hypot", &kjarni::hypot},
        {"copysign", &kjarni::copysign},
        {"fmod", &kjarni::fmod},
        {"fmin", &kjarni::fmin},
        {"fmax", &kjarni::fmax},
        {"logical_and", &kjarni::logical_and},
        {"logical_or", &kjarni::logical_or},
        {"logical_xor", &kjarni::logical_xor},
        {"bitwise_and", [](const Expr& a, const Expr& b) { return a & b; }},
        {"bitwise_or", [](const Expr& a, const Expr& b) { return a | b; }},
        {"bitwise_xor", [](const Expr& a, const Expr& b) { return a ^ b; }},
        {"bitwise_left_shift", [](const Expr& a, const Expr& b) { return a << b; }},
        {"bitwise_right_shift", [](const Expr& a, const Expr& b) { return a >> b; }},
        {"logaddexp", &kjarni::logaddexp},
        {"logaddexp2", &kjarni::logaddexp2},
        {"heaviside", &kjarni::heaviside},
        {"nextafter", &kjarni::nextafter},
        {"float_power", &kjarni::float_power},
        {"gcd", &kjarni::gcd},
        {"lcm", &kjarni::lcm},
        {"ldexp", &kjarni::ldexp},
    };
    return table;
}

}  // namespace

void bind_array_api(nb::module_& m) {
    nb::module_ x = m.def_submodule("_array_api", "The device work behind kjarni.array_api.");
    x.def("unary_names", [] {
        std::vector<std::string> names;
        for (const auto& [name, f] : array_api_unary_table()) names.push_back(name);
        return names;
    });
    x.def("binary_names", [] {
        std::vector<std::string> names;
        for (const auto& [name, f] : array_api_binary_table()) names.push_back(name);
        return names;
    });
    x.def(
        "unary",
        [](const std::string& name, nb::handle a) {
            const auto& table = array_api_unary_table();
            const auto it = table.find(name);
            if (it == table.end()) throw ArgumentError("name", "no elementwise function '" + name + "'");
            return it->second(expr_from_python(a));
        },
        nb::arg("name"), nb::arg("x"));
    x.def(
        "binary",
        [](const std::string& name, nb::handle a, nb::handle b) {
            const auto& table = array_api_binary_table();
            const auto it = table.find(name);
            if (it == table.end()) throw ArgumentError("name", "no elementwise function '" + name + "'");
            const auto [x1, x2] = operands_from_python(a, b);
            return it->second(x1, x2);
        },
        nb::arg("name"), nb::arg("x1"), nb::arg("x2"));
    x.def(
        "round", [](nb::handle a) { return kjarni::round(expr_from_python(a), 0); }, nb::arg("x"));

    // var and std with the standard's `correction` (numpy's ddof), over `axes` (all when None).
    x.def(
        "var",
        [](const Queue& q, const Array& a, std::optional<std::vector<int>> axes, bool keepdims, double correction) {
            ReduceOptions o;
            o.axes = std::move(axes);
            o.keepdims = keepdims;
            return var(q, a, o, correction);
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("axes").none(), nb::arg("keepdims"), nb::arg("correction"));
    x.def(
        "std",
        [](const Queue& q, const Array& a, std::optional<std::vector<int>> axes, bool keepdims, double correction) {
            ReduceOptions o;
            o.axes = std::move(axes);
            o.keepdims = keepdims;
            return kjarni::std(q, a, o, correction);
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("axes").none(), nb::arg("keepdims"), nb::arg("correction"));

    x.def(
        "sort", [](const Queue& q, const Array& a, std::optional<int> axis) { return sort(q, a, axis); },
        nb::arg("queue"), nb::arg("array"), nb::arg("axis").none());
    x.def(
        "argsort", [](const Queue& q, const Array& a, std::optional<int> axis) { return argsort(q, a, axis); },
        nb::arg("queue"), nb::arg("array"), nb::arg("axis").none());
    x.def(
        "unique",
        [](const Queue& q, const Array& a, bool index, bool inverse, bool counts) {
            UniqueOptions o;
            o.return_index = index;
            o.return_inverse = inverse;
            o.return_counts = counts;
            UniqueResult r = unique(q, a, o);
            return nb::make_tuple(r.values, r.index ? nb::cast(*r.index) : nb::none(),
                                  r.inverse ? nb::cast(*r.inverse) : nb::none(),
                                  r.counts ? nb::cast(*r.counts) : nb::none());
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("index"), nb::arg("inverse"), nb::arg("counts"));
    x.def(
        "searchsorted",
        [](const Queue& q, const Array& sorted, const Array& values, bool right) {
            return searchsorted(q, sorted, values, right ? Side::right : Side::left);
        },
        nb::arg("queue"), nb::arg("sorted"), nb::arg("values"), nb::arg("right"));
    x.def(
        "nonzero", [](const Queue& q, const Array& a) { return nonzero(q, a); }, nb::arg("queue"), nb::arg("array"));
    x.def(
        "count_nonzero",
        [](const Queue& q, const Array& a, std::optional<std::vector<int>> axes) { return count_nonzero(q, a, axes); },
        nb::arg("queue"), nb::arg("array"), nb::arg("axes").none());
    x.def(
        "boolean_index", [](const Queue& q, const Array& a, const Array& mask) { return boolean_index(q, a, mask); },
        nb::arg("queue"), nb::arg("array"), nb::arg("mask"));
    x.def(
        "boolean_index_assign",
        [](const Queue& q, const Array& a, const Array& mask, const Array& value) {
            boolean_index_assign(q, a, mask, Operand(value));
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("mask"), nb::arg("value"));
    x.def(
        "integer_index",
        [](const Queue& q, const Array& a, const Array& indices, int axis) {
            return integer_index(q, a, indices, axis);
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("indices"), nb::arg("axis"));
    x.def(
        "integer_index_assign",
        [](const Queue& q, const Array& a, const Array& indices, const Array& values, int axis) {
            integer_index_assign(q, a, indices, Operand(values), axis);
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("indices"), nb::arg("values"), nb::arg("axis"));
}

}  // namespace kjarni::python
