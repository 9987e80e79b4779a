#pragma once
// Python's complex numbers (`2j`, `1 + 2j`, complex(re, im)): a runtime object holding two
// doubles, with CPython 3.11's arithmetic (the same algorithms, so the same rounding), repr and
// format. Ints, bools and floats meeting a complex become complex first, as in Python 3.11.

#include <kjarni/template/value.hpp>

#include "ast.hpp"

#include <optional>
#include <string>

namespace kjarni::tmpl {

struct ComplexParts {
    double real = 0.0;
    double imag = 0.0;
};

Value make_complex(double real, double imag);
/// The parts when `v` is a complex number.
std::optional<ComplexParts> complex_parts(const Value& v);
/// `a op b` when either is complex (nullopt otherwise, or when the other is not a number).
std::optional<Value> complex_binary(BinOp op, const Value& a, const Value& b);
/// `a == b` when either is complex (nullopt otherwise).
std::optional<bool> complex_equal(const Value& a, const Value& b);
/// Python's repr (and str): `2j`, `(1+2j)`, `(-0-1j)`, `(1.5+infj)`.
std::string complex_repr(ComplexParts c);
/// The builtin complex(): complex(), complex(re), complex(re, im), complex("1+2j") is refused.
Value complex_builtin(const Args& a);

}  // namespace kjarni::tmpl
