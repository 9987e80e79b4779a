#pragma once
// Integers beyond 64 bits, as Python's ints grow: GMP's mpz_class (Debian's libgmp-dev) holds them.
// A Value holds an integer as std::int64_t whenever it fits and as detail::BigInt only otherwise,
// so that the 64-bit fast path and every accessor that wants a machine integer keep working.

#include <kjarni/template/value.hpp>

#include <gmpxx.h>

#include <string>

namespace kjarni::detail {

struct BigInt {
    mpz_class v;
};

}  // namespace kjarni::detail

namespace kjarni::tmpl {

/// The most bits an integer made by a template may have: a guard against `2 ** 10 ** 9` taking all
/// memory and time (Python would compute it; no kernel template needs it).
inline constexpr std::size_t max_int_bits = 1u << 20;

/// Throws EvalError: a result would exceed max_int_bits.
[[noreturn]] void int_too_large();

/// Whether `v` is an int held as a BigInt (beyond 64 bits).
bool is_big(const Value& v) noexcept;
/// The integer value of an int or bool (big or not).
mpz_class to_mpz(const Value& v);
/// `x` as a Value: std::int64_t when it fits, else a BigInt. Throws EvalError beyond max_int_bits.
Value make_int(const mpz_class& x);
/// Python's str() of an integer (refused beyond Python's 4300 digits, as Python refuses it).
std::string int_to_decimal(const mpz_class& x);
/// Python's float(x): correctly rounded; throws EvalError when it overflows.
double int_to_double(const mpz_class& x);
/// A hash of a hashable value consistent with Python's == (1, 1.0 and True hash alike; 2**64 and
/// 2.0**64 too): what sets use to find their members.
std::size_t hash_value(const Value& v);

/// Python's int(d) for a finite float (truncation towards zero).
Value int_of_double(double d);

}  // namespace kjarni::tmpl
