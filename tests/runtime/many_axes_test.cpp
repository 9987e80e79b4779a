// Layouts that leave more than 8 axes after merging (up to 32): their extents and strides reach
// the kernels through a device table instead of scalar parameters. 10 and 12 stepped axes (every
// axis of extent 2 cut from one of extent 3, so no two of them merge) through an expression, an
// ElementwiseKernel, sums over axis sets that leave more than 8 kept or reduced axes, and cumsum,
// against CPU references on fresh random data; a layout past 32 axes is an UnsupportedError.
// Integer results are exact; float32 ones are within the summation bound used by the reduction
// tests ((n + 2) u sum |x|).

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "kjarni/elementwise.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"
#include "runtime/algorithm_test_support.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class ManyAxes : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(ManyAxes);

/// A host array and the same elements on the device, both views with `ndim` unmergeable axes of
/// extent 2: slices [0:2] of an array of extent 3 on every axis, the last one stepped by 2 (of 4),
/// and with `reversed`, axis 1 walked backwards.
struct Stepped {
    HostArray host;  // the view's elements, C-contiguous
    Array device;
};

Stepped stepped(const Queue& queue, const DType& dtype, std::size_t ndim, bool reversed = false) {
    std::vector<std::size_t> big_shape;
    std::vector<Slice> slices;
    for (std::size_t d = 0; d < ndim; ++d) {
        const bool last = d + 1 == ndim;
        big_shape.push_back(last ? 4 : 3);
        if (last) slices.push_back(Slice{0, std::nullopt, 2});
        else if (d == 1 && reversed) slices.push_back(Slice{1, std::nullopt, -1});
        else slices.push_back(Slice{0, 2});
    }
    const HostArray big = random_host(dtype, big_shape);
    const Array device = Array::from_host(queue, big).slice(slices);
    return Stepped{big.slice(slices).copy(), device};
}

TEST_P(ManyAxes, ExpressionOverTenAndTwelveSteppedAxes) {
    for (const std::size_t ndim : {std::size_t{10}, std::size_t{12}})
        for (const DType& d : {DType(Kind::int32), DType(Kind::float64)}) {
            SCOPED_TRACE(::testing::Message() << ndim << " axes, " << d.name());
            const Stepped x = stepped(queue(), d, ndim);
            const Stepped y = stepped(queue(), d, ndim, true);
            // Into a new array, and into a stepped output (every operand unmergeable).
            const HostArray fresh = evaluate(queue(), Expr(x.device) * 3 - Expr(y.device)).get(queue());
            const Stepped out = stepped(queue(), d, ndim);
            assign(queue(), out.device, Expr(x.device) - Expr(y.device) * 2);
            const HostArray written = out.device.copy(queue()).get(queue());
            // Integers exact; float64 rounds twice: within 2 u (|a x| + |b|).
            const long double u = is_int_kind(d) ? 0.0L : std::ldexp(1.0L, -52);
            for (std::size_t k = 0; k < x.host.size(); ++k) {
                const long double a = value_at(x.host, k).real(), b = value_at(y.host, k).real();
                ASSERT_LE(std::fabs(value_at(fresh, k).real() - (a * 3 - b)), u * (std::fabs(3 * a) + std::fabs(b)))
                    << "element " << k;
                ASSERT_LE(std::fabs(value_at(written, k).real() - (a - b * 2)), u * (std::fabs(a) + std::fabs(2 * b)))
                    << "element " << k;
            }
        }
}

TEST_P(ManyAxes, ElementwiseKernelOverTwelveSteppedAxes) {
    const ElementwiseKernel k("double *y, const double *x, const double *z, double a", "y[i] = a * x[i] + z[i]");
    for (const std::size_t ndim : {std::size_t{10}, std::size_t{12}}) {
        SCOPED_TRACE(::testing::Message() << ndim << " axes");
        const Stepped x = stepped(queue(), Kind::float64, ndim);
        const Stepped z = stepped(queue(), Kind::float64, ndim, true);
        const Stepped y = stepped(queue(), Kind::float64, ndim);
        k(queue(), y.device, x.device, z.device, 2.5);
        const HostArray got = y.device.copy(queue()).get(queue());
        for (std::size_t i = 0; i < got.size(); ++i) {
            const long double expected = 2.5L * value_at(x.host, i).real() + value_at(z.host, i).real();
            // Two roundings (or one, contracted to fma).
            ASSERT_NEAR(static_cast<double>(value_at(got, i).real()), static_cast<double>(expected),
                        4 * 0x1p-53 * std::fabs(static_cast<double>(expected)) + 1e-300)
                << "element " << i;
        }
    }
}

void check_sum(const HostArray& input, const std::optional<std::vector<int>>& axes, const HostArray& result) {
    const auto groups = reduction_groups(input.shape(), flags(input.ndim(), axes));
    ASSERT_EQ(result.size(), groups.size());
    for (std::size_t o = 0; o < groups.size(); ++o) {
        if (is_int_kind(input.dtype())) {
            std::uint64_t acc = 0;
            for (const std::size_t k : groups[o]) acc += int_at(input, k);
            ASSERT_EQ(int_at(result, o), acc) << "output " << o;
        } else {
            long double acc = 0, magnitude = 0;
            for (const std::size_t k : groups[o]) {
                acc += value_at(input, k).real();
                magnitude += std::fabs(value_at(input, k).real());
            }
            const long double tol = static_cast<long double>(groups[o].size() + 2) * std::ldexp(1.0L, -24) * magnitude;
            ASSERT_LE(std::fabs(value_at(result, o).real() - acc), tol) << "output " << o;
        }
    }
}

TEST_P(ManyAxes, SumsLeavingMoreThanEightKeptOrReducedAxes) {
    using Axes = std::optional<std::vector<int>>;
    for (const DType& d : {DType(Kind::int16), DType(Kind::float32)})
        for (const std::size_t ndim : {std::size_t{10}, std::size_t{12}}) {
            std::vector<int> inner(ndim - 2);
            std::iota(inner.begin(), inner.end(), 2);
            // 9 or 10 kept axes (the result is C-contiguous, the input not: they stay apart);
            // 8 or 10 reduced ones; every axis; and a stepped `out` of 10 axes.
            for (const Axes& axes :
                 {Axes{std::vector<int>{0, -1}}, Axes{std::vector<int>{0, 1}}, Axes{inner}, Axes{}}) {
                // float32 once (the kernels are the integers' but for their types): compile time.
                if (d == DType(Kind::float32) && axes) continue;
                SCOPED_TRACE(::testing::Message() << d.name() << " " << ndim << " axes, reducing "
                                                  << (axes ? std::to_string(axes->size()) : "all"));
                const Stepped x = stepped(queue(), d, ndim, true);
                check_sum(x.host, axes, sum(queue(), x.device, {axes}).get(queue()));
            }
            SCOPED_TRACE(::testing::Message() << d.name() << " " << ndim << " axes into a stepped out");
            const Stepped x = stepped(queue(), d, ndim + 2);
            const Stepped out = stepped(queue(), d == DType(Kind::int16) ? DType(Kind::int64) : d, ndim);
            sum(queue(), x.device, {std::vector<int>{0, 1}, false, out.device});
            check_sum(x.host, std::vector<int>{0, 1}, out.device.copy(queue()).get(queue()));
        }
}

TEST_P(ManyAxes, CumsumAlongOneOfTwelveSteppedAxes) {
    for (const DType& d : {DType(Kind::int32), DType(Kind::float32)})
        for (const std::size_t ndim : {std::size_t{10}, std::size_t{12}})
            for (const int axis : {0, 3, -1}) {
                SCOPED_TRACE(::testing::Message() << d.name() << " " << ndim << " axes, axis " << axis);
                const Stepped x = stepped(queue(), d, ndim, true);
                const HostArray got = cumsum(queue(), x.device, axis).get(queue());
                const auto rows = reduction_groups(x.host.shape(), flags(ndim, std::vector<int>{axis}));
                for (const auto& row : rows) {
                    std::uint64_t iacc = 0;
                    long double acc = 0, magnitude = 0;
                    for (std::size_t j = 0; j < row.size(); ++j) {
                        const std::size_t k = row[j];
                        if (is_int_kind(d)) {
                            iacc += int_at(x.host, k);
                            ASSERT_EQ(int_at(got, k), iacc) << "element " << k;
                        } else {
                            acc += value_at(x.host, k).real();
                            magnitude += std::fabs(value_at(x.host, k).real());
                            ASSERT_LE(std::fabs(value_at(got, k).real() - acc),
                                      static_cast<long double>(j + 3) * std::ldexp(1.0L, -24) * magnitude)
                                << "element " << k;
                        }
                    }
                }
            }
}

TEST_P(ManyAxes, MoreThanThirtyTwoUnmergeableAxesAreUnsupported) {
    // 33 axes of extent 2 that all step by one element (numpy's as_strided can make it): a stride
    // is never twice its neighbour's, so nothing merges. Refused before anything is launched (the
    // views' 2^33 elements are never visited), by code paths that allocate no result of that size.
    const Array base = Array::zeros(queue(), {64}, Kind::float32);
    const Array x = Array::from_buffer(base.base(), Kind::float32,
                                       Layout{std::vector<std::size_t>(33, 2), std::vector<std::ptrdiff_t>(33, 4), 0});
    EXPECT_THROW(sum(queue(), x), UnsupportedError);
    const ElementwiseKernel reader("const float *x", "(void)x[i]");
    EXPECT_THROW(reader(queue(), x), UnsupportedError);
}

}  // namespace
}  // namespace kjarni::test
