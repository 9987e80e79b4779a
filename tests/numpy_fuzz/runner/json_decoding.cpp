#include "json_decoding.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "kjarni/error.hpp"
#include "kjarni/fusion.hpp"

namespace kjarni::numpy_fuzz {

DType dtype_named(const std::string& name) {
    for (const DType& d : dtypes::all_scalars())
        if (d.name() == name) return d;
    throw ProgramError("unknown dtype " + name);
}

double real_value(const Json& value) {
    if (value.is_string()) {
        const auto& s = value.get_ref<const std::string&>();
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
        throw ProgramError("bad number " + s);
    }
    return value.get<double>();
}

std::complex<double> complex_value(const Json& value) {
    if (value.is_array()) return {real_value(value.at(0)), real_value(value.at(1))};
    return {real_value(value), 0.0};
}

Index index_entry(const Json& entry) {
    if (entry.is_number_integer()) return Index(entry.get<std::ptrdiff_t>());
    if (entry.is_string()) {
        if (entry == "newaxis") return Index(newaxis);
        if (entry == "...") return Index(ellipsis);
    }
    if (entry.is_array() && entry.size() == 3) {
        Slice s;
        if (!entry[0].is_null()) s.start = entry[0].get<std::ptrdiff_t>();
        if (!entry[1].is_null()) s.stop = entry[1].get<std::ptrdiff_t>();
        s.step = entry[2].get<std::ptrdiff_t>();
        return Index(s);
    }
    throw ProgramError("bad index entry " + entry.dump());
}

namespace {

// A weak scalar: what a C++ literal of that kind gives (`2`, `2u`, `2.5`, `true`, a std::complex).
Expr weak_scalar(const Json& node) {
    const std::string& kind = node.at("kind").get_ref<const std::string&>();
    const Json& v = node.at("weak");
    if (kind == "bool") return Expr(v.get<bool>());
    if (kind == "int") return Expr(v.get<std::int64_t>());
    if (kind == "uint") return Expr(v.get<std::uint64_t>());
    if (kind == "float") return Expr(real_value(v));
    if (kind == "complex") return Expr(complex_value(v));
    throw ProgramError("bad weak scalar kind " + kind);
}

// A typed scalar (numpy's np.float32(x), np.int8(x)...): kjarni::scalar / scalar_integer.
Expr typed_scalar(const Json& node) {
    const DType dtype = dtype_named(node.at("dtype").get<std::string>());
    const Json& v = node.at("scalar");
    if (is_complex(dtype)) return scalar(complex_value(v), dtype);
    if (is_real(dtype)) return scalar(real_value(v), dtype);
    return scalar_integer(v.is_boolean() ? std::int64_t{v.get<bool>()} : v.get<std::int64_t>(), dtype);
}

using Unary = Expr (*)(const Expr&);
using Binary = Expr (*)(const Expr&, const Expr&);

// One entry per function of kjarni/expression.hpp (the fuzzer's generator has the same names).
const std::map<std::string, Unary>& unary_functions() {
    static const std::map<std::string, Unary> table{
        {"negative", [](const Expr& a) { return -a; }},
        {"abs", [](const Expr& a) { return kjarni::abs(a); }},
        {"sqrt", [](const Expr& a) { return kjarni::sqrt(a); }},
        {"exp", [](const Expr& a) { return kjarni::exp(a); }},
        {"log", [](const Expr& a) { return kjarni::log(a); }},
        {"sin", [](const Expr& a) { return kjarni::sin(a); }},
        {"cos", [](const Expr& a) { return kjarni::cos(a); }},
        {"tanh", [](const Expr& a) { return kjarni::tanh(a); }},
        {"floor", [](const Expr& a) { return kjarni::floor(a); }},
        {"ceil", [](const Expr& a) { return kjarni::ceil(a); }},
        {"trunc", [](const Expr& a) { return kjarni::trunc(a); }},
        {"rint", [](const Expr& a) { return kjarni::rint(a); }},
        {"isnan", [](const Expr& a) { return kjarni::isnan(a); }},
        {"isinf", [](const Expr& a) { return kjarni::isinf(a); }},
        {"isfinite", [](const Expr& a) { return kjarni::isfinite(a); }},
        {"sign", [](const Expr& a) { return kjarni::sign(a); }},
        {"square", [](const Expr& a) { return kjarni::square(a); }},
        {"positive", [](const Expr& a) { return kjarni::positive(a); }},
        {"reciprocal", [](const Expr& a) { return kjarni::reciprocal(a); }},
        {"log2", [](const Expr& a) { return kjarni::log2(a); }},
        {"log10", [](const Expr& a) { return kjarni::log10(a); }},
        {"log1p", [](const Expr& a) { return kjarni::log1p(a); }},
        {"expm1", [](const Expr& a) { return kjarni::expm1(a); }},
        {"exp2", [](const Expr& a) { return kjarni::exp2(a); }},
        {"tan", [](const Expr& a) { return kjarni::tan(a); }},
        {"arcsin", [](const Expr& a) { return kjarni::arcsin(a); }},
        {"arccos", [](const Expr& a) { return kjarni::arccos(a); }},
        {"arctan", [](const Expr& a) { return kjarni::arctan(a); }},
        {"sinh", [](const Expr& a) { return kjarni::sinh(a); }},
        {"cosh", [](const Expr& a) { return kjarni::cosh(a); }},
        {"arcsinh", [](const Expr& a) { return kjarni::arcsinh(a); }},
        {"arccosh", [](const Expr& a) { return kjarni::arccosh(a); }},
        {"arctanh", [](const Expr& a) { return kjarni::arctanh(a); }},
        {"invert", [](const Expr& a) { return ~a; }},
        {"logical_not", [](const Expr& a) { return kjarni::logical_not(a); }},
        {"cbrt", [](const Expr& a) { return kjarni::cbrt(a); }},
        {"deg2rad", [](const Expr& a) { return kjarni::deg2rad(a); }},
        {"rad2deg", [](const Expr& a) { return kjarni::rad2deg(a); }},
        {"signbit", [](const Expr& a) { return kjarni::signbit(a); }},
        {"spacing", [](const Expr& a) { return kjarni::spacing(a); }},
        {"conjugate", [](const Expr& a) { return kjarni::conjugate(a); }},
        {"bitwise_count", [](const Expr& a) { return kjarni::bitwise_count(a); }},
    };
    return table;
}

const std::map<std::string, Binary>& binary_functions() {
    static const std::map<std::string, Binary> table{
        {"add", [](const Expr& a, const Expr& b) { return a + b; }},
        {"subtract", [](const Expr& a, const Expr& b) { return a - b; }},
        {"multiply", [](const Expr& a, const Expr& b) { return a * b; }},
        {"divide", [](const Expr& a, const Expr& b) { return a / b; }},
        {"remainder", [](const Expr& a, const Expr& b) { return a % b; }},
        {"equal", [](const Expr& a, const Expr& b) { return a == b; }},
        {"not_equal", [](const Expr& a, const Expr& b) { return a != b; }},
        {"less", [](const Expr& a, const Expr& b) { return a < b; }},
        {"less_equal", [](const Expr& a, const Expr& b) { return a <= b; }},
        {"greater", [](const Expr& a, const Expr& b) { return a > b; }},
        {"greater_equal", [](const Expr& a, const Expr& b) { return a >= b; }},
        {"power", [](const Expr& a, const Expr& b) { return kjarni::pow(a, b); }},
        {"minimum", [](const Expr& a, const Expr& b) { return kjarni::minimum(a, b); }},
        {"maximum", [](const Expr& a, const Expr& b) { return kjarni::maximum(a, b); }},
        {"floor_divide", [](const Expr& a, const Expr& b) { return kjarni::floor_divide(a, b); }},
        {"fmod", [](const Expr& a, const Expr& b) { return kjarni::fmod(a, b); }},
        {"arctan2", [](const Expr& a, const Expr& b) { return kjarni::arctan2(a, b); }},
        {"hypot", [](const Expr& a, const Expr& b) { return kjarni::hypot(a, b); }},
        {"copysign", [](const Expr& a, const Expr& b) { return kjarni::copysign(a, b); }},
        {"fmin", [](const Expr& a, const Expr& b) { return kjarni::fmin(a, b); }},
        {"fmax", [](const Expr& a, const Expr& b) { return kjarni::fmax(a, b); }},
        {"bitwise_and", [](const Expr& a, const Expr& b) { return a & b; }},
        {"bitwise_or", [](const Expr& a, const Expr& b) { return a | b; }},
        {"bitwise_xor", [](const Expr& a, const Expr& b) { return a ^ b; }},
        {"left_shift", [](const Expr& a, const Expr& b) { return a << b; }},
        {"right_shift", [](const Expr& a, const Expr& b) { return a >> b; }},
        {"logical_and", [](const Expr& a, const Expr& b) { return kjarni::logical_and(a, b); }},
        {"logical_or", [](const Expr& a, const Expr& b) { return kjarni::logical_or(a, b); }},
        {"logical_xor", [](const Expr& a, const Expr& b) { return kjarni::logical_xor(a, b); }},
        {"logaddexp", [](const Expr& a, const Expr& b) { return kjarni::logaddexp(a, b); }},
        {"logaddexp2", [](const Expr& a, const Expr& b) { return kjarni::logaddexp2(a, b); }},
        {"heaviside", [](const Expr& a, const Expr& b) { return kjarni::heaviside(a, b); }},
        {"nextafter", [](const Expr& a, const Expr& b) { return kjarni::nextafter(a, b); }},
        {"float_power", [](const Expr& a, const Expr& b) { return kjarni::float_power(a, b); }},
        {"gcd", [](const Expr& a, const Expr& b) { return kjarni::gcd(a, b); }},
        {"lcm", [](const Expr& a, const Expr& b) { return kjarni::lcm(a, b); }},
        {"ldexp", [](const Expr& a, const Expr& b) { return kjarni::ldexp(a, b); }},
    };
    return table;
}

// A lazy reduction node (kjarni/fusion.hpp): {"f": "reduce", "fn", "axes" (null: all), "keepdims",
// "dtype" (sum, prod, mean), "ddof" (var, std), "args": [the reduced expression]}.
Expr lazy_reduction(const Json& node, const Expr& reduced) {
    const std::string& fn = node.at("fn").get_ref<const std::string&>();
    Axes axes;
    if (!node.at("axes").is_null()) axes = Axes(node["axes"].get<std::vector<int>>());
    const bool keepdims = node.value("keepdims", false);
    std::optional<DType> dtype;
    if (node.contains("dtype") && !node["dtype"].is_null()) dtype = dtype_named(node["dtype"].get<std::string>());
    const double ddof = node.contains("ddof") && !node["ddof"].is_null() ? node["ddof"].get<double>() : 0.0;
    if (fn == "sum") return kjarni::sum(reduced, axes, keepdims, dtype);
    if (fn == "prod") return kjarni::prod(reduced, axes, keepdims, dtype);
    if (fn == "mean") return kjarni::mean(reduced, axes, keepdims, dtype);
    if (dtype) throw ProgramError("dtype= given to the lazy " + fn);
    if (fn == "min") return kjarni::min(reduced, axes, keepdims);
    if (fn == "max") return kjarni::max(reduced, axes, keepdims);
    if (fn == "argmin") return kjarni::argmin(reduced, axes, keepdims);
    if (fn == "argmax") return kjarni::argmax(reduced, axes, keepdims);
    if (fn == "any") return kjarni::any(reduced, axes, keepdims);
    if (fn == "all") return kjarni::all(reduced, axes, keepdims);
    if (fn == "var") return kjarni::var(reduced, axes, keepdims, ddof);
    if (fn == "std") return kjarni::std(reduced, axes, keepdims, ddof);
    throw ProgramError("unknown lazy reduction " + fn);
}

}  // namespace

Expr expression(const Json& node, const std::function<Array(const std::string&)>& array_named) {
    if (node.contains("array")) return Expr(array_named(node["array"].get<std::string>()));
    if (node.contains("weak")) return weak_scalar(node);
    if (node.contains("scalar")) return typed_scalar(node);
    const std::string& f = node.at("f").get_ref<const std::string&>();
    std::vector<Expr> args;
    for (const Json& a : node.at("args")) args.push_back(expression(a, array_named));
    const auto arity = [&](std::size_t n) {
        if (args.size() != n) throw ProgramError("" + f + " takes " + std::to_string(n) + " arguments");
    };
    if (auto u = unary_functions().find(f); u != unary_functions().end()) {
        arity(1);
        return u->second(args[0]);
    }
    if (auto b = binary_functions().find(f); b != binary_functions().end()) {
        arity(2);
        return b->second(args[0], args[1]);
    }
    if (f == "where") {
        arity(3);
        return where(args[0], args[1], args[2]);
    }
    if (f == "clip") {
        arity(3);
        return clip(args[0], args[1], args[2]);
    }
    if (f == "reduce") {
        arity(1);
        return lazy_reduction(node, args[0]);
    }
    if (f == "astype") {
        arity(1);
        return astype(args[0], dtype_named(node.at("dtype").get<std::string>()));
    }
    throw ProgramError("unknown function " + f);
}

}  // namespace kjarni::numpy_fuzz
