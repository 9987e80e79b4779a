#pragma once
// Host-side scalars of any dtype: reading one element's bytes, converting with C's rules (a complex
// to a real takes the real part), and IEEE half precision, which C++20 has no type for.

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kjarni/dtype.hpp"

namespace kjarni::detail {

/// The value of a float16's bits (exact).
double half_to_double(std::uint16_t bits) noexcept;
/// The float16 nearest to `value` (ties to even; overflow to infinity; NaN stays NaN).
std::uint16_t double_to_half(double value) noexcept;

/// One element of a scalar dtype, held exactly: integers as 64-bit integers, floats and complex
/// numbers as complex<double> (float16/32/64 values are all exact doubles).
struct ScalarValue {
    enum class Kind { signed_integer, unsigned_integer, floating };
    Kind kind = Kind::signed_integer;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    std::complex<double> c;

    static ScalarValue read(std::span<const std::byte> element, const DType& dtype);
    /// The bytes of the value converted to `dtype` (C's conversions; bool is value != 0).
    std::array<std::byte, 16> write(const DType& dtype) const;
    /// The bytes of a kernel's scalar parameter for a value of `dtype` passed as `passed`
    /// (scalar_parameter_dtype): as write(passed), but a float16 value is rounded to float16 first,
    /// then passed as float, so that it is the value numpy's np.float16(x) holds.
    std::array<std::byte, 16> write_parameter(const DType& dtype, const DType& passed) const;
};

}  // namespace kjarni::detail
