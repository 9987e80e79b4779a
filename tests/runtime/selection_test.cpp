// copy_if, boolean and integer-array indexing (read and assign), nonzero, argwhere and
// count_nonzero against host references on fresh random data. Elements are compared byte for byte
// (selection moves elements, it computes nothing): every dtype, masks of the whole shape and of
// leading axes, 0-d masks, empty arrays, non-contiguous inputs and targets, negative indices,
// indices along another axis, broadcast values, and the errors numpy raises as IndexError.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "kjarni/selection.hpp"
#include "runtime/algorithm_test_support.hpp"
#include "support/argument_errors.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

/// The bytes of element k (C order) of a host array.
std::vector<std::byte> element(const HostArray& c, std::size_t k) {
    const std::size_t s = c.dtype().itemsize();
    return {c.data() + k * s, c.data() + (k + 1) * s};
}

HostArray random_mask(std::vector<std::size_t> shape, double p = 0.5) {
    HostArray m(DType(Kind::bool_), std::move(shape));
    std::bernoulli_distribution on(p);
    for (std::size_t k = 0; k < m.size(); ++k) m.data()[k] = std::byte{static_cast<unsigned char>(on(random_engine()))};
    return m;
}

/// numpy's a[mask] on the host: rows of the leading mask.ndim() axes where the mask is true.
HostArray host_boolean_index(const HostArray& a, const HostArray& mask) {
    const HostArray c = a.copy();
    const std::size_t lead = mask.size();
    const std::size_t row = lead == 0 ? 0 : a.size() / lead;
    std::vector<std::size_t> selected;
    for (std::size_t k = 0; k < lead; ++k)
        if (mask.data()[k] != std::byte{0}) selected.push_back(k);
    std::vector<std::size_t> shape{selected.size()};
    shape.insert(shape.end(), a.shape().begin() + static_cast<std::ptrdiff_t>(mask.ndim()), a.shape().end());
    HostArray out(a.dtype(), shape);
    const std::size_t s = a.dtype().itemsize();
    for (std::size_t j = 0; j < selected.size(); ++j)
        std::memcpy(out.data() + j * row * s, c.data() + selected[j] * row * s, row * s);
    return out;
}

void expect_same(const HostArray& got, const HostArray& want) {
    ASSERT_EQ(got.dtype(), want.dtype());
    ASSERT_EQ(got.shape(), want.shape());
    const HostArray g = got.copy(), w = want.copy();
    for (std::size_t k = 0; k < w.size(); ++k) ASSERT_EQ(element(g, k), element(w, k)) << "element " << k;
}

/// The bytes of 3 in `dtype` (one of the dtypes BooleanIndexAssign uses).
std::vector<std::byte> three_as(const DType& dtype) {
    std::vector<std::byte> b(dtype.itemsize());
    const auto put = [&]<class T>(T v) { std::memcpy(b.data(), &v, sizeof(T)); };
    switch (dtype.kind()) {
    case Kind::float32: put(3.0f); break;
    case Kind::int8: put(std::int8_t{3}); break;
    case Kind::complex128: put(std::complex<double>(3.0, 0.0)); break;
    case Kind::float16: put(detail::float_to_half(3.0f)); break;
    default: throw std::logic_error("three_as");
    }
    return b;
}

class Selections : public DeviceTest {};

TEST_P(Selections, CopyIfKeepsOrderAndCounts) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{37}, std::size_t{20000}}) {
        SCOPED_TRACE(n);
        const std::vector<float> host = random_vector<float>(n, -1.0f, 1.0f);
        const Array x = Array::from_host(queue(), std::span<const float>(host), {n});
        const float limit = 0.25f;
        const CopyIfResult r = copy_if(queue(), x, "ary[i] > limit", "float limit", {limit});
        std::vector<float> want;
        std::copy_if(host.begin(), host.end(), std::back_inserter(want), [&](float v) { return v > limit; });
        const auto count = r.count.get(queue()).to_vector<std::uint64_t>();
        ASSERT_EQ(count.at(0), want.size());
        const std::vector<float> out = r.out.get(queue()).to_vector<float>();
        ASSERT_EQ(out.size(), n);
        EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(want.size())), want);
    }
    // A predicate on another array (a mask), over int64 values of a 2-d array (flattened).
    const HostArray values = random_host(DType(Kind::int64), {30, 40});
    const HostArray mask = random_mask({30, 40}, 0.3);
    const CopyIfResult r = copy_if(queue(), Array::from_host(queue(), values), "keep[i] != 0", "const bool* keep",
                                   {Array::from_host(queue(), mask).reshape({-1})});
    const HostArray want = host_boolean_index(values, mask);
    const std::size_t count = r.count.get(queue()).to_vector<std::uint64_t>().at(0);
    ASSERT_EQ(count, want.size());
    expect_same(r.out.get(queue())[{Slice{0, static_cast<std::ptrdiff_t>(count)}}].copy(), want);
}

TEST_P(Selections, BooleanIndexEveryDtypeAndMaskRank) {
    for (const DType& d : dtypes::all_scalars()) {
        SCOPED_TRACE(d.name());
        HostArray host = random_host(d, {6, 7, 5});
        const Array x = Array::from_host(queue(), host);
        for (std::size_t rank = 0; rank <= 3; ++rank) {
            SCOPED_TRACE(::testing::Message() << "mask of " << rank << " axes");
            const std::vector<std::size_t> mask_shape(host.shape().begin(),
                                                      host.shape().begin() + static_cast<std::ptrdiff_t>(rank));
            const HostArray mask = random_mask(mask_shape);
            const HostArray got = boolean_index(queue(), x, Array::from_host(queue(), mask)).get(queue());
            if (rank == 0) {
                const bool on = mask.data()[0] != std::byte{0};
                ASSERT_EQ(got.shape(), (std::vector<std::size_t>{on ? 1u : 0u, 6, 7, 5}));
                if (on) expect_same(got.reshape({6, 7, 5}), host);
                continue;
            }
            expect_same(got, host_boolean_index(host, mask));
        }
    }
    // A non-contiguous array and mask, and an empty one.
    const HostArray big = random_host(DType(Kind::float32), {12, 9});
    const HostArray big_mask = random_mask({12, 9});
    const Slice every_other{std::nullopt, std::nullopt, 2}, reversed{std::nullopt, std::nullopt, -1};
    const HostArray view = big[{every_other, reversed}].copy();
    const HostArray view_mask = big_mask[{every_other, reversed}].copy();
    const Array got = boolean_index(queue(), Array::from_host(queue(), big)[{every_other, reversed}],
                                    Array::from_host(queue(), big_mask)[{every_other, reversed}]);
    expect_same(got.get(queue()), host_boolean_index(view, view_mask));
    const Array empty = Array::zeros(queue(), {0, 3}, DType(Kind::int32));
    EXPECT_EQ(boolean_index(queue(), empty, Array::zeros(queue(), {0, 3}, DType(Kind::bool_))).shape(),
              std::vector<std::size_t>{0});
}

TEST_P(Selections, BooleanIndexAssign) {
    for (const DType& d : {DType(Kind::float32), DType(Kind::int8), DType(Kind::complex128), DType(Kind::float16)}) {
        SCOPED_TRACE(d.name());
        const HostArray host = random_host(d, {8, 6});
        // A scalar through a mask of the whole shape, into a transposed (non-contiguous) view.
        {
            const HostArray mask = random_mask({6, 8});
            const Array x = Array::from_host(queue(), host);
            boolean_index_assign(queue(), x.transpose(), Array::from_host(queue(), mask), Operand(3.0));
            HostArray want = host.copy();
            const std::vector<std::byte> three = three_as(d);
            for (std::size_t i = 0; i < 6; ++i)
                for (std::size_t j = 0; j < 8; ++j)
                    if (mask.at<std::uint8_t>({i, j}))
                        std::memcpy(want.data() + (j * 6 + i) * d.itemsize(), three.data(), d.itemsize());
            expect_same(x.get(queue()), want);
        }
        // An array of values through a mask of the leading axis, and a row broadcast to every
        // selected row.
        for (const bool broadcast_row : {false, true}) {
            const HostArray mask = random_mask({8});
            std::size_t count = 0;
            for (std::size_t k = 0; k < 8; ++k) count += mask.data()[k] != std::byte{0};
            const HostArray values =
                random_host(d, broadcast_row ? std::vector<std::size_t>{6} : std::vector<std::size_t>{count, 6});
            const Array x = Array::from_host(queue(), host);
            boolean_index_assign(queue(), x, Array::from_host(queue(), mask), Array::from_host(queue(), values));
            HostArray want = host.copy();
            std::size_t j = 0;
            for (std::size_t k = 0; k < 8; ++k) {
                if (mask.data()[k] == std::byte{0}) continue;
                std::memcpy(want.data() + k * 6 * d.itemsize(),
                            values.data() + (broadcast_row ? 0 : j * 6 * d.itemsize()), 6 * d.itemsize());
                ++j;
            }
            expect_same(x.get(queue()), want);
        }
    }
}

TEST_P(Selections, IntegerIndexReadAndAssign) {
    const HostArray host = random_host(DType(Kind::float64), {9, 5});
    const Array x = Array::from_host(queue(), host);
    // Read with negative indices, along both axes.
    const std::vector<std::int32_t> rows{-1, 0, 4, -9, 4};
    const HostArray got =
        integer_index(queue(), x, Array::from_host(queue(), std::span<const std::int32_t>(rows), {5})).get(queue());
    ASSERT_EQ(got.shape(), (std::vector<std::size_t>{5, 5}));
    for (std::size_t k = 0; k < 5; ++k)
        for (std::size_t c = 0; c < 5; ++c)
            ASSERT_EQ(got.at<double>({k, c}), host.at<double>({static_cast<std::size_t>((rows[k] + 9) % 9), c}));
    const std::vector<std::int64_t> cols{-5, 3};
    const HostArray got_cols =
        integer_index(queue(), x, Array::from_host(queue(), std::span<const std::int64_t>(cols), {1, 2}), 1)
            .get(queue());
    ASSERT_EQ(got_cols.shape(), (std::vector<std::size_t>{9, 1, 2}));
    for (std::size_t r = 0; r < 9; ++r) {
        EXPECT_EQ(got_cols.at<double>({r, 0, 0}), host.at<double>({r, 0}));
        EXPECT_EQ(got_cols.at<double>({r, 0, 1}), host.at<double>({r, 3}));
    }
    // Assign distinct rows (negative ones too) from an array, then a scalar into columns of a
    // transposed view.
    const Array y = Array::from_host(queue(), host);
    const std::vector<std::int16_t> targets{2, -1, 0};
    const HostArray values = random_host(DType(Kind::float64), {3, 5});
    integer_index_assign(queue(), y, Array::from_host(queue(), std::span<const std::int16_t>(targets), {3}),
                         Array::from_host(queue(), values));
    HostArray want = host.copy();
    for (std::size_t k = 0; k < 3; ++k)
        for (std::size_t c = 0; c < 5; ++c)
            want.at<double>({static_cast<std::size_t>((targets[k] + 9) % 9), c}) = values.at<double>({k, c});
    expect_same(y.get(queue()), want);
    const std::vector<std::uint8_t> picked{1, 7};
    integer_index_assign(queue(), y.transpose(), Array::from_host(queue(), std::span<const std::uint8_t>(picked), {2}),
                         Operand(-2.5), 1);
    for (std::size_t c = 0; c < 5; ++c) want.at<double>({1, c}) = want.at<double>({7, c}) = -2.5;
    expect_same(y.get(queue()), want);
    // Repeated indices (-6 is 3 for an axis of 9): the last occurrence's values land, as numpy's.
    const std::vector<std::int64_t> repeated{3, -6, 5, 3, 8, -6};
    const HostArray rows_of_values = random_host(DType(Kind::float64), {6, 5});
    integer_index_assign(queue(), y, Array::from_host(queue(), std::span<const std::int64_t>(repeated), {6}),
                         Array::from_host(queue(), rows_of_values));
    for (std::size_t k = 0; k < repeated.size(); ++k)  // in order: later writes win
        for (std::size_t c = 0; c < 5; ++c)
            want.at<double>({static_cast<std::size_t>((repeated[k] + 9) % 9), c}) = rows_of_values.at<double>({k, c});
    expect_same(y.get(queue()), want);
    // Values broadcast along axis 1: a[:, [0, 2]] = column vector (9, 1).
    const HostArray column = random_host(DType(Kind::float64), {9, 1});
    const std::vector<std::int64_t> two{0, 2};
    integer_index_assign(queue(), y, Array::from_host(queue(), std::span<const std::int64_t>(two), {2}),
                         Array::from_host(queue(), column), 1);
    for (std::size_t r = 0; r < 9; ++r) want.at<double>({r, 0}) = want.at<double>({r, 2}) = column.at<double>({r, 0});
    expect_same(y.get(queue()), want);
}

TEST_P(Selections, NonzeroArgwhereCountNonzero) {
    for (const DType& d : dtypes::all_scalars()) {
        SCOPED_TRACE(d.name());
        HostArray host = random_host(d, {5, 4, 6}, Values::sparse);
        if (d.kind() == Kind::float32) {
            // -0.0 is zero, NaN is not (numpy's truth values).
            host.at<float>({0, 0, 0}) = -0.0f;
            host.at<float>({0, 0, 1}) = std::numeric_limits<float>::quiet_NaN();
        }
        const Array x = Array::from_host(queue(), host);
        std::vector<std::vector<std::int64_t>> want(3);
        std::vector<std::int64_t> per_axis0(4 * 6, 0);
        const std::vector<std::byte> zero(d.itemsize());
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t j = 0; j < 4; ++j)
                for (std::size_t k = 0; k < 6; ++k) {
                    const Complex v = value_at(host, (i * 4 + j) * 6 + k);
                    const bool nz = std::isnan(v.real()) || std::isnan(v.imag()) || v != Complex(0);
                    if (!nz) continue;
                    want[0].push_back(static_cast<std::int64_t>(i));
                    want[1].push_back(static_cast<std::int64_t>(j));
                    want[2].push_back(static_cast<std::int64_t>(k));
                    ++per_axis0[j * 6 + k];
                }
        const std::vector<Array> got = nonzero(queue(), x);
        ASSERT_EQ(got.size(), 3u);
        for (std::size_t a = 0; a < 3; ++a)
            EXPECT_EQ(got[a].get(queue()).to_vector<std::int64_t>(), want[a]) << "axis " << a;
        const HostArray rows = argwhere(queue(), x).get(queue());
        ASSERT_EQ(rows.shape(), (std::vector<std::size_t>{want[0].size(), 3}));
        for (std::size_t r = 0; r < want[0].size(); ++r)
            for (std::size_t a = 0; a < 3; ++a) ASSERT_EQ(rows.at<std::int64_t>({r, a}), want[a][r]);
        EXPECT_EQ(count_nonzero(queue(), x).get(queue()).to_vector<std::int64_t>(),
                  std::vector<std::int64_t>{static_cast<std::int64_t>(want[0].size())});
        EXPECT_EQ(count_nonzero(queue(), x, std::vector<int>{0}).get(queue()).to_vector<std::int64_t>(), per_axis0);
    }
    // Nothing non-zero.
    const Array zeros = Array::zeros(queue(), {3, 3}, DType(Kind::int32));
    EXPECT_EQ(argwhere(queue(), zeros).shape(), (std::vector<std::size_t>{0, 2}));
    EXPECT_EQ(nonzero(queue(), zeros)[1].size(), 0u);
}

TEST_P(Selections, BadInputIsAnArgumentError) {
    const Array x = Array::zeros(queue(), {4, 3}, DType(Kind::float32));
    const Array wrong_mask = Array::zeros(queue(), {3}, DType(Kind::bool_));
    const Array int_mask = Array::zeros(queue(), {4, 3}, DType(Kind::int32));
    EXPECT_EQ(argument_named_by([&] { boolean_index(queue(), x, wrong_mask); }), "mask");
    EXPECT_EQ(argument_named_by([&] { boolean_index(queue(), x, int_mask); }), "mask");
    EXPECT_EQ(argument_named_by([&] { boolean_index_assign(queue(), x, wrong_mask, Operand(1.0)); }), "mask");
    const Array mask = Array::zeros(queue(), {4}, DType(Kind::bool_));
    // Values of the wrong shape for the selection (4 rows of 3; zero rows selected, but (2, 2) does
    // not broadcast to (0, 3)).
    EXPECT_EQ(argument_named_by([&] {
                  boolean_index_assign(queue(), x, mask, Array::zeros(queue(), {2, 2}, DType(Kind::float32)));
              }),
              "values");
    const std::vector<std::int32_t> out_of_range{0, 4};
    const Array bad = Array::from_host(queue(), std::span<const std::int32_t>(out_of_range), {2});
    EXPECT_EQ(argument_named_by([&] { integer_index(queue(), x, bad); }), "indices");
    EXPECT_EQ(argument_named_by([&] { integer_index_assign(queue(), x, bad, Operand(1.0)); }), "indices");
    const std::vector<std::int32_t> too_negative{-5};
    EXPECT_EQ(argument_named_by([&] {
                  integer_index_assign(queue(), x,
                                       Array::from_host(queue(), std::span<const std::int32_t>(too_negative), {1}),
                                       Operand(1.0));
              }),
              "indices");
    EXPECT_EQ(argument_named_by([&] { integer_index(queue(), x, Array::zeros(queue(), {2}, DType(Kind::float32))); }),
              "indices");
    EXPECT_EQ(argument_named_by([&] { integer_index(queue(), x, Array::zeros(queue(), {2}, DType(Kind::bool_))); }),
              "indices");
    EXPECT_EQ(argument_named_by([&] { integer_index(queue(), x, Array::zeros(queue(), {2}, DType(Kind::int32)), 2); }),
              "axis");
    EXPECT_EQ(argument_named_by([&] { nonzero(queue(), Array::zeros(queue(), {}, DType(Kind::int32))); }), "array");
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Selections);

}  // namespace
}  // namespace kjarni::test
