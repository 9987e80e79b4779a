#pragma once
// IEEE 754 binary16 conversions on the host (C++20 has no half type): for scalars passed to kernels
// and BLAS, and for tests.

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kjarni::detail {

/// Rounds to the nearest half, ties to even; overflow gives infinity, NaN stays NaN.
inline std::uint16_t float_to_half(float value) {
    std::uint32_t x = 0;
    std::memcpy(&x, &value, sizeof x);
    const std::uint32_t sign = (x >> 16) & 0x8000U;
    std::uint32_t mantissa = x & 0x7fffffU;
    const int exponent = static_cast<int>((x >> 23) & 0xffU);
    if (exponent == 255) return static_cast<std::uint16_t>(sign | 0x7c00U | (mantissa != 0 ? 0x200U : 0U));
    const int e = exponent - 127 + 15;  // the half's biased exponent
    if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00U);
    if (e <= 0) {  // a subnormal half (or zero): the 24-bit significand shifted right by 14 - e
        if (e < -10) return static_cast<std::uint16_t>(sign);
        mantissa |= 0x800000U;
        const int shift = 14 - e;
        std::uint32_t h = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1U << shift) - 1U);
        const std::uint32_t halfway = 1U << (shift - 1);
        if (rest > halfway || (rest == halfway && (h & 1U) != 0)) ++h;
        return static_cast<std::uint16_t>(sign | h);
    }
    std::uint32_t h = sign | (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
    const std::uint32_t rest = mantissa & 0x1fffU;
    // A carry out of the mantissa correctly bumps the exponent (up to infinity).
    if (rest > 0x1000U || (rest == 0x1000U && (h & 1U) != 0)) ++h;
    return static_cast<std::uint16_t>(h);
}

inline float half_to_float(std::uint16_t h) {
    const bool negative = (h & 0x8000U) != 0;
    const int exponent = (h >> 10) & 0x1f;
    const std::uint32_t mantissa = h & 0x3ffU;
    float value = 0.0F;
    if (exponent == 0) value = std::ldexp(static_cast<float>(mantissa), -24);
    else if (exponent == 31) value = mantissa != 0 ? NAN : INFINITY;
    else value = std::ldexp(static_cast<float>(mantissa | 0x400U), exponent - 25);
    return negative ? -value : value;
}

}  // namespace kjarni::detail
