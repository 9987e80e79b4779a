#include "algorithms/scalar_value.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "kjarni/error.hpp"

namespace kjarni::detail {

double half_to_double(std::uint16_t bits) noexcept {
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    double v = exponent == 0    ? std::ldexp(mantissa, -24)
               : exponent == 31 ? (mantissa != 0 ? std::numeric_limits<double>::quiet_NaN()
                                                 : std::numeric_limits<double>::infinity())
                                : std::ldexp(mantissa + 1024, exponent - 25);
    return (bits & 0x8000) ? -v : v;
}

std::uint16_t double_to_half(double value) noexcept {
    const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
    if (std::isnan(value)) return 0x7e00;
    const double a = std::fabs(value);
    if (a >= 65520.0) return sign | 0x7c00;  // rounds to infinity (65504 is the largest half)
    if (a < std::ldexp(1.0, -14)) {
        // Subnormal: a multiple of 2^-24, rounded to nearest even by nearbyint.
        return sign | static_cast<std::uint16_t>(std::nearbyint(std::ldexp(a, 24)));
    }
    int exponent = 0;
    const double fraction = std::frexp(a, &exponent);  // a = fraction * 2^exponent, fraction in [0.5, 1)
    // 11 significant bits; nearbyint rounds ties to even. A carry to 2048 moves to the next binade,
    // which the addition of the fields below does by itself.
    const auto significand = static_cast<std::uint32_t>(std::nearbyint(std::ldexp(fraction, 11)));
    const auto biased = static_cast<std::uint32_t>(exponent - 1 + 15);
    return static_cast<std::uint16_t>(sign | ((biased << 10) + (significand - 1024)));
}

namespace {

template <class T>
T load(std::span<const std::byte> element) {
    T value;
    std::memcpy(&value, element.data(), sizeof(T));
    return value;
}

template <class T>
std::array<std::byte, 16> store(T value) {
    std::array<std::byte, 16> out{};
    std::memcpy(out.data(), &value, sizeof(T));
    return out;
}

}  // namespace

ScalarValue ScalarValue::read(std::span<const std::byte> element, const DType& dtype) {
    using K = DType::Kind;
    ScalarValue v;
    auto set_signed = [&](std::int64_t x) {
        v.kind = Kind::signed_integer;
        v.i = x;
    };
    auto set_unsigned = [&](std::uint64_t x) {
        v.kind = Kind::unsigned_integer;
        v.u = x;
    };
    auto set_float = [&](std::complex<double> x) {
        v.kind = Kind::floating;
        v.c = x;
    };
    switch (dtype.kind()) {
    case K::bool_: set_unsigned(load<std::uint8_t>(element) != 0 ? 1 : 0); break;
    case K::int8: set_signed(load<std::int8_t>(element)); break;
    case K::uint8: set_unsigned(load<std::uint8_t>(element)); break;
    case K::int16: set_signed(load<std::int16_t>(element)); break;
    case K::uint16: set_unsigned(load<std::uint16_t>(element)); break;
    case K::int32: set_signed(load<std::int32_t>(element)); break;
    case K::uint32: set_unsigned(load<std::uint32_t>(element)); break;
    case K::int64: set_signed(load<std::int64_t>(element)); break;
    case K::uint64: set_unsigned(load<std::uint64_t>(element)); break;
    case K::float16: set_float(half_to_double(load<std::uint16_t>(element))); break;
    case K::float32: set_float(load<float>(element)); break;
    case K::float64: set_float(load<double>(element)); break;
    case K::complex64: set_float(std::complex<double>(load<std::complex<float>>(element))); break;
    case K::complex128: set_float(load<std::complex<double>>(element)); break;
    case K::struct_: throw ArgumentError("dtype", fmt::format("{} is not a scalar type", dtype.name()));
    }
    return v;
}

std::array<std::byte, 16> ScalarValue::write(const DType& dtype) const {
    using K = DType::Kind;
    // Integers convert from the exact integer; floats from the real part.
    auto as = [&]<class T>(T*) -> T {
        switch (kind) {
        case Kind::signed_integer: return static_cast<T>(i);
        case Kind::unsigned_integer: return static_cast<T>(u);
        case Kind::floating: return static_cast<T>(c.real());
        }
        return T{};
    };
    switch (dtype.kind()) {
    case K::bool_: {
        const bool nonzero = kind == Kind::floating ? c != std::complex<double>{} : (i != 0 || u != 0);
        return store<std::uint8_t>(nonzero ? 1 : 0);
    }
    case K::int8: return store(as(static_cast<std::int8_t*>(nullptr)));
    case K::uint8: return store(as(static_cast<std::uint8_t*>(nullptr)));
    case K::int16: return store(as(static_cast<std::int16_t*>(nullptr)));
    case K::uint16: return store(as(static_cast<std::uint16_t*>(nullptr)));
    case K::int32: return store(as(static_cast<std::int32_t*>(nullptr)));
    case K::uint32: return store(as(static_cast<std::uint32_t*>(nullptr)));
    case K::int64: return store(as(static_cast<std::int64_t*>(nullptr)));
    case K::uint64: return store(as(static_cast<std::uint64_t*>(nullptr)));
    case K::float16: return store(double_to_half(as(static_cast<double*>(nullptr))));
    case K::float32: return store(as(static_cast<float*>(nullptr)));
    case K::float64: return store(as(static_cast<double*>(nullptr)));
    case K::complex64:
        return store(kind == Kind::floating ? std::complex<float>(c)
                                            : std::complex<float>(as(static_cast<float*>(nullptr))));
    case K::complex128:
        return store(kind == Kind::floating ? c : std::complex<double>(as(static_cast<double*>(nullptr))));
    case K::struct_: break;
    }
    throw ArgumentError("dtype", fmt::format("{} is not a scalar type", dtype.name()));
}

std::array<std::byte, 16> ScalarValue::write_parameter(const DType& dtype, const DType& passed) const {
    if (dtype.kind() != DType::Kind::float16) return write(passed);
    const auto half = write(dtype);
    std::uint16_t bits = 0;
    std::memcpy(&bits, half.data(), sizeof(bits));
    ScalarValue rounded;
    rounded.kind = Kind::floating;
    rounded.c = half_to_double(bits);
    return rounded.write(passed);
}

}  // namespace kjarni::detail
