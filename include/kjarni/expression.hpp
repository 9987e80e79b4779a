#pragma once
/// Array arithmetic as numpy spells it, fused: an expression of Arrays and scalars builds a tree,
/// and evaluating it runs ONE generated kernel that reads each array once and writes the result
/// once (`y = a * x + b` never stores `a * x`). Nothing runs until evaluate() or assign():
///
///     kjarni::Array y = kjarni::evaluate(queue, 2.0f * x + b);   // a new array
///     kjarni::assign(queue, y, y + kjarni::sqrt(x));             // into y (in place: y is read too)
///
/// Why a queue at evaluation and not in the arrays: an Array is memory, not a stream of work, and
/// kjarni enqueues all work on the queue the caller names (as kernels and copies do); the
/// expression is a value that can be built anywhere and evaluated on any queue of the arrays' device.
///
/// Types follow numpy (not pygpu's get_common_dtype, so that results equal numpy's for the same
/// inputs): np.promote_types between arrays (int8 + int8 stays int8 and wraps as numpy does;
/// int64 + uint64 gives float64), and NEP 50 for C++ scalars written without a dtype: they are
/// "weak", like Python scalars, and take the array's type within its kind (`2.0 * float32_array`
/// is float32; `2.5 * int32_array` is float64). `scalar(value, dtype)` gives a scalar of a fixed
/// dtype. `/` of integers is true division (float64), `%` has the divisor's sign (Python's), and
/// integer `%` by 0 gives 0 as numpy does. float16 is stored in 16 bits and computed in float32,
/// each operation's result rounded to float16 as numpy's float16 loops round it (an intermediate
/// past 65504 is inf, as numpy's). Comparisons give bool; integers compare exactly, a weak integer
/// outside the array's type too (uint8_array == 300 is false), except against a bool array, which
/// numpy compares in int64: a weak integer past int64's range is then an ArgumentError (numpy's
/// OverflowError). Math functions of integer
/// arrays compute in numpy's float type for them (float16 for 8-bit, float32 for 16-bit, float64
/// otherwise). minimum and maximum propagate NaN (numpy's, not fmin/fmax).
///
/// Complex types (complex64, complex128) take + - * / == != abs exp log sqrt sin cos tanh pow where
/// astype, with numpy's principal values and branch cuts (sqrt and log: along the negative real axis,
/// the sign of a zero imaginary part choosing the side) and numpy's values at infinite, NaN and
/// huge parts (C99 Annex G's for the functions; * as numpy's x86-64 loops, each part one fused
/// multiply-add; / numpy's Smith's algorithm; pow numpy's, repeated products for small integer
/// exponents); < <= > >= minimum maximum clip in numpy's
/// order (real parts, then imaginary parts; NaN as numpy's loops). `-` of bool and `%` of complex
/// values are an ArgumentError naming the operation. Integer + - * (and negation, abs, square,
/// pow, sums and products) wrap as numpy's do, never undefined signed overflow. Shapes broadcast by numpy's rules when the tree is built (ArgumentError with both
/// shapes otherwise); arrays of different contexts or devices are refused at evaluation. \file

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/multi_array.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

namespace detail {
struct ExprNode;
}

// clang-format off
template <class T>
concept ExprScalar = std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> ||
                     std::is_same_v<T, std::complex<double>>;
// clang-format on

/// A node of an array expression (an Array, a MultiArray, a scalar, or an operation on those):
/// a value that builds the tree; nothing runs until evaluate() or assign().
class Expr {
public:
    Expr(const Array& array);  // NOLINT: implicit on purpose, arrays are expressions
    /// A MultiArray: the expression is then evaluated part by part on a MultiQueue.
    Expr(const MultiArray& array);  // NOLINT: implicit on purpose
    /// A weak scalar (see the top of the file).
    template <ExprScalar T>
    Expr(T value) : Expr(make_weak(value)) {}  // NOLINT: implicit on purpose

    /// The dtype and shape of the result.
    const DType& dtype() const;
    const std::vector<std::size_t>& shape() const;
    const std::shared_ptr<const detail::ExprNode>& node() const noexcept { return node_; }
    explicit Expr(std::shared_ptr<const detail::ExprNode> node) : node_(std::move(node)) {}

private:
    template <class T>
    static Expr make_weak(T value) {
        if constexpr (std::is_same_v<T, bool>) return weak_bool(value);
        else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
            return weak_integer(static_cast<std::int64_t>(value));
        else if constexpr (std::is_integral_v<T>) return weak_unsigned(static_cast<std::uint64_t>(value));
        else if constexpr (std::is_floating_point_v<T>) return weak_float(static_cast<double>(value));
        else return weak_complex(std::complex<double>(value));
    }
    static Expr weak_bool(bool value);
    static Expr weak_integer(std::int64_t value);
    static Expr weak_unsigned(std::uint64_t value);
    static Expr weak_float(double value);
    static Expr weak_complex(std::complex<double> value);

    std::shared_ptr<const detail::ExprNode> node_;
};

/// A scalar of a fixed dtype (it takes part in promotion like a 0-d array). Its value is the
/// dtype's (numpy's np.float16(x)): rounded to float16 or float32 in whatever type it meets, so
/// int32 - scalar(0.001, float16) subtracts 0.0010004044 in float64, as numpy does.
Expr scalar(double value, const DType& dtype);
Expr scalar(std::complex<double> value, const DType& dtype);
Expr scalar_integer(std::int64_t value, const DType& dtype);
/// As scalar_integer, for values past int64's range (np.uint64(2**64 - 2)).
Expr scalar_unsigned(std::uint64_t value, const DType& dtype);

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);
Expr operator%(const Expr& a, const Expr& b);
Expr operator-(const Expr& a);
Expr operator==(const Expr& a, const Expr& b);
Expr operator!=(const Expr& a, const Expr& b);
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);

Expr abs(const Expr& a);
Expr sqrt(const Expr& a);
Expr exp(const Expr& a);
Expr log(const Expr& a);
Expr sin(const Expr& a);
Expr cos(const Expr& a);
Expr tanh(const Expr& a);
Expr pow(const Expr& base, const Expr& exponent);
Expr minimum(const Expr& a, const Expr& b);
Expr maximum(const Expr& a, const Expr& b);
/// condition ? a : b, elementwise (the condition is taken as bool: nonzero is true). a and b
/// promote as numpy's np.where (weak scalars by NEP 50); a weak integer that an integer result
/// dtype cannot hold is an ArgumentError, as numpy 2.5's np.where raises OverflowError
/// (np.where(c, int8_array, 300); numpy 2.4 wrapped it to 44).
Expr where(const Expr& condition, const Expr& a, const Expr& b);
/// minimum(maximum(a, low), high); complex values in np.clip's order (which, unlike np.minimum's,
/// takes the real parts' order where a bound's imaginary part is NaN).
Expr clip(const Expr& a, const Expr& low, const Expr& high);
/// The value converted to `dtype` (numpy's astype, "unsafe" casting: complex to real takes the real
/// part, to bool is `!= 0`, to float16 rounds to nearest even). A float (or a complex's real part)
/// to an integer gives numpy's x86-64 result on every device, where C and OpenCL C leave NaN,
/// infinities and values out of range undefined: truncation toward zero in range; otherwise int32
/// and int64 give their minimum (INT32_MIN, INT64_MIN: the "integer indefinite" of cvttsd2si);
/// int8, uint8, int16 and uint16 the low bits of that 32-bit conversion (NaN gives 0, 300.5 to
/// int8 gives 44, -1.5 to uint8 gives 255); uint32 the low 32 bits of the 64-bit conversion
/// (-1.0 gives 4294967295, NaN 0: numpy's scalar and strided loops; its contiguous SIMD loop may
/// give other values for out-of-range input); uint64 the 64-bit conversion for values below 2^63
/// (negative ones wrap, NaN and -inf give 2^63) and x - 2^63 with the top bit set for larger ones
/// (2^64 and inf give 0).
Expr astype(const Expr& a, const DType& dtype);

// ---- numpy's rounding, division, predicates, further math and bitwise/logical ufuncs -------------
//
// Each takes the dtypes numpy's ufunc takes, gives numpy's result dtype (weak scalars by NEP 50 as
// above), and refuses the others with an ArgumentError naming the operation and the dtype (numpy's
// TypeError). Values at the edges are numpy's on x86-64:
// - floor_divide (numpy's `//`; C++ has no such operator): integers round towards minus infinity
//   (-7 // 2 == -4), x // 0 == 0, MIN // -1 == MIN (wraps); floats as numpy's npy_divmod (the
//   quotient of a - fmod(a, b), snapped to an integer: 7.0 // 0.1 == 69), x // 0.0 is x / 0.0
//   (inf, -inf, nan), a zero quotient takes the sign of a / b. bool gives int8; complex refused.
// - fmod: C's remainder, with the dividend's sign (integer x fmod 0 == 0); remainder (== %): the
//   divisor's sign, a zero remainder is +-0 with the divisor's sign.
// - divmod: (floor_divide(a, b), remainder(a, b)) as two expressions: evaluating both runs two
//   kernels (an expression has one result), each reading the operands once.
// - floor, ceil, trunc: integers and bool are themselves in their dtype (numpy 2); complex refused.
//   rint (ties to even): integers compute in numpy's float type for them (as sqrt), complex rounds
//   both parts. round(decimals): floats compute rint(x * 10^d) / 10^d in their own type (d < 0:
//   rint(x / 10^-d) * 10^-d), as numpy, so e.g. round(2.675, 2) == 2.67 or 2.68 as numpy's;
//   integers are themselves for d >= 0, and go through float64 for d < 0 (round(15, -1) == 20,
//   round(25, -1) == 20) back to their dtype; bool rounds to float16 with d == 0 only.
// - isnan, isinf, isfinite: bool for every dtype (integers and bool: false, false, true; complex:
//   either part NaN / infinite, both parts finite).
// - sign (-1, 0, 1; NaN stays NaN; complex: z / |z|, numpy 2), square (bool gives int8), negative
//   (== unary -), positive, reciprocal (integers: 1 / x truncated, so 1, -1 or 0, and 1 / 0 is
//   numpy's INT_MIN for int32 and int64, 0 for the others; bool gives int8): bool refused by sign,
//   negative and positive.
// - log2 log10 log1p expm1 exp2 tan arcsin arccos arctan sinh cosh arcsinh arccosh arctanh:
//   integers compute in numpy's float type for them; complex values of log2, log10 and exp2 as
//   numpy's (log or exp with both parts scaled), of log1p and expm1 by numpy's formulas, of tan,
//   sinh, cosh and the inverse functions as C99's (numpy's principal values, branch cuts and
//   special values; arcsin and arccos by Hull, Fairgrieve and Tang's algorithm). arctan2 hypot
//   copysign: the same, complex refused (ArgumentError).
// - fmin, fmax: minimum / maximum that ignore a NaN operand (NaN only when both are); complex values
//   in numpy's order, an operand with a NaN part ignored.
// - & | ^ ~ << >>: integers and bool (& | ^ ~ of bool are logical and give bool; << >> of bool give
//   int8); floats and complex refused. A shift count past the width or negative gives 0, or -1 for
//   a negative value shifted right (numpy's npy_lshift / npy_rshift).
// - logical_and/or/xor/not: bool for every dtype (non-zero is true; NaN is true).
// - cbrt, deg2rad (numpy's radians), rad2deg (degrees), spacing (the distance to the next float
//   away from zero, the smallest positive one for +-0.0, NaN for infinities; float16 by numpy's
//   own rule, which is never negative),
//   signbit (bool), and of two operands logaddexp, logaddexp2, heaviside(x, h0) and nextafter:
//   numpy's float loops (integers and bool in numpy's float type for them, weak scalars in the
//   array's), with numpy's formulas (deg2rad's factor rounded as numpy rounds it, logaddexp's
//   log1p(exp(-|x - y|)) on the larger); complex refused.
// - conjugate: complex values conjugated, every other dtype itself (bool gives int8).
// - float_power: power computed in float64, or complex128 for complex operands, whatever their dtypes.
// - ldexp(x, n): x 2^n in numpy's float type for x (a Python int or bool x: float16 beside an
//   exponent array, as numpy's loops take it; a Python float: float64), n of an integer or bool
//   dtype (uint64 and floats refused, numpy's TypeError), correctly rounded; frexp(x): the mantissa
//   (x's float type, 0.5 <= |m| < 1) and the exponent (int32), (x, 0) for zeros, infinities and NaN.
// - gcd, lcm (of the absolute values; lcm wraps in the dtype as numpy's): integers only;
//   bitwise_count (the 1 bits of |x|, uint8): integers and bool; floats and complex refused.
Expr floor_divide(const Expr& a, const Expr& b);
Expr fmod(const Expr& a, const Expr& b);
Expr remainder(const Expr& a, const Expr& b);
std::pair<Expr, Expr> divmod(const Expr& a, const Expr& b);
Expr floor(const Expr& a);
Expr ceil(const Expr& a);
Expr trunc(const Expr& a);
Expr rint(const Expr& a);
Expr round(const Expr& a, int decimals = 0);
Expr isnan(const Expr& a);
Expr isinf(const Expr& a);
Expr isfinite(const Expr& a);
Expr sign(const Expr& a);
Expr square(const Expr& a);
Expr negative(const Expr& a);
Expr positive(const Expr& a);
Expr reciprocal(const Expr& a);
Expr log2(const Expr& a);
Expr log10(const Expr& a);
Expr log1p(const Expr& a);
Expr expm1(const Expr& a);
Expr exp2(const Expr& a);
Expr tan(const Expr& a);
Expr arcsin(const Expr& a);
Expr arccos(const Expr& a);
Expr arctan(const Expr& a);
Expr sinh(const Expr& a);
Expr cosh(const Expr& a);
Expr arcsinh(const Expr& a);
Expr arccosh(const Expr& a);
Expr arctanh(const Expr& a);
Expr arctan2(const Expr& y, const Expr& x);
Expr hypot(const Expr& a, const Expr& b);
Expr copysign(const Expr& a, const Expr& b);
Expr fmin(const Expr& a, const Expr& b);
Expr fmax(const Expr& a, const Expr& b);
Expr operator&(const Expr& a, const Expr& b);
Expr operator|(const Expr& a, const Expr& b);
Expr operator^(const Expr& a, const Expr& b);
Expr operator~(const Expr& a);
Expr operator<<(const Expr& a, const Expr& b);
Expr operator>>(const Expr& a, const Expr& b);
Expr logical_and(const Expr& a, const Expr& b);
Expr logical_or(const Expr& a, const Expr& b);
Expr logical_xor(const Expr& a, const Expr& b);
Expr logical_not(const Expr& a);
Expr cbrt(const Expr& a);
Expr deg2rad(const Expr& a);
Expr rad2deg(const Expr& a);
Expr signbit(const Expr& a);
Expr spacing(const Expr& a);
Expr conjugate(const Expr& a);
Expr bitwise_count(const Expr& a);
Expr logaddexp(const Expr& a, const Expr& b);
Expr logaddexp2(const Expr& a, const Expr& b);
Expr heaviside(const Expr& x, const Expr& h0);
Expr nextafter(const Expr& a, const Expr& b);
Expr float_power(const Expr& base, const Expr& exponent);
Expr ldexp(const Expr& x, const Expr& exponent);
std::pair<Expr, Expr> frexp(const Expr& x);
Expr gcd(const Expr& a, const Expr& b);
Expr lcm(const Expr& a, const Expr& b);

/// A new C-contiguous array holding the expression's value, made by `allocator` (a MemoryPool
/// is one) or Buffer::allocate; one kernel, enqueued on `queue`.
Array evaluate(const Queue& queue, const Expr& expression, const Allocator& allocator = {});
/// Writes the expression into `out`, which must have its shape; the value is converted to
/// out's dtype when numpy's "same_kind" casting allows it (ArgumentError otherwise, e.g. a float
/// into an int array; int32 into uint32 too, as np.can_cast(int32, uint32, "same_kind") is false).
/// `out` may share memory with the operands in any way, numpy's result being as if the operands
/// were read whole first: the same view is in-place work (no copy); another view sharing bytes
/// (`a[1:]` from `a[:-1]`, a transpose of itself) makes the value go through a temporary, and
/// the call waits for it. A bare weak scalar is numpy's np.copyto(out, x) of a Python scalar: an
/// integer goes into any integer type (unsigned too) whose range holds it, ArgumentError otherwise
/// (numpy's OverflowError), checked before anything runs (an empty `out` too).
void assign(const Queue& queue, const Array& out, const Expr& expression);
/// Every element of `out` set to `value` (converted to out's dtype). A weak scalar (a C++ literal)
/// converts as numpy's `a[...] = x` converts a Python scalar: ArgumentError for a complex into a
/// real or integer array (numpy's TypeError), and into an integer array for NaN, infinities and
/// values whose integer part the dtype cannot hold (numpy's OverflowError: 300 or -1.0 into uint8).
/// A typed scalar (kjarni::scalar) into an integer array converts as numpy's `a[...] = np.int64(x)`:
/// into a signed type its integer part must fit (ArgumentError otherwise, numpy's OverflowError;
/// NaN and infinities too), into other types it converts as astype. The checks come before
/// anything runs (an empty `out` too).
void fill(const Queue& queue, const Array& out, const Expr& value);

/// pygpu's get_common_dtype(obj1, obj2, allow_double): the dtype of `a + b` as numpy gives it
/// (np.promote_types between dtypes; between expressions, weak scalars as above); where
/// `allow_double` is false, float64 becomes float32 and complex128 complex64 (for devices without
/// double precision). The overloads with a device ask have_double(device) (kjarni/device_specifier.hpp).
DType get_common_dtype(const DType& a, const DType& b, bool allow_double = true);
DType get_common_dtype(const Expr& a, const Expr& b, bool allow_double = true);
DType get_common_dtype(const DType& a, const DType& b, const Device& device);
DType get_common_dtype(const Expr& a, const Expr& b, const Device& device);

/// Part by part on every device of the multi-queue: each MultiArray of the expression gives its
/// part on that device. Every MultiArray of the expression (and `out`) must be split the same way
/// (the same parts of the same shape); plain Arrays cannot take part (ArgumentError). The result of
/// evaluate() is split like the expression's first MultiArray.
MultiArray evaluate(const MultiQueue& queue, const Expr& expression, const Allocator& allocator = {});
void assign(const MultiQueue& queue, const MultiArray& out, const Expr& expression);

}  // namespace kjarni
