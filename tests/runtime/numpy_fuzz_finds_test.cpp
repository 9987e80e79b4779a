// Differences from numpy that long runs of the differential fuzzer (tests/numpy_fuzz/) found, each
// checked on fresh random data against numpy's rule (found with numpy 2.4 itself):
// - astype to bool inside an expression whose result is not bool: a uint8 value becomes 0 or 1
//   (bool and uint8 share their C type, and the conversion was taken for a no-op: assign(a,
//   astype(a, bool)) left a uint8 4 as 4, numpy's np.copyto gives 1);
// - np.where's weak (Python) integers wrap into the result dtype, as np.where converts them
//   unsafely (np.where(c, int8_array, 300) holds 44; a ufunc would raise OverflowError).
// Every result is an integer or bool, compared exactly.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "algorithm_test_support.hpp"
#include "dtype/half.hpp"
#include "kjarni/expression.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class NumpyFuzzFindsTest : public DeviceTest {
protected:
    HostArray run(const Expr& e) { return evaluate(queue(), e).get(queue()).copy(); }
};
KJARNI_INSTANTIATE_DEVICE_TESTS(NumpyFuzzFindsTest);

constexpr Kind fuzz_find_integer_kinds[] = {Kind::int8,  Kind::uint8,  Kind::int16, Kind::uint16,
                                            Kind::int32, Kind::uint32, Kind::int64, Kind::uint64};

// Random integers of every size, a quarter of them zero (so that both truth values occur).
HostArray random_ints(const DType& d, std::size_t count) {
    HostArray a(d, {count});
    auto& rng = random_engine();
    std::uniform_int_distribution<std::uint64_t> any;
    std::bernoulli_distribution zero(0.25);
    for (std::size_t k = 0; k < count; ++k) {
        const std::uint64_t v = zero(rng) ? 0 : any(rng) >> std::uniform_int_distribution<int>(0, 63)(rng);
        std::memcpy(a.data() + k * d.itemsize(), &v, d.itemsize());  // little-endian host
    }
    return a;
}

TEST_P(NumpyFuzzFindsTest, AstypeToBoolGivesZeroOrOneInsideAnyExpression) {
    constexpr std::size_t n = 257;
    for (const Kind kind : fuzz_find_integer_kinds) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        const HostArray h = random_ints(d, n);
        const Array a = Array::from_host(queue(), h);
        // The truth values taken on as integers (numpy: x.astype(bool).astype(int64), and
        // x.astype(bool) * 3 promoted to int64 by the weak 3).
        const HostArray as_int = run(astype(astype(a, dtypes::bool_), dtypes::int64));
        const HostArray tripled = run(astype(a, dtypes::bool_) * Expr(std::int64_t{3}));
        ASSERT_EQ(tripled.dtype(), DType(Kind::int64));
        // np.copyto(a, a.astype(bool)): the bool converted back into a's dtype.
        const Array in_place = Array::from_host(queue(), h);
        assign(queue(), in_place, astype(in_place, dtypes::bool_));
        const HostArray assigned = in_place.get(queue()).copy();
        for (std::size_t k = 0; k < n; ++k) {
            const std::uint64_t truth = int_at(h, k) != 0 ? 1 : 0;
            ASSERT_EQ(int_at(as_int, k), truth) << "element " << k << ": " << int_at(h, k);
            ASSERT_EQ(int_at(tripled, k), 3 * truth) << "element " << k;
            ASSERT_EQ(int_at(assigned, k), truth) << "element " << k;
        }
    }
}

// numpy's np.where(c, x, v) for a Python int v and an integer result dtype: v as int64 (uint64 past
// int64's range), cast to the result dtype as C casts (wrapping).
TEST_P(NumpyFuzzFindsTest, WhereWrapsWeakIntegersIntoTheResultDtype) {
    constexpr std::size_t n = 101;
    auto& rng = random_engine();
    std::bernoulli_distribution coin;
    HostArray hc(DType(Kind::bool_), {n});
    for (std::size_t k = 0; k < n; ++k) hc.data()[k] = std::byte{static_cast<std::uint8_t>(coin(rng))};
    const Array c = Array::from_host(queue(), hc);
    std::uniform_int_distribution<std::uint64_t> any;
    for (const Kind kind : fuzz_find_integer_kinds) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        const HostArray hx = random_ints(d, n);
        const Array x = Array::from_host(queue(), hx);
        const auto bits = static_cast<int>(d.itemsize() * 8);
        const auto wrapped = [&](std::uint64_t v) {
            if (bits == 64) return v;
            const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
            v &= mask;
            if (is_signed(d) && (v >> (bits - 1)) != 0) v |= ~mask;  // int_at's sign extension
            return v;
        };
        // Values past the dtype's range on both sides (4294967295 into int8 is -1), and random ones.
        const std::int64_t signed_values[] = {300, -129, -1, std::numeric_limits<std::int64_t>::min(),
                                              static_cast<std::int64_t>(any(rng))};
        const std::uint64_t unsigned_values[] = {4294967295u, ~std::uint64_t{0}, std::uint64_t{1} << 63, any(rng)};
        const auto check = [&](const Expr& v, std::uint64_t bits_of_v) {
            const Expr first = where(c, x, v), second = where(c, v, x);
            ASSERT_EQ(first.dtype(), d);
            ASSERT_EQ(second.dtype(), d);
            const HostArray got_first = run(first), got_second = run(second);
            for (std::size_t k = 0; k < n; ++k) {
                const bool on = hc.data()[k] != std::byte{0};
                ASSERT_EQ(int_at(got_first, k), on ? int_at(hx, k) : wrapped(bits_of_v)) << "element " << k;
                ASSERT_EQ(int_at(got_second, k), on ? wrapped(bits_of_v) : int_at(hx, k)) << "element " << k;
            }
        };
        for (const std::int64_t v : signed_values) {
            SCOPED_TRACE(v);
            check(Expr(v), static_cast<std::uint64_t>(v));
        }
        for (const std::uint64_t v : unsigned_values) {
            SCOPED_TRACE(v);
            check(Expr(v), v);
        }
    }
    // Two weak integers: numpy's default int64, the one past its range wrapped.
    const Expr both = where(c, Expr(std::uint64_t{1} << 63), Expr(std::int64_t{300}));
    ASSERT_EQ(both.dtype(), DType(Kind::int64));
    const HostArray got = run(both);
    for (std::size_t k = 0; k < n; ++k)
        ASSERT_EQ(int_at(got, k), hc.data()[k] != std::byte{0} ? std::uint64_t{1} << 63 : 300u);
    // A ufunc still refuses such a value (NEP 50's OverflowError): maximum(int8, 300).
    const Array x8 = Array::from_host(queue(), random_ints(DType(Kind::int8), n));
    EXPECT_THROW(run(maximum(x8, Expr(std::int64_t{300}))), ArgumentError);
}

// numpy's float16 loops round every result to float16 (computed in float32): an intermediate past
// 65504 is inf, and a sum's rounding shows in what follows. kjarni kept float16 intermediates in
// float32 (class float16-intermediate): (a * b) * c gave a finite value where numpy has inf.
TEST_P(NumpyFuzzFindsTest, Float16IntermediatesRoundAndOverflowAsNumpy) {
    constexpr std::size_t n = 301;
    auto& rng = random_engine();
    std::uniform_real_distribution<float> big(100.0f, 1000.0f), unit(-1.0f, 1.0f);
    HostArray ha(DType(Kind::float16), {n}), hb(DType(Kind::float16), {n}), hc(DType(Kind::float16), {n});
    const auto put = [](HostArray& h, std::size_t k, float v) {
        const std::uint16_t bits = detail::float_to_half(v);
        std::memcpy(h.data() + 2 * k, &bits, 2);
    };
    const auto at = [](const HostArray& h, std::size_t k) {
        std::uint16_t bits;
        std::memcpy(&bits, h.data() + 2 * k, 2);
        return detail::half_to_float(bits);
    };
    for (std::size_t k = 0; k < n; ++k) {
        put(ha, k, big(rng) * (k % 3 == 0 ? -1.0f : 1.0f));  // a * b past 65504 in most elements
        put(hb, k, big(rng));
        put(hc, k, unit(rng) * 0.01f);  // (a * b) * c back in range, were a * b finite
    }
    const Array a = Array::from_host(queue(), ha), b = Array::from_host(queue(), hb), c = Array::from_host(queue(), hc);
    const auto to_half = [](float v) { return detail::half_to_float(detail::float_to_half(v)); };
    const HostArray product = evaluate(queue(), (a * b) * c).get(queue()).copy();
    const HostArray sum = evaluate(queue(), (a + c) - a).get(queue()).copy();
    // astype to float16 inside an expression rounds (and overflows) there: numpy's
    // astype(x, float16).astype(float32).
    const HostArray cast =
        evaluate(queue(), astype(astype(a * 100.0f, dtypes::float32), dtypes::float16) * c).get(queue()).copy();
    std::size_t overflowed = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const float x = at(ha, k), y = at(hb, k), z = at(hc, k);
        const float want = to_half(to_half(x * y) * z);
        if (std::isinf(want)) ++overflowed;
        ASSERT_EQ(at(product, k), want) << "element " << k << ": " << x << " * " << y << " * " << z;
        ASSERT_EQ(at(sum, k), to_half(to_half(x + z) - x)) << "element " << k;
        ASSERT_EQ(at(cast, k), to_half(to_half(to_half(x * 100.0f)) * z)) << "element " << k;
    }
    EXPECT_GT(overflowed, n / 2);  // the overflow is what the test is about
}

}  // namespace
}  // namespace kjarni::test
