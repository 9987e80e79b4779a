#pragma once
/// Function modules (grunnur.functions): Modules rendering one C function
/// named by the module prefix, for arithmetic that C cannot spell for complex numbers (float2 /
/// double2 on both APIs). The factories run in C++; pass the module as a render global, e.g.
/// `{"mul", functions::mul({dtypes::complex64, dtypes::float32})}`, and call `${mul}(a, b)` in the
/// kernel.
///
/// Types: bool, the integers, float32, float64, complex64 and complex128 (float16 is refused: GPUs
/// have no portable half arithmetic). When `out` is not given it is result_type(inputs). As
/// grunnur's, add, mul and div compute in their inputs' type and convert the result to `out`:
/// each step (add and mul fold from the last argument: a0 + (a1 + a2)) computes in the result_type
/// of its two operands, both converted to it exactly first (int32 * uint32 in int64, not C's
/// uint32), and add and mul take float32 / complex64 there when that type is a double one and `out`
/// is not; so mul(int32, float32) -> int32 of 769 and 2.25 is 1730 (truncated after), and div(int32,
/// int32) -> float32 of 7 and 2 is 3 (C's division of integers, then converted). A real operand of
/// a complex step adds to the real part only or scales both parts -- the pitfall of
/// `float2 + float` on OpenCL, which adds it to both components (and which grunnur's div meets for
/// a real quotient stored as complex), cannot happen. A complex input with a real output is an
/// ArgumentError (except in cast(), which takes the real part, as numpy's astype does).
///
/// Integer arithmetic is C's: div() of integers truncates, and overflow wraps. \file

#include <optional>
#include <vector>

#include "kjarni/dtype.hpp"
#include "kjarni/template/module.hpp"

namespace kjarni::functions {

/// `out ${prefix}(in0 a0, in1 a1, ...)`: the sum of the arguments (integers wrap, as with mul).
Module add(const std::vector<DType>& in, const std::optional<DType>& out = std::nullopt);
/// `out ${prefix}(in a)`: the value converted (complex to real takes the real part; real to
/// complex gives a zero imaginary part).
Module cast(const DType& in, const DType& out);
/// `T ${prefix}(T a)`: the complex conjugate; other types pass through unchanged.
Module conj(const DType& dtype);
/// `out ${prefix}(dividend a, divisor b)`.
Module div(const DType& dividend, const DType& divisor, const std::optional<DType>& out = std::nullopt);
/// `T ${prefix}(T a)`: e^a, for real and complex types.
Module exp(const DType& dtype);
/// `out ${prefix}(in0 a0, in1 a1, ...)`: the product (a real factor scales both parts of a complex
/// one, without a complex multiplication). Integer results wrap (computed in an unsigned type:
/// signed overflow would be undefined in C).
Module mul(const std::vector<DType>& in, const std::optional<DType>& out = std::nullopt);
/// `real ${prefix}(T a)`: |a|^2 (a times its conjugate for complex types, a * a otherwise).
Module norm(const DType& dtype);
/// `complex ${prefix}(T rho, T theta)`: rho * e^(i theta), for a real T.
Module polar(const DType& dtype);
/// `complex ${prefix}(T theta)`: (cos theta, sin theta), for a real T.
Module polar_unit(const DType& dtype);
/// `out ${prefix}(base a, exponent e)`: a^e. `exponent` and `out` default to `base`; the base is
/// converted to `out` before exponentiation. The exponent must be an integer or real type; a real
/// exponent with integer base and output is an ArgumentError. Integer exponents use exponentiation
/// by squaring (negative ones give 1 / a^-e; for integer outputs that is 0 unless |a| == 1); real
/// exponents use pow() (real output) or the polar form (complex output; 0^e = 0).
Module pow(const DType& base, const std::optional<DType>& exponent = std::nullopt,
           const std::optional<DType>& out = std::nullopt);

}  // namespace kjarni::functions
