// numpy's further ufuncs in expressions (floor_divide, fmod, remainder, divmod, floor ceil trunc
// rint round, isnan isinf isfinite, the other math functions, bitwise and logical operators)
// against CPU references on fresh random data, over every dtype class, with numpy's result dtypes
// (a table written from numpy 2.4's own answers) and numpy's edge values (division by zero,
// MIN // -1, shifts past the width, ties to even, NaN and infinities).
//
// Tolerances: the division family, the rounding family, sign/square/reciprocal, fmin/fmax,
// copysign and every integer result are exact (one correctly rounded division, or none, on each
// side, in the same type: the reference computes in the dtype's own precision, float16 in float32
// rounded once as the kernel does). The transcendental functions follow OpenCL's limits (at most
// 6 ulp, atan2; CUDA's are tighter): checked at 16 ulp of the result against long double.
// Kernels: one per (operation, dtype), several values packed where a single result can hold them.

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "algorithm_test_support.hpp"
#include "algorithms/promotion.hpp"
#include "dtype/half.hpp"
#include "kjarni/expression.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

// A named namespace: unity builds put several test files in one translation unit.
namespace kjarni::test::numpy_ops_expression {
namespace {

using Kind = DType::Kind;

class NumpyOpsExpressionTest : public DeviceTest {
protected:
    HostArray run(const Expr& e) { return evaluate(queue(), e).get(queue()).copy(); }
    template <class T>
    Array device(const std::vector<T>& values) {
        return Array::from_host(queue(), HostArray::from(values, std::vector<std::size_t>{values.size()}));
    }
};
KJARNI_INSTANTIATE_DEVICE_TESTS(NumpyOpsExpressionTest);

constexpr std::size_t n = 257;

int bits_of(const DType& d) { return static_cast<int>(d.itemsize() * 8); }

// A 64-bit value truncated to d's width, sign-extended for signed types (int_at's form).
std::uint64_t truncate(std::uint64_t v, const DType& d) {
    const int bits = bits_of(d);
    if (bits == 64 || d.kind() == Kind::bool_) return d.kind() == Kind::bool_ ? (v != 0) : v;
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    v &= mask;
    if (is_signed(d) && (v >> (bits - 1)) != 0) v |= ~mask;
    return v;
}

// Writes element k of a C-contiguous host array: integers from their 64-bit pattern, floats and
// complex from a complex long double.
void put_int(HostArray& a, std::size_t k, std::uint64_t v) {
    std::byte* p = a.data() + k * a.dtype().itemsize();
    const auto put = [p]<class T>(T x) { std::memcpy(p, &x, sizeof(T)); };
    switch (a.dtype().kind()) {
    case Kind::bool_: put(static_cast<std::uint8_t>(v != 0)); break;
    case Kind::int8:
    case Kind::uint8: put(static_cast<std::uint8_t>(v)); break;
    case Kind::int16:
    case Kind::uint16: put(static_cast<std::uint16_t>(v)); break;
    case Kind::int32:
    case Kind::uint32: put(static_cast<std::uint32_t>(v)); break;
    default: put(v); break;
    }
}
void put_float(HostArray& a, std::size_t k, Complex v) {
    std::byte* p = a.data() + k * a.dtype().itemsize();
    const auto put = [p]<class T>(T x) { std::memcpy(p, &x, sizeof(T)); };
    switch (a.dtype().kind()) {
    case Kind::float16: put(detail::float_to_half(static_cast<float>(v.real()))); break;
    case Kind::float32: put(static_cast<float>(v.real())); break;
    case Kind::float64: put(static_cast<double>(v.real())); break;
    case Kind::complex64: put(std::complex<float>(static_cast<float>(v.real()), static_cast<float>(v.imag()))); break;
    case Kind::complex128:
        put(std::complex<double>(static_cast<double>(v.real()), static_cast<double>(v.imag())));
        break;
    default: throw std::logic_error("put_float: not a float dtype");
    }
}

// Random integers of d (the full range for narrow types, +-2^40 for 64-bit ones), with the edge
// values numpy's loops single out placed at random positions: 0, -1, 1, MIN, MAX.
HostArray random_ints(const DType& d, bool edges = true) {
    HostArray a(d, {n});
    auto& rng = random_engine();
    const int bits = bits_of(d);
    const bool sign = is_signed(d);
    std::uniform_int_distribution<long long> value(sign ? (bits >= 32 ? -(1LL << 40) : -(1LL << (bits - 1))) : 0,
                                                   bits >= 32 ? (1LL << 40) : (1LL << bits) - 1);
    std::uniform_int_distribution<long long> small(sign ? -9 : 0, 9);
    std::bernoulli_distribution is_small(0.5);
    for (std::size_t k = 0; k < n; ++k)
        put_int(a, k, static_cast<std::uint64_t>(is_small(rng) ? small(rng) : value(rng)));
    if (d.kind() == Kind::bool_) {
        std::bernoulli_distribution coin(0.5);
        for (std::size_t k = 0; k < n; ++k) put_int(a, k, coin(rng));
        return a;
    }
    if (edges) {
        const std::uint64_t min = sign ? truncate(std::uint64_t{1} << (bits - 1), d) : 0;
        const std::uint64_t max = sign ? min - 1 : truncate(~std::uint64_t{0}, d);
        std::uniform_int_distribution<std::size_t> at(0, n - 1);
        for (const std::uint64_t v : {std::uint64_t{0}, truncate(~std::uint64_t{0}, d), std::uint64_t{1}, min, max})
            for (int r = 0; r < 4; ++r) put_int(a, at(rng), v);
    }
    return a;
}

// Random floats in [-scale, scale], rounded to d, with zeros of both signs, infinities and NaN
// at random positions when `specials`.
HostArray random_floats(const DType& d, double low, double high, bool specials) {
    HostArray a(d, {n});
    auto& rng = random_engine();
    std::uniform_real_distribution<double> value(low, high);
    for (std::size_t k = 0; k < n; ++k) put_float(a, k, Complex(value(rng), is_complex(d) ? value(rng) : 0.0));
    if (specials) {
        const long double inf = std::numeric_limits<long double>::infinity();
        const long double nan = std::numeric_limits<long double>::quiet_NaN();
        std::uniform_int_distribution<std::size_t> at(0, n - 1);
        for (const Complex v : {Complex(0.0L, 0.0L), Complex(-0.0L, 0.0L), Complex(inf, 0.0L), Complex(-inf, 0.0L),
                                Complex(nan, 0.0L), Complex(1.0L, nan), Complex(0.0L, -inf)})
            for (int r = 0; r < 3; ++r) put_float(a, at(rng), is_complex(d) ? v : Complex(v.real(), 0.0L));
    }
    return a;
}

// Rounds a long double to d's real precision (float16 through float, as stored).
long double to_precision(long double v, const DType& d) {
    switch (d.kind()) {
    case Kind::float16: return detail::half_to_float(detail::float_to_half(static_cast<float>(v)));
    case Kind::float32:
    case Kind::complex64: return static_cast<float>(v);
    default: return static_cast<double>(v);
    }
}

bool same_float(long double got, long double expected) {
    if (std::isnan(expected)) return std::isnan(got);
    return got == expected && std::signbit(got) == std::signbit(expected);
}

// numpy's npy_divmod quotient in T.
template <class T>
T numpy_floor_divide(T a, T b) {
    if (b == 0) return a / b;
    const T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div == 0) return std::copysign(T(0), a / b);
    T whole = std::floor(div);
    if (div - whole > T(0.5)) whole += 1;
    return whole;
}
template <class T>
T numpy_remainder(T a, T b) {
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    if (r == 0) r = std::copysign(T(0), b);
    return r;
}

// The float reference of a binary operation in the dtype's compute precision (float16: float),
// rounded to the dtype.
long double float_reference(const DType& d, long double a, long double b, std::size_t op) {
    const auto in = [&](auto t) {
        using T = decltype(t);
        const T x = static_cast<T>(a), y = static_cast<T>(b);
        switch (op) {
        case 0: return static_cast<long double>(numpy_floor_divide(x, y));
        case 1: return static_cast<long double>(std::fmod(x, y));
        default: return static_cast<long double>(numpy_remainder(x, y));
        }
    };
    return to_precision(d.kind() == Kind::float64 ? in(double{}) : in(float{}), d);
}

TEST_P(NumpyOpsExpressionTest, FloorDivideFmodRemainderEveryRealDtype) {
    for (const DType& d : dtypes::all_scalars()) {
        if (is_complex(d)) continue;
        SCOPED_TRACE(d.name());
        const bool integer = d.kind() == Kind::bool_ || is_integer(d);
        HostArray ha = integer ? random_ints(d) : random_floats(d, -50, 50, true);
        HostArray hb = integer ? random_ints(d) : random_floats(d, -4, 4, true);
        const Array a = Array::from_host(queue(), ha), b = Array::from_host(queue(), hb);
        const auto [quotient, remainder] = divmod(a, b);
        const std::vector<std::pair<const char*, Expr>> ops{{"floor_divide", quotient},
                                                            {"fmod", fmod(a, b)},
                                                            {"remainder", remainder}};
        for (std::size_t op = 0; op < 3; ++op) {
            if (integer && op == 2) continue;  // integer % is the expression suite's
            SCOPED_TRACE(ops[op].first);
            const Expr& e = ops[op].second;
            const DType expected_dtype = d.kind() == Kind::bool_ ? DType(Kind::int8) : d;
            ASSERT_EQ(e.dtype(), expected_dtype);
            const HostArray got = run(e);
            for (std::size_t k = 0; k < n; ++k) {
                if (integer) {
                    const std::uint64_t ua = int_at(ha, k), ub = int_at(hb, k);
                    std::uint64_t want = 0;
                    if (ub == 0) {
                        want = 0;
                    } else if (is_signed(d) || d.kind() == Kind::bool_) {
                        const auto x = static_cast<std::int64_t>(ua), y = static_cast<std::int64_t>(ub);
                        if (y == -1) {
                            want = op == 0 ? 0 - ua : 0;  // MIN // -1 wraps to MIN; MIN fmod -1 == 0
                        } else if (op == 0) {
                            std::int64_t q = x / y;
                            if (x % y != 0 && ((x < 0) != (y < 0))) --q;
                            want = static_cast<std::uint64_t>(q);
                        } else {
                            want = static_cast<std::uint64_t>(x % y);
                        }
                    } else {
                        want = op == 0 ? ua / ub : ua % ub;
                    }
                    ASSERT_EQ(int_at(got, k), truncate(want, expected_dtype))
                        << "element " << k << ": " << static_cast<std::int64_t>(ua) << ", "
                        << static_cast<std::int64_t>(ub);
                } else {
                    const long double x = value_at(ha, k).real(), y = value_at(hb, k).real();
                    const long double want = float_reference(d, x, y, op);
                    ASSERT_TRUE(same_float(value_at(got, k).real(), want))
                        << "element " << k << ": " << x << ", " << y << " gave " << value_at(got, k).real()
                        << ", numpy " << want;
                }
            }
        }
    }
}

TEST_P(NumpyOpsExpressionTest, FloorDivideEdgesAndWeakScalars) {
    // numpy's figures for the cases the prose rules single out (numpy 2.4 on x86-64).
    const Array x = device(std::vector<double>{1.0, -1.0, 0.0, 1.0, 7.0, -5.0, 5.0, -0.5});
    const Array y = device(std::vector<double>{0.0, 0.0, 0.0, -0.0, 0.1, INFINITY, -INFINITY, 1.0});
    const auto got = evaluate(queue(), floor_divide(x, y)).get(queue()).to_vector<double>();
    const std::vector<double> numpy{INFINITY, -INFINITY, NAN, -INFINITY, 69.0, -1.0, -1.0, -1.0};
    for (std::size_t k = 0; k < numpy.size(); ++k) EXPECT_TRUE(same_float(got[k], numpy[k])) << k << ": " << got[k];
    // NEP 50: a weak integer keeps int8, a weak float gives float64 (numpy's int8 // 2.0).
    const Array i = device(std::vector<std::int8_t>{-7, 7, -128, 5});
    EXPECT_EQ(floor_divide(i, 2).dtype(), DType(Kind::int8));
    EXPECT_EQ(floor_divide(i, 2.0).dtype(), DType(Kind::float64));
    EXPECT_EQ(evaluate(queue(), floor_divide(i, 2)).get(queue()).to_vector<std::int8_t>(),
              (std::vector<std::int8_t>{-4, 3, -64, 2}));
    EXPECT_EQ(evaluate(queue(), floor_divide(i, -1)).get(queue()).to_vector<std::int8_t>(),
              (std::vector<std::int8_t>{7, -7, -128, -5}));
    EXPECT_THROW(evaluate(queue(), floor_divide(i, 300)), ArgumentError);  // NEP 50: 300 does not fit int8
}

// rint, floor, ceil, trunc and round(decimals) references in the dtype's precision.
long double rounding_reference(const DType& d, long double v, int op, int decimals) {
    const auto in = [&](auto t) {
        using T = decltype(t);
        const T x = static_cast<T>(v);
        switch (op) {
        case 0: return static_cast<long double>(std::floor(x));
        case 1: return static_cast<long double>(std::ceil(x));
        case 2: return static_cast<long double>(std::trunc(x));
        case 3: return static_cast<long double>(std::nearbyint(x));
        default: {
            const T f = static_cast<T>(std::pow(10.0, std::abs(decimals)));
            return static_cast<long double>(decimals >= 0 ? std::nearbyint(x * f) / f : std::nearbyint(x / f) * f);
        }
        }
    };
    const DType real = is_complex(d) ? real_for(d) : d;
    return to_precision(real.kind() == Kind::float64 ? in(double{}) : in(float{}), real);
}

TEST_P(NumpyOpsExpressionTest, RoundingFamilyEveryDtypeClass) {
    // Floats: values on halves (ties: rint and round go to even) and on hundredths (round(x, 2)).
    for (const DType& d : {DType(Kind::float16), DType(Kind::float32), DType(Kind::float64), DType(Kind::complex64)}) {
        SCOPED_TRACE(d.name());
        HostArray h = random_floats(d, -60, 60, true);
        auto& rng = random_engine();
        std::uniform_int_distribution<int> halves(-120, 120);
        for (std::size_t k = 0; k < n; k += 3) put_float(h, k, Complex(halves(rng) * 0.5L, halves(rng) * 0.5L));
        const Array x = Array::from_host(queue(), h);
        struct Case {
            const char* name;
            Expr e;
            int op;
            int decimals;
        };
        std::vector<Case> cases{{"rint", rint(x), 3, 0},
                                {"round 2", round(x, 2), 4, 2},
                                {"round -1", round(x, -1), 4, -1}};
        if (!is_complex(d)) {
            cases.push_back({"floor", kjarni::floor(x), 0, 0});
            cases.push_back({"ceil", kjarni::ceil(x), 1, 0});
            cases.push_back({"trunc", kjarni::trunc(x), 2, 0});
        }
        for (const Case& c : cases) {
            SCOPED_TRACE(c.name);
            ASSERT_EQ(c.e.dtype(), d);
            const HostArray got = run(c.e);
            for (std::size_t k = 0; k < n; ++k) {
                const Complex v = value_at(h, k), g = value_at(got, k);
                ASSERT_TRUE(same_float(g.real(), rounding_reference(d, v.real(), c.op, c.decimals)))
                    << k << ": " << v << " gave " << g;
                if (is_complex(d)) {
                    ASSERT_TRUE(same_float(g.imag(), rounding_reference(d, v.imag(), c.op, c.decimals)))
                        << k << ": " << v << " gave " << g;
                }
            }
        }
    }
    // Integers: floor/ceil/trunc and round(d >= 0) are the values in their dtype; round(d < 0)
    // goes through float64 (ties to even: 15 -> 20, 25 -> 20); rint gives numpy's float type.
    for (const DType& d : {DType(Kind::int8), DType(Kind::uint16), DType(Kind::int64), DType(Kind::uint64)}) {
        SCOPED_TRACE(d.name());
        HostArray h = random_ints(d, false);
        for (std::size_t k = 0; k < n; k += 5) put_int(h, k, static_cast<std::uint64_t>((k % 7) * 10 + 5));  // ties
        const Array x = Array::from_host(queue(), h);
        EXPECT_EQ(kjarni::floor(x).dtype(), d);
        EXPECT_EQ(round(x, 3).dtype(), d);
        const HostArray same = run(kjarni::trunc(x) + round(x, 2) - kjarni::ceil(x));  // x + x - x, exact
        const HostArray tens = run(round(x, -1));
        ASSERT_EQ(rint(x).dtype(), detail::float_type_for(d));
        const HostArray r = run(rint(x));
        for (std::size_t k = 0; k < n; ++k) {
            ASSERT_EQ(int_at(same, k), int_at(h, k)) << k;
            const long double v = is_signed(d) ? static_cast<long double>(static_cast<std::int64_t>(int_at(h, k)))
                                               : static_cast<long double>(int_at(h, k));
            const double scaled = std::nearbyint(static_cast<double>(v) / 10.0) * 10.0;
            const std::uint64_t want = d.kind() == Kind::uint64
                                           ? static_cast<std::uint64_t>(scaled)
                                           : static_cast<std::uint64_t>(static_cast<std::int64_t>(scaled));
            ASSERT_EQ(int_at(tens, k), truncate(want, d)) << k << ": " << v;
            ASSERT_TRUE(same_float(value_at(r, k).real(), to_precision(v, detail::float_type_for(d)))) << k;
        }
    }
    // bool: floor keeps bool, rint and round(0) give float16, round(1) is refused as numpy does.
    const Array b = device(std::vector<std::uint8_t>{1, 0}).view(DType(Kind::bool_));
    EXPECT_EQ(kjarni::floor(b).dtype(), DType(Kind::bool_));
    EXPECT_EQ(round(b).dtype(), DType(Kind::float16));
    EXPECT_THROW(round(b, 1), ArgumentError);
}

TEST_P(NumpyOpsExpressionTest, PredicatesAndLogicalEveryDtypeClass) {
    for (const DType& d :
         {DType(Kind::bool_), DType(Kind::int32), DType(Kind::uint8), DType(Kind::float16), DType(Kind::float32),
          DType(Kind::float64), DType(Kind::complex64), DType(Kind::complex128)}) {
        SCOPED_TRACE(d.name());
        const bool integer = d.kind() == Kind::bool_ || is_integer(d);
        HostArray h = integer ? random_ints(d) : random_floats(d, -2, 2, true);
        HostArray g = integer ? random_ints(d) : random_floats(d, -2, 2, true);
        const Array x = Array::from_host(queue(), h), y = Array::from_host(queue(), g);
        for (const Expr& e : {isnan(x), isinf(x), isfinite(x), logical_and(x, y), logical_not(x)})
            ASSERT_EQ(e.dtype(), DType(Kind::bool_));
        // Seven truth values packed into one int8 per element (one kernel).
        const auto bit = [](const Expr& e, int shift) {
            return astype(e, DType(Kind::int8)) << static_cast<std::int8_t>(shift);
        };
        const Expr packed = bit(isnan(x), 0) | bit(isinf(x), 1) | bit(isfinite(x), 2) | bit(logical_and(x, y), 3) |
                            bit(logical_or(x, y), 4) | bit(logical_xor(x, y), 5) | bit(logical_not(x), 6);
        const HostArray got = run(packed);
        for (std::size_t k = 0; k < n; ++k) {
            const Complex v = integer ? Complex(0) : value_at(h, k);
            const bool nan = !integer && (std::isnan(v.real()) || std::isnan(v.imag()));
            const bool inf = !integer && (std::isinf(v.real()) || std::isinf(v.imag()));
            const bool finite = integer || (std::isfinite(v.real()) && std::isfinite(v.imag()));
            const auto truth = [&](const HostArray& a) {
                if (integer) return int_at(a, k) != 0;
                const Complex c = value_at(a, k);
                return c.real() != 0 || c.imag() != 0;  // NaN is true
            };
            const bool p = truth(h), q = truth(g);
            const int want = nan | inf << 1 | finite << 2 | (p && q) << 3 | (p || q) << 4 | (p != q) << 5 | (!p) << 6;
            ASSERT_EQ(static_cast<int>(int_at(got, k)), want) << k << ": " << value_at(h, k) << ", " << value_at(g, k);
        }
    }
}

TEST_P(NumpyOpsExpressionTest, BitwiseAndShiftsIntegerDtypes) {
    for (const DType& d :
         {DType(Kind::bool_), DType(Kind::int8), DType(Kind::uint16), DType(Kind::int64), DType(Kind::uint64)}) {
        SCOPED_TRACE(d.name());
        HostArray h = random_ints(d), g = random_ints(d);
        HostArray counts(d, {n});
        auto& rng = random_engine();
        std::uniform_int_distribution<int> count(is_signed(d) ? -2 : 0, bits_of(d) + 2);
        for (std::size_t k = 0; k < n; ++k)
            put_int(counts, k, static_cast<std::uint64_t>(static_cast<std::int64_t>(count(rng))));
        const Array x = Array::from_host(queue(), h), y = Array::from_host(queue(), g),
                    c = Array::from_host(queue(), counts);
        const DType shifted = d.kind() == Kind::bool_ ? DType(Kind::int8) : d;
        struct Case {
            const char* name;
            Expr e;
        };
        std::vector<Case> cases{{"&", x & y}, {"|", x | y}, {"^", x ^ y}, {"~", ~x}, {"<<", x << c}, {">>", x >> c}};
        for (std::size_t op = 0; op < 6; ++op) {
            SCOPED_TRACE(cases[op].name);
            const DType want_dtype = op >= 4 ? shifted : d;
            ASSERT_EQ(cases[op].e.dtype(), want_dtype);
            const HostArray got = run(cases[op].e);
            for (std::size_t k = 0; k < n; ++k) {
                const std::uint64_t a = int_at(h, k), b = int_at(g, k);
                const auto s = static_cast<std::int64_t>(int_at(counts, k));
                const int bits = bits_of(want_dtype);
                std::uint64_t want = 0;
                switch (op) {
                case 0: want = a & b; break;
                case 1: want = a | b; break;
                case 2: want = a ^ b; break;
                case 3: want = d.kind() == Kind::bool_ ? (a == 0) : ~a; break;
                case 4: want = (s < 0 || s >= bits) ? 0 : a << s; break;
                default:
                    if (is_signed(want_dtype))
                        want = (s < 0 || s >= bits) ? (static_cast<std::int64_t>(a) < 0 ? ~std::uint64_t{0} : 0)
                                                    : static_cast<std::uint64_t>(static_cast<std::int64_t>(a) >> s);
                    else want = s >= bits ? 0 : a >> s;
                }
                ASSERT_EQ(int_at(got, k), truncate(want, want_dtype))
                    << k << ": " << static_cast<std::int64_t>(a) << ", " << static_cast<std::int64_t>(b) << ", " << s;
            }
        }
    }
}

TEST_P(NumpyOpsExpressionTest, SignSquareReciprocalFminFmaxCopysign) {
    for (const DType& d :
         {DType(Kind::int8), DType(Kind::uint8), DType(Kind::int32), DType(Kind::float32), DType(Kind::float16)}) {
        SCOPED_TRACE(d.name());
        const bool integer = is_integer(d);
        HostArray h = integer ? random_ints(d) : random_floats(d, -3, 3, true);
        HostArray g = integer ? random_ints(d) : random_floats(d, -3, 3, true);
        const Array x = Array::from_host(queue(), h), y = Array::from_host(queue(), g);
        std::vector<std::pair<const char*, Expr>> cases{{"sign", sign(x)},
                                                        {"square", square(x)},
                                                        {"reciprocal", reciprocal(x)},
                                                        {"fmin", fmin(x, y)},
                                                        {"fmax", fmax(x, y)}};
        if (!integer) cases.push_back({"copysign", copysign(x, y)});
        for (std::size_t op = 0; op < cases.size(); ++op) {
            SCOPED_TRACE(cases[op].first);
            ASSERT_EQ(cases[op].second.dtype(), d);
            const HostArray got = run(cases[op].second);
            for (std::size_t k = 0; k < n; ++k) {
                if (integer) {
                    const std::uint64_t ua = int_at(h, k), ub = int_at(g, k);
                    const bool sgn = is_signed(d);
                    const auto a = static_cast<std::int64_t>(ua), b = static_cast<std::int64_t>(ub);
                    const bool a_less = sgn ? a < b : ua < ub;
                    std::uint64_t want = 0;
                    switch (op) {
                    case 0: want = sgn ? static_cast<std::uint64_t>((a > 0) - (a < 0)) : (ua > 0); break;
                    case 1: want = ua * ua; break;
                    case 2:
                        // numpy's (T)(1.0 / x) on x86-64: 1 / 0 is INT_MIN for int32 and int64.
                        want = ua == 0            ? ((d.kind() == Kind::int32 || d.kind() == Kind::int64)
                                                         ? std::uint64_t{1} << (bits_of(d) - 1)
                                                         : 0)
                               : ua == 1          ? 1
                               : (sgn && a == -1) ? ~std::uint64_t{0}
                                                  : 0;
                        break;
                    case 3: want = a_less ? ua : ub; break;
                    default: want = a_less ? ub : ua; break;
                    }
                    ASSERT_EQ(int_at(got, k), truncate(want, d)) << k << ": " << a << ", " << b;
                } else {
                    const auto in = [&](auto t) {
                        using T = decltype(t);
                        const T a = static_cast<T>(value_at(h, k).real()), b = static_cast<T>(value_at(g, k).real());
                        switch (op) {
                        case 0: return static_cast<long double>(std::isnan(a) ? a : static_cast<T>((a > 0) - (a < 0)));
                        case 1: return static_cast<long double>(a * a);
                        case 2: return static_cast<long double>(T(1) / a);
                        case 3:
                            return static_cast<long double>(std::isnan(b) ? a : std::isnan(a) ? b : (b < a ? b : a));
                        case 4:
                            return static_cast<long double>(std::isnan(b) ? a : std::isnan(a) ? b : (b > a ? b : a));
                        default: return static_cast<long double>(std::copysign(a, b));
                        }
                    };
                    const long double want = to_precision(d.kind() == Kind::float64 ? in(double{}) : in(float{}), d);
                    const long double g_k = value_at(got, k).real();
                    // fmin/fmax of +0 and -0 may give either zero (C's fmin too).
                    const bool zeros = (op == 3 || op == 4) && want == 0 && g_k == 0;
                    // reciprocal is one division: exact where division is correctly rounded (PoCL,
                    // CUDA); OpenCL allows float division 2.5 ulp (NVIDIA's OpenCL takes it).
                    const long double ulp = d.kind() == Kind::float16 ? std::ldexp(1.0L, -10) : std::ldexp(1.0L, -23);
                    const bool division = op == 2 && d.kind() != Kind::float64 && std::isfinite(want) &&
                                          std::abs(g_k - want) <= 3 * ulp * std::abs(want);
                    ASSERT_TRUE(zeros || division || same_float(g_k, want))
                        << k << ": " << value_at(h, k) << ", " << value_at(g, k) << " gave " << g_k;
                }
            }
        }
    }
    // complex: sign z / |z|, square, reciprocal (numpy's, within a few roundings).
    const DType c = Kind::complex128;
    HostArray h = random_floats(c, -3, 3, false);
    const Array x = Array::from_host(queue(), h);
    const std::vector<std::function<Complex(Complex)>> refs{[](Complex z) {
                                                                return z == Complex(0) ? z : z / std::abs(z);
                                                            },
                                                            [](Complex z) { return z * z; },
                                                            [](Complex z) { return Complex(1) / z; }};
    const std::vector<Expr> exprs{sign(x), square(x), reciprocal(x)};
    for (std::size_t op = 0; op < exprs.size(); ++op) {
        const HostArray got = run(exprs[op]);
        for (std::size_t k = 0; k < n; ++k) {
            const Complex want = refs[op](value_at(h, k));
            ASSERT_LE(std::abs(value_at(got, k) - want), 8 * std::ldexp(1.0L, -53) * std::abs(want)) << op << " " << k;
        }
    }
}

TEST_P(NumpyOpsExpressionTest, TranscendentalFunctions) {
    struct Case {
        const char* name;
        std::function<Expr(const Expr&)> op;
        std::function<long double(long double)> reference;
        double low, high;
    };
    const std::vector<Case> cases{
        {"log2", [](const Expr& x) { return log2(x); }, [](long double v) { return std::log2(v); }, 0.01, 100},
        {"log10", [](const Expr& x) { return log10(x); }, [](long double v) { return std::log10(v); }, 0.01, 100},
        {"log1p", [](const Expr& x) { return log1p(x); }, [](long double v) { return std::log1p(v); }, -0.9, 10},
        {"expm1", [](const Expr& x) { return expm1(x); }, [](long double v) { return std::expm1(v); }, -5, 5},
        {"exp2", [](const Expr& x) { return exp2(x); }, [](long double v) { return std::exp2(v); }, -10, 10},
        {"tan", [](const Expr& x) { return tan(x); }, [](long double v) { return std::tan(v); }, -1.4, 1.4},
        {"arcsin", [](const Expr& x) { return arcsin(x); }, [](long double v) { return std::asin(v); }, -1, 1},
        {"arccos", [](const Expr& x) { return arccos(x); }, [](long double v) { return std::acos(v); }, -1, 1},
        {"arctan", [](const Expr& x) { return arctan(x); }, [](long double v) { return std::atan(v); }, -10, 10},
        {"sinh", [](const Expr& x) { return sinh(x); }, [](long double v) { return std::sinh(v); }, -5, 5},
        {"cosh", [](const Expr& x) { return cosh(x); }, [](long double v) { return std::cosh(v); }, -5, 5},
        {"arcsinh", [](const Expr& x) { return arcsinh(x); }, [](long double v) { return std::asinh(v); }, -10, 10},
        {"arccosh", [](const Expr& x) { return arccosh(x); }, [](long double v) { return std::acosh(v); }, 1, 10},
        {"arctanh", [](const Expr& x) { return arctanh(x); }, [](long double v) { return std::atanh(v); }, -0.99, 0.99},
        {"arctan2", [](const Expr& x) { return arctan2(x, x - 0.5); },
         [](long double v) { return std::atan2(v, v - 0.5L); }, -3, 3},
        {"hypot", [](const Expr& x) { return hypot(x, 2.0 * x + 1.0); },
         [](long double v) { return std::hypot(v, 2 * v + 1); }, -3, 3},
    };
    for (const DType& d : {DType(Kind::float32), DType(Kind::float64)}) {
        const long double ulp = d.kind() == Kind::float64 ? std::ldexp(1.0L, -52) : std::ldexp(1.0L, -23);
        for (const Case& c : cases) {
            // float64 for the functions whose float64 code paths differ most (each kernel costs
            // a compilation): the others are the same library calls in another width.
            const std::string name = c.name;
            if (d.kind() == Kind::float64 && name != "log1p" && name != "expm1" && name != "arctan2" &&
                name != "hypot" && name != "arccosh" && name != "tan")
                continue;
            SCOPED_TRACE(fmt::format("{} {}", c.name, d.name()));
            const HostArray h = random_floats(d, c.low, c.high, false);
            const Expr e = c.op(Array::from_host(queue(), h));
            ASSERT_EQ(e.dtype(), d);
            const HostArray got = run(e);
            for (std::size_t k = 0; k < n; ++k) {
                const long double v = value_at(h, k).real();
                // arctan2 and hypot take x - 0.5 and 2x + 1 rounded in the dtype first.
                const long double want = c.reference(v);
                const long double g = value_at(got, k).real();
                const long double scale = std::max(std::abs(want), 1e-30L);
                ASSERT_LE(std::abs(g - want),
                          16 * ulp * scale + (std::string(c.name) == "arctan2" || std::string(c.name) == "hypot"
                                                  ? 4 * ulp * std::abs(v)
                                                  : 0))
                    << k << ": " << v << " gave " << g << ", expected " << want;
            }
        }
    }
    // Integers compute in numpy's float type for them: int16 -> float32, uint8 -> float16.
    const Array i = device(std::vector<std::int16_t>{1, 8, 1000});
    ASSERT_EQ(log2(i).dtype(), DType(Kind::float32));
    const auto logs = evaluate(queue(), log2(i)).get(queue()).to_vector<float>();
    for (std::size_t k = 0; k < logs.size(); ++k)
        EXPECT_NEAR(logs[k], std::log2(std::vector<double>{1, 8, 1000}[k]), 16 * std::ldexp(1.0, -23) * 10) << k;
}

TEST_P(NumpyOpsExpressionTest, DtypesNumpyRefuses) {
    const Array c = Array::empty(bound_device(), {3}, Kind::complex64);
    const Array f = Array::empty(bound_device(), {3}, Kind::float32);
    const Array b = Array::empty(bound_device(), {3}, Kind::bool_);
    const Array i = Array::empty(bound_device(), {3}, Kind::int16);
    // numpy's TypeError: an ArgumentError naming the operation and the dtype.
    const auto refused = [](const std::function<Expr()>& make, const char* op, const char* dtype) {
        try {
            make();
            ADD_FAILURE() << op << " of " << dtype << " was accepted";
        } catch (const ArgumentError& e) {
            EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(dtype), std::string::npos) << e.what();
        }
    };
    refused([&] { return floor_divide(c, c); }, "floor_divide", "complex64");
    refused([&] { return fmod(c, 1); }, "fmod", "complex64");
    refused([&] { return kjarni::floor(c); }, "floor", "complex64");
    refused([&] { return arctan2(c, c); }, "arctan2", "complex64");
    refused([&] { return f & f; }, "&", "float32");
    refused([&] { return f << 1; }, "<<", "float32");
    refused([&] { return ~f; }, "~", "float32");
    refused([&] { return sign(b); }, "sign", "bool");
    refused([&] { return positive(b); }, "positive", "bool");
    refused([&] { return negative(b); }, "unary -", "bool");
    // Complex values of every function numpy takes them for (numpy_fidelity_test's table).
    EXPECT_EQ(tan(c).dtype(), DType(Kind::complex64));
    EXPECT_EQ(arcsin(c).dtype(), DType(Kind::complex64));
    EXPECT_EQ(arctanh(c).dtype(), DType(Kind::complex64));
    // Result dtypes as numpy's: bool // bool and bool << bool give int8, integers' rint a float,
    // integers' predicates and logical operations bool, & of bool bool.
    EXPECT_EQ(floor_divide(b, b).dtype(), DType(Kind::int8));
    EXPECT_EQ((b << b).dtype(), DType(Kind::int8));
    EXPECT_EQ((b & b).dtype(), DType(Kind::bool_));
    EXPECT_EQ(square(b).dtype(), DType(Kind::int8));
    EXPECT_EQ(rint(i).dtype(), DType(Kind::float32));
    EXPECT_EQ(hypot(i, i).dtype(), DType(Kind::float32));
    EXPECT_EQ(isnan(i).dtype(), DType(Kind::bool_));
    EXPECT_EQ(fmin(b, b).dtype(), DType(Kind::bool_));
    EXPECT_EQ(rint(c).dtype(), DType(Kind::complex64));
    EXPECT_EQ(floor_divide(i, 2.5).dtype(), DType(Kind::float64));  // NEP 50: a float scalar with integers
    EXPECT_EQ((i << 3).dtype(), DType(Kind::int16));
    // arctan2, hypot and copysign of two arrays: each one's float type, promoted (numpy's first
    // float loop both cast to safely), not the float type of their promotion: int16 with uint16
    // is float32 (int32 would give float64), int8 with uint8 float16; a weak scalar takes the
    // array's type first (int8 with 3 is float16, with 2.5 float64).
    const Expr u16 = Array::zeros(queue(), {3}, Kind::uint16), i8 = Array::zeros(queue(), {3}, Kind::int8),
               u8 = Array::zeros(queue(), {3}, Kind::uint8), i32 = Array::zeros(queue(), {3}, Kind::int32);
    EXPECT_EQ(arctan2(i, u16).dtype(), DType(Kind::float32));
    EXPECT_EQ(hypot(i8, u8).dtype(), DType(Kind::float16));
    EXPECT_EQ(copysign(i32, u16).dtype(), DType(Kind::float64));
    EXPECT_EQ(arctan2(i8, b).dtype(), DType(Kind::float16));
    EXPECT_EQ(arctan2(i8, 3).dtype(), DType(Kind::float16));
    EXPECT_EQ(arctan2(i8, 2.5).dtype(), DType(Kind::float64));
    EXPECT_EQ(arctan2(b, 3).dtype(), DType(Kind::float64));
}

}  // namespace
}  // namespace kjarni::test::numpy_ops_expression
