// sort, argsort, unique and searchsorted against a host reference on fresh random data: every
// numeric dtype, with duplicates, NaNs of both signs, -0.0 and 0.0, infinities and the extremes of
// the integer types; empty and one-element arrays, rows along the last axis and along another
// axis, flattened, non-contiguous inputs, lengths of many tiles. The reference is std::stable_sort
// with numpy's comparison (NaN after everything, -0.0 equal to 0.0), over the values as long
// doubles (exact for every dtype, 64-bit integers included): a different road to the order than the
// device's bit transforms. Results are exact (positions and values), no tolerance.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/sort_onesweep.hpp"
#include "algorithms/sort_radix.hpp"
#include "kjarni/sorting.hpp"
#include "runtime/algorithm_test_support.hpp"
#include "support/argument_errors.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

std::vector<DType> sortable_dtypes() {
    return {Kind::bool_,  Kind::int8,  Kind::uint8,  Kind::int16,   Kind::uint16,  Kind::int32,
            Kind::uint32, Kind::int64, Kind::uint64, Kind::float16, Kind::float32, Kind::float64};
}

/// An element as numpy orders it.
struct Ordered {
    bool nan = false;
    long double value = 0;
};

bool numpy_less(const Ordered& a, const Ordered& b) {
    if (a.nan) return false;
    if (b.nan) return true;
    return a.value < b.value;
}
bool numpy_equal(const Ordered& a, const Ordered& b) { return a.nan ? b.nan : !b.nan && a.value == b.value; }

std::vector<Ordered> ordered(const HostArray& a) {
    const HostArray c = a.copy();
    std::vector<Ordered> out(c.size());
    for (std::size_t k = 0; k < c.size(); ++k) {
        const long double v = value_at(c, k).real();
        out[k] = {std::isnan(v), v};
    }
    return out;
}

/// Random values of `dtype` drawn so that duplicates are common and the special values occur:
/// for floats NaN, -NaN, +-0.0, +-inf and random finite values of both signs; for integers the
/// type's extremes, small values and random bit patterns over the whole range.
HostArray sort_data(const DType& dtype, std::vector<std::size_t> shape) {
    HostArray a(dtype, std::move(shape));
    auto& rng = random_engine();
    std::uniform_int_distribution<int> pick(0, 9);
    std::uniform_real_distribution<double> real(-100.0, 100.0);
    std::uniform_int_distribution<std::uint64_t> bits;
    for (std::size_t k = 0; k < a.size(); ++k) {
        std::byte* p = a.data() + k * dtype.itemsize();
        const int choice = pick(rng);
        const std::uint64_t random_bits = bits(rng);
        const auto put_float = [&](double v) {
            switch (dtype.kind()) {
            case Kind::float16: {
                const std::uint16_t h = detail::float_to_half(static_cast<float>(v));
                std::memcpy(p, &h, 2);
                break;
            }
            case Kind::float32: {
                const float f = static_cast<float>(v);
                std::memcpy(p, &f, 4);
                break;
            }
            default: std::memcpy(p, &v, 8); break;
            }
        };
        if (is_real(dtype)) {
            const double inf = std::numeric_limits<double>::infinity();
            const double nan = std::numeric_limits<double>::quiet_NaN();
            switch (choice) {
            case 0: put_float(nan); break;
            case 1: put_float(-nan); break;
            case 2: put_float(0.0); break;
            case 3: put_float(-0.0); break;
            case 4: put_float(choice % 2 ? inf : -inf); break;
            case 5: put_float(std::round(real(rng) / 10)); break;  // small integers: ties
            default: put_float(real(rng)); break;
            }
            if (choice == 4 && (random_bits & 1)) put_float(inf);
        } else if (dtype.kind() == Kind::bool_) {
            const std::uint8_t b = random_bits & 1;
            std::memcpy(p, &b, 1);
        } else {
            // Extremes (all ones / the sign bit alone / zero), small values, or random bits.
            std::uint64_t v = random_bits;
            if (choice == 0) v = ~std::uint64_t{0};
            else if (choice == 1) v = std::uint64_t{1} << (8 * dtype.itemsize() - 1);
            else if (choice == 2) v = 0;
            else if (choice < 6) v = random_bits % 5;
            std::memcpy(p, &v, dtype.itemsize());  // the low bytes (little-endian)
        }
    }
    return a;
}

/// The stable argsort of `values` within consecutive rows of `row` elements.
std::vector<std::int64_t> reference_argsort(const std::vector<Ordered>& values, std::size_t row) {
    std::vector<std::int64_t> out(values.size());
    for (std::size_t begin = 0; begin < values.size(); begin += row) {
        std::vector<std::size_t> idx(row);
        std::iota(idx.begin(), idx.end(), begin);
        std::stable_sort(idx.begin(), idx.end(),
                         [&](std::size_t x, std::size_t y) { return numpy_less(values[x], values[y]); });
        for (std::size_t k = 0; k < row; ++k) out[begin + k] = static_cast<std::int64_t>(idx[k] - begin);
    }
    return out;
}

class Sorts : public DeviceTest {
protected:
    /// Sorts and argsorts `host` (as the device array `x`, any view of the same contents) along the
    /// last axis and flattened, against the reference.
    void check(const HostArray& host, const Array& x) {
        const std::vector<Ordered> values = ordered(host);
        const std::size_t row = host.ndim() == 0 ? 1 : host.shape().back();
        for (const bool flattened : {false, true}) {
            SCOPED_TRACE(flattened ? "flattened" : "last axis");
            if (!flattened && host.ndim() == 0) continue;
            const std::size_t r = flattened ? host.size() : row;
            const std::optional<int> axis = flattened ? std::nullopt : std::optional<int>(-1);
            const std::vector<std::int64_t> expected =
                r == 0 ? std::vector<std::int64_t>{} : reference_argsort(values, r);
            const HostArray got_positions = argsort(queue(), x, axis).get(queue());
            ASSERT_EQ(got_positions.dtype(), DType(Kind::int64));
            ASSERT_EQ(got_positions.shape(), flattened ? std::vector<std::size_t>{host.size()} : host.shape());
            ASSERT_EQ(got_positions.to_vector<std::int64_t>(), expected);
            const HostArray got_sorted = sort(queue(), x, axis).get(queue());
            ASSERT_EQ(got_sorted.dtype(), host.dtype());
            ASSERT_EQ(got_sorted.shape(), got_positions.shape());
            const std::vector<Ordered> sorted = ordered(got_sorted);
            for (std::size_t k = 0; k < sorted.size(); ++k) {
                const std::size_t row_start = k / std::max<std::size_t>(r, 1) * r;
                const Ordered& want = values[row_start + static_cast<std::size_t>(expected[k])];
                ASSERT_TRUE(numpy_equal(sorted[k], want))
                    << "position " << k << ": got " << sorted[k].value << " want " << want.value;
            }
        }
    }
};

TEST_P(Sorts, EveryDtypeFlatAndAlongRows) {
    for (const DType& d : sortable_dtypes()) {
        SCOPED_TRACE(d.name());
        // Several tiles of the radix sort (2048 positions for 4-byte keys), short rows, one row.
        for (const auto& shape :
             {std::vector<std::size_t>{5000}, std::vector<std::size_t>{7, 300}, std::vector<std::size_t>{150, 3}}) {
            SCOPED_TRACE(::testing::Message() << "shape " << shape.size() << "-d, " << shape[0]);
            const HostArray host = sort_data(d, shape);
            check(host, Array::from_host(queue(), host));
        }
    }
}

TEST_P(Sorts, EmptyOneElementAndNonContiguous) {
    for (const DType& d : {DType(Kind::float32), DType(Kind::int16), DType(Kind::uint64)}) {
        SCOPED_TRACE(d.name());
        for (const auto& shape :
             {std::vector<std::size_t>{0}, std::vector<std::size_t>{1}, std::vector<std::size_t>{3, 0},
              std::vector<std::size_t>{0, 4}, std::vector<std::size_t>{4, 1}}) {
            const HostArray host = sort_data(d, shape);
            check(host, Array::from_host(queue(), host));
        }
        // A 0-d array flattened.
        const HostArray scalar = sort_data(d, {});
        const HostArray s = sort(queue(), Array::from_host(queue(), scalar), std::nullopt).get(queue());
        ASSERT_EQ(s.shape(), std::vector<std::size_t>{1});
        EXPECT_TRUE(numpy_equal(ordered(s)[0], ordered(scalar)[0]));
        // Stepped and negatively strided views, and a transposed one.
        HostArray big = sort_data(d, {6, 90});
        const Array device_big = Array::from_host(queue(), big);
        const Slice every_other{std::nullopt, std::nullopt, 2}, reversed{std::nullopt, std::nullopt, -1};
        check(big[{every_other, reversed}].copy(), device_big[{every_other, reversed}]);
        check(big.transpose().copy(), device_big.transpose());
    }
}

TEST_P(Sorts, AlongAnotherAxis) {
    const HostArray host = sort_data(DType(Kind::float32), {40, 3, 5});
    const Array x = Array::from_host(queue(), host);
    // Along axis 0: the reference sorts the transposed copy's last axis.
    const std::size_t axes[] = {1, 2, 0};
    const HostArray moved = host.transpose(axes).copy();
    const std::vector<std::int64_t> expected = reference_argsort(ordered(moved), 40);
    const HostArray got = argsort(queue(), x, 0).get(queue());
    ASSERT_EQ(got.shape(), host.shape());
    const std::size_t back[] = {1, 2, 0};
    const HostArray got_moved = got.transpose(back).copy();
    EXPECT_EQ(got_moved.to_vector<std::int64_t>(), expected);
    const HostArray sorted = sort(queue(), x, 0).get(queue());
    const std::vector<Ordered> sorted_moved = ordered(sorted.transpose(back).copy());
    const std::vector<Ordered> values = ordered(moved);
    for (std::size_t k = 0; k < values.size(); ++k)
        ASSERT_TRUE(numpy_equal(sorted_moved[k], values[k / 40 * 40 + static_cast<std::size_t>(expected[k])])) << k;
}

TEST_P(Sorts, UniqueWithIndexInverseAndCounts) {
    for (const DType& d : sortable_dtypes()) {
        SCOPED_TRACE(d.name());
        for (const auto& shape :
             {std::vector<std::size_t>{30, 70}, std::vector<std::size_t>{1}, std::vector<std::size_t>{0}}) {
            const HostArray host = sort_data(d, shape);
            const std::vector<Ordered> values = ordered(host);
            const UniqueResult u = unique(queue(), Array::from_host(queue(), host), {true, true, true});
            // Reference: the stable order, runs of numpy-equal values.
            const std::vector<std::int64_t> order =
                values.empty() ? std::vector<std::int64_t>{} : reference_argsort(values, values.size());
            std::vector<std::int64_t> index, counts, inverse(values.size());
            for (std::size_t k = 0; k < order.size(); ++k) {
                const auto p = static_cast<std::size_t>(order[k]);
                if (k == 0 || !numpy_equal(values[p], values[static_cast<std::size_t>(order[k - 1])])) {
                    index.push_back(order[k]);
                    counts.push_back(0);
                }
                ++counts.back();
                inverse[p] = static_cast<std::int64_t>(index.size()) - 1;
            }
            const HostArray got = u.values.get(queue());
            ASSERT_EQ(got.size(), index.size());
            const std::vector<Ordered> got_values = ordered(got);
            for (std::size_t j = 0; j < index.size(); ++j)
                ASSERT_TRUE(numpy_equal(got_values[j], values[static_cast<std::size_t>(index[j])])) << j;
            EXPECT_EQ(u.index->get(queue()).to_vector<std::int64_t>(), index);
            EXPECT_EQ(u.counts->get(queue()).to_vector<std::int64_t>(), counts);
            ASSERT_EQ(u.inverse->shape(), host.shape());
            EXPECT_EQ(u.inverse->get(queue()).to_vector<std::int64_t>(), inverse);
        }
    }
}

TEST_P(Sorts, SearchsortedLeftAndRight) {
    for (const DType& d : sortable_dtypes()) {
        SCOPED_TRACE(d.name());
        const HostArray data = sort_data(d, {500});
        const Array sorted = sort(queue(), Array::from_host(queue(), data), -1);
        const std::vector<Ordered> s = ordered(sorted.get(queue()));
        // Needles: some of the data (exact hits, NaN, -0.0) and fresh values, as a 2-d array.
        const HostArray needles = sort_data(d, {20, 9});
        const std::vector<Ordered> v = ordered(needles);
        const Array device_needles = Array::from_host(queue(), needles);
        for (const Side side : {Side::left, Side::right}) {
            const HostArray got = searchsorted(queue(), sorted, device_needles, side).get(queue());
            ASSERT_EQ(got.shape(), needles.shape());
            const std::vector<std::int64_t> positions = got.to_vector<std::int64_t>();
            for (std::size_t k = 0; k < v.size(); ++k) {
                const auto it = side == Side::left ? std::lower_bound(s.begin(), s.end(), v[k], numpy_less)
                                                   : std::upper_bound(s.begin(), s.end(), v[k], numpy_less);
                ASSERT_EQ(positions[k], it - s.begin()) << "needle " << k << (side == Side::left ? " left" : " right");
            }
        }
    }
    // Mixed dtypes compare in the common one: int32 needles in a float64 array.
    const std::vector<double> grid{-1.5, -0.5, 0.5, 1.5, 2.5};
    const std::vector<std::int32_t> needles{-2, 0, 1, 3};
    const Array got = searchsorted(queue(), Array::from_host(queue(), std::span<const double>(grid), {5}),
                                   Array::from_host(queue(), std::span<const std::int32_t>(needles), {4}));
    EXPECT_EQ(got.get(queue()).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 3, 5}));
}

TEST_P(Sorts, BadInput) {
    const Array c = Array::zeros(queue(), {4}, DType(Kind::complex64));
    EXPECT_THROW(sort(queue(), c), UnsupportedError);
    EXPECT_THROW(argsort(queue(), c), UnsupportedError);
    EXPECT_THROW(unique(queue(), c), UnsupportedError);
    const Array x = Array::zeros(queue(), {4, 3}, DType(Kind::float32));
    EXPECT_EQ(argument_named_by([&] { sort(queue(), x, 2); }), "axis");
    EXPECT_EQ(argument_named_by([&] { argsort(queue(), x, -3); }), "axis");
    EXPECT_EQ(argument_named_by([&] { sort(queue(), Array::zeros(queue(), {}, DType(Kind::int32)), -1); }), "axis");
    EXPECT_EQ(argument_named_by([&] { searchsorted(queue(), x, x); }), "sorted");
}

/// float32 data of `n` elements for the onesweep sort at many tiles: random (sort_data's NaNs of
/// both signs, +-0.0, infinities, ties), all equal, already sorted, reversed, and only NaNs and
/// zeros of both signs (every key one of four, runs that cross every tile).
HostArray onesweep_float_pattern(int pattern, std::size_t n) {
    if (pattern == 0) return sort_data(DType(Kind::float32), {n});
    std::vector<float> v(n);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto& rng = random_engine();
    for (std::size_t k = 0; k < n; ++k) {
        switch (pattern) {
        case 1: v[k] = -2.5f; break;
        case 2: v[k] = static_cast<float>(k / 3) - 1000.0f; break;
        case 3: v[k] = 1000.0f - static_cast<float>(k / 3); break;
        default: {
            const float choices[] = {nan, -nan, 0.0f, -0.0f};
            v[k] = choices[rng() % 4];
            break;
        }
        }
    }
    HostArray a(DType(Kind::float32), {n});
    std::memcpy(a.data(), v.data(), n * 4);
    return a;
}

/// argsort and sort of float32 data of `n` elements in the patterns of onesweep_float_pattern
/// (`patterns` of them) against std::stable_sort, bit for bit.
void check_float_sorts(const Queue& q, std::size_t n, int patterns) {
    const char* names[] = {"random", "all equal", "sorted", "reversed", "NaNs and zeros"};
    for (int pattern = 0; pattern < patterns; ++pattern) {
        SCOPED_TRACE(names[pattern]);
        const HostArray host = onesweep_float_pattern(pattern, n);
        const Array x = Array::from_host(q, host);
        const std::vector<Ordered> values = ordered(host);
        const std::vector<std::int64_t> expected = reference_argsort(values, n);
        ASSERT_EQ(argsort(q, x, std::nullopt).get(q).to_vector<std::int64_t>(), expected);
        // sort's values bit for bit: the stably sorted input with -0.0 before 0.0 and NaNs positive.
        std::vector<std::uint32_t> want(n);
        for (std::size_t k = 0; k < n; ++k)
            std::memcpy(&want[k], host.data() + 4 * static_cast<std::size_t>(expected[k]), 4);
        // Zeros are one run in that order: its negative ones first.
        for (std::size_t k = 0; k < n;) {
            std::size_t end = k;
            while (end < n && (want[end] & 0x7FFFFFFFu) == 0) ++end;
            const auto negative =
                static_cast<std::size_t>(std::count(want.begin() + static_cast<std::ptrdiff_t>(k),
                                                    want.begin() + static_cast<std::ptrdiff_t>(end), 0x80000000u));
            for (std::size_t z = k; z < end; ++z) want[z] = z - k < negative ? 0x80000000u : 0u;
            k = end == k ? k + 1 : end;
        }
        for (auto& w : want)
            if ((w & 0x7FFFFFFFu) > 0x7F800000u) w &= 0x7FFFFFFFu;  // NaNs with the sign cleared
        const HostArray got = sort(q, x, std::nullopt).get(q);
        std::vector<std::uint32_t> got_bits(n);
        std::memcpy(got_bits.data(), got.data(), n * 4);
        ASSERT_EQ(got_bits, want);
    }
}

TEST_P(Sorts, OnesweepManyTilesAgainstStableSort) {
    // 2^20 keys: 273 tiles of 3840 (fewer keys per tile where local memory is short).
    const std::size_t n = std::size_t{1} << 20;
    if (!detail::onesweep_supported(queue(), n, 4, 4)) GTEST_SKIP() << "the onesweep sort is not used on this device";
    check_float_sorts(queue(), n, 5);
}

/// The radix sort itself on `n` unsigned keys of every width with positions as values, by each of
/// `methods`, against std::stable_sort by key.
void check_keys_with_values(const Queue& q, std::size_t n, std::initializer_list<detail::RadixMethod> methods) {
    for (const std::size_t kb : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
        SCOPED_TRACE(::testing::Message() << kb << "-byte keys");
        std::vector<std::uint64_t> keys(n);
        auto& rng = random_engine();
        for (std::size_t k = 0; k < n; ++k) {
            const std::uint64_t r = rng();
            // Random bits, or few distinct keys (long runs of equal ones).
            keys[k] = (k / 4096) % 2 ? r % 7 : r;
            if (kb < 8) keys[k] &= (std::uint64_t{1} << (8 * kb)) - 1;
        }
        std::vector<std::byte> key_bytes(n * kb);
        for (std::size_t k = 0; k < n; ++k) std::memcpy(key_bytes.data() + k * kb, &keys[k], kb);
        std::vector<std::uint32_t> positions(n);
        std::iota(positions.begin(), positions.end(), 0u);
        std::vector<std::uint32_t> expected = positions;
        std::stable_sort(expected.begin(), expected.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
        const DType key_dtype = kb == 1   ? DType(Kind::uint8)
                                : kb == 2 ? DType(Kind::uint16)
                                : kb == 4 ? DType(Kind::uint32)
                                          : DType(Kind::uint64);
        for (const detail::RadixMethod method : methods) {
            const bool onesweep = method == detail::RadixMethod::onesweep;
            SCOPED_TRACE(onesweep ? "onesweep" : "multi-pass");
            if (onesweep && !detail::onesweep_supported(q, n, kb, 4)) continue;
            const Array device_keys =
                Array::from_host(q, HostArray::wrap_bytes(key_bytes.data(), n * kb, key_dtype, {n}));
            const Array device_positions = Array::from_host(q, std::span<const std::uint32_t>(positions), {n});
            const detail::RadixResult sorted =
                detail::radix_sort(q, device_keys.base(), kb, device_positions.base(), 4, n, n, method);
            const std::vector<std::uint32_t> got =
                Array::from_buffer(*sorted.values, DType(Kind::uint32), Layout::contiguous({n}, 4))
                    .get(q)
                    .to_vector<std::uint32_t>();
            ASSERT_EQ(got, expected);
            const HostArray got_keys = Array::from_buffer(sorted.keys, key_dtype, Layout::contiguous({n}, kb)).get(q);
            for (std::size_t k = 0; k < n; ++k) {
                std::uint64_t key = 0;
                std::memcpy(&key, got_keys.data() + k * kb, kb);
                ASSERT_EQ(key, keys[expected[k]]) << "position " << k;
            }
        }
    }
}

TEST_P(Sorts, OnesweepAndMultiPassKeysWithValues) {
    // onesweep (1, 2, 4 and 8 passes) and the multi-pass fallback.
    check_keys_with_values(queue(), 150000, {detail::RadixMethod::onesweep, detail::RadixMethod::multi_pass});
}

/// Environment settings for a scope (the sort's KJARNI_SORT_*), the previous values restored after.
class ScopedSettings {
public:
    explicit ScopedSettings(std::vector<std::pair<std::string, std::string>> settings) {
        for (auto& [name, value] : settings) {
            const char* old = std::getenv(name.c_str());
            saved_.emplace_back(name, old != nullptr ? std::optional<std::string>(old) : std::nullopt);
            setenv(name.c_str(), value.c_str(), 1);
        }
    }
    ~ScopedSettings() {
        // Last set, first restored: a name given twice gets its value from before the scope.
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
            const auto& [name, old] = *it;
            if (old) setenv(name.c_str(), old->c_str(), 1);
            else unsetenv(name.c_str());
        }
    }
    ScopedSettings(const ScopedSettings&) = delete;
    ScopedSettings& operator=(const ScopedSettings&) = delete;

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_P(Sorts, OnesweepMatchRanking) {
    // The match form of the onesweep pass (warp ranking; emulated through local memory where the
    // device has no native warps), which the device's default may not take, at one tile shape (few
    // keys per work item, so that the keys span many tiles, and a group of more than 256 work
    // items, where only the first 256 handle digits) on data that is not a whole number of tiles:
    // sort and argsort of float32, the radix sort of 1- to 8-byte keys with values (those staged
    // apart from the keys); the default counts, loads and counting kernel (early, split, 16 keys
    // per work item: chunks of 4096 that do not divide n). One shape: each is a compilation per
    // key width (seconds on PoCL); other shapes through the settings.
    const std::size_t n = (std::size_t{1} << 17) + 12345;
    if (!detail::onesweep_supported(queue(), n, 4, 4)) GTEST_SKIP() << "the onesweep sort is not used on this device";
    const ScopedSettings settings(
        {{"KJARNI_SORT_RANK", "match"}, {"KJARNI_SORT_ITEMS", "5"}, {"KJARNI_SORT_GROUP", "384"}});
    check_float_sorts(queue(), n, 5);
    const ScopedSettings apart(std::vector<std::pair<std::string, std::string>>{{"KJARNI_SORT_VALUES", "apart"}});
    check_keys_with_values(queue(), 40000, {detail::RadixMethod::onesweep});
}

TEST_P(Sorts, OnesweepMatchOtherCountsAndLoads) {
    // The forms the defaults (OnesweepMatchRanking: early counts, split loads, 16 keys per work
    // item of the counting kernel) do not take. The tile's counts coming out of its ranking
    // (KJARNI_SORT_COUNTS=late), each key transformed as it is loaded (KJARNI_SORT_LOAD=fused), and
    // the counting kernel taking 3 keys per work item (KJARNI_SORT_HIST_ITEMS: chunks of 768 that
    // do not divide n), lanes matched through ballots (KJARNI_SORT_MATCH=ballot): sort and argsort
    // of float32 (the first pass's transform; argsort's values as the device's default stages
    // them). Then the radix sort of 1- to 8-byte keys with values staged with the keys, early
    // counts and split loads, lanes matched through mask words. One shape, as above.
    const std::size_t n = (std::size_t{1} << 17) + 12345;
    if (!detail::onesweep_supported(queue(), n, 4, 4)) GTEST_SKIP() << "the onesweep sort is not used on this device";
    const ScopedSettings settings({{"KJARNI_SORT_RANK", "match"},
                                   {"KJARNI_SORT_ITEMS", "5"},
                                   {"KJARNI_SORT_GROUP", "384"},
                                   {"KJARNI_SORT_COUNTS", "late"},
                                   {"KJARNI_SORT_LOAD", "fused"},
                                   {"KJARNI_SORT_HIST_ITEMS", "3"},
                                   {"KJARNI_SORT_HIST_GROUPS", "2"},
                                   {"KJARNI_SORT_MATCH", "ballot"}});
    check_float_sorts(queue(), n, 5);
    const ScopedSettings together({{"KJARNI_SORT_VALUES", "together"},
                                   {"KJARNI_SORT_MATCH", "or"},
                                   {"KJARNI_SORT_COUNTS", "early"},
                                   {"KJARNI_SORT_LOAD", "split"}});
    check_keys_with_values(queue(), 40000, {detail::RadixMethod::onesweep});
}

TEST_P(Sorts, OnesweepSettingsAreChecked) {
    // A setting the sort does not know is an ArgumentError naming it.
    if (!detail::onesweep_supported(queue(), 1000, 4, 0))
        GTEST_SKIP() << "the onesweep sort is not used on this device";
    const Array x = Array::from_host(queue(), sort_data(DType(Kind::float32), {1000}));
    for (const auto& [name, value] :
         {std::pair{"KJARNI_SORT_RANK", "fast"}, std::pair{"KJARNI_SORT_ITEMS", "0"},
          std::pair{"KJARNI_SORT_ITEMS", "12x"}, std::pair{"KJARNI_SORT_WARP", "none"},
          std::pair{"KJARNI_SORT_VALUES", "split"}, std::pair{"KJARNI_SORT_MATCH", "all"},
          std::pair{"KJARNI_SORT_LOAD", "apart"}, std::pair{"KJARNI_SORT_COUNTS", "first"},
          std::pair{"KJARNI_SORT_HIST_ITEMS", "0"}, std::pair{"KJARNI_SORT_HIST_GROUPS", "65"}}) {
        const ScopedSettings settings(
            {{name, value}, {"KJARNI_SORT_RANK", std::string(name) == "KJARNI_SORT_RANK" ? value : "match"}});
        EXPECT_EQ(argument_named_by([&] { sort(queue(), x); }), name) << value;
    }
    const ScopedSettings group({{"KJARNI_SORT_RANK", "match"}, {"KJARNI_SORT_GROUP", "300"}});
    EXPECT_EQ(argument_named_by([&] { sort(queue(), x); }), "KJARNI_SORT_GROUP");
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Sorts);

}  // namespace
}  // namespace kjarni::test
