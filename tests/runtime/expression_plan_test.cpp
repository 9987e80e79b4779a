// Expressions that use reductions (kjarni/fusion.hpp's lazy sum, mean, max, var, ...): softmax,
// layer normalisation and centring against CPU references on fresh random data and against the
// unfused evaluation (each reduction eagerly into an array, then the expression), the plan chosen
// (one kernel where every reduction reduces the same trailing axes and a row fits a work group,
// else one kernel per reduction and one elementwise kernel), in place, deterministic, the errors.
//
// Tolerances (u = 2^-24 for float32, 2^-53 for float64; m the row's length). A row sum in any
// order errs by at most (m - 1) u sum|x_i|, a mean by that over m plus one rounding. Softmax:
// x - max is exact or one rounding, exp within 4 ulp (OpenCL's limit), the sum of the m
// exponentials (each <= 1) within (m + 4) u sum e_i, the division one more: each output within
// (m + 16) u of its value relative to it, allowed as (m + 16) u (y_i + 1/m). Layer
// normalisation: mean and variance within (m + 8) u relative to their magnitudes; the result
// (x - mean) / sqrt(var + eps) * gamma + beta, of magnitude <= about 4 for values in [-1, 1],
// within (m + 32) u * 8. The one-kernel and the unfused results are each within those bounds
// of the exact value, so within twice of each other.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "kjarni/fusion.hpp"
#include "runtime/algorithm_test_support.hpp"
#include "support/argument_errors.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace expression_plan_test {

// The row kernel runs on GPUs by default; these tests run it on every device (PoCL's CPU device
// in CI) through KJARNI_FUSION_ROWS=always, restored afterwards.
class ExpressionPlanTest : public DeviceTest {
protected:
    void SetUp() override {
        if (const char* value = std::getenv("KJARNI_FUSION_ROWS")) previous_ = value;
        ::setenv("KJARNI_FUSION_ROWS", "always", 1);
    }
    void TearDown() override {
        if (previous_) ::setenv("KJARNI_FUSION_ROWS", previous_->c_str(), 1);
        else ::unsetenv("KJARNI_FUSION_ROWS");
    }

private:
    std::optional<std::string> previous_;
};
KJARNI_INSTANTIATE_DEVICE_TESTS(ExpressionPlanTest);

std::vector<double> doubles(const HostArray& a) {
    std::vector<double> out(a.size());
    for (std::size_t k = 0; k < a.size(); ++k) out[k] = static_cast<double>(value_at(a, k).real());
    return out;
}

bool same_bits(const HostArray& a, const HostArray& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() &&
           std::memcmp(a.data(), b.data(), a.size() * a.dtype().itemsize()) == 0;
}

// Softmax of rows written with kjarni's operations (the reductions lazy), and the same evaluated
// step by step with eager reductions (the unfused evaluation).
Expr softmax(const Expr& x) {
    const Expr e = exp(x - max(x, -1, true));
    return e / sum(e, -1, true);
}
Array softmax_unfused(const Queue& q, const Array& x) {
    ReduceOptions rows;
    rows.axes = std::vector<int>{-1};
    rows.keepdims = true;
    const Array e = evaluate(q, exp(x - max(q, x, rows)));
    return evaluate(q, e / sum(q, e, rows));
}

std::vector<long double> softmax_reference(const std::vector<double>& x, std::size_t rows, std::size_t m) {
    std::vector<long double> y(x.size());
    for (std::size_t r = 0; r < rows; ++r) {
        long double top = -INFINITY, total = 0;
        for (std::size_t k = 0; k < m; ++k) top = std::max<long double>(top, x[r * m + k]);
        for (std::size_t k = 0; k < m; ++k) total += std::exp(static_cast<long double>(x[r * m + k]) - top);
        for (std::size_t k = 0; k < m; ++k)
            y[r * m + k] = std::exp(static_cast<long double>(x[r * m + k]) - top) / total;
    }
    return y;
}

TEST_P(ExpressionPlanTest, SoftmaxInOneKernel) {
    for (const DType& dtype : {DType(Kind::float32), DType(Kind::float64)}) {
        for (const std::vector<std::size_t>& shape :
             {std::vector<std::size_t>{67, 300}, std::vector<std::size_t>{3, 5, 2048}}) {
            if (shape.size() == 3 && dtype.kind() == Kind::float64) continue;  // (two leading axes: float32 is enough)
            const std::size_t m = shape.back();
            const std::size_t rows = shape.size() == 2 ? shape[0] : shape[0] * shape[1];
            HostArray x = random_host(dtype, shape);
            const Array dx = Array::from_host(queue(), x);
            const FusionPlan plan = fusion_plan(queue(), softmax(dx));
            ASSERT_EQ(plan.kernels.size(), 1u) << plan.describe();
            EXPECT_EQ(plan.kernels[0].bytes_read, x.size() * dtype.itemsize());
            EXPECT_EQ(plan.kernels[0].bytes_written, x.size() * dtype.itemsize());
            EXPECT_GE(plan.group * plan.per_item, m);
            const Array fused = evaluate(queue(), softmax(dx));
            ASSERT_EQ(fused.dtype(), dtype);
            ASSERT_EQ(fused.shape(), shape);
            const HostArray got = fused.get(queue());
            const HostArray unfused = softmax_unfused(queue(), dx).get(queue());
            const auto expected = softmax_reference(doubles(x), rows, m);
            const long double u = unit_roundoff(dtype);
            for (std::size_t k = 0; k < expected.size(); ++k) {
                const long double bound = (m + 16) * u * (expected[k] + 1.0L / m);
                ASSERT_LE(std::fabs(value_at(got, k).real() - expected[k]), bound) << dtype.name() << " element " << k;
                ASSERT_LE(std::fabs(value_at(got, k).real() - value_at(unfused, k).real()), 2 * bound)
                    << dtype.name() << " element " << k;
            }
            // Deterministic: the same bits again.
            EXPECT_TRUE(same_bits(evaluate(queue(), softmax(dx)).get(queue()), got));
        }
    }
}

TEST_P(ExpressionPlanTest, LayerNormalisationInOneKernel) {
    const DType f32(Kind::float32);
    const std::size_t rows = 41, m = 1000;
    HostArray x = random_host(f32, {rows, m}), gamma = random_host(f32, {m}), beta = random_host(f32, {m});
    const Array dx = Array::from_host(queue(), x), dg = Array::from_host(queue(), gamma),
                db = Array::from_host(queue(), beta);
    const Expr centred = dx - mean(dx, -1, true);
    const Expr normalised = centred / sqrt(var(dx, -1, true) + 1e-5f) * dg + db;
    const FusionPlan plan = fusion_plan(queue(), normalised);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.describe();
    EXPECT_EQ(plan.kernels[0].bytes_read, (rows * m + 2 * m) * 4);
    const HostArray got = evaluate(queue(), normalised).get(queue());
    // Unfused: the moments eagerly, then the expression.
    ReduceOptions each_row;
    each_row.axes = std::vector<int>{-1};
    each_row.keepdims = true;
    const Array mu = mean(queue(), dx, each_row), sigma2 = var(queue(), dx, each_row);
    const HostArray unfused = evaluate(queue(), (dx - mu) / sqrt(sigma2 + 1e-5f) * dg + db).get(queue());
    const auto xs = doubles(x), gs = doubles(gamma), bs = doubles(beta);
    const long double bound = (m + 32) * unit_roundoff(f32) * 8;
    for (std::size_t r = 0; r < rows; ++r) {
        long double total = 0;
        for (std::size_t k = 0; k < m; ++k) total += xs[r * m + k];
        const long double average = total / m;
        long double squares = 0;
        for (std::size_t k = 0; k < m; ++k) squares += (xs[r * m + k] - average) * (xs[r * m + k] - average);
        const long double scale = 1 / std::sqrt(squares / m + 1e-5L);
        for (std::size_t k = 0; k < m; ++k) {
            const long double expected = (xs[r * m + k] - average) * scale * gs[k] + bs[k];
            ASSERT_LE(std::fabs(value_at(got, r * m + k).real() - expected), bound) << r << ", " << k;
            ASSERT_LE(std::fabs(value_at(got, r * m + k).real() - value_at(unfused, r * m + k).real()), 2 * bound)
                << r << ", " << k;
        }
    }
}

// Parts of the value that are the same along a row (here max * 2.5 + 1 and sqrt(|min| + 3), with
// weak scalars) are computed once per row: the same operations, so each element is exactly what
// the host computes rounding every operation in the array's type (max and min are exact).
template <typename T>
void check_row_invariant_parts(const Queue& q, const DType& dtype) {
    const std::size_t rows = 23, m = 700;
    HostArray x = random_host(dtype, {rows, m});
    const Array dx = Array::from_host(q, x);
    const Expr value = dx * (max(dx, -1, true) * 2.5 + 1.0) - sqrt(abs(min(dx, -1, true)) + 3.0);
    const FusionPlan plan = fusion_plan(q, value);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.describe();
    const HostArray got = evaluate(q, value).get(q);
    ASSERT_EQ(got.dtype(), dtype);
    const auto* xs = reinterpret_cast<const T*>(x.data());
    const auto* ys = reinterpret_cast<const T*>(got.data());
    for (std::size_t r = 0; r < rows; ++r) {
        T top = xs[r * m], bottom = xs[r * m];
        for (std::size_t k = 1; k < m; ++k) {
            top = std::max(top, xs[r * m + k]);
            bottom = std::min(bottom, xs[r * m + k]);
        }
        const T scaled = top * T(2.5);
        const T factor = scaled + T(1);
        const T shift = std::sqrt(std::fabs(bottom) + T(3));
        for (std::size_t k = 0; k < m; ++k) {
            const T product = xs[r * m + k] * factor;
            const T expected = product - shift;
            ASSERT_EQ(ys[r * m + k], expected) << dtype.name() << " row " << r << ", element " << k;
        }
    }
}

TEST_P(ExpressionPlanTest, PartsTheSameAlongARowAreExact) {
    check_row_invariant_parts<float>(queue(), DType(Kind::float32));
    check_row_invariant_parts<double>(queue(), DType(Kind::float64));
}

TEST_P(ExpressionPlanTest, OtherShapesTakeReductionKernelsAndOneElementwiseKernel) {
    const DType f64(Kind::float64);
    const std::size_t rows = 30, m = 50;
    HostArray x = random_host(f64, {rows, m});
    const Array dx = Array::from_host(queue(), x);
    const auto xs = doubles(x);
    const long double u = unit_roundoff(f64);
    // Centring the columns (axis 0, no keepdims: the mean broadcasts along the rows as numpy's).
    const Expr columns = dx - mean(dx, 0);
    const FusionPlan plan = fusion_plan(queue(), columns);
    ASSERT_EQ(plan.kernels.size(), 2u) << plan.describe();
    EXPECT_FALSE(plan.reason.empty());
    EXPECT_EQ(plan.kernels[0].bytes_written, m * 8);
    const HostArray got = evaluate(queue(), columns).get(queue());
    for (std::size_t k = 0; k < m; ++k) {
        long double total = 0, magnitude = 0;
        for (std::size_t r = 0; r < rows; ++r) {
            total += xs[r * m + k];
            magnitude += std::fabs(xs[r * m + k]);
        }
        for (std::size_t r = 0; r < rows; ++r)
            ASSERT_LE(std::fabs(value_at(got, r * m + k).real() - (xs[r * m + k] - total / rows)),
                      (rows + 4) * u * (magnitude + 1));
    }
    // Softmax along axis 0: max, then the sum of exp(x - max), then the division: three kernels.
    const Expr e = exp(dx - max(dx, 0, true));
    const Expr along_columns = e / sum(e, 0, true);
    EXPECT_EQ(fusion_plan(queue(), along_columns).kernels.size(), 3u);
    const HostArray soft = evaluate(queue(), along_columns).get(queue());
    for (std::size_t k = 0; k < m; ++k) {
        long double top = -INFINITY, total = 0;
        for (std::size_t r = 0; r < rows; ++r) top = std::max<long double>(top, xs[r * m + k]);
        for (std::size_t r = 0; r < rows; ++r) total += std::exp(xs[r * m + k] - top);
        for (std::size_t r = 0; r < rows; ++r) {
            const long double expected = std::exp(xs[r * m + k] - top) / total;
            ASSERT_LE(std::fabs(value_at(soft, r * m + k).real() - expected),
                      (rows + 16) * u * (expected + 1.0L / rows));
        }
    }
    // argmax is not computed by the row kernel: a reduction kernel, then the comparison.
    const HostArray is_top = evaluate(queue(), argmax(dx, -1, true) == 7).get(queue());
    for (std::size_t r = 0; r < rows; ++r) {
        std::size_t best = 0;
        for (std::size_t k = 1; k < m; ++k)
            if (xs[r * m + k] > xs[r * m + best]) best = k;
        EXPECT_EQ(int_at(is_top, r), best == 7 ? 1u : 0u);
    }
    // A row longer than the row kernel holds: the reductions and one elementwise kernel.
    HostArray wide = random_host(DType(Kind::float32), {2, 20000});
    const Array dw = Array::from_host(queue(), wide);
    const FusionPlan wide_plan = fusion_plan(queue(), softmax(dw));
    EXPECT_EQ(wide_plan.kernels.size(), 3u) << wide_plan.describe();
    const HostArray wide_got = evaluate(queue(), softmax(dw)).get(queue());
    const auto wide_expected = softmax_reference(doubles(wide), 2, 20000);
    for (std::size_t k = 0; k < wide_expected.size(); ++k)
        ASSERT_LE(std::fabs(value_at(wide_got, k).real() - wide_expected[k]),
                  (20000 + 16) * unit_roundoff(DType(Kind::float32)) * (wide_expected[k] + 1.0L / 20000))
            << k;
}

TEST_P(ExpressionPlanTest, InPlaceStridedAndInsideAFusedReduction) {
    const DType f32(Kind::float32);
    const std::size_t rows = 16, m = 257;
    HostArray x = random_host(f32, {rows, m});
    const auto xs = doubles(x);
    const long double u = unit_roundoff(f32);
    std::vector<long double> centred(xs.size()), squares(rows);
    long double magnitude = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        long double total = 0;
        for (std::size_t k = 0; k < m; ++k) total += xs[r * m + k];
        for (std::size_t k = 0; k < m; ++k) {
            centred[r * m + k] = xs[r * m + k] - total / m;
            squares[r] += centred[r * m + k] * centred[r * m + k];
            magnitude = std::max(magnitude, std::fabs(static_cast<long double>(xs[r * m + k])));
        }
    }
    // x = x - mean(x, -1, keepdims) in place (each row read whole before it is written).
    const Array dx = Array::from_host(queue(), x);
    assign(queue(), dx, dx - mean(dx, -1, true));
    const HostArray in_place = dx.get(queue());
    for (std::size_t k = 0; k < xs.size(); ++k)
        ASSERT_LE(std::fabs(value_at(in_place, k).real() - centred[k]), (m + 4) * u * (magnitude + 1)) << k;
    // A transposed operand: the same values through another layout.
    HostArray xt(f32, {m, rows});
    xt.transpose().assign(x);
    const Array t = Array::from_host(queue(), xt).transpose();
    const HostArray through_transpose = evaluate(queue(), t - mean(t, -1, true)).get(queue());
    for (std::size_t k = 0; k < xs.size(); ++k)
        ASSERT_LE(std::fabs(value_at(through_transpose, k).real() - centred[k]), (m + 4) * u * (magnitude + 1)) << k;
    // The sum of squared deviations: a lazy mean inside an eager sum (a mean kernel, then the sum
    // with the expression in its loads).
    const Array fresh = Array::from_host(queue(), x);
    ReduceOptions each_row;
    each_row.axes = std::vector<int>{-1};
    const Expr deviation = fresh - mean(fresh, -1, true);
    const HostArray ss = sum(queue(), deviation * deviation, each_row).get(queue());
    for (std::size_t r = 0; r < rows; ++r)
        EXPECT_LE(std::fabs(value_at(ss, r).real() - squares[r]),
                  4 * (m + 4) * u * (magnitude + 1) * (magnitude + 1) * m)
            << r;
}

TEST_P(ExpressionPlanTest, EveryRowReductionKindAndFloat16) {
    // min, max, prod, std (ddof 1) and sum in one row kernel, float64; the exact min and max make
    // (x - min) / (max - min) exact up to its two roundings.
    const DType f64(Kind::float64);
    const std::size_t rows = 21, m = 333;
    HostArray x = random_host(f64, {rows, m});
    const Array dx = Array::from_host(queue(), x);
    const Expr low = min(dx, -1, true);
    const Expr scaled = (dx - low) / (max(dx, -1, true) - low) + prod(1.0 + dx * 0.001, -1, true) +
                        std(dx, -1, true, 1.0) * sum(dx, -1, true);
    const FusionPlan plan = fusion_plan(queue(), scaled);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.describe();
    const HostArray got = evaluate(queue(), scaled).get(queue());
    const auto xs = doubles(x);
    const long double u = unit_roundoff(f64);
    for (std::size_t r = 0; r < rows; ++r) {
        long double lo = INFINITY, hi = -INFINITY, product = 1, total = 0, magnitude = 0;
        for (std::size_t k = 0; k < m; ++k) {
            const long double v = xs[r * m + k];
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            product *= 1 + v * 0.001L;
            total += v;
            magnitude += std::fabs(v);
        }
        long double squares = 0;
        for (std::size_t k = 0; k < m; ++k) squares += (xs[r * m + k] - total / m) * (xs[r * m + k] - total / m);
        const long double deviation = std::sqrt(squares / (m - 1));
        // prod of m factors within (m + 2) u of its value (about 1); the std-times-sum term within
        // (m + 8) u of |std| sum|x| (both factors' bounds); the scaled term within 4 u.
        const long double bound = 4 * u + (m + 2) * u * 2 + 2 * (m + 8) * u * deviation * magnitude;
        for (std::size_t k = 0; k < m; ++k) {
            const long double expected = (xs[r * m + k] - lo) / (hi - lo) + product + deviation * total;
            ASSERT_LE(std::fabs(value_at(got, r * m + k).real() - expected), bound) << r << ", " << k;
        }
    }
    // float16 softmax: each operation computed in float32 and rounded to float16 as numpy's loops
    // round (half an ulp, 2^-11 relative, each), the row's maximum exactly a float16 value; the
    // sum's float32 bound is far below.
    HostArray h = random_host(DType(Kind::float16), {5, 700});
    const Array dh = Array::from_host(queue(), h);
    const Expr e = exp(dh - max(dh, -1, true));
    const Expr soft = e / sum(e, -1, true);
    ASSERT_EQ(soft.dtype(), DType(Kind::float16));
    ASSERT_EQ(fusion_plan(queue(), soft).kernels.size(), 1u);
    const HostArray soft_got = evaluate(queue(), soft).get(queue());
    const auto hs = doubles(h);
    const auto expected = softmax_reference(hs, 5, 700);
    for (std::size_t k = 0; k < expected.size(); ++k) {
        // 2^-11 relative each for x - max (|x - max| <= 2, so 2^-10 in exp), exp, every e summed,
        // the sum and the quotient, and the exponentials' float32 errors.
        const long double bound =
            (6 * std::ldexp(1.0L, -11) + (700 + 16) * std::ldexp(1.0L, -24)) * expected[k] + 1e-7L;
        ASSERT_LE(std::fabs(value_at(soft_got, k).real() - expected[k]), bound) << k;
    }
}

TEST_P(ExpressionPlanTest, ManyOperandsHoldFewerElementsEach) {
    // Six arrays: a work item holds fewer of each row's elements (registers), the group grows.
    const DType f32(Kind::float32);
    const std::size_t rows = 8, m = 1000;
    std::vector<HostArray> hosts;
    std::vector<Array> arrays;
    for (int k = 0; k < 6; ++k) {
        hosts.push_back(random_host(f32, {rows, m}));
        arrays.push_back(Array::from_host(queue(), hosts.back()));
    }
    const Expr total = arrays[0] + arrays[1] + arrays[2] + arrays[3] + arrays[4] + arrays[5];
    const Expr centred = total - mean(total, -1, true);
    const FusionPlan plan = fusion_plan(queue(), centred);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.describe();
    EXPECT_LE(plan.per_item, 8u);
    EXPECT_EQ(plan.kernels[0].bytes_read, 6 * rows * m * 4);
    const HostArray got = evaluate(queue(), centred).get(queue());
    std::vector<std::vector<double>> values;
    for (const HostArray& h : hosts) values.push_back(doubles(h));
    // Each element: five additions of values in [-1, 1] (|sum| <= 6, 5 roundings), then the mean.
    const long double u = unit_roundoff(f32);
    for (std::size_t r = 0; r < rows; ++r) {
        std::vector<long double> row(m);
        long double average = 0;
        for (std::size_t k = 0; k < m; ++k) {
            for (const auto& v : values) row[k] += v[r * m + k];
            average += row[k] / m;
        }
        for (std::size_t k = 0; k < m; ++k)
            ASSERT_LE(std::fabs(value_at(got, r * m + k).real() - (row[k] - average)), (m + 16) * u * 6)
                << r << ", " << k;
    }
}

TEST_P(ExpressionPlanTest, WhereTheRowKernelRuns) {
    const Array x = Array::from_host(queue(), random_host(DType(Kind::float32), {4, 64}));
    const Expr centred = x - mean(x, -1, true);
    EXPECT_EQ(fusion_plan(queue(), centred).kernels.size(), 1u);  // always (the fixture's)
    ::setenv("KJARNI_FUSION_ROWS", "gpu", 1);
    const FusionPlan by_default = fusion_plan(queue(), centred);
    const bool gpu = bound_device().params().type == DeviceType::gpu;
    EXPECT_EQ(by_default.kernels.size(), gpu ? 1u : 2u) << by_default.describe();
    if (!gpu) {
        EXPECT_NE(by_default.reason.find("not a GPU"), std::string::npos) << by_default.reason;
    }
    ::setenv("KJARNI_FUSION_ROWS", "never", 1);
    EXPECT_EQ(fusion_plan(queue(), centred).kernels.size(), 2u);
    const HostArray unfused = evaluate(queue(), centred).get(queue());
    ::setenv("KJARNI_FUSION_ROWS", "sometimes", 1);
    EXPECT_EQ(argument_named_by([&] { evaluate(queue(), centred); }), "KJARNI_FUSION_ROWS");
    ::setenv("KJARNI_FUSION_ROWS", "always", 1);
    const HostArray fused = evaluate(queue(), centred).get(queue());
    // Both within (64 + 4) u (1 + |x|) of the exact value: within twice that of each other.
    for (std::size_t k = 0; k < fused.size(); ++k)
        EXPECT_LE(std::fabs(value_at(fused, k).real() - value_at(unfused, k).real()),
                  2 * 68 * unit_roundoff(DType(Kind::float32)) * 2);
}

TEST_P(ExpressionPlanTest, BadInputIsATypedError) {
    const Array x = Array::zeros(queue(), {4, 5}, Kind::float32);
    EXPECT_EQ(argument_named_by([&] { (void)sum(x, 2); }), "axes");
    EXPECT_EQ(argument_named_by([&] { (void)mean(x, {0, -2}); }), "axes");
    // The reduced shape broadcasts by numpy's rules: (4, 5) - (4,) does not.
    EXPECT_THROW((void)(x - mean(x, 1)), ArgumentError);
    const Array empty = Array::empty(bound_device(), {3, 0}, Kind::float32);
    EXPECT_THROW(evaluate(queue(), empty - max(empty, -1, true)), ArgumentError);  // max of nothing
    EXPECT_EQ(argument_named_by(
                  [&] { assign(queue(), Array::empty(bound_device(), {5}, Kind::float32), x - mean(x, -1, true)); }),
              "out");
}

}  // namespace expression_plan_test
}  // namespace kjarni::test
