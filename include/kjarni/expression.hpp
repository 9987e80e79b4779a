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
/// integer `%` by 0 gives 0 as numpy does. float16 is stored in 16 bits and computed in float32;
/// a whole expression is computed before rounding once (numpy rounds after every operation, so
/// results may differ by an ulp of float16). Comparisons give bool. Math functions of integer
/// arrays compute in numpy's float type for them (float16 for 8-bit, float32 for 16-bit, float64
/// otherwise). minimum and maximum propagate NaN (numpy's, not fmin/fmax).
///
/// Complex types (complex64, complex128) take + - * / == != abs exp log sqrt sin cos tanh pow where
/// astype, with numpy's principal values and branch cuts (sqrt and log: along the negative real axis,
/// the sign of a zero imaginary part choosing the side); minimum, maximum and the orderings are an
/// ArgumentError naming the operation, as are `-` of bool and `%` of complex values. Shapes broadcast by numpy's rules when the tree is built (ArgumentError with both
/// shapes otherwise); arrays of different contexts or devices are refused at evaluation. \file

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/multi_array.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

namespace detail {
struct ExprNode;
}

template <class T>
concept ExprScalar = std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> ||
                     std::is_same_v<T, std::complex<double>>;

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
        else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return weak_integer(static_cast<std::int64_t>(value));
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

/// A scalar of a fixed dtype (it takes part in promotion like a 0-d array).
Expr scalar(double value, const DType& dtype);
Expr scalar(std::complex<double> value, const DType& dtype);
Expr scalar_integer(std::int64_t value, const DType& dtype);

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
/// condition ? a : b, elementwise (the condition is taken as bool: nonzero is true).
Expr where(const Expr& condition, const Expr& a, const Expr& b);
/// minimum(maximum(a, low), high).
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

/// A new C-contiguous array holding the expression's value, made by `allocator` (a MemoryPool
/// is one) or Buffer::allocate; one kernel, enqueued on `queue`.
Array evaluate(const Queue& queue, const Expr& expression, const Allocator& allocator = {});
/// Writes the expression into `out`, which must have its shape; the value is converted to
/// out's dtype when numpy's "same_kind" casting allows it (ArgumentError otherwise, e.g. a float
/// into an int array; int32 into uint32 too, as np.can_cast(int32, uint32, "same_kind") is false).
/// `out` may share memory with the operands in any way, numpy's result being as if the operands
/// were read whole first: the same view is in-place work (no copy); another view sharing bytes
/// (`a[1:]` from `a[:-1]`, a transpose of itself) makes the value go through a temporary, and
/// the call waits for it.
void assign(const Queue& queue, const Array& out, const Expr& expression);
/// Every element of `out` set to `value` (converted to out's dtype).
void fill(const Queue& queue, const Array& out, const Expr& value);

/// Part by part on every device of the multi-queue: each MultiArray of the expression gives its
/// part on that device. Every MultiArray of the expression (and `out`) must be split the same way
/// (the same parts of the same shape); plain Arrays cannot take part (ArgumentError). The result of
/// evaluate() is split like the expression's first MultiArray.
MultiArray evaluate(const MultiQueue& queue, const Expr& expression, const Allocator& allocator = {});
void assign(const MultiQueue& queue, const MultiArray& out, const Expr& expression);

}  // namespace kjarni
