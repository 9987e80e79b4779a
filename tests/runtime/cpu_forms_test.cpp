// The CPU forms of the generated kernels (algorithms/cpu_code.hpp) and the GPU forms, both on every
// device: on a CPU device (PoCL in CI) the suites elsewhere run the CPU forms, so the GPU forms are
// forced here (detail::allow_cpu_code(false)) to keep them tested without a GPU; on a GPU both runs
// take the GPU forms. Fresh random data, checked against the host:
//   - y = a*x + b as an expression and as an ElementwiseKernel (flat, a broadcast element, a
//     stepped view): each element a*x + b rounded once or twice (a contracted multiply-add);
//   - expressions with outputs large enough for streaming stores, exact;
//   - sums at the lengths around the CPU form's blocks (16 lanes x 8, pieces of 16384), whole and
//     along each axis of short and long rows: float32 within the promised pairwise-like bound
//     ((16 + 2 ceil(log2 m)) u sum|x| for m terms, u = 2^-24: 16 + log2 m of numpy's pairwise sum
//     and kjarni's trees), int32 exact, min and argmax exact;
//   - cumsum: float32 at position k within (k + 8 + log2 m) u sum_{j<=k} |x_j| (the fuzzer's bound),
//     int32 exact.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/cpu_code.hpp"
#include "algorithms/queue_scratch.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace cpu_forms_test {

class CpuForms : public DeviceTest {};

/// Runs `body` with the CPU forms allowed, then with the GPU forms forced (restored after).
template <class Body>
void in_both_forms(Body body) {
    struct Restore {
        ~Restore() { detail::allow_cpu_code(true); }
    } restore;
    for (const bool cpu : {true, false}) {
        SCOPED_TRACE(cpu ? "CPU forms allowed" : "GPU forms forced");
        detail::allow_cpu_code(cpu);
        body();
    }
}

double roundings_bound(std::size_t m) {
    return m <= 1 ? 0.0 : 16.0 + 2.0 * std::ceil(std::log2(static_cast<double>(m)));
}

constexpr double unit = 0x1p-24;

TEST_P(CpuForms, AxpbAsExpressionAndKernel) {
    const ElementwiseKernel kernel("float *y, const float *x, float a, const float *b", "y[i] = a * x[i] + b[i]");
    const float a = 2.5f;
    in_both_forms([&] {
        for (const std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{3 * 16384 + 5}}) {
            SCOPED_TRACE(::testing::Message() << "n " << n);
            const auto x = random_vector<float>(2 * n, -1.0f, 1.0f), b = random_vector<float>(n, -1.0f, 1.0f);
            const Array xd = Array::from_host(queue(), std::span<const float>(x), {2 * n});
            const Array bd = Array::from_host(queue(), std::span<const float>(b), {n});
            const Array one = Array::from_host(queue(), std::span<const float>(b.data(), 1), {1});
            const Array flat = xd[{Slice{0, static_cast<std::ptrdiff_t>(n)}}];
            const Array stepped = xd[{Slice{std::nullopt, std::nullopt, 2}}];
            const Array y = Array::empty(queue().device(), {n}, dtypes::float32);
            // (x of the element, b of the element) for each way in.
            const auto check = [&](const std::string& what, auto x_at, auto b_at) {
                std::vector<float> got(n);
                y.get(queue(), std::span<float>(got));
                for (std::size_t i = 0; i < n; ++i) {
                    const float once = std::fma(a, x_at(i), b_at(i)), twice = a * x_at(i) + b_at(i);
                    ASSERT_TRUE(got[i] == once || got[i] == twice) << what << " element " << i << ": " << got[i];
                }
            };
            assign(queue(), y, a * Expr(flat) + bd);
            check(
                "expression, flat", [&](std::size_t i) { return x[i]; }, [&](std::size_t i) { return b[i]; });
            assign(queue(), y, a * Expr(stepped) + one);
            check(
                "expression, stepped + one element", [&](std::size_t i) { return x[2 * i]; },
                [&](std::size_t) { return b[0]; });
            kernel(queue(), y, flat, a, bd);
            check(
                "kernel, flat", [&](std::size_t i) { return x[i]; }, [&](std::size_t i) { return b[i]; });
            kernel(queue(), y, flat, a, one);
            check(
                "kernel, one element of b", [&](std::size_t i) { return x[i]; }, [&](std::size_t) { return b[0]; });
            kernel(queue(), y, stepped, a, bd);
            check(
                "kernel, stepped", [&](std::size_t i) { return x[2 * i]; }, [&](std::size_t i) { return b[i]; });
        }
    });
}

// Outputs of operations that touch more bytes than half the device's cache take streaming stores
// of whole 64-byte lines in the CPU form (expression_eval.cpp): outputs that start inside a line
// (a view at 3 or 1 elements into its allocation), ragged ends, 4- and 8-byte elements; the
// elements around the view keep their values. Every element checked.
TEST_P(CpuForms, StreamingStoresOfLargeOutputs) {
    const auto check_around = [&](const Array& whole, std::size_t first, std::size_t n, auto sentinel, auto want) {
        using T = decltype(sentinel);
        std::vector<T> got(whole.size());
        whole.get(queue(), std::span<T>(got));
        for (std::size_t i = 0; i < got.size(); ++i) {
            if (i < first || i >= first + n) {
                ASSERT_EQ(got[i], sentinel) << "element " << i << " outside the output";
            } else {
                want(i - first, got[i]);
            }
        }
    };
    {
        const std::size_t n = (std::size_t{3} << 20) + 5;  // 36 MiB touched
        const auto x = random_vector<float>(n, -1.0f, 1.0f), b = random_vector<float>(n, -1.0f, 1.0f);
        const Array xd = Array::from_host(queue(), std::span<const float>(x), {n});
        const Array bd = Array::from_host(queue(), std::span<const float>(b), {n});
        const std::vector<float> sentinels(n + 7, -7.0f);
        const Array y = Array::from_host(queue(), std::span<const float>(sentinels), {n + 7});
        const auto view = y[{Slice{3, static_cast<std::ptrdiff_t>(n + 3)}}];
        assign(queue(), view, 2.5f * Expr(xd) + bd);
        check_around(y, 3, n, -7.0f, [&](std::size_t i, float got) {
            const float once = std::fma(2.5f, x[i], b[i]), twice = 2.5f * x[i] + b[i];
            ASSERT_TRUE(got == once || got == twice) << "float32 element " << i << ": " << got;
        });
    }
    {
        const std::size_t n = (std::size_t{1} << 20) + 3;  // 24 MiB touched
        const auto x = random_vector<double>(n, -1.0, 1.0), b = random_vector<double>(n, -1.0, 1.0);
        const Array xd = Array::from_host(queue(), std::span<const double>(x), {n});
        const Array bd = Array::from_host(queue(), std::span<const double>(b), {n});
        const std::vector<double> sentinels(n + 2, -7.0);
        const Array y = Array::from_host(queue(), std::span<const double>(sentinels), {n + 2});
        assign(queue(), y[{Slice{1, static_cast<std::ptrdiff_t>(n + 1)}}], Expr(xd) - bd);
        check_around(y, 1, n, -7.0,
                     [&](std::size_t i, double got) { ASSERT_EQ(got, x[i] - b[i]) << "float64 element " << i; });
    }
    {
        const std::size_t n = (std::size_t{3} << 20) + 1;
        const auto a = random_vector<std::int32_t>(n, -1000000, 1000000), b = random_vector<std::int32_t>(n, -5, 5);
        const Array ad = Array::from_host(queue(), std::span<const std::int32_t>(a), {n});
        const Array bd = Array::from_host(queue(), std::span<const std::int32_t>(b), {n});
        const Array y = Array::empty(queue().device(), {n}, dtypes::int32);
        assign(queue(), y, Expr(ad) * bd);
        check_around(y, 0, n, std::int32_t{0},
                     [&](std::size_t i, std::int32_t got) { ASSERT_EQ(got, a[i] * b[i]) << "int32 element " << i; });
    }
    // Strided copies into a contiguous destination (array/strided_copy.cpp): every second float32
    // into a view 3 elements into its allocation, every second float64, rows of float32.
    {
        const std::size_t n = (std::size_t{3} << 20) + 9;  // 24 MiB moved
        const auto x = random_vector<float>(2 * n, -1.0f, 1.0f);
        const Array xd = Array::from_host(queue(), std::span<const float>(x), {2 * n});
        const std::vector<float> sentinels(n + 5, -7.0f);
        const Array y = Array::from_host(queue(), std::span<const float>(sentinels), {n + 5});
        y[{Slice{3, static_cast<std::ptrdiff_t>(n + 3)}}].set(queue(), xd[{Slice{std::nullopt, std::nullopt, 2}}]);
        check_around(y, 3, n, -7.0f,
                     [&](std::size_t i, float got) { ASSERT_EQ(got, x[2 * i]) << "float32 x[::2] element " << i; });
    }
    {
        const std::size_t n = (std::size_t{5} << 18) + 3;  // 20 MiB moved, 8-byte units
        const auto x = random_vector<double>(2 * n + 1, -1.0, 1.0);
        const Array xd = Array::from_host(queue(), std::span<const double>(x), {2 * n + 1});
        const Array y = Array::empty(queue().device(), {n}, dtypes::float64);
        y.set(queue(), xd[{Slice{1, std::nullopt, 2}}]);
        check_around(y, 0, n, 0.0, [&](std::size_t i, double got) {
            ASSERT_EQ(got, x[1 + 2 * i]) << "float64 x[1::2] element " << i;
        });
    }
    {
        // rows of 3000 contiguous elements (each starting inside a line) from rows of 3001
        const std::size_t rows = 1024, cols = 3000;  // 24 MiB moved
        const auto x = random_vector<float>(rows * (cols + 1), -1.0f, 1.0f);
        const Array xd = Array::from_host(queue(), std::span<const float>(x), {rows, cols + 1});
        const Array y = Array::empty(queue().device(), {rows, cols}, dtypes::float32);
        y.set(queue(), xd[{Slice{}, Slice{1}}]);
        check_around(y.reshape({static_cast<std::ptrdiff_t>(rows * cols)}), 0, rows * cols, 0.0f,
                     [&](std::size_t i, float got) {
                         ASSERT_EQ(got, x[i / cols * (cols + 1) + 1 + i % cols]) << "float32 x[:, 1:] element " << i;
                     });
    }
}

TEST_P(CpuForms, SumsAroundTheBlocks) {
    in_both_forms([&] {
        for (const std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{127}, std::size_t{128},
                                    std::size_t{129}, std::size_t{16384 * 5 + 3}, (std::size_t{1} << 20) + 17}) {
            SCOPED_TRACE(::testing::Message() << "n " << n);
            const auto x = random_vector<float>(n, -1.0f, 1.0f);
            const Array xd = Array::from_host(queue(), std::span<const float>(x), {n});
            long double exact = 0, magnitude = 0;
            for (const float v : x) {
                exact += v;
                magnitude += std::fabs(v);
            }
            float s32 = 0;
            sum(queue(), xd).get(queue(), std::span<float>(&s32, 1));
            EXPECT_LE(std::fabs(static_cast<long double>(s32) - exact), roundings_bound(n) * unit * magnitude + 1e-30L);
            double s64 = 0;
            sum(queue(), xd, {}, dtypes::float64).get(queue(), std::span<double>(&s64, 1));
            EXPECT_LE(std::fabs(static_cast<long double>(s64) - exact),
                      roundings_bound(n) * 0x1p-53 * magnitude + 1e-30L);
            // min and argmax: exact, the first occurrence.
            float least = 0;
            min(queue(), xd).get(queue(), std::span<float>(&least, 1));
            EXPECT_EQ(least, *std::min_element(x.begin(), x.end()));
            std::int64_t at = -1;
            argmax(queue(), xd).get(queue(), std::span<std::int64_t>(&at, 1));
            EXPECT_EQ(at, std::max_element(x.begin(), x.end()) - x.begin());
        }
    });
}

TEST_P(CpuForms, SumsAlongEachAxis) {
    in_both_forms([&] {
        for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{3, 70001}, {70001, 3}, {257, 129}}) {
            const auto xi = random_vector<std::int32_t>(rows * cols, -1000, 1000);
            const auto xf = random_vector<float>(rows * cols, -1.0f, 1.0f);
            const Array di = Array::from_host(queue(), std::span<const std::int32_t>(xi), {rows, cols});
            const Array df = Array::from_host(queue(), std::span<const float>(xf), {rows, cols});
            for (const int axis : {0, 1}) {
                SCOPED_TRACE(::testing::Message() << rows << "x" << cols << " axis " << axis);
                const std::size_t outs = axis == 0 ? cols : rows, m = axis == 0 ? rows : cols;
                std::vector<std::int32_t> gi(outs);
                sum(queue(), di, {std::vector<int>{axis}}, dtypes::int32).get(queue(), std::span<std::int32_t>(gi));
                std::vector<float> gf(outs);
                sum(queue(), df, {std::vector<int>{axis}}).get(queue(), std::span<float>(gf));
                for (std::size_t o = 0; o < outs; ++o) {
                    std::int64_t exact_i = 0;
                    long double exact_f = 0, magnitude = 0;
                    for (std::size_t j = 0; j < m; ++j) {
                        const std::size_t k = axis == 0 ? j * cols + o : o * cols + j;
                        exact_i += xi[k];
                        exact_f += xf[k];
                        magnitude += std::fabs(xf[k]);
                    }
                    ASSERT_EQ(gi[o], exact_i) << "output " << o;
                    ASSERT_LE(std::fabs(static_cast<long double>(gf[o]) - exact_f),
                              roundings_bound(m) * unit * magnitude)
                        << "output " << o;
                }
            }
        }
    });
}

TEST_P(CpuForms, Cumsums) {
    // 32 * 10240 + 7: 33 tiles of the single pass (40 positions on a CPU), so the GPU form's block of
    // 32 tiles publishes its total and the next block's tile waits for it (a barrier in that branch
    // hung PoCL).
    in_both_forms([&] {
        for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{1, (std::size_t{1} << 18) + 7},
                                         {1, 32 * 10240 + 7},
                                         {3, 100003},
                                         {5000, 7}}) {
            SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
            const auto xi = random_vector<std::int32_t>(rows * cols, -1000, 1000);
            const auto xf = random_vector<float>(rows * cols, -1.0f, 1.0f);
            const Array di = Array::from_host(queue(), std::span<const std::int32_t>(xi), {rows, cols});
            const Array df = Array::from_host(queue(), std::span<const float>(xf), {rows, cols});
            std::vector<std::int32_t> gi(rows * cols);
            cumsum(queue(), di, 1, dtypes::int32).get(queue(), std::span<std::int32_t>(gi));
            std::vector<float> gf(rows * cols);
            cumsum(queue(), df, 1).get(queue(), std::span<float>(gf));
            const double lg = std::ceil(std::log2(static_cast<double>(cols)));
            for (std::size_t r = 0; r < rows; ++r) {
                std::int32_t run_i = 0;
                long double run_f = 0, magnitude = 0;
                for (std::size_t j = 0; j < cols; ++j) {
                    const std::size_t k = r * cols + j;
                    run_i += xi[k];
                    run_f += xf[k];
                    magnitude += std::fabs(xf[k]);
                    ASSERT_EQ(gi[k], run_i) << "row " << r << " position " << j;
                    ASSERT_LE(std::fabs(static_cast<long double>(gf[k]) - run_f),
                              (static_cast<double>(j) + 8 + lg) * unit * magnitude)
                        << "row " << r << " position " << j;
                }
            }
        }
    });
}

TEST_P(CpuForms, SinglePassEpochsWrapAround) {
    // The single pass (GPU form) keeps its status words between launches, tagged with each launch's
    // epoch; after epoch 2^32 - 1 the words are zeroed and the epochs start again from 1. A long
    // cumsum (epoch 1) leaves words in slots that the short ones after it never write; the epochs
    // are then moved to just before the wrap, and the long cumsum after it must not read those old
    // epoch-1 words as its own. int32, exact. (A tile reads only the words of earlier tiles, so
    // where groups run nearly in ticket order, as on PoCL, those words are mostly rewritten before
    // they are read: there the test shows that launches go on across the wrap, and a GPU, which
    // runs the tiles at once, shows a stale word read.)
    struct Restore {
        ~Restore() { detail::allow_cpu_code(true); }
    } restore;
    detail::allow_cpu_code(false);
    const auto check_cumsum = [&](std::size_t n) {
        const auto x = random_vector<std::int32_t>(n, -1000, 1000);
        const Array d = Array::from_host(queue(), std::span<const std::int32_t>(x), {n});
        std::vector<std::int32_t> got(n);
        cumsum(queue(), d, 0, dtypes::int32).get(queue(), std::span<std::int32_t>(got));
        std::int32_t run = 0;
        for (std::size_t j = 0; j < n; ++j) {
            run += x[j];
            ASSERT_EQ(got[j], run) << "n " << n << " position " << j;
        }
    };
    const std::size_t long_row = 8 * 10240 + 3, short_row = 2 * 10240 - 100;
    check_cumsum(long_row);
    detail::set_last_single_pass_epoch(queue(), 0xFFFFFFFDu);
    check_cumsum(short_row);  // epoch 2^32 - 2
    check_cumsum(short_row);  // 2^32 - 1
    check_cumsum(long_row);   // zeroed, then 1
    check_cumsum(long_row);   // 2
}

/// The bytes of `view` (over `base`, its memory's bytes from offset 0) in C order, read on the host.
std::vector<std::byte> host_elements(const std::vector<std::byte>& base, const Array& view) {
    const std::size_t itemsize = view.dtype().itemsize(), n = view.size(), ndim = view.ndim();
    std::vector<std::byte> out(n * itemsize);
    std::vector<std::size_t> index(ndim, 0);
    for (std::size_t e = 0; e < n; ++e) {
        std::ptrdiff_t at = static_cast<std::ptrdiff_t>(view.offset());
        for (std::size_t k = 0; k < ndim; ++k) at += static_cast<std::ptrdiff_t>(index[k]) * view.strides()[k];
        std::memcpy(out.data() + e * itemsize, base.data() + at, itemsize);
        for (std::size_t k = ndim; k-- > 0;) {  // the next C-order index
            if (++index[k] < view.shape()[k]) break;
            index[k] = 0;
        }
    }
    return out;
}

TEST_P(CpuForms, StridedCopiesBetweenLayouts) {
    // Array::set between views of other layouts goes through the strided-copy kernel: transposes
    // (the CPU form's tiles, partial ones and under a leading axis too), steps (negative ones too), items of 1, 2, 4 and 8 bytes and of 12 (three 4-byte units),
    // lengths across the CPU form's runs (pieces of 16384 elements), and strided destinations
    // (their other bytes must stay as they were). Fresh random bytes, checked byte by byte.
    const std::size_t bytes = std::size_t{6} << 20;
    const auto data = random_bytes(bytes);
    const Buffer base = Buffer::allocate(queue().device(), bytes);
    base.set(queue(), std::span<const std::byte>(data));
    const auto over = [&](const DType& dtype, const std::vector<std::size_t>& shape) {
        return Array::from_buffer(base, dtype, Layout::contiguous(shape, dtype.itemsize()));
    };
    const DType triple = DType::struct_({{"a", dtypes::float32}, {"b", dtypes::int32}, {"c", dtypes::float32}});
    const std::vector<std::pair<std::string, Array>> views{
        {"float32 (6, 300, 70) transposed (2, 0, 1)", over(dtypes::float32, {6, 300, 70}).transpose({2, 0, 1})},
        {"uint8 (3, 1000, 33)[:, ::3, ::-2]",
         over(dtypes::uint8,
              {3, 1000, 33})[{Slice{}, Slice{std::nullopt, std::nullopt, 3}, Slice{std::nullopt, std::nullopt, -2}}]},
        {"int16 (512, 257) transposed", over(dtypes::int16, {512, 257}).transpose()},
        {"float32 (5, 64, 100) transposed (0, 2, 1)", over(dtypes::float32, {5, 64, 100}).transpose({0, 2, 1})},
        {"float64 (1, 700, 1, 300)[..., 1:]", over(dtypes::float64, {1, 700, 1, 300})[{Ellipsis{}, Slice{1}}]},
        {"float32 (3 * 16384 + 5) * 2 [::2]",
         over(dtypes::float32, {2 * (3 * 16384 + 5)})[{Slice{std::nullopt, std::nullopt, 2}}]},
        {"12-byte struct (400, 300) transposed", over(triple, {400, 300}).transpose()},
        // the steps along a row with loops of their own in the CPU form: every third element, and
        // every second one of items of three units
        {"float32 (40000, 3)[:, 1:2]", over(dtypes::float32, {40000, 3})[{Slice{}, Slice{1, 2}}]},
        {"12-byte struct (10000)[::2]", over(triple, {10000})[{Slice{std::nullopt, std::nullopt, 2}}]},
        // five axes that do not merge: the CPU forms' layout goes through a table in device memory
        // (up to four, in the kernel's arguments)
        {"float32 (6, 7, 8, 9, 10)[::2, ::2, ::2, ::2, ::2]",
         over(dtypes::float32,
              {6, 7, 8, 9, 10})[{Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 2},
                                 Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 2},
                                 Slice{std::nullopt, std::nullopt, 2}}]},
        {"int16 (4, 5, 6, 7, 40) transposed (4, 3, 2, 1, 0)",
         over(dtypes::int16, {4, 5, 6, 7, 40}).transpose({4, 3, 2, 1, 0})},
    };
    in_both_forms([&] {
        for (const auto& [what, view] : views) {
            SCOPED_TRACE(what);
            const Array copied = view.copy(queue());
            ASSERT_TRUE(copied.is_c_contiguous());
            std::vector<std::byte> got(copied.nbytes());
            copied.base().get(queue(), std::span<std::byte>(got));
            ASSERT_EQ(got, host_elements(data, view));
        }
        // A strided destination: y[::-3, 1:] = x over a poisoned (1000, 301) float32 buffer.
        const Buffer target = Buffer::allocate(queue().device(), 1000 * 301 * 4);
        const std::byte poison{0xA5};
        target.fill(queue(), std::span(&poison, 1));
        const Array y = Array::from_buffer(target, dtypes::float32, Layout::contiguous({1000, 301}, 4));
        const Array y_view = y[{Slice{std::nullopt, std::nullopt, -3}, Slice{1}}];
        const Array x = over(dtypes::float32, {y_view.shape()[0], 300});
        y_view.set(queue(), x);
        std::vector<std::byte> got(target.size());
        target.get(queue(), std::span<std::byte>(got));
        std::vector<std::byte> want(target.size(), poison);
        const auto x_bytes = host_elements(data, x);
        for (std::size_t r = 0; r < y_view.shape()[0]; ++r)
            std::memcpy(want.data() + ((999 - 3 * r) * 301 + 1) * 4, x_bytes.data() + r * 300 * 4, 300 * 4);
        ASSERT_EQ(got, want);
        // Every second element of the destination: y[1::2] = x, int16, over the poisoned buffer.
        target.fill(queue(), std::span(&poison, 1));
        const std::size_t m = 70001;
        const Array y16 = Array::from_buffer(target, dtypes::int16, Layout::contiguous({2 * m}, 2));
        const Array x16 = over(dtypes::int16, {m});
        y16[{Slice{1, std::nullopt, 2}}].set(queue(), x16);
        target.get(queue(), std::span<std::byte>(got));
        std::fill(want.begin(), want.end(), poison);
        const auto x16_bytes = host_elements(data, x16);
        for (std::size_t i = 0; i < m; ++i) std::memcpy(want.data() + (2 * i + 1) * 2, x16_bytes.data() + i * 2, 2);
        ASSERT_EQ(got, want);
    });
}

KJARNI_INSTANTIATE_DEVICE_TESTS(CpuForms);

}  // namespace cpu_forms_test
}  // namespace kjarni::test
