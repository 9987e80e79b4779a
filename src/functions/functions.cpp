// Function modules: C source generated per type combination.

#include "kjarni/functions.hpp"

#include <fmt/format.h>

#include "kjarni/error.hpp"

namespace kjarni::functions {

namespace {

std::string ct(const DType& d) { return ctype(d).as_string(); }

void check_supported(const DType& d, const char* what) {
    if (d.is_struct() || d.kind() == DType::Kind::float16)
        throw ArgumentError(what, d.name() + " is not supported by function modules");
}

// The unsigned type integer sums and products of `o` compute in: C defines its wrap, where signed
// overflow is undefined and 8- and 16-bit operands promote to a signed int; numpy's results wrap.
// Empty for other types.
std::string wrapping_type(const DType& o) {
    if (!is_integer(o)) return "";
    return o.itemsize() == 8 ? "uint64_t" : "uint32_t";
}

// An expression converting `x` of type `in` to `out`.
std::string convert(const std::string& x, const DType& in, const DType& out) {
    if (in == out) return x;
    if (is_complex(out)) {
        const std::string r = ct(real_for(out));
        if (is_complex(in)) return fmt::format("{}(({}){}.x, ({}){}.y)", complex_ctr(out), r, x, r, x);
        return fmt::format("{}(({}){}, ({})0)", complex_ctr(out), r, x, r);
    }
    if (is_complex(in)) return fmt::format("(({}){}.x)", ct(out), x);
    return fmt::format("(({}){})", ct(out), x);
}

std::string params(const std::vector<DType>& in) {
    std::string s;
    for (std::size_t i = 0; i < in.size(); ++i) s += fmt::format("{}{} a{}", i ? ", " : "", ct(in[i]), i);
    return s;
}

Module make(const std::string& name, const std::string& source) { return Module::from_string(source, name); }

DType output_of(const std::vector<DType>& in, const std::optional<DType>& out, const char* function) {
    if (in.empty()) throw ArgumentError("in", fmt::format("{} needs at least one input type", function));
    for (const auto& d : in) check_supported(d, "in");
    const DType o = out ? *out : result_type(std::span<const DType>(in));
    check_supported(o, "out");
    if (!is_complex(o)) {
        for (const auto& d : in) {
            if (is_complex(d))
                throw ArgumentError("out", fmt::format("{}: a complex input ({}) with a real output ({})", function,
                                                       d.name(), o.name()));
        }
    }
    return o;
}

}  // namespace

Module cast(const DType& in, const DType& out) {
    check_supported(in, "in");
    check_supported(out, "out");
    return make("cast", fmt::format("FUNCTION INLINE {} ${{prefix}}({} a0)\n{{\n    return {};\n}}\n", ct(out), ct(in),
                                    convert("a0", in, out)));
}

namespace {

// The type one step of add, mul or div computes in: the operands' common type (numpy's
// result_type with the GPU rule), and, for add and mul as grunnur, float32 (complex64) where that is
// a double type but the output is not.
DType step_type(const DType& a, const DType& b, const DType& out, bool narrow_doubles) {
    DType t = result_type({a, b});
    if (narrow_doubles && is_double(t) && !is_double(out))
        return is_complex(t) ? DType(dtypes::complex64) : DType(dtypes::float32);
    return t;
}

// `const T name = a <op> b;` in T = t, both operands converted to t first (exactly, as numpy; C's
// own conversions would compute int32 * uint32 in uint32), integers wrapping in an unsigned type.
// A real operand of a complex step adds to the real part only, or scales both parts.
std::string step(char op, const std::string& a, const DType& at, const std::string& b, const DType& bt, const DType& t,
                 const std::string& name) {
    if (!is_complex(t)) {
        const std::string x = convert(a, at, t), y = convert(b, bt, t);
        const std::string w = op == '/' ? "" : wrapping_type(t);
        if (w.empty()) return fmt::format("    const {0} {1} = ({0})({2} {3} {4});\n", ct(t), name, x, op, y);
        return fmt::format("    const {0} {1} = ({0})(({2}){3} {4} ({2}){5});\n", ct(t), name, w, x, op, y);
    }
    const std::string ctr = complex_ctr(t);
    const DType r = real_for(t);
    // The complex operand first (add and mul commute; div keeps its order below).
    const bool swap = op != '/' && !is_complex(at);
    const std::string& c = swap ? b : a;
    const DType& c_type = swap ? bt : at;
    const std::string& other = swap ? a : b;
    const DType& other_type = swap ? at : bt;
    std::string text = fmt::format("    const {} {}_a = {};\n", ct(t), name, convert(c, c_type, t));
    if (!is_complex(other_type)) {
        text += fmt::format("    const {} {}_b = {};\n", ct(r), name, convert(other, other_type, r));
        if (op == '+')
            return text + fmt::format("    const {0} {1} = {2}({1}_a.x + {1}_b, {1}_a.y);\n", ct(t), name, ctr);
        return text +
               fmt::format("    const {0} {1} = {2}({1}_a.x {3} {1}_b, {1}_a.y {3} {1}_b);\n", ct(t), name, ctr, op);
    }
    text += fmt::format("    const {} {}_b = {};\n", ct(t), name, convert(other, other_type, t));
    if (op == '+')
        return text + fmt::format("    const {0} {1} = {2}({1}_a.x + {1}_b.x, {1}_a.y + {1}_b.y);\n", ct(t), name, ctr);
    if (op == '*')
        return text + fmt::format("    const {0} {1} = {2}({1}_a.x * {1}_b.x - {1}_a.y * {1}_b.y, "
                                  "{1}_a.x * {1}_b.y + {1}_a.y * {1}_b.x);\n",
                                  ct(t), name, ctr);
    return text + fmt::format("    const {0} {1}_d = {2}_b.x * {2}_b.x + {2}_b.y * {2}_b.y;\n"
                              "    const {3} {2} = {4}(({2}_a.x * {2}_b.x + {2}_a.y * {2}_b.y) / {2}_d, "
                              "({2}_a.y * {2}_b.x - {2}_a.x * {2}_b.y) / {2}_d);\n",
                              ct(r), name, name, ct(t), ctr);
}

// add and mul: the arguments folded from the last (a0 op (a1 op a2)), each step in its step_type,
// the last result converted to the output, as grunnur's functions do.
Module add_or_mul(const char* function, char op, const std::vector<DType>& in, const std::optional<DType>& out) {
    const DType o = output_of(in, out, function);
    std::string body;
    std::string last = fmt::format("a{}", in.size() - 1);
    DType last_type = in.back();
    for (std::size_t i = in.size() - 1; i-- > 0;) {
        const DType t = step_type(in[i], last_type, o, /*narrow_doubles=*/true);
        const std::string name = fmt::format("t{}", i);
        body += step(op, fmt::format("a{}", i), in[i], last, last_type, t, name);
        last = name;
        last_type = t;
    }
    body += fmt::format("    return {};\n", convert(last, last_type, o));
    return make(function, fmt::format("FUNCTION INLINE {} ${{prefix}}({})\n{{\n{}}}\n", ct(o), params(in), body));
}

}  // namespace

Module add(const std::vector<DType>& in, const std::optional<DType>& out) { return add_or_mul("add", '+', in, out); }

Module mul(const std::vector<DType>& in, const std::optional<DType>& out) { return add_or_mul("mul", '*', in, out); }

Module div(const DType& dividend, const DType& divisor, const std::optional<DType>& out) {
    const DType o = output_of({dividend, divisor}, out, "div");
    // In the operands' common type (integers truncate, as C's and grunnur's), then converted.
    const DType t = step_type(dividend, divisor, o, /*narrow_doubles=*/false);
    const std::string body =
        step('/', "a0", dividend, "a1", divisor, t, "q") + fmt::format("    return {};\n", convert("q", t, o));
    return make("div", fmt::format("FUNCTION INLINE {} ${{prefix}}({})\n{{\n{}}}\n", ct(o), params({dividend, divisor}),
                                   body));
}

Module conj(const DType& dtype) {
    check_supported(dtype, "dtype");
    const std::string body = is_complex(dtype) ? fmt::format("{}(a0.x, -a0.y)", complex_ctr(dtype)) : "a0";
    return make("conj",
                fmt::format("FUNCTION INLINE {0} ${{prefix}}({0} a0)\n{{\n    return {1};\n}}\n", ct(dtype), body));
}

Module exp(const DType& dtype) {
    check_supported(dtype, "dtype");
    if (!is_real(dtype) && !is_complex(dtype))
        throw ArgumentError("dtype", "exp of " + dtype.name() + ": real or complex types only");
    std::string body;
    if (is_complex(dtype)) {
        body = fmt::format("    const {} e = exp(a0.x);\n    return {}(e * cos(a0.y), e * sin(a0.y));\n",
                           ct(real_for(dtype)), complex_ctr(dtype));
    } else {
        body = "    return exp(a0);\n";
    }
    return make("exp", fmt::format("FUNCTION INLINE {0} ${{prefix}}({0} a0)\n{{\n{1}}}\n", ct(dtype), body));
}

Module norm(const DType& dtype) {
    check_supported(dtype, "dtype");
    if (is_complex(dtype))
        return make(
            "norm",
            fmt::format("FUNCTION INLINE {} ${{prefix}}({} a0)\n{{\n    return a0.x * a0.x + a0.y * a0.y;\n}}\n",
                        ct(real_for(dtype)), ct(dtype)));
    return make("norm", fmt::format("FUNCTION INLINE {0} ${{prefix}}({0} a0)\n{{\n    return ({0})(a0 * a0);\n}}\n",
                                    ct(dtype)));
}

Module polar(const DType& dtype) {
    if (!is_real(dtype) || dtype.kind() == DType::Kind::float16)
        throw ArgumentError("dtype", "polar of " + dtype.name() + ": float32 or float64 only");
    const DType c = complex_for(dtype);
    return make(
        "polar",
        fmt::format(
            "FUNCTION INLINE {0} ${{prefix}}({1} a0, {1} a1)\n{{\n    return {2}(a0 * cos(a1), a0 * sin(a1));\n}}\n",
            ct(c), ct(dtype), complex_ctr(c)));
}

Module polar_unit(const DType& dtype) {
    if (!is_real(dtype) || dtype.kind() == DType::Kind::float16)
        throw ArgumentError("dtype", "polar_unit of " + dtype.name() + ": float32 or float64 only");
    const DType c = complex_for(dtype);
    return make("polar_unit",
                fmt::format("FUNCTION INLINE {0} ${{prefix}}({1} a0)\n{{\n    return {2}(cos(a0), sin(a0));\n}}\n",
                            ct(c), ct(dtype), complex_ctr(c)));
}

Module pow(const DType& base, const std::optional<DType>& exponent_, const std::optional<DType>& out_) {
    const DType e = exponent_ ? *exponent_ : base;
    const DType o = out_ ? *out_ : base;
    check_supported(base, "base");
    check_supported(e, "exponent");
    check_supported(o, "out");
    if (is_complex(e))
        throw ArgumentError("exponent", "pow: the exponent must be an integer or real type, not " + e.name());
    if (is_complex(base) && !is_complex(o)) throw ArgumentError("out", "pow: a complex base with a real output");
    if (is_real(e) && is_integer(base) && is_integer(o))
        throw ArgumentError("exponent", "pow: a real exponent with integer base and output types");
    std::string body = fmt::format("    const {} x = {};\n", ct(o), convert("a0", base, o));
    if (!is_real(e)) {
        // Exponentiation by squaring.
        const std::string one = is_complex(o) ? fmt::format("{}(1, 0)", complex_ctr(o)) : fmt::format("({})1", ct(o));
        auto times = [&](const std::string& p, const std::string& q) {
            if (is_complex(o))
                return fmt::format("{}({p}.x * {q}.x - {p}.y * {q}.y, {p}.x * {q}.y + {p}.y * {q}.x)", complex_ctr(o),
                                   fmt::arg("p", p), fmt::arg("q", q));
            return fmt::format("({})({} * {})", ct(o), p, q);
        };
        const bool is_signed_e = is_signed(e);
        body += fmt::format("    {0} r = {1};\n    {0} p = x;\n", ct(o), one);
        body += fmt::format("    {} n = a1;\n", ct(e));
        if (is_signed_e) body += "    const int negative = n < 0;\n    if (negative) n = -n;\n";
        body += fmt::format("    while (n != 0) {{\n        if (n & 1) r = {};\n        n >>= 1;\n        if (n != 0) "
                            "p = {};\n    }}\n",
                            times("r", "p"), times("p", "p"));
        if (is_signed_e) {
            if (is_complex(o)) {
                body += fmt::format("    if (negative) {{\n        const {} d = r.x * r.x + r.y * r.y;\n        r = "
                                    "{}(r.x / d, -r.y / d);\n    }}\n",
                                    ct(real_for(o)), complex_ctr(o));
            } else if (is_real(o)) {
                body += fmt::format("    if (negative) r = ({0})1 / r;\n", ct(o));
            } else {
                body += fmt::format("    if (negative) r = (r == ({0})1 || r == ({0})-1) ? r : ({0})0;\n", ct(o));
            }
        }
        body += "    return r;\n";
    } else if (is_integer(o)) {
        // An integer output from a real base and exponent: computed in the exponent's precision.
        body += fmt::format("    return ({})pow(({})x, a1);\n", ct(o), ct(e));
    } else if (!is_complex(o)) {
        body += fmt::format("    return pow(x, ({})a1);\n", ct(o));
    } else {
        const std::string r = ct(real_for(o));
        body += fmt::format("    const {0} y = ({0})a1;\n    const {0} m2 = x.x * x.x + x.y * x.y;\n"
                            "    if (m2 == ({0})0) return {1}(0, 0);\n"
                            "    const {0} m = pow(m2, y / ({0})2);\n    const {0} t = atan2(x.y, x.x) * y;\n"
                            "    return {1}(m * cos(t), m * sin(t));\n",
                            r, complex_ctr(o));
    }
    return make("pow", fmt::format("FUNCTION INLINE {} ${{prefix}}({})\n{{\n{}}}\n", ct(o), params({base, e}), body));
}

}  // namespace kjarni::functions
