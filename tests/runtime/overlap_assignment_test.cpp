// Assignment between views that share memory (issue 38): numpy's result is as if the source were
// copied before anything is written. Array::set and kjarni::assign on random pairs of views of one
// allocation (slices with any steps and starts, transposes, reversals) against a host reference
// that copies the source view first; exact (bytes). The overlap test itself: views proven disjoint
// (interleaved steps) are not copied, the same view is in-place work.

#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "array/overlap.hpp"
#include "kjarni/expression.hpp"
#include "support/algorithm_data.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;
using S = Slice;

class OverlapAssignmentTest : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(OverlapAssignmentTest);

// One view of a rows x columns base: a slice per axis (any step sign), then maybe a transpose.
struct ViewSpec {
    std::vector<Slice> slices;
    bool transposed = false;
    std::string text;
};

// A view of the base of shape `shape` (the view's own), at random steps and starts.
ViewSpec random_spec(std::mt19937_64& rng, std::size_t rows, std::size_t columns, std::vector<std::size_t> shape,
                     bool transpose) {
    ViewSpec spec;
    spec.transposed = transpose;
    if (transpose) std::swap(shape[0], shape[1]);
    const std::size_t base[2] = {rows, columns};
    for (std::size_t d = 0; d < 2; ++d) {
        const std::size_t n = shape[d];
        // The largest |step| for which n elements fit, capped at 3.
        std::ptrdiff_t max_step = 3;
        while (max_step > 1 && (n - 1) * static_cast<std::size_t>(max_step) + 1 > base[d]) --max_step;
        std::ptrdiff_t step = std::uniform_int_distribution<std::ptrdiff_t>(1, max_step)(rng);
        const std::size_t span = (n - 1) * static_cast<std::size_t>(step) + 1;
        auto start = static_cast<std::ptrdiff_t>(std::uniform_int_distribution<std::size_t>(0, base[d] - span)(rng));
        if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
            // Reversed: from the span's last element down to its first.
            start += static_cast<std::ptrdiff_t>(span) - 1;
            step = -step;
            const std::ptrdiff_t stop = start + step * static_cast<std::ptrdiff_t>(n);
            spec.slices.push_back(S{start, stop < 0 ? std::nullopt : std::optional<std::ptrdiff_t>(stop), step});
            spec.text += fmt::format("[{}:{}:{}]", start, stop < 0 ? std::string() : std::to_string(stop), step);
        } else {
            const std::ptrdiff_t stop = start + step * static_cast<std::ptrdiff_t>(n - 1) + 1;
            spec.slices.push_back(S{start, stop, step});
            spec.text += fmt::format("[{}:{}:{}]", start, stop, step);
        }
    }
    if (transpose) spec.text += ".T";
    return spec;
}

template <class A>
A view_of(const A& base, const ViewSpec& spec) {
    const A v = base.slice(spec.slices);
    return spec.transposed ? v.transpose() : v;
}

void expect_same_bytes(const HostArray& got, const HostArray& expected, const std::string& what) {
    ASSERT_EQ(got.nbytes(), expected.nbytes());
    const HostArray g = got.copy();
    const HostArray e = expected.copy();
    const std::size_t item = got.dtype().itemsize();
    for (std::size_t k = 0; k < g.size(); ++k) {
        if (std::memcmp(g.data() + k * item, e.data() + k * item, item) != 0) {
            ADD_FAILURE() << what << ": element " << k << " of the base differs";
            return;
        }
    }
}

// The named cases of the issue and random pairs: (destination, source) of one base.
std::vector<std::pair<ViewSpec, ViewSpec>> view_pairs(std::size_t n, std::mt19937_64& rng) {
    const auto all = [] { return S{}; };
    const auto rev = [] { return S{std::nullopt, std::nullopt, -1}; };
    const auto p = [](std::optional<std::ptrdiff_t> a, std::optional<std::ptrdiff_t> b, std::ptrdiff_t s = 1) {
        return S{a, b, s};
    };
    std::vector<std::pair<ViewSpec, ViewSpec>> pairs{
        {{{all(), all()}, false, "a"}, {{all(), all()}, true, "a.T"}},
        {{{p(1, {}), all()}, false, "a[1:]"}, {{p({}, -1), all()}, false, "a[:-1]"}},
        {{{p({}, -1), all()}, false, "a[:-1]"}, {{p(1, {}), all()}, false, "a[1:]"}},
        {{{all(), p(1, {})}, false, "a[:, 1:]"}, {{all(), p({}, -1)}, false, "a[:, :-1]"}},
        {{{all(), p({}, -1)}, false, "a[:, :-1]"}, {{all(), p(1, {})}, false, "a[:, 1:]"}},
        {{{rev(), all()}, false, "a[::-1]"}, {{all(), all()}, false, "a"}},
        {{{all(), all()}, false, "a"}, {{rev(), rev()}, false, "a[::-1, ::-1]"}},
        {{{p(1, {}), p(1, {})}, false, "a[1:, 1:]"}, {{p({}, -1), p({}, -1)}, true, "a[:-1, :-1].T"}},
        {{{all(), p({}, {}, 2)}, false, "a[:, ::2]"}, {{all(), p(1, {}, 2)}, false, "a[:, 1::2]"}},
    };
    for (int k = 0; k < 40; ++k) {
        std::vector<std::size_t> shape{std::uniform_int_distribution<std::size_t>(1, n)(rng),
                                       std::uniform_int_distribution<std::size_t>(1, n)(rng)};
        const bool t1 = std::uniform_int_distribution<int>(0, 2)(rng) == 0;
        const bool t2 = std::uniform_int_distribution<int>(0, 2)(rng) == 0;
        pairs.emplace_back(random_spec(rng, n, n, shape, t1), random_spec(rng, n, n, shape, t2));
    }
    return pairs;
}

TEST_P(OverlapAssignmentTest, SetBetweenOverlappingViewsIsAsIfTheSourceWereCopiedFirst) {
    constexpr std::size_t n = 24;  // an even row length: a[:, ::2] and a[:, 1::2] are proven disjoint
    auto& rng = random_engine();
    const auto pairs = view_pairs(n, rng);
    for (const DType& dtype : {DType(uint8), DType(int16), DType(float32), DType(float64), DType(complex128)}) {
        for (const auto& [dst_spec, src_spec] : pairs) {
            const std::string what = fmt::format("{}: a{} = a{}", dtype.name(), dst_spec.text, src_spec.text);
            SCOPED_TRACE(what);
            const HostArray host = random_host_array(dtype, {n, n});
            const Array device = Array::from_host(queue(), host);
            const HostArray expected = host.copy();
            view_of(expected, dst_spec).assign(view_of(expected, src_spec).copy());
            view_of(device, dst_spec).set(queue(), view_of(device, src_spec));
            expect_same_bytes(device.get(queue()), expected, what);
        }
    }
}

TEST_P(OverlapAssignmentTest, AssignIntoAViewOfAnOperandIsAsIfTheOperandsWereReadFirst) {
    constexpr std::size_t n = 24;
    auto& rng = random_engine();
    const auto pairs = view_pairs(n, rng);
    for (const auto& [dst_spec, src_spec] : pairs) {
        SCOPED_TRACE(fmt::format("a{} = 2 * a{} + a{} (int32)", dst_spec.text, src_spec.text, dst_spec.text));
        // int32 wraps as the host's uint32 arithmetic does; the destination is also read (in place).
        const HostArray host = random_host_array(int32, {n, n});
        const Array device = Array::from_host(queue(), host);
        const HostArray expected = host.copy();
        const HostArray src = view_of(expected, src_spec).copy();
        const HostArray dst = view_of(expected, dst_spec);
        const HostArray old_dst = dst.copy();
        const auto s = src.span<std::int32_t>();
        const auto o = old_dst.span<std::int32_t>();
        HostArray value(int32, dst.shape());
        for (std::size_t k = 0; k < s.size(); ++k)
            value.span<std::int32_t>()[k] =
                static_cast<std::int32_t>(2u * static_cast<std::uint32_t>(s[k]) + static_cast<std::uint32_t>(o[k]));
        dst.assign(value);
        const Array d = view_of(device, dst_spec);
        assign(queue(), d, 2 * Expr(view_of(device, src_spec)) + d);
        expect_same_bytes(device.get(queue()), expected, "assign");
    }
    // float64 through a transpose of itself: a = a.T - a (antisymmetric, exact).
    const HostArray host = random_host_array(float64, {n, n});
    const Array a = Array::from_host(queue(), host);
    assign(queue(), a, Expr(a.transpose()) - a);
    const HostArray got = a.get(queue());
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            ASSERT_EQ(got.at<double>({i, j}), host.at<double>({j, i}) - host.at<double>({i, j})) << i << ", " << j;
}

TEST_P(OverlapAssignmentTest, TheOverlapTestProvesInterleavedViewsDisjoint) {
    using detail::Overlap;
    const Array a = Array::zeros(queue(), {6, 8}, float32);
    const Array b = Array::zeros(queue(), {6, 8}, float32);
    EXPECT_EQ(detail::memory_overlap(a, b), Overlap::none);  // other allocations
    EXPECT_EQ(detail::memory_overlap(a, a), Overlap::same_view);
    EXPECT_EQ(detail::memory_overlap(a[{S{}, S{0, 4}}], a[{S{}, S{4, 8}}]),
              Overlap::partial);                                                   // bounds meet, no residue proof
    EXPECT_EQ(detail::memory_overlap(a[{S{0, 3}}], a[{S{3, 6}}]), Overlap::none);  // disjoint ranges
    const S even{std::nullopt, std::nullopt, 2};
    const S odd{1, std::nullopt, 2};
    EXPECT_EQ(detail::memory_overlap(a[{S{}, even}], a[{S{}, odd}]), Overlap::none);
    EXPECT_EQ(detail::memory_overlap(a[{S{}, even}], a[{S{}, even}].transpose()), Overlap::partial);
    EXPECT_EQ(detail::memory_overlap(a[{S{1, std::nullopt}}], a[{S{std::nullopt, -1}}]), Overlap::partial);
    // The real and imaginary parts of complex64 values, as float32 views of one allocation.
    const Array c = Array::zeros(queue(), {10}, complex64);
    const Layout reals{{10}, {8}, c.offset()};
    const Layout imags{{10}, {8}, c.offset() + 4};
    EXPECT_EQ(detail::memory_overlap(Array::from_buffer(c.base(), float32, reals),
                                     Array::from_buffer(c.base(), float32, imags)),
              Overlap::none);
    // Single elements and axes of extent 1 (any stride) are the same view when they start together.
    EXPECT_EQ(detail::memory_overlap(a[{S{2, 3}, S{1, 2}}], a[{S{2, 3}, S{1, 2}}]), Overlap::same_view);
    EXPECT_EQ(detail::memory_overlap(a[{2}], a[{S{2, 3}}].reshape({8})), Overlap::same_view);
}

}  // namespace
}  // namespace kjarni::test
