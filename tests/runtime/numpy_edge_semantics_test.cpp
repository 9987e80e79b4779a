// Classes of differences from numpy that the differential fuzzer (tests/numpy_fuzz/) found, each
// checked on fresh random data against CPU references of numpy's rules (numpy 2.4's answers on
// the edge values, found with numpy itself and written out as the reference functions below):
// - integer arithmetic wraps (signed overflow is undefined behaviour in the generated C; a compiler
//   may keep the wider value: int32 2147483646 + 2147483646 taken to int64 gave 4294967292);
// - min / max / argmin / argmax (and the nan* ones) refuse an empty reduced axis even where the
//   result is empty too;
// - fill with a weak (Python-style) scalar: numpy's checks of a Python scalar set into an array;
// - comparisons with a weak integer outside the array's range compare exactly;
// - complex values in numpy's order for < <= > >= minimum maximum clip fmin fmax (with numpy's NaN
//   rules).
// Every integer and boolean result is exact; complex minimum / maximum / clip pick one operand,
// compared bit for bit.

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "algorithm_test_support.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class NumpyEdgeSemanticsTest : public DeviceTest {
protected:
    HostArray run(const Expr& e) { return evaluate(queue(), e).get(queue()).copy(); }
};
KJARNI_INSTANTIATE_DEVICE_TESTS(NumpyEdgeSemanticsTest);

constexpr std::size_t edge_count = 301;

// Weak (Python-style) scalars of each kind.
Expr weak_int(std::int64_t v) { return Expr(v); }
Expr weak_uint(std::uint64_t v) { return Expr(v); }
Expr weak_real(double v) { return Expr(v); }
Expr weak_cplx(std::complex<double> v) { return Expr(v); }

int bits_of(const DType& d) { return static_cast<int>(d.itemsize() * 8); }

// A 64-bit pattern reduced to d's width, sign-extended for signed types (int_at's form): numpy's
// wrapped result.
std::uint64_t wrap(std::uint64_t v, const DType& d) {
    const int bits = bits_of(d);
    if (bits == 64) return v;
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    v &= mask;
    if (is_signed(d) && (v >> (bits - 1)) != 0) v |= ~mask;
    return v;
}

void put_bits(HostArray& a, std::size_t k, std::uint64_t v) {
    std::memcpy(a.data() + k * a.dtype().itemsize(), &v, a.dtype().itemsize());  // little-endian host
}

// Random integers of d near its extremes (where sums and products overflow) and small ones.
HostArray overflowing_ints(const DType& d, std::size_t count = edge_count) {
    HostArray a(d, {count});
    auto& rng = random_engine();
    const int bits = bits_of(d);
    const std::uint64_t min = is_signed(d) ? wrap(std::uint64_t{1} << (bits - 1), d) : 0;
    const std::uint64_t max = is_signed(d) ? min - 1 : wrap(~std::uint64_t{0}, d);
    std::uniform_int_distribution<std::uint64_t> any;
    std::uniform_int_distribution<std::uint64_t> near(0, 1000);
    std::uniform_int_distribution<int> pick(0, 3);
    for (std::size_t k = 0; k < count; ++k) {
        switch (pick(rng)) {
        case 0: put_bits(a, k, max - near(rng)); break;
        case 1: put_bits(a, k, min + near(rng)); break;
        case 2: put_bits(a, k, near(rng) - 500); break;
        default: put_bits(a, k, any(rng)); break;
        }
    }
    // The extremes themselves in every run (at random places): -min wraps to min, and a random
    // draw near min meets it only one time in a thousand.
    if (count >= 2) {
        std::uniform_int_distribution<std::size_t> place(0, count - 1);
        put_bits(a, place(rng), min);
        put_bits(a, place(rng), max);
    }
    return a;
}

constexpr Kind integer_kinds[] = {Kind::int8,  Kind::uint8,  Kind::int16, Kind::uint16,
                                  Kind::int32, Kind::uint32, Kind::int64, Kind::uint64};

TEST_P(NumpyEdgeSemanticsTest, IntegerArithmeticWrapsAsNumpy) {
    // Each result is taken on to a 64-bit type in the same expression, so that a compiler that
    // kept the wider value of an overflowing signed operation shows it.
    for (const Kind kind : integer_kinds) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        const DType wide = is_signed(d) ? DType(Kind::int64) : DType(Kind::uint64);
        HostArray ha = overflowing_ints(d), hb = overflowing_ints(d);
        const Array a = Array::from_host(queue(), ha), b = Array::from_host(queue(), hb);
        const Expr e3 = scalar_integer(3, d);
        std::vector<std::pair<const char*, Expr>> ops{{"a + b", a + b},       {"a - b", a - b},
                                                      {"a * b", a * b},       {"-a", -Expr(a)},
                                                      {"abs(a)", abs(a)},     {"square(a)", square(a)},
                                                      {"a ** 3", pow(a, e3)}, {"(a + b) * 3", (a + b) * e3}};
        // MIN // -1 wraps to MIN as -MIN does (C's division would trap).
        if (is_signed(d)) ops.emplace_back("a // -1", floor_divide(a, scalar_integer(-1, d)));
        for (std::size_t op = 0; op < ops.size(); ++op) {
            SCOPED_TRACE(ops[op].first);
            const Expr value = ops[op].second;
            ASSERT_EQ(value.dtype(), d);
            const HostArray got = run(astype(value, wide));
            for (std::size_t k = 0; k < edge_count; ++k) {
                const std::uint64_t x = int_at(ha, k), y = int_at(hb, k);
                const bool negative = is_signed(d) && static_cast<std::int64_t>(x) < 0;
                const std::uint64_t want = op == 0   ? x + y
                                           : op == 1 ? x - y
                                           : op == 2 ? x * y
                                           : op == 3 ? 0 - x
                                           : op == 4 ? (negative ? 0 - x : x)
                                           : op == 5 ? x * x
                                           : op == 6 ? x * x * x
                                           : op == 7 ? (x + y) * 3
                                                     : 0 - x;
                ASSERT_EQ(int_at(got, k), wrap(want, d))
                    << "element " << k << ": " << static_cast<std::int64_t>(x) << ", " << static_cast<std::int64_t>(y);
            }
        }
    }
}

TEST_P(NumpyEdgeSemanticsTest, IntegersToANegativeScalarPowerAreRefusedAsNumpy) {
    // numpy: ValueError "Integers to negative integer powers are not allowed" wherever its loop
    // meets a negative integer exponent, so not for an empty result; a float base takes any power.
    for (const Kind kind : {Kind::bool_, Kind::int8, Kind::int32, Kind::int64, Kind::uint16}) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        HostArray host(d, {5});
        for (std::size_t k = 0; k < 5; ++k) put_bits(host, k, k % 2 == 0 || kind == Kind::bool_ ? 1 : 7);
        const Array a = Array::from_host(queue(), host);
        const Array empty = Array::zeros(queue(), {0, 3}, d);
        const bool is_unsigned = is_integer(d) && !is_signed(d);
        if (!is_unsigned) {  // (a weak -1 does not fit an unsigned dtype: that error comes first)
            EXPECT_THROW(pow(a, weak_int(-1)), ArgumentError);
            EXPECT_NO_THROW(pow(empty, weak_int(-1)));
        }
        EXPECT_THROW(pow(a, scalar_integer(-2, Kind::int64)), ArgumentError);
        try {
            (void)pow(a, scalar_integer(-3, Kind::int8));
            ADD_FAILURE() << "no error";
        } catch (const ArgumentError& e) {
            EXPECT_EQ(e.argument(), "exponent");
            EXPECT_NE(std::string(e.what()).find("-3"), std::string::npos) << e.what();
        }
        EXPECT_NO_THROW(pow(empty, scalar_integer(-2, Kind::int64)));
        EXPECT_NO_THROW(pow(a, weak_int(0)));
        // A float result takes a negative exponent: a ** -1.0 and a ** -1 of a float array.
        const HostArray r = run(pow(a, weak_real(-1.0)));
        EXPECT_EQ(r.dtype(), DType(Kind::float64));
        const Array f = Array::from_host(queue(), HostArray(DType(Kind::float32), {1}));
        EXPECT_NO_THROW(pow(f, weak_int(-1)));
    }
}

TEST_P(NumpyEdgeSemanticsTest, SignedSmallIntegerLanesKeepTheirSign) {
    // The numpy fuzzer through NVIDIA's OpenCL (seed 137): cos(a + 3) of int8 [-1, -2, 0, ...]
    // gave cos(-254) in its first element, the compiler having lost the sign extension of the
    // first 8-bit lane of a loaded vector in arithmetic narrowed back to int8 (device_code.hpp's
    // read_lane). The case's values, then random ones; cos and sin of a + 3 (a weak integer, as
    // there) come in float16 for int8 and float32 for int16, as numpy's do, within 2^-10 and 2^-21
    // (the device's cos and sin err by up to 4 ulps of float32, 2^-22 here, then are rounded).
    const std::int8_t case_values[] = {-1, -2, 0, -6, -7, -1, -128, -7, -7, 4};
    for (const Kind kind : {Kind::int8, Kind::int16}) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        HostArray h = overflowing_ints(d);
        for (std::size_t k = 0; k < std::size(case_values); ++k)
            put_bits(h, k, static_cast<std::uint64_t>(static_cast<std::int64_t>(case_values[k])));
        const Array a = Array::from_host(queue(), h);
        const Expr shifted = a + weak_uint(3);
        const DType result = kind == Kind::int8 ? DType(Kind::float16) : DType(Kind::float32);
        const double bound = kind == Kind::int8 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -21);
        for (const bool use_sin : {false, true}) {
            const Expr e = use_sin ? sin(shifted) : cos(shifted);
            ASSERT_EQ(e.dtype(), result);
            const HostArray got = run(e);
            for (std::size_t k = 0; k < edge_count; ++k) {
                const auto x = static_cast<double>(static_cast<std::int64_t>(wrap(int_at(h, k) + 3, d)));
                const double want = use_sin ? std::sin(x) : std::cos(x);
                ASSERT_NEAR(static_cast<double>(value_at(got, k).real()), want, bound)
                    << (use_sin ? "sin" : "cos") << "(" << x << "), element " << k;
            }
        }
    }
}

TEST_P(NumpyEdgeSemanticsTest, IntegerSumsProductsAndScansWrapAsNumpy) {
    for (const Kind kind : {Kind::int64, Kind::uint64, Kind::int32}) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        const std::size_t count = 5000;
        HostArray h = overflowing_ints(d, count);
        const Array a = Array::from_host(queue(), h);
        // int32 with dtype=int32: numpy accumulates in int32 and wraps.
        const std::optional<DType> as = DType(kind);
        const HostArray s = sum(queue(), a, {}, as).get(queue()).copy();
        const HostArray c = cumsum(queue(), a, std::nullopt, as).get(queue()).copy();
        std::uint64_t want_sum = 0, want_prod = 1;
        for (std::size_t k = 0; k < count; ++k) {
            want_sum += int_at(h, k);
            want_prod *= int_at(h, k) | 1;  // odd factors: the product never becomes 0
            ASSERT_EQ(int_at(c, k), wrap(want_sum, d)) << "cumsum at " << k;
        }
        EXPECT_EQ(int_at(s, 0), wrap(want_sum, d));
        // prod of the odd values: the same elements with bit 0 set.
        HostArray odd = h.copy();
        for (std::size_t k = 0; k < count; ++k) put_bits(odd, k, int_at(h, k) | 1);
        const HostArray po = prod(queue(), Array::from_host(queue(), odd), {}, as).get(queue()).copy();
        EXPECT_EQ(int_at(po, 0), wrap(want_prod, d));
        if (kind == Kind::int64) {
            HostArray h2 = overflowing_ints(d, count);
            const HostArray dt = dot(queue(), a, Array::from_host(queue(), h2)).get(queue()).copy();
            std::uint64_t want = 0;
            for (std::size_t k = 0; k < count; ++k) want += int_at(h, k) * int_at(h2, k);
            EXPECT_EQ(int_at(dt, 0), want) << "dot";
        }
    }
}

TEST_P(NumpyEdgeSemanticsTest, ExtremaRefuseAnEmptyReducedAxisEvenWhenTheResultIsEmpty) {
    using Reduce = std::function<Array(const Queue&, const Array&, const ReduceOptions&)>;
    const std::vector<std::pair<const char*, Reduce>>
        reductions{{"min", [](auto& q, auto& a, auto& o) { return min(q, a, o); }},
                   {"max", [](auto& q, auto& a, auto& o) { return max(q, a, o); }},
                   {"argmin", [](auto& q, auto& a, auto& o) { return argmin(q, a, o); }},
                   {"argmax", [](auto& q, auto& a, auto& o) { return argmax(q, a, o); }},
                   {"nanmin", [](auto& q, auto& a, auto& o) { return nanmin(q, a, o); }},
                   {"nanmax", [](auto& q, auto& a, auto& o) { return nanmax(q, a, o); }},
                   {"nanargmin", [](auto& q, auto& a, auto& o) { return nanargmin(q, a, o); }},
                   {"nanargmax", [](auto& q, auto& a, auto& o) { return nanargmax(q, a, o); }}};
    // (shape, axes, numpy raises): numpy 2.4's answers.
    struct Case {
        std::vector<std::size_t> shape;
        std::optional<std::vector<int>> axes;
        bool raises;
    };
    const std::vector<Case> cases{{{2, 0, 0}, std::vector<int>{1}, true}, {{2, 0, 0}, std::vector<int>{2}, true},
                                  {{2, 0, 0}, std::nullopt, true},        {{2, 0, 0}, std::vector<int>{0}, false},
                                  {{0, 3}, std::vector<int>{1}, false},   {{0, 3}, std::vector<int>{0}, true},
                                  {{3, 0}, std::vector<int>{1}, true}};
    for (const auto& [name, reduce] : reductions) {
        for (const Case& c : cases) {
            SCOPED_TRACE(fmt::format("{} of shape ({}) over {}", name, fmt::join(c.shape, ", "),
                                     c.axes ? fmt::format("axes {}", fmt::join(*c.axes, ", ")) : "every axis"));
            const Array a = Array::empty(bound_device(), c.shape, Kind::float32);
            for (const bool keepdims : {false, true}) {
                ReduceOptions options;
                options.axes = c.axes;
                options.keepdims = keepdims;
                if (c.raises) {
                    EXPECT_THROW(reduce(queue(), a, options), ArgumentError);
                } else {
                    const Array r = reduce(queue(), a, options);
                    EXPECT_EQ(r.size(), 0u);
                }
            }
        }
    }
}

// numpy 2's `a[...] = x` for a Python scalar x into an integer array: int(x) must fit.
TEST_P(NumpyEdgeSemanticsTest, FillWithWeakScalarsChecksAsNumpy) {
    auto& rng = random_engine();
    const Array dst_bool = Array::empty(bound_device(), {7}, Kind::bool_);
    for (const Kind kind : integer_kinds) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        const int bits = bits_of(d);
        const Array a = Array::empty(bound_device(), {7}, d);
        // The range's ends as exact integers (128-bit arithmetic is not needed: compare in halves).
        const std::int64_t low =
            is_signed(d) ? (bits == 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (bits - 1)))
                         : 0;
        const std::uint64_t high = is_signed(d) ? (std::uint64_t{1} << (bits - 1)) - 1
                                                : (bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1);
        const auto check = [&](const Expr& value, std::uint64_t want) {
            fill(queue(), a, value);
            const HostArray got = a.get(queue()).copy();
            for (std::size_t k = 0; k < 7; ++k) ASSERT_EQ(int_at(got, k), want);
        };
        // In range: the ends and random values, as integers and as floats with a fraction.
        std::uniform_int_distribution<std::int64_t> inside(std::max<std::int64_t>(low, -(std::int64_t{1} << 40)),
                                                           static_cast<std::int64_t>(
                                                               std::min<std::uint64_t>(high, std::uint64_t{1} << 40)));
        check(weak_int(low), static_cast<std::uint64_t>(low));
        check(weak_uint(high), wrap(high, d));
        for (int r = 0; r < 3; ++r) {
            const std::int64_t v = inside(rng);
            check(weak_int(v), static_cast<std::uint64_t>(v));
            const double f = static_cast<double>(v) + (v >= 0 ? 0.75 : -0.75);  // numpy's int(f): toward zero
            if (static_cast<double>(v) == f - (v >= 0 ? 0.75 : -0.75))
                check(weak_real(f), static_cast<std::uint64_t>(v));
        }
        check(weak_real(-0.5), 0);  // int(-0.5) is 0, in every integer type
        // Out of range: numpy's OverflowError (or ValueError for NaN, TypeError for complex).
        if (bits < 64) {
            EXPECT_THROW(fill(queue(), a, weak_uint(high + 1)), ArgumentError);
            EXPECT_THROW(fill(queue(), a, weak_int(low - 1)), ArgumentError);
            EXPECT_THROW(fill(queue(), a, weak_real(static_cast<double>(high) + 1)), ArgumentError);
        } else {
            EXPECT_THROW(fill(queue(), a, weak_real(std::ldexp(1.0, is_signed(d) ? 63 : 64))), ArgumentError);
            if (is_signed(d)) {
                EXPECT_THROW(fill(queue(), a, weak_uint(high + 1)), ArgumentError);
            }
        }
        if (!is_signed(d)) {
            EXPECT_THROW(fill(queue(), a, weak_int(-1)), ArgumentError);
            EXPECT_THROW(fill(queue(), a, weak_real(-1.0)), ArgumentError);
        }
        EXPECT_THROW(fill(queue(), a, weak_real(1e30)), ArgumentError);
        EXPECT_THROW(fill(queue(), a, weak_real(std::numeric_limits<double>::quiet_NaN())), ArgumentError);
        EXPECT_THROW(fill(queue(), a, weak_real(-std::numeric_limits<double>::infinity())), ArgumentError);
        EXPECT_THROW(fill(queue(), a, weak_cplx({1.0, 2.0})), ArgumentError);
        EXPECT_THROW(fill(queue(), a, weak_cplx({1.0, 0.0})), ArgumentError);
    }
    // Real floats refuse a weak complex too; complex and bool arrays take it; bool takes anything.
    for (const Kind kind : {Kind::float16, Kind::float32, Kind::float64})
        EXPECT_THROW(fill(queue(), Array::empty(bound_device(), {3}, kind), weak_cplx({0.5, 0.0})), ArgumentError);
    const Array c = Array::empty(bound_device(), {3}, Kind::complex64);
    fill(queue(), c, weak_cplx({0.5, -2.0}));
    EXPECT_EQ(value_at(c.get(queue()).copy(), 2), Complex(0.5L, -2.0L));
    fill(queue(), dst_bool, weak_cplx({0.0, 1e-300}));
    EXPECT_EQ(int_at(dst_bool.get(queue()).copy(), 0), 1u);
    fill(queue(), dst_bool, weak_int(300));
    EXPECT_EQ(int_at(dst_bool.get(queue()).copy(), 6), 1u);
}

TEST_P(NumpyEdgeSemanticsTest, ComparisonsWithWeakIntegersOutOfRangeAreExact) {
    // numpy 2 compares a Python integer the array's type cannot hold exactly (uint8 >= -128 is
    // true everywhere) and takes it in its logical functions; arithmetic with it is an
    // OverflowError (ArgumentError here).
    for (const Kind kind : integer_kinds) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        HostArray h = overflowing_ints(d);
        const Array a = Array::from_host(queue(), h);
        const int bits = bits_of(d);
        std::vector<Expr> outside;
        std::vector<long double> values;
        if (!is_signed(d)) {
            outside.push_back(weak_int(-1)), values.push_back(-1);
            outside.push_back(weak_int(-128)), values.push_back(-128);
        }
        if (bits < 64) {
            const long double beyond = std::ldexp(1.0L, is_signed(d) ? bits - 1 : bits);
            outside.push_back(weak_int(static_cast<std::int64_t>(beyond))), values.push_back(beyond);
            if (is_signed(d))
                outside.push_back(weak_int(-static_cast<std::int64_t>(beyond) - 1)), values.push_back(-beyond - 1);
        } else if (is_signed(d)) {
            outside.push_back(weak_uint(std::uint64_t{1} << 63)), values.push_back(std::ldexp(1.0L, 63));
        }
        for (std::size_t j = 0; j < outside.size(); ++j) {
            const Expr& s = outside[j];
            const long double v = values[j];
            EXPECT_THROW(run(a + s), ArgumentError);
            // numpy's logical functions take it too (its truth is all they read).
            const HostArray logic =
                run(astype(logical_and(a, s), Kind::uint8) + astype(logical_or(s, a), Kind::uint8) * 2 +
                    astype(logical_xor(a, s), Kind::uint8) * 4);
            for (std::size_t k = 0; k < edge_count; ++k) {
                const bool x = value_at(h, k).real() != 0, y = v != 0;
                const auto want = static_cast<std::uint64_t>((x && y) + (x || y) * 2 + (x != y) * 4);
                ASSERT_EQ(int_at(logic, k), want)
                    << "logical functions of element " << k << " and " << static_cast<double>(v);
            }
            Expr bits_of_all = astype(a < s, Kind::uint8) + astype(a <= s, Kind::uint8) * 2 +
                               astype(a > s, Kind::uint8) * 4 + astype(a >= s, Kind::uint8) * 8 +
                               astype(a == s, Kind::uint8) * 16 + astype(a != s, Kind::uint8) * 32 +
                               astype(s < a, Kind::uint8) * 64;
            const HostArray got = run(bits_of_all);
            for (std::size_t k = 0; k < edge_count; ++k) {
                const long double x = value_at(h, k).real();  // exact: |x| < 2^64 fits long double's 64-bit mantissa
                const auto want = static_cast<std::uint64_t>((x < v) + (x <= v) * 2 + (x > v) * 4 + (x >= v) * 8 +
                                                             (x == v) * 16 + (x != v) * 32 + (v < x) * 64);
                ASSERT_EQ(int_at(got, k), want) << "element " << k << " against " << static_cast<double>(v);
            }
        }
    }
}

// numpy's complex order (umath's CLT/CLE and minimum/maximum loops, np.clip's own loop), checked
// against numpy 2.4 on every pair of {0, -0, 1, -1, 2, inf, -inf, nan} parts.
bool nan_part(Complex z) { return std::isnan(z.real()) || std::isnan(z.imag()); }
bool c_less(Complex a, Complex b) {
    return (a.real() < b.real() && !std::isnan(a.imag()) && !std::isnan(b.imag())) ||
           (a.real() == b.real() && a.imag() < b.imag());
}
bool c_less_equal(Complex a, Complex b) {
    return (a.real() < b.real() && !std::isnan(a.imag()) && !std::isnan(b.imag())) ||
           (a.real() == b.real() && a.imag() <= b.imag());
}
Complex c_minimum(Complex a, Complex b) { return nan_part(a) || c_less_equal(a, b) ? a : b; }
Complex c_maximum(Complex a, Complex b) { return nan_part(a) || c_less_equal(b, a) ? a : b; }
// fmin and fmax ignore an operand with a NaN part (the first where both have one).
Complex c_fmin(Complex a, Complex b) { return c_less_equal(a, b) || nan_part(b) ? a : b; }
Complex c_fmax(Complex a, Complex b) { return c_less_equal(b, a) || nan_part(b) ? a : b; }
Complex c_clip(Complex x, Complex low, Complex high) {
    const auto above = [](Complex p, Complex q) {
        return p.real() == q.real() ? p.imag() > q.imag() : p.real() > q.real();
    };
    const auto below = [](Complex p, Complex q) {
        return p.real() == q.real() ? p.imag() < q.imag() : p.real() < q.real();
    };
    const Complex m = nan_part(x) || above(x, low) ? x : low;
    return nan_part(m) || below(m, high) ? m : high;
}

bool same_bits(Complex got, Complex want) {
    const auto same = [](long double g, long double w) {
        return std::isnan(w) ? std::isnan(g) : g == w && std::signbit(g) == std::signbit(w);
    };
    return same(got.real(), want.real()) && same(got.imag(), want.imag());
}

// Complex values whose parts come from a small set with specials (so that equal real parts, NaN
// and signed zeros are frequent), or random.
HostArray ordering_values(const DType& d) {
    HostArray a(d, {edge_count});
    auto& rng = random_engine();
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const double parts[] = {0.0, -0.0, 1.0, -1.0, 2.5, inf, -inf, nan};
    std::uniform_int_distribution<int> pick(0, 9);
    std::uniform_real_distribution<double> any(-3, 3);
    const auto part = [&] {
        const int p = pick(rng);
        return p < 8 ? parts[p] : any(rng);
    };
    for (std::size_t k = 0; k < edge_count; ++k) {
        const double re = part(), im = part();
        if (d.kind() == Kind::complex64) {
            const std::complex<float> v(static_cast<float>(re), static_cast<float>(im));
            std::memcpy(a.data() + k * 8, &v, 8);
        } else {
            const std::complex<double> v(re, im);
            std::memcpy(a.data() + k * 16, &v, 16);
        }
    }
    return a;
}

TEST_P(NumpyEdgeSemanticsTest, ComplexValuesOrderAsNumpy) {
    for (const Kind kind : {Kind::complex64, Kind::complex128}) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        HostArray ha = ordering_values(d), hb = ordering_values(d), hc = ordering_values(d);
        const Array a = Array::from_host(queue(), ha), b = Array::from_host(queue(), hb),
                    c = Array::from_host(queue(), hc);
        const HostArray order = run(astype(Expr(a) < b, Kind::uint8) + astype(Expr(a) <= b, Kind::uint8) * 2 +
                                    astype(Expr(a) > b, Kind::uint8) * 4 + astype(Expr(a) >= b, Kind::uint8) * 8);
        const HostArray lo = run(minimum(a, b)), hi = run(maximum(a, b)), clipped = run(clip(a, b, c));
        const HostArray f_lo = run(fmin(a, b)), f_hi = run(fmax(a, b));
        // A weak real scalar promotes to the complex type (the fuzzer's case: maximum(a, 0.0)).
        const HostArray with_zero = run(maximum(a, 0.0));
        for (std::size_t k = 0; k < edge_count; ++k) {
            const Complex x = value_at(ha, k), y = value_at(hb, k), z = value_at(hc, k);
            const auto want = static_cast<std::uint64_t>(c_less(x, y) + c_less_equal(x, y) * 2 + c_less(y, x) * 4 +
                                                         c_less_equal(y, x) * 8);
            ASSERT_EQ(int_at(order, k), want) << x << " against " << y;
            ASSERT_TRUE(same_bits(value_at(lo, k), c_minimum(x, y))) << "minimum " << x << ", " << y;
            ASSERT_TRUE(same_bits(value_at(hi, k), c_maximum(x, y))) << "maximum " << x << ", " << y;
            ASSERT_TRUE(same_bits(value_at(clipped, k), c_clip(x, y, z))) << "clip " << x << ", " << y << ", " << z;
            ASSERT_TRUE(same_bits(value_at(f_lo, k), c_fmin(x, y))) << "fmin " << x << ", " << y;
            ASSERT_TRUE(same_bits(value_at(f_hi, k), c_fmax(x, y))) << "fmax " << x << ", " << y;
            ASSERT_TRUE(same_bits(value_at(with_zero, k), c_maximum(x, Complex(0, 0)))) << "maximum " << x << ", 0";
        }
    }
}

// numpy's real minimum / maximum (its float32 and float64 loops return the second of two equal
// operands, its float16 loops the first) and np.clip (minimum(maximum(x, low), high) with the
// same picks, but the first of two equal operands when both bounds are scalars: its loop's path
// for stride-0 bounds). Both propagate a NaN of either operand. Checked against numpy 2.4 on x86
// on every triple of {0, -0, 1, -1, 2.5, inf, -inf, nan}; the picks show for +0.0 against -0.0.
double pick(double a, double b, bool maximum, bool first_on_ties) {
    if (std::isnan(a)) return a;
    const auto before = [maximum](double p, double q) { return maximum ? p > q : p < q; };
    if (first_on_ties) return std::isnan(b) || before(b, a) ? b : a;
    return before(a, b) ? a : b;
}
double clip_of(double x, double low, double high, bool first_on_ties) {
    return pick(pick(x, low, true, first_on_ties), high, false, first_on_ties);
}

// float64 values from a small set with specials (so that signed zeros, ties and NaN are
// frequent), or quarters in [-3, 3]: each exact in float16 too.
HostArray real_ordering_values() {
    HostArray a(Kind::float64, {edge_count});
    auto& rng = random_engine();
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const double specials[] = {0.0, -0.0, 1.0, -1.0, 2.5, inf, -inf, nan};
    std::uniform_int_distribution<int> which(0, 9);
    std::uniform_int_distribution<int> quarters(-12, 12);
    for (std::size_t k = 0; k < edge_count; ++k) {
        const int w = which(rng);
        const double v = w < 8 ? specials[w] : quarters(rng) / 4.0;
        std::memcpy(a.data() + k * 8, &v, 8);
    }
    return a;
}

// Element k of a real array (exact: every value here is a double).
double real_at(const HostArray& a, std::size_t k) { return static_cast<double>(value_at(a, k).real()); }

bool same_real(long double got, double want) {
    return std::isnan(want) ? std::isnan(got) : got == want && std::signbit(got) == std::signbit(want);
}

TEST_P(NumpyEdgeSemanticsTest, RealMinimumMaximumAndClipPickTheOperandNumpyDoes) {
    const double specials[] =
        {0.0, -0.0, 1.0, -1.0, 2.5, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
    for (const Kind kind : {Kind::float16, Kind::float32, Kind::float64}) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        const bool half = kind == Kind::float16;
        const HostArray ha = real_ordering_values(), hb = real_ordering_values(), hc = real_ordering_values();
        const Expr a = astype(Array::from_host(queue(), ha), d), b = astype(Array::from_host(queue(), hb), d),
                   c = astype(Array::from_host(queue(), hc), d);
        const HostArray lo = run(minimum(a, b)), hi = run(maximum(a, b)), clipped = run(clip(a, b, c));
        const HostArray f_lo = run(fmin(a, b)), f_hi = run(fmax(a, b));
        for (std::size_t k = 0; k < edge_count; ++k) {
            const double x = real_at(ha, k), y = real_at(hb, k), z = real_at(hc, k);
            ASSERT_TRUE(same_real(value_at(lo, k).real(), pick(x, y, false, half))) << "minimum " << x << ", " << y;
            ASSERT_TRUE(same_real(value_at(hi, k).real(), pick(x, y, true, half))) << "maximum " << x << ", " << y;
            ASSERT_TRUE(same_real(value_at(clipped, k).real(), clip_of(x, y, z, half)))
                << "clip " << x << ", " << y << ", " << z;
        }
        // Scalar bounds, weak (Python floats) and of the array's type, and one-element arrays:
        // numpy's stride-0 path, which keeps x where it equals a bound. An array bound beside a
        // scalar one takes the bound.
        for (const double low : specials) {
            for (const double high : specials) {
                HostArray one_low(Kind::float64, {1}), one_high(Kind::float64, {1});
                std::memcpy(one_low.data(), &low, 8);
                std::memcpy(one_high.data(), &high, 8);
                const Expr low_array = astype(Array::from_host(queue(), one_low), d);
                const Expr high_array = astype(Array::from_host(queue(), one_high), d);
                const HostArray weak = run(clip(a, low, high)), typed = run(clip(a, scalar(low, d), scalar(high, d))),
                                arrays = run(clip(a, low_array, high_array)), mixed = run(clip(a, b, high));
                for (std::size_t k = 0; k < edge_count; ++k) {
                    const double x = real_at(ha, k), y = real_at(hb, k);
                    const double want = clip_of(x, low, high, true);
                    const auto where = [&] { return fmt::format("clip({}, {}, {})", x, low, high); };
                    ASSERT_TRUE(same_real(value_at(weak, k).real(), want)) << where() << ", weak bounds";
                    ASSERT_TRUE(same_real(value_at(typed, k).real(), want)) << where() << ", typed scalar bounds";
                    ASSERT_TRUE(same_real(value_at(arrays, k).real(), want)) << where() << ", one-element bounds";
                    ASSERT_TRUE(same_real(value_at(mixed, k).real(), clip_of(x, y, high, half)))
                        << "clip(" << x << ", " << y << ", " << high << "), an array and a scalar bound";
                }
                // One element each, of one shape and type: numpy's trivial loop steps through the
                // bounds at their own stride and takes them (float16's loop keeps x all the same);
                // an x of shape (1, 1) broadcasts them again (stride 0).
                for (const double x : specials) {
                    HostArray one_x(Kind::float64, {1}), one_by_one(Kind::float64, {1, 1});
                    std::memcpy(one_x.data(), &x, 8);
                    std::memcpy(one_by_one.data(), &x, 8);
                    const double trivial =
                        real_at(run(clip(astype(Array::from_host(queue(), one_x), d), low_array, high_array)), 0);
                    const double broadcast =
                        real_at(run(clip(astype(Array::from_host(queue(), one_by_one), d), low_array, high_array)), 0);
                    ASSERT_TRUE(same_real(trivial, clip_of(x, low, high, half)))
                        << "clip(" << x << ", " << low << ", " << high << "), one element each";
                    ASSERT_TRUE(same_real(broadcast, clip_of(x, low, high, true)))
                        << "clip(" << x << ", " << low << ", " << high << "), x of shape (1, 1)";
                }
            }
        }
    }
}

}  // namespace
}  // namespace kjarni::test
