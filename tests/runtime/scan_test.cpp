// Scans against host references on fresh random data: cumsum for every dtype x layout class x
// axis (and flattened), cumprod, long rows through the single pass (every level of its look-back,
// 4-, 8- and 16-byte items, a non-commutative scan) and through the three kernels, ScanKernel's
// exclusive scan and last_item, in place, determinism, MultiArray part by part, bad input.
//
// Tolerances: position k of a float cumsum is a sum of k + 1 terms combined in some order of
// additions, so it errs by at most k u sum_{j<=k} |x_j| (u: 2^-24 for float32 and float16, which
// is scanned in float32; 2^-53 for float64; per component for complex); we allow (k + 3) u sum|x_j|
// plus half a unit in the last place of a float16 result. cumprod alike with products. Integers
// are exact.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "algorithms/scan_engine.hpp"
#include "kjarni/scan.hpp"
#include "runtime/algorithm_test_support.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

DType scan_dtype(const DType& d) {
    if (d.kind() == Kind::bool_ || (is_int_kind(d) && is_signed(d))) return Kind::int64;
    if (is_int_kind(d)) return Kind::uint64;
    return d;
}

/// Checks `result` against the scan of `input` (both C-contiguous host arrays of one shape, or a
/// flattened result when `axis` is not given).
void check_scan(const HostArray& input, std::optional<int> axis, const HostArray& result, bool multiply) {
    ASSERT_EQ(result.dtype(), scan_dtype(input.dtype()));
    ASSERT_EQ(result.size(), input.size());
    const auto& shape = input.shape();
    std::vector<bool> scanned(shape.size(), false);
    std::vector<std::size_t> shape_used = shape;
    if (axis) {
        scanned[static_cast<std::size_t>(*axis < 0 ? *axis + static_cast<int>(shape.size()) : *axis)] = true;
    } else {
        shape_used = {input.size()};
        scanned = {true};
    }
    // Rows: reduction groups over the scanned axis, each in order along it.
    const auto rows = reduction_groups(shape_used, scanned);
    const DType r = result.dtype();
    const DType acc_type = r.kind() == Kind::float16 ? DType(Kind::float32) : r;
    for (const auto& row : rows) {
        std::uint64_t iacc = multiply ? 1 : 0;
        Complex acc = multiply ? 1 : 0;
        long double magnitude = multiply ? 1 : 0;
        for (std::size_t j = 0; j < row.size(); ++j) {
            const std::size_t k = row[j];
            SCOPED_TRACE(::testing::Message() << "element " << k << ", position " << j);
            if (is_int_kind(r)) {
                iacc = multiply ? iacc * int_at(input, k) : iacc + int_at(input, k);
                ASSERT_EQ(int_at(result, k), iacc);
                continue;
            }
            const Complex v = value_at(input, k);
            if (multiply) {
                acc *= v;
                magnitude *= std::abs(v);
            } else {
                acc += v;
                magnitude += std::abs(v.real()) + std::abs(v.imag());
            }
            long double tol = (static_cast<long double>(j) + 3) * unit_roundoff(acc_type) * magnitude *
                              (multiply && is_complex(r) ? 4 : 1);
            if (r.kind() == Kind::float16) tol += std::ldexp(std::abs(acc), -11);
            const Complex got = value_at(result, k);
            ASSERT_LE(std::abs(got.real() - acc.real()), tol) << "got " << got << " expected " << acc;
            ASSERT_LE(std::abs(got.imag() - acc.imag()), tol) << "got " << got << " expected " << acc;
        }
    }
}

/// A scan that is exact and associative but not commutative, so that any combination out of order
/// shows: composing maps x -> m x + c mod 2^h packed in an unsigned item of 2h bits (m in the low
/// half, c in the high half). Checked position by position over one row of `long_row` positions and
/// three rows of `short_row`.
template <class U>
void check_composed_maps(const Queue& queue, std::size_t long_row, std::size_t short_row) {
    constexpr unsigned half = 4 * sizeof(U);
    constexpr U low = static_cast<U>((U{1} << half) - 1);
    const auto compose = [](U a, U b) {
        const U m = static_cast<U>((b & low) * (a & low) & low);
        const U c = static_cast<U>(((b & low) * (a >> half) + (b >> half)) & low);
        return static_cast<U>(m | static_cast<U>(c << half));
    };
    const DType dtype = sizeof(U) == 4 ? DType(Kind::uint32) : DType(Kind::uint64);
    const std::string ctype = sizeof(U) == 4 ? "uint32_t" : "uint64_t";
    const std::string mask = fmt::format("{:#x}u", low);
    const ScanKernel
        k(dtype, fmt::format("({})1", ctype),
          fmt::format("((b & {0}) * (a & {0}) & {0}) | ((((b & {0}) * (a >> {1}) + (b >> {1})) & {0}) << {1})", mask,
                      half),
          "x[i]", "y[i] = item;", fmt::format("const {0} *x, {0} *y", ctype));
    for (const std::vector<std::size_t>& shape :
         {std::vector<std::size_t>{long_row}, std::vector<std::size_t>{3, short_row}}) {
        SCOPED_TRACE(::testing::Message() << ctype << " rows of " << shape.back());
        const std::size_t size = std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
        const std::vector<U> maps = random_vector<U>(size, 0, std::numeric_limits<U>::max());
        const Array x = Array::from_host(queue, HostArray::from(maps, shape));
        const Array y = Array::empty(queue.device(), shape, dtype);
        k(queue, {x, y}, -1);
        const std::vector<U> got = y.get(queue).to_vector<U>();
        const std::size_t length = shape.back();
        for (std::size_t r = 0; r < size / length; ++r) {
            U acc = 1;
            for (std::size_t j = 0; j < length; ++j) {
                acc = compose(acc, maps[r * length + j]);
                ASSERT_EQ(got[r * length + j], acc) << "row " << r << " position " << j;
            }
        }
    }
}

class Scans : public DeviceTest {};

TEST_P(Scans, CumsumEveryDtypeLayoutAndAxis) {
    for (const DType& d : dtypes::all_scalars())
        for (LayoutClass layout : {LayoutClass::contiguous, LayoutClass::stepped, LayoutClass::negative,
                                   LayoutClass::transposed, LayoutClass::broadcast})
            for (const std::optional<int> axis :
                 {std::optional<int>{0}, std::optional<int>{1}, std::optional<int>{-1}, std::optional<int>{}}) {
                SCOPED_TRACE(::testing::Message() << d.name() << " " << name_of(layout) << " axis "
                                                  << (axis ? std::to_string(*axis) : "none"));
                HostArray host = random_host(d, {4, 5, 6});
                const Array x = device_view(queue(), host, layout);
                check_scan(host, axis, cumsum(queue(), x, axis).get(queue()), false);
            }
}

TEST_P(Scans, CumprodAndEmpty) {
    for (const DType& d : {DType(Kind::int32), DType(Kind::uint8), DType(Kind::float32), DType(Kind::complex128),
                           DType(Kind::float16)}) {
        SCOPED_TRACE(d.name());
        HostArray host = random_host(d, {4, 5, 6}, Values::ones);
        const Array x = device_view(queue(), host, LayoutClass::negative);
        check_scan(host, 1, cumprod(queue(), x, 1).get(queue()), true);
        const Array e = Array::zeros(queue(), {3, 0, 2}, d);
        EXPECT_EQ(cumsum(queue(), e, 1).size(), 0u);
        EXPECT_EQ(cumsum(queue(), e).shape(), std::vector<std::size_t>{0});
    }
}

TEST_P(Scans, LongRowsThroughBothStrategies) {
    // The single pass, and the three kernels that devices unable to run it take (forced here).
    struct Restore {
        ~Restore() { detail::allow_single_pass_scans(true); }
    } restore;
    const std::vector<std::pair<std::vector<std::size_t>, int>> cases = {{{3, 100000}, 1},
                                                                         {{1 << 18}, 0},
                                                                         {{100000, 3}, 0},
                                                                         {{5000, 70}, 0},
                                                                         {{2, 3, 20000}, -1}};
    for (const bool single_pass : {true, false}) {
        detail::allow_single_pass_scans(single_pass);
        for (const DType& d : {DType(Kind::int32), DType(Kind::float32)})
            for (const auto& [shape, axis] : cases) {
                if (!single_pass && shape[0] == 5000) continue;  // (one tile per row: nothing the others do not show)
                SCOPED_TRACE(::testing::Message() << (single_pass ? "single pass " : "three kernels ") << d.name()
                                                  << " shape[0] " << shape[0] << " axis " << axis);
                const HostArray h = random_host(d, shape);
                const Array x = Array::from_host(queue(), h);
                check_scan(h, axis, cumsum(queue(), x, axis).get(queue()), false);
            }
    }
}

TEST_P(Scans, FourByteIntegerCumsumOfLongRows) {
    // A 4-byte integer result (dtype given): through CUDA the single pass with look-back, whose
    // grouping of additions depends on timing; exact arithmetic (mod 2^32) makes every grouping give
    // the same bits. uint32 over its whole range wraps often; int32 stays small.
    const std::vector<std::pair<std::vector<std::size_t>, int>> cases = {{{(1 << 20) + 3}, 0},
                                                                         {{3, 300001}, 1},
                                                                         {{2, 5, 70001}, -1},
                                                                         {{70001, 4}, 0}};
    constexpr std::uint32_t most = std::numeric_limits<std::uint32_t>::max();
    for (const Kind kind : {Kind::uint32, Kind::int32})
        for (const auto& [shape, axis] : cases) {
            SCOPED_TRACE(::testing::Message() << DType(kind).name() << " shape[0] " << shape[0] << " axis " << axis);
            const std::size_t size = std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
            const HostArray h = kind == Kind::uint32
                                    ? HostArray::from(random_vector<std::uint32_t>(size, 0, most), shape)
                                    : random_host(kind, shape);
            const Array x = Array::from_host(queue(), h);
            const HostArray got = cumsum(queue(), x, axis, DType(kind)).get(queue());
            ASSERT_EQ(got.dtype(), DType(kind));
            std::vector<bool> scanned(shape.size(), false);
            scanned[static_cast<std::size_t>(axis < 0 ? axis + static_cast<int>(shape.size()) : axis)] = true;
            for (const auto& row : reduction_groups(shape, scanned)) {
                std::uint32_t acc = 0;
                for (std::size_t j = 0; j < row.size(); ++j) {
                    acc += static_cast<std::uint32_t>(int_at(h, row[j]));
                    ASSERT_EQ(static_cast<std::uint32_t>(int_at(got, row[j])), acc) << "position " << j;
                }
            }
            const HostArray again = cumsum(queue(), x, axis, DType(kind)).get(queue());
            EXPECT_EQ(std::memcmp(got.data(), again.data(), 4 * got.size()), 0);
        }
    // cumprod of odd uint32 (products mod 2^32 stay odd, never 0).
    std::vector<std::uint32_t> odd_values = random_vector<std::uint32_t>(2 * 250001, 0, most);
    for (std::uint32_t& v : odd_values) v |= 1u;
    const HostArray odd = HostArray::from(odd_values, {2, 250001});
    const HostArray prod = cumprod(queue(), Array::from_host(queue(), odd), 1, DType(Kind::uint32)).get(queue());
    for (std::size_t r = 0; r < 2; ++r) {
        std::uint32_t acc = 1;
        for (std::size_t j = 0; j < 250001; ++j) {
            acc *= static_cast<std::uint32_t>(int_at(odd, r * 250001 + j));
            ASSERT_EQ(static_cast<std::uint32_t>(int_at(prod, r * 250001 + j)), acc)
                << "cumprod row " << r << " position " << j;
        }
    }
}

TEST_P(Scans, FourByteScansOverManyTilesAreOrderedAndRepeatable) {
    // Rows long enough for the single pass's whole look-back hierarchy (blocks of 32 tiles,
    // superblocks of 32 blocks: 1024 tiles of 10240 positions, more than 10^7 positions; a GPU
    // takes tiles of 8192 at this length, 1284 of them) and rows
    // of a few blocks. A float32 cumsum within the rounding bound and with the same bits twice; a
    // scan_expr that is associative but not commutative (composing maps x -> m x + c mod 2^16,
    // m in the low half of the item, c in the high half), exact, so that any combination out of
    // order, at any level, shows.
    const std::size_t long_row = 1027 * 10240 + 77;
    const HostArray f = random_host(Kind::float32, {long_row});
    const Array xf = Array::from_host(queue(), f);
    const HostArray first = cumsum(queue(), xf).get(queue());
    {
        // check_scan's bound (k + 3) u sum|x| is loose this far along the row; every strategy combines
        // a position's prefix in fewer than 1100 steps here (at most 40 in a work item's run, 10
        // over a group's totals, 5 + 5 in the look-back's trees, one per earlier tile: 1028 tiles).
        const std::vector<float> in = f.to_vector<float>(), out = first.to_vector<float>();
        double acc = 0, magnitude = 0;
        for (std::size_t j = 0; j < long_row; ++j) {
            acc += in[j];
            magnitude += std::abs(in[j]);
            ASSERT_LE(std::abs(out[j] - acc), 1103 * 0x1p-24 * magnitude) << "position " << j;
        }
    }
    const HostArray second = cumsum(queue(), xf).get(queue());
    EXPECT_EQ(std::memcmp(first.data(), second.data(), 4 * long_row), 0);

    check_composed_maps<std::uint32_t>(queue(), long_row, 70 * 10240 + 5);
}

TEST_P(Scans, WideItemScansOverManyTilesAreOrderedAndRepeatable) {
    // The single pass with 8- and 16-byte items (a tile holds as many bytes as 10240 4-byte items:
    // 5120 and 2560 items), over rows long enough for every level of its look-back: numpy's int64
    // cumsum of int32 input (exact), a uint64 scan that is associative but not commutative
    // (composing maps x -> m x + c mod 2^32, m in the low half, c in the high half), a complex128
    // cumsum within its rounding bound and with the same bits twice.
    const std::size_t long_row = 1027 * 5120 + 77;
    {
        const HostArray h = random_host(Kind::int32, {long_row});
        const HostArray got = cumsum(queue(), Array::from_host(queue(), h)).get(queue());
        ASSERT_EQ(got.dtype(), DType(Kind::int64));
        const std::vector<std::int32_t> in = h.to_vector<std::int32_t>();
        const std::vector<std::int64_t> out = got.to_vector<std::int64_t>();
        std::int64_t acc = 0;
        for (std::size_t j = 0; j < long_row; ++j) {
            acc += in[j];
            ASSERT_EQ(out[j], acc) << "int64 position " << j;
        }
    }
    check_composed_maps<std::uint64_t>(queue(), long_row, 70 * 5120 + 5);
    {
        // Every strategy combines a position's prefix in fewer than 1100 steps here (10 positions
        // in a work item, 10 over the group, 5 + 5 in the look-back's trees, one per earlier tile).
        const std::size_t row = 1027 * 2560 + 77;
        const HostArray h = random_host(Kind::complex128, {row});
        const Array x = Array::from_host(queue(), h);
        const HostArray first = cumsum(queue(), x).get(queue());
        Complex acc = 0;
        long double re = 0, im = 0;
        for (std::size_t j = 0; j < row; ++j) {
            const Complex v = value_at(h, j);
            acc += v;
            re += std::abs(v.real());
            im += std::abs(v.imag());
            const Complex got = value_at(first, j);
            ASSERT_LE(std::abs(got.real() - acc.real()), 1103 * 0x1p-53L * re) << "complex128 position " << j;
            ASSERT_LE(std::abs(got.imag() - acc.imag()), 1103 * 0x1p-53L * im) << "complex128 position " << j;
        }
        const HostArray second = cumsum(queue(), x).get(queue());
        EXPECT_EQ(std::memcmp(first.data(), second.data(), 16 * row), 0);
    }
}

TEST_P(Scans, ExclusiveScanWithLastItemAndScalars) {
    // y = exclusive prefix of (x + a) along axis 1, z = the row total; int64 for exactness.
    const ScanKernel k(Kind::int64, "0", "a + b", "(int64_t)x[i] + a", "y[i] = prev_item; z[i] = last_item;",
                       "const int16_t *x, int64_t *y, int64_t *z, int64_t a");
    for (const std::size_t length : {std::size_t{7}, std::size_t{30000}}) {
        const HostArray h = random_host(Kind::int16, {3, length});
        const Array x = Array::from_host(queue(), h);
        const Array y = Array::empty(queue().device(), {3, length}, Kind::int64);
        const Array z = Array::empty(queue().device(), {3, length}, Kind::int64);
        k(queue(), {x, y, z, std::int64_t{5}}, 1);
        const auto hy = y.get(queue()).to_vector<std::int64_t>(), hz = z.get(queue()).to_vector<std::int64_t>();
        for (std::size_t r = 0; r < 3; ++r) {
            std::int64_t acc = 0;
            for (std::size_t i = 0; i < length; ++i) {
                ASSERT_EQ(hy[r * length + i], acc) << "row " << r << " position " << i;
                acc += h.at<std::int16_t>({r, i}) + 5;
            }
            for (std::size_t i = 0; i < length; ++i) ASSERT_EQ(hz[r * length + i], acc);
        }
    }
}

TEST_P(Scans, InPlaceAndSameBitsEveryRun) {
    const HostArray h = random_host(Kind::int64, {50000});
    const Array x = Array::from_host(queue(), h);
    cumsum(queue(), x, 0, std::nullopt, x);
    check_scan(h, 0, x.get(queue()), false);

    const HostArray f = random_host(Kind::float32, {1 << 18});
    const Array xf = Array::from_host(queue(), f);
    const auto a = cumsum(queue(), xf).get(queue()).to_vector<float>();
    const auto b = cumsum(queue(), xf).get(queue()).to_vector<float>();
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

TEST_P(Scans, BadInputNamesTheCulprit) {
    const Array x = Array::zeros(queue(), {3, 4}, Kind::float32);
    EXPECT_THROW(cumsum(queue(), x, 2), ArgumentError);
    EXPECT_THROW(cumsum(queue(), x, 0, std::nullopt, Array::zeros(queue(), {4, 3}, Kind::float32)), ArgumentError);
    // Another dtype is numpy's too (cast into), but not another shape, even with another dtype.
    EXPECT_THROW(cumsum(queue(), x, 0, std::nullopt, Array::zeros(queue(), {4, 3}, Kind::float64)), ArgumentError);
    const ScanKernel k(Kind::float32, "0", "a + b", "x[i]", "y[i] = item;", "const float *x, float *y");
    const Array row = Array::zeros(queue(), {1, 4}, Kind::float32);
    EXPECT_THROW(k(queue(), {x, Array::zeros(queue(), {3, 1}, Kind::float32)}, 1),
                 ArgumentError);  // y broadcast along the axis
    EXPECT_THROW(k(queue(), {x}, 1), ArgumentError);
    EXPECT_THROW(k(queue(), {x, row}, 5), ArgumentError);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Scans);

TEST(MultiArrayScans, PartByPart) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const MultiQueue mq = MultiQueue::on_devices(context->devices());
    const HostArray h = random_host(Kind::int16, {6, 40});
    const MultiArray x = MultiArray::from_host(mq, h);
    check_scan(h, 1, cumsum_parts(mq, x, 1).get(mq), false);
}

/// Every other row on each device: parts that do not tile axis 0 with unstepped slices.
class AlternateRows final : public Splay {
public:
    std::vector<std::vector<Slice>> operator()(const std::vector<std::size_t>&, std::size_t devices) const override {
        std::vector<std::vector<Slice>> out;
        for (std::size_t k = 0; k < devices; ++k)
            out.push_back({Slice{static_cast<std::ptrdiff_t>(k), std::nullopt, static_cast<std::ptrdiff_t>(devices)}});
        return out;
    }
};

TEST(MultiArrayScans, AlongTheSplitAxisCarriesThePartsBefore) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const MultiQueue mq = MultiQueue::on_devices(context->devices());
    // Integers exact; float16 scanned and carried in float32; a 1-d array and rows of 3 x 4.
    for (const DType& d : {DType(Kind::int16), DType(Kind::float16), DType(Kind::complex64)})
        for (const std::vector<std::size_t>& shape :
             {std::vector<std::size_t>{9}, std::vector<std::size_t>{300, 3, 4}}) {
            SCOPED_TRACE(::testing::Message() << d.name() << " " << shape.size() << "-d");
            const HostArray h = random_host(d, shape);
            const MultiArray x = MultiArray::from_host(mq, h);
            check_scan(h, 0, cumsum_parts(mq, x, 0).get(mq), false);
        }
    // cumprod_parts multiplies by the carry: values near one (integers from -20 to 2 and complex
    // numbers of modulus up to 1.56 in rows short enough for int64 and float), real floats (0.9 to
    // 1.1) in 300 rows.
    for (const DType& d : {DType(Kind::int32), DType(Kind::float32), DType(Kind::complex64)})
        for (const std::vector<std::size_t>& shape :
             {std::vector<std::size_t>{9}, std::vector<std::size_t>{12, 2}, std::vector<std::size_t>{300, 3, 4}}) {
            if (d.kind() != Kind::float32 && shape.size() == 3) continue;
            SCOPED_TRACE(::testing::Message() << "cumprod_parts " << d.name() << " " << shape.size() << "-d");
            const HostArray h = random_host(d, shape, Values::ones);
            const MultiArray x = MultiArray::from_host(mq, h);
            check_scan(h, 0, cumprod_parts(mq, x, 0).get(mq), true);
        }
    const HostArray h = random_host(Kind::int32, {6, 4});
    EXPECT_THROW(cumsum_parts(mq, MultiArray::from_host(mq, h, std::make_shared<AlternateRows>()), 0),
                 UnsupportedError);
    EXPECT_THROW(cumprod_parts(mq, MultiArray::from_host(mq, h, std::make_shared<AlternateRows>()), 0),
                 UnsupportedError);
    EXPECT_THROW(cumsum_parts(mq, MultiArray::from_host(mq, h), 2), ArgumentError);
}

}  // namespace
}  // namespace kjarni::test
