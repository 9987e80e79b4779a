// Integers beyond 64 bits (see bigint.hpp).

#include "bigint.hpp"

#include "errors.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>

namespace kjarni::tmpl {

namespace {

// The address of a value compared by identity (a function, an object...).
template <class T>
std::uintptr_t identity_of(const std::shared_ptr<T>& p) {
    return reinterpret_cast<std::uintptr_t>(p.get());
}
template <class T>
std::uintptr_t identity_of(const T&) {
    return 0;
}

}  // namespace

void int_too_large() {
    throw EvalError(fmt::format("integer too large (more than {} bits, a render limit)", max_int_bits));
}

bool is_big(const Value& v) noexcept {
    return std::holds_alternative<std::shared_ptr<const detail::BigInt>>(v.storage());
}

mpz_class to_mpz(const Value& v) {
    if (is_big(v)) return std::get<std::shared_ptr<const detail::BigInt>>(v.storage())->v;
    const std::int64_t i = v.as_int();
    // mpz_class has no int64_t constructor on every platform (long may be 32-bit): go through
    // two 32-bit halves.
    const auto mag = i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
    mpz_class out(static_cast<unsigned long>(mag >> 32));
    out <<= 32;
    out += static_cast<unsigned long>(mag & 0xffffffffu);
    if (i < 0) out = -out;
    return out;
}

Value make_int(const mpz_class& x) {
    if (mpz_sizeinbase(x.get_mpz_t(), 2) <= 63) {
        // |x| < 2^63: fits (and so does -2^63, handled below).
        const mpz_class mag = abs(x);
        const std::uint64_t hi = mpz_class(mag >> 32).get_ui();
        const std::uint64_t lo = mpz_class(mag & mpz_class(0xffffffffu)).get_ui();
        const std::uint64_t u = (hi << 32) | lo;
        return Value(x < 0 ? -static_cast<std::int64_t>(u) : static_cast<std::int64_t>(u));
    }
    if (x == -(mpz_class(1) << 63)) return Value(INT64_MIN);
    if (mpz_sizeinbase(x.get_mpz_t(), 2) > max_int_bits) int_too_large();
    return Value(Value::Storage(std::make_shared<const detail::BigInt>(detail::BigInt{x})));
}

std::string int_to_decimal(const mpz_class& x) {
    // Python's default int_max_str_digits; the bit count bounds the digits from above cheaply.
    if (mpz_sizeinbase(x.get_mpz_t(), 10) > 4300 + 1) {
        std::string s = x.get_str(10);
        if (s.size() - (x < 0 ? 1 : 0) > 4300)
            throw EvalError("Exceeds the limit (4300 digits) for integer string conversion");
        return s;
    }
    return x.get_str(10);
}

double int_to_double(const mpz_class& x) {
    // glibc's strtod rounds a decimal string correctly (half to even), as Python's int -> float.
    const std::string s = x.get_str(10);
    const double d = std::strtod(s.c_str(), nullptr);
    if (std::isinf(d)) throw EvalError("int too large to convert to float");
    return d;
}

Value int_of_double(double d) {
    if (!std::isfinite(d))
        throw EvalError(std::isnan(d) ? "cannot convert float NaN to integer"
                                      : "cannot convert float infinity to integer");
    const double t = std::trunc(d);
    if (t >= -9223372036854775808.0 && t < 9223372036854775808.0) return Value(static_cast<std::int64_t>(t));
    return make_int(mpz_class(t));  // exact: a double this large is an integer
}

std::size_t hash_value(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::None: return 0x9e3779b97f4a7c15u;
    case Value::Kind::Bool:
    case Value::Kind::Int:
        if (is_big(v)) return std::hash<std::string>{}(to_mpz(v).get_str(16));
        return std::hash<std::int64_t>{}(v.as_int());
    case Value::Kind::Float: {
        const double d = v.as_float();
        if (std::isfinite(d) && d == std::trunc(d)) {
            if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
                return std::hash<std::int64_t>{}(static_cast<std::int64_t>(d));
            return std::hash<std::string>{}(mpz_class(d).get_str(16));
        }
        return std::hash<double>{}(d);
    }
    case Value::Kind::String: return std::hash<std::string>{}(v.as_string());
    case Value::Kind::Tuple: {
        std::size_t h = 0x345678u;
        for (const auto& item : v.as_list()) h = (h ^ hash_value(item)) * 1000003u;
        return h;
    }
    default:  // compared by identity
        return std::visit([](const auto& p) { return std::hash<std::uintptr_t>{}(identity_of(p)); }, v.storage());
    }
}

}  // namespace kjarni::tmpl
