// Complex numbers: the arithmetic follows CPython 3.11's Objects/complexobject.c step by step, so
// that results round exactly as Python's do.

#include "complex.hpp"

#include "errors.hpp"
#include "operators.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kjarni::tmpl {

namespace {

using K = Value::Kind;

class Complex final : public Object {
public:
    explicit Complex(ComplexParts c) : c_(c) {}
    std::string type_name() const override { return "complex"; }
    std::string to_string() const override { return complex_repr(c_); }
    Value attribute(const std::string& name) const override {
        if (name == "real") return c_.real;
        if (name == "imag") return c_.imag;
        if (name == "conjugate") {
            const ComplexParts c = c_;
            return Value(Function([c](const Args& a) {
                if (a.size() != 0) throw EvalError("conjugate() takes no arguments");
                return make_complex(c.real, -c.imag);
            }));
        }
        throw EvalError(fmt::format("'complex' object has no attribute '{}'", name));
    }
    ComplexParts parts() const { return c_; }

private:
    ComplexParts c_;
};

std::optional<ComplexParts> as_parts(const Value& v) {
    if (v.kind() == K::Float) return ComplexParts{v.as_float(), 0.0};
    if (v.kind() == K::Int || v.kind() == K::Bool) return ComplexParts{v.as_float(), 0.0};
    return complex_parts(v);
}

ComplexParts prod(ComplexParts a, ComplexParts b) {
    return {a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real};
}

// _Py_c_quot: Smith's method, scaling by the larger part of the divisor.
ComplexParts quot(ComplexParts a, ComplexParts b) {
    const double abs_breal = b.real < 0 ? -b.real : b.real;
    const double abs_bimag = b.imag < 0 ? -b.imag : b.imag;
    if (abs_breal >= abs_bimag) {
        if (abs_breal == 0.0) throw EvalError("complex division by zero");
        const double ratio = b.imag / b.real;
        const double denom = b.real + b.imag * ratio;
        return {(a.real + a.imag * ratio) / denom, (a.imag - a.real * ratio) / denom};
    }
    if (abs_bimag >= abs_breal) {
        const double ratio = b.real / b.imag;
        const double denom = b.real * ratio + b.imag;
        return {(a.real * ratio + a.imag) / denom, (a.imag * ratio - a.real) / denom};
    }
    return {NAN, NAN};  // a part of b is a NaN
}

// c_powu / c_powi: integer exponents up to 100 by repeated squaring (as CPython, for accuracy).
ComplexParts powu(ComplexParts x, long n) {
    ComplexParts r{1.0, 0.0};
    ComplexParts p = x;
    long mask = 1;
    while (mask > 0 && n >= mask) {
        if (n & mask) r = prod(r, p);
        mask <<= 1;
        p = prod(p, p);
    }
    return r;
}

// a ** b as CPython's c_powi and _Py_c_pow compute it.
ComplexParts power_of(ComplexParts a, ComplexParts b) {
    if (b.imag == 0.0 && b.real == std::floor(b.real) && std::fabs(b.real) <= 100.0) {
        const long n = static_cast<long>(b.real);
        if (n > 0) return powu(a, n);
        const ComplexParts d = powu(a, -n);
        if (d.real == 0.0 && d.imag == 0.0) throw EvalError("0.0 to a negative or complex power");
        return quot({1.0, 0.0}, d);
    }
    // _Py_c_pow
    if (b.real == 0.0 && b.imag == 0.0) return {1.0, 0.0};
    if (a.real == 0.0 && a.imag == 0.0) {
        if (b.imag != 0.0 || b.real < 0.0) throw EvalError("0.0 to a negative or complex power");
        return {0.0, 0.0};
    }
    const double vabs = std::hypot(a.real, a.imag);
    double len = std::pow(vabs, b.real);
    const double at = std::atan2(a.imag, a.real);
    double phase = at * b.real;
    if (b.imag != 0.0) {
        len /= std::exp(at * b.imag);
        phase += b.imag * std::log(vabs);
    }
    return {len * std::cos(phase), len * std::sin(phase)};
}

// complex_pow: a result with an infinite part is an OverflowError in Python (its
// _Py_ADJUST_ERANGE2 after the power).
ComplexParts power(ComplexParts a, ComplexParts b) {
    const ComplexParts p = power_of(a, b);
    if (std::isinf(p.real) || std::isinf(p.imag)) throw EvalError("complex exponentiation (OverflowError)");
    return p;
}

// A part as repr writes it: the float's repr without the ".0" of an integral value.
std::string part_repr(double d) {
    std::string s = Value(d).repr();
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    return s;
}

}  // namespace

Value make_complex(double real, double imag) {
    return Value(std::make_shared<const Complex>(ComplexParts{real, imag}));
}

std::optional<ComplexParts> complex_parts(const Value& v) {
    if (v.kind() != K::Object) return std::nullopt;
    if (const auto* c = dynamic_cast<const Complex*>(v.as_object().get())) return c->parts();
    return std::nullopt;
}

std::optional<Value> complex_binary(BinOp op, const Value& a, const Value& b) {
    if (!complex_parts(a) && !complex_parts(b)) return std::nullopt;
    const auto x = as_parts(a);
    const auto y = as_parts(b);
    if (!x || !y) return std::nullopt;
    ComplexParts r;
    switch (op) {
    case BinOp::Add: r = {x->real + y->real, x->imag + y->imag}; break;
    case BinOp::Sub: r = {x->real - y->real, x->imag - y->imag}; break;
    case BinOp::Mul: r = prod(*x, *y); break;
    case BinOp::Div: r = quot(*x, *y); break;
    case BinOp::Pow: r = power(*x, *y); break;
    case BinOp::FloorDiv:
    case BinOp::Mod: throw EvalError("can't take floor or mod of complex number.");
    default: return std::nullopt;
    }
    return make_complex(r.real, r.imag);
}

std::optional<bool> complex_equal(const Value& a, const Value& b) {
    if (!complex_parts(a) && !complex_parts(b)) return std::nullopt;
    const auto x = as_parts(a);
    const auto y = as_parts(b);
    if (!x || !y) return false;
    // An int compares with the real part as a float here; exact beyond 2^53 is not reproduced.
    return x->real == y->real && x->imag == y->imag;
}

std::string complex_repr(ComplexParts c) {
    // complex_repr: a real part of +0 is left out (and the parentheses with it).
    if (c.real == 0.0 && !std::signbit(c.real)) return part_repr(c.imag) + "j";
    std::string im = part_repr(c.imag);
    if (im[0] != '-') im = "+" + im;
    return "(" + part_repr(c.real) + im + "j)";
}

Value complex_builtin(const Args& a) {
    if (!a.keyword.empty()) throw EvalError("complex() takes no keyword arguments");
    if (a.size() > 2) throw EvalError(fmt::format("complex() takes at most 2 arguments ({} given)", a.size()));
    auto parts_of = [](const Value& v) {
        if (v.kind() == K::String) throw EvalError("complex() from a string is not supported");
        const auto p = as_parts(v);
        if (!p)
            throw EvalError(fmt::format("complex() argument must be a string or a number, not '{}'", v.type_name()));
        return *p;
    };
    // complex_new_impl: complex(r, i) is r + i*1j computed part by part (so signed zeros stay).
    ComplexParts cr = a.size() > 0 ? parts_of(a.positional[0]) : ComplexParts{};
    if (a.size() < 2) return make_complex(cr.real, cr.imag);
    const ComplexParts ci = parts_of(a.positional[1]);
    double real = cr.real;
    double imag = ci.real;
    if (complex_parts(a.positional[1])) real -= ci.imag;
    if (complex_parts(a.positional[0])) imag += cr.imag;
    return make_complex(real, imag);
}

}  // namespace kjarni::tmpl
