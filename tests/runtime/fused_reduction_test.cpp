// Reductions of expressions in one kernel (kjarni/fusion.hpp) against CPU references on fresh
// random data, and against the unfused evaluation (the expression evaluated into an array, then
// reduced): numpy's dtypes, axes, keepdims, out= and dtype=, and the errors.
//
// Tolerances. Integer results and min, max, argmin, argmax, any, all are exact, and equal the
// unfused ones bit for bit (order does not matter to them). An element a*x + b in float (two
// roundings, or one with fma) errs by at most 2u(|a x| + |b|); a sum of m such values in any order
// of pairwise additions by (m - 1) u sum |e_i| more (u = 2^-24 for float32, 2^-53 for float64):
// we allow (m + 2) u sum|e_i| + 2 u sum(|a x_i| + |b_i|). Where the unfused reduction adds in the
// same order (a reduced run that is not a whole number of 16-byte vectors, so that neither loads
// vectors) the fused float sum equals it bit for bit. mean, var and std: the same bound for the
// sums over m, plus a few u for the divisions and the square root (checked at (m + 8) u relative
// to the sum of magnitudes).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kjarni/fusion.hpp"
#include "runtime/algorithm_test_support.hpp"
#include "support/argument_errors.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace fused_reduction_test {

class FusedReductionTest : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(FusedReductionTest);

std::vector<double> doubles(const HostArray& a) {
    std::vector<double> out(a.size());
    for (std::size_t k = 0; k < a.size(); ++k) out[k] = static_cast<double>(value_at(a, k).real());
    return out;
}

bool same_bits(const HostArray& a, const HostArray& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() &&
           std::memcmp(a.data(), b.data(), a.size() * a.dtype().itemsize()) == 0;
}

TEST_P(FusedReductionTest, SumOfAxpbAgainstReferenceAndUnfused) {
    for (const DType& dtype : {DType(Kind::float32), DType(Kind::float64)}) {
        const long double u = unit_roundoff(dtype);
        // (37, 129): rows that are no whole number of vectors, so that the unfused reduction adds
        // in the fused one's order; (2, 4096): long rows split over work groups.
        for (const std::vector<std::size_t>& shape :
             {std::vector<std::size_t>{37, 129}, std::vector<std::size_t>{2, 4096}}) {
            HostArray x = random_host(dtype, shape), b = random_host(dtype, shape);
            HostArray a = random_host(dtype, {shape[1]});  // broadcast along the rows
            const Array dx = Array::from_host(queue(), x), db = Array::from_host(queue(), b),
                        da = Array::from_host(queue(), a);
            const Expr e = da * dx + db;
            for (const auto& axes :
                 {std::optional<std::vector<int>>{}, std::optional<std::vector<int>>{std::vector<int>{1}},
                  std::optional<std::vector<int>>{std::vector<int>{0}}}) {
                ReduceOptions options;
                options.axes = axes;
                const HostArray fused = sum(queue(), e, options).get(queue());
                const HostArray unfused = sum(queue(), evaluate(queue(), e), options).get(queue());
                ASSERT_EQ(fused.dtype(), dtype);
                ASSERT_EQ(fused.shape(), unfused.shape());
                const std::vector<bool> reduced = flags(2, axes);
                const auto groups = reduction_groups(shape, reduced);
                const auto xs = doubles(x), bs = doubles(b), as = doubles(a);
                for (std::size_t o = 0; o < groups.size(); ++o) {
                    long double exact = 0, magnitude = 0, terms = 0;
                    for (const std::size_t flat : groups[o]) {
                        const long double ax = static_cast<long double>(as[flat % shape[1]]) * xs[flat];
                        exact += ax + bs[flat];
                        magnitude += std::fabs(ax + bs[flat]);
                        terms += std::fabs(ax) + std::fabs(bs[flat]);
                    }
                    const long double m = static_cast<long double>(groups[o].size());
                    const long double bound = (m + 2) * u * magnitude + 2 * u * terms;
                    const long double got = value_at(fused, o).real();
                    EXPECT_LE(std::fabs(got - exact), bound) << dtype.name() << " output " << o;
                    EXPECT_LE(std::fabs(got - value_at(unfused, o).real()), 2 * bound)
                        << dtype.name() << " output " << o;
                }
                if (shape[1] == 129 && axes && (*axes)[0] == 1) {
                    EXPECT_TRUE(same_bits(fused, unfused)) << dtype.name() << ": the same order gives the same bits";
                }
            }
        }
    }
}

TEST_P(FusedReductionTest, ExtremaAndArgExtremaAreExact) {
    const DType f32(Kind::float32);
    HostArray x = random_host(f32, {23, 77}), y = random_host(f32, {23, 77});
    const Array dx = Array::from_host(queue(), x), dy = Array::from_host(queue(), y);
    const auto xs = doubles(x), ys = doubles(y);
    const Expr distance = abs(dx - dy);
    const Expr difference = dx - dy;
    for (const int axis : {0, 1}) {
        ReduceOptions options;
        options.axes = std::vector<int>{axis};
        const auto groups = reduction_groups({23, 77}, flags(2, options.axes));
        const HostArray mx = max(queue(), distance, options).get(queue());
        const HostArray mn = min(queue(), difference, options).get(queue());
        const HostArray amax = argmax(queue(), difference, options).get(queue());
        const HostArray amin = argmin(queue(), distance, options).get(queue());
        EXPECT_TRUE(same_bits(mx, max(queue(), evaluate(queue(), distance), options).get(queue())));
        EXPECT_TRUE(same_bits(amax, argmax(queue(), evaluate(queue(), difference), options).get(queue())));
        ASSERT_EQ(amax.dtype(), DType(Kind::int64));
        for (std::size_t o = 0; o < groups.size(); ++o) {
            // float32 subtraction is correctly rounded on the device and here.
            float best_distance = -1, least = 2, most = -3, nearest = 3;
            std::int64_t at_most = -1, at_nearest = -1;
            for (std::size_t r = 0; r < groups[o].size(); ++r) {
                const std::size_t flat = groups[o][r];
                const float d = static_cast<float>(xs[flat]) - static_cast<float>(ys[flat]);
                best_distance = std::max(best_distance, std::fabs(d));
                least = std::min(least, d);
                if (d > most) {
                    most = d;
                    at_most = static_cast<std::int64_t>(r);
                }
                if (std::fabs(d) < nearest) {
                    nearest = std::fabs(d);
                    at_nearest = static_cast<std::int64_t>(r);
                }
            }
            EXPECT_EQ(value_at(mx, o).real(), best_distance) << "axis " << axis << " output " << o;
            EXPECT_EQ(value_at(mn, o).real(), least) << "axis " << axis << " output " << o;
            EXPECT_EQ(static_cast<std::int64_t>(int_at(amax, o)), at_most) << "axis " << axis << " output " << o;
            EXPECT_EQ(static_cast<std::int64_t>(int_at(amin, o)), at_nearest) << "axis " << axis << " output " << o;
        }
    }
    // any / all of a comparison.
    const HostArray some = any(queue(), dx > dy + 1.5f).get(queue());
    const HostArray every = all(queue(), dx < dy + 2.5f).get(queue());
    bool expect_some = false, expect_every = true;
    for (std::size_t k = 0; k < xs.size(); ++k) {
        expect_some = expect_some || static_cast<float>(xs[k]) > static_cast<float>(ys[k]) + 1.5f;
        expect_every = expect_every && static_cast<float>(xs[k]) < static_cast<float>(ys[k]) + 2.5f;
    }
    EXPECT_EQ(int_at(some, 0), expect_some ? 1u : 0u);
    EXPECT_EQ(int_at(every, 0), expect_every ? 1u : 0u);
}

TEST_P(FusedReductionTest, NumpysDtypesMatchTheUnfusedReduction) {
    // The expression's dtype by promotion, then the reduction's rules for it; integers exact.
    // (float32 and float64 are the other tests'; int8 and uint16 stand for the signed and unsigned
    // integers, whose sums go to int64 and uint64)
    for (const DType& dtype :
         {DType(Kind::bool_), DType(Kind::int8), DType(Kind::uint16), DType(Kind::float16), DType(Kind::complex64)}) {
        HostArray x = random_host(dtype, {9, 31}), y = random_host(dtype, {9, 31});
        const Array dx = Array::from_host(queue(), x), dy = Array::from_host(queue(), y);
        const Expr e = dx * dy + dx;
        ReduceOptions options;
        options.axes = std::vector<int>{-1};
        options.keepdims = true;
        const Array temporary = evaluate(queue(), e);
        const HostArray fused_sum = sum(queue(), e, options).get(queue());
        const HostArray unfused_sum = sum(queue(), temporary, options).get(queue());
        const HostArray fused_mean = mean(queue(), e, options).get(queue());
        const HostArray unfused_mean = mean(queue(), temporary, options).get(queue());
        ASSERT_EQ(fused_sum.dtype(), unfused_sum.dtype()) << dtype.name();
        ASSERT_EQ(fused_mean.dtype(), unfused_mean.dtype()) << dtype.name();
        ASSERT_EQ(fused_sum.shape(), (std::vector<std::size_t>{9, 1})) << dtype.name();
        if (is_int_kind(dtype) || dtype.kind() == Kind::bool_) {
            EXPECT_TRUE(same_bits(fused_sum, unfused_sum)) << dtype.name();
        } else {
            // 31 values of magnitude <= 2 per output (float16: values rounded to float16 as the
            // temporary's, summed in float32, result rounded to float16: half an ulp of float16).
            const long double tolerance =
                dtype.kind() == Kind::float16 ? 2 * std::ldexp(1.0L, -11) * 64 : 64 * 33 * unit_roundoff(dtype);
            for (std::size_t o = 0; o < 9; ++o) {
                EXPECT_LE(std::abs(value_at(fused_sum, o) - value_at(unfused_sum, o)), tolerance) << dtype.name();
                EXPECT_LE(std::abs(value_at(fused_mean, o) - value_at(unfused_mean, o)), tolerance) << dtype.name();
            }
        }
        if (dtype.kind() == Kind::int8) {
            // dtype= and out=: an int8 expression summed in int16 into a given array.
            const Array out = Array::empty(bound_device(), {9, 1}, Kind::int16);
            ReduceOptions into = options;
            into.out = out;
            const Array returned = sum(queue(), e, into, DType(Kind::int16));
            EXPECT_TRUE(same_bits(out.get(queue()), sum(queue(), temporary, options, DType(Kind::int16)).get(queue())));
            EXPECT_EQ(returned.dtype(), DType(Kind::int16));
        }
    }
}

TEST_P(FusedReductionTest, MomentsAndDotOfExpressions) {
    const DType f64(Kind::float64);
    HostArray x = random_host(f64, {13, 200}), y = random_host(f64, {13, 200});
    const Array dx = Array::from_host(queue(), x), dy = Array::from_host(queue(), y);
    const auto xs = doubles(x), ys = doubles(y);
    const long double u = unit_roundoff(f64);
    ReduceOptions options;
    options.axes = std::vector<int>{1};
    const Expr e = 2.0 * dx - dy;
    const HostArray m = mean(queue(), e, options).get(queue());
    const HostArray v = var(queue(), e, options, 1).get(queue());
    const HostArray s = std(queue(), e, options).get(queue());
    for (std::size_t o = 0; o < 13; ++o) {
        long double total = 0, magnitude = 0;
        for (std::size_t r = 0; r < 200; ++r) {
            const long double value = 2.0L * xs[o * 200 + r] - ys[o * 200 + r];
            total += value;
            magnitude += std::fabs(value);
        }
        const long double average = total / 200;
        long double squares = 0, square_magnitude = 0;
        for (std::size_t r = 0; r < 200; ++r) {
            const long double d = 2.0L * xs[o * 200 + r] - ys[o * 200 + r] - average;
            squares += d * d;
            square_magnitude += d * d + 4 * std::fabs(d) * magnitude / 200;
        }
        EXPECT_LE(std::fabs(value_at(m, o).real() - average), 208 * u * magnitude / 200);
        EXPECT_LE(std::fabs(value_at(v, o).real() - squares / 199), 208 * u * square_magnitude / 199);
        EXPECT_LE(std::fabs(value_at(s, o).real() - std::sqrt(squares / 200)),
                  208 * u * std::sqrt(square_magnitude / 200));
    }
    // dot of two 1-d expressions: float32 products accumulated in float32.
    const DType f32(Kind::float32);
    HostArray p = random_host(f32, {3000}), q = random_host(f32, {3000});
    const Array dp = Array::from_host(queue(), p), dq = Array::from_host(queue(), q);
    const HostArray d = dot(queue(), dp + 1.0f, dq * 2.0f).get(queue());
    ASSERT_EQ(d.dtype(), f32);
    long double exact = 0, magnitude = 0;
    const auto ps = doubles(p), qs = doubles(q);
    for (std::size_t k = 0; k < 3000; ++k) {
        const long double term = (static_cast<long double>(ps[k]) + 1) * (2.0L * qs[k]);
        exact += term;
        magnitude += std::fabs(term);
    }
    EXPECT_LE(std::fabs(value_at(d, 0).real() - exact), (3000 + 4) * unit_roundoff(f32) * magnitude);
}

TEST_P(FusedReductionTest, OutSharingMemoryWithAnOperand) {
    // sum(x * 2, axis 1) into x's first column: numpy's result from the operands as they were.
    const DType f32(Kind::float32);
    HostArray x = random_host(f32, {6, 10});
    const Array dx = Array::from_host(queue(), x);
    ReduceOptions options;
    options.axes = std::vector<int>{1};
    options.out = dx[{Slice{}, Slice{0, 1}}].reshape(std::vector<std::ptrdiff_t>{6});
    sum(queue(), dx * 2.0f, options);
    const HostArray after = dx.get(queue());
    const auto xs = doubles(x);
    for (std::size_t o = 0; o < 6; ++o) {
        long double exact = 0, magnitude = 0;
        for (std::size_t r = 0; r < 10; ++r) {
            exact += 2.0L * xs[o * 10 + r];
            magnitude += 2 * std::fabs(xs[o * 10 + r]);
        }
        EXPECT_LE(std::fabs(value_at(after, o * 10).real() - exact), 12 * unit_roundoff(f32) * magnitude) << o;
    }
}

TEST_P(FusedReductionTest, BadInputIsAnArgumentErrorNamingIt) {
    const Array x = Array::zeros(queue(), {4, 5}, Kind::float32);
    ReduceOptions bad_axis;
    bad_axis.axes = std::vector<int>{2};
    EXPECT_EQ(argument_named_by([&] { sum(queue(), x * 2.0f, bad_axis); }), "axes");
    ReduceOptions wrong_out;
    wrong_out.out = Array::empty(bound_device(), {4}, Kind::float64);
    wrong_out.axes = std::vector<int>{1};
    EXPECT_EQ(argument_named_by([&] { max(queue(), x + 1.0f, wrong_out); }), "out");
    EXPECT_EQ(argument_named_by([&] { dot(queue(), x + 1.0f, x); }), "a");
    const Array v = Array::zeros(queue(), {5}, Kind::float32);
    const Array w = Array::zeros(queue(), {6}, Kind::float32);
    EXPECT_EQ(argument_named_by([&] { dot(queue(), v + 1.0f, w * 2.0f); }), "b");
    const Array empty = Array::empty(bound_device(), {0, 3}, Kind::float32);
    ReduceOptions first;
    first.axes = std::vector<int>{0};
    EXPECT_THROW(argmax(queue(), empty + 1.0f, first), ArgumentError);  // no identity, as numpy's ValueError
    EXPECT_EQ(argument_named_by([&] { var(queue(), x + 1.0f, {}, 0, DType(Kind::int32)); }), "dtype");
}

}  // namespace fused_reduction_test
}  // namespace kjarni::test
