// Reductions against host references on fresh random data: every dtype x layout class (contiguous,
// stepped, negative-strided, transposed, broadcast, 0-d, empty) x axis set for sum, fewer layouts
// for the other reductions; the shape-chosen strategies (short inner axis, outer axis, middle axis,
// one huge output split over work groups); 16-byte loads of contiguous runs, aligned or not;
// determinism; ReductionKernel with several arrays, broadcasting, scalars and a Module; MultiArray
// part by part; bad input.
//
// Tolerances. Integers are exact (wrapping as the device does). A float sum of m terms computed in
// any order of pairwise additions errs by at most (m - 1) u sum|x_i| (u the unit roundoff of the
// accumulation type: 2^-24 for float32 and for float16, which is summed in float32; 2^-53 for
// float64; each component of a complex sum alike); we allow (m + 2) u sum|x_i|, plus half a unit in
// the last place of a float16 result (2^-11 |result|) and, for mean, the division's rounding. A
// product of m factors errs by at most about m u prod|x_i| (real); complex multiplications add a
// few u each, so 4 (m + 2) u prod|x_i|. min, max, argmin, argmax, any, all are exact.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "algorithms/cpu_code.hpp"
#include "algorithms/reduction_engine.hpp"
#include "kjarni/fusion.hpp"
#include "kjarni/memory_pool.hpp"
#include "kjarni/reduction.hpp"
#include "runtime/algorithm_test_support.hpp"
#include "support/algorithm_data.hpp"
#include "support/argument_errors.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

enum class Op { sum, prod, mean, min, max, argmin, argmax, any, all };

const char* op_name(Op op) {
    switch (op) {
    case Op::sum: return "sum";
    case Op::prod: return "prod";
    case Op::mean: return "mean";
    case Op::min: return "min";
    case Op::max: return "max";
    case Op::argmin: return "argmin";
    case Op::argmax: return "argmax";
    case Op::any: return "any";
    case Op::all: return "all";
    }
    return "?";
}

/// Sets the process-wide form switches back to their defaults (CPU forms on CPU devices, the
/// one-kernel combine where it applies) when a test that changed them ends, failed or not.
struct DefaultFormsOnExit {
    DefaultFormsOnExit() = default;
    DefaultFormsOnExit(const DefaultFormsOnExit&) = delete;
    DefaultFormsOnExit& operator=(const DefaultFormsOnExit&) = delete;
    ~DefaultFormsOnExit() {
        detail::allow_cpu_code(true);
        detail::allow_combine_in_kernel(true);
        detail::force_lane_shuffles(false);
    }
};

Array run(Op op, const Queue& q, const Array& a, const ReduceOptions& o) {
    switch (op) {
    case Op::sum: return sum(q, a, o);
    case Op::prod: return prod(q, a, o);
    case Op::mean: return mean(q, a, o);
    case Op::min: return min(q, a, o);
    case Op::max: return max(q, a, o);
    case Op::argmin: return argmin(q, a, o);
    case Op::argmax: return argmax(q, a, o);
    case Op::any: return any(q, a, o);
    case Op::all: return all(q, a, o);
    }
    throw std::logic_error("op");
}

/// numpy's result dtype.
DType expected_dtype(Op op, const DType& d) {
    switch (op) {
    case Op::sum:
    case Op::prod:
        if (d.kind() == Kind::bool_ || (is_int_kind(d) && is_signed(d))) return Kind::int64;
        if (is_int_kind(d)) return Kind::uint64;
        return d;
    case Op::mean: return is_int_kind(d) ? DType(Kind::float64) : d;
    case Op::min:
    case Op::max: return d;
    case Op::argmin:
    case Op::argmax: return Kind::int64;
    case Op::any:
    case Op::all: return Kind::bool_;
    }
    return d;
}

bool less(const Complex& a, const Complex& b) {
    return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}

/// Checks `result` (C-contiguous host copy) against the host reduction of `input`.
void check(Op op, const HostArray& input, const std::optional<std::vector<int>>& axes, const HostArray& result) {
    const DType d = input.dtype();
    const auto groups = reduction_groups(input.shape(), flags(input.ndim(), axes));
    ASSERT_EQ(result.size(), groups.size());
    ASSERT_EQ(result.dtype(), expected_dtype(op, d));
    const DType r = result.dtype();
    for (std::size_t o = 0; o < groups.size(); ++o) {
        const auto& g = groups[o];
        SCOPED_TRACE(::testing::Message() << "output " << o << " of " << g.size() << " elements");
        switch (op) {
        case Op::sum:
        case Op::prod:
        case Op::mean: {
            if (is_int_kind(r)) {
                std::uint64_t acc = op == Op::prod ? 1 : 0;
                for (auto k : g) acc = op == Op::prod ? acc * int_at(input, k) : acc + int_at(input, k);
                ASSERT_EQ(int_at(result, o), acc);
                break;
            }
            Complex acc = op == Op::prod ? 1 : 0;
            long double magnitude = op == Op::prod ? 1 : 0;
            for (auto k : g) {
                const Complex v = value_at(input, k);
                if (op == Op::prod) {
                    acc *= v;
                    magnitude *= std::abs(v);
                } else {
                    acc += v;
                    magnitude += std::abs(v.real()) + std::abs(v.imag());
                }
            }
            const auto m = static_cast<long double>(g.size());
            const DType acc_type = r.kind() == Kind::float16 ? DType(Kind::float32) : r;
            long double tol = (m + 2) * unit_roundoff(acc_type) * magnitude * (op == Op::prod && is_complex(r) ? 4 : 1);
            if (op == Op::mean) {
                acc /= m;
                tol = tol / m + unit_roundoff(acc_type) * std::abs(acc);
            }
            if (r.kind() == Kind::float16) tol += std::ldexp(std::abs(acc), -11);
            const Complex got = value_at(result, o);
            if (op == Op::mean && g.empty()) {
                ASSERT_TRUE(std::isnan(got.real()));
                break;
            }
            ASSERT_LE(std::abs(got.real() - acc.real()), tol) << "got " << got << " expected " << acc;
            ASSERT_LE(std::abs(got.imag() - acc.imag()), tol) << "got " << got << " expected " << acc;
            break;
        }
        case Op::min:
        case Op::max:
        case Op::argmin:
        case Op::argmax: {
            const bool maximum = op == Op::max || op == Op::argmax;
            std::size_t best = 0;
            for (std::size_t j = 1; j < g.size(); ++j) {
                const Complex a = value_at(input, g[best]), b = value_at(input, g[j]);
                if (is_int_kind(d) && d.kind() == Kind::uint64) {
                    const auto ai = int_at(input, g[best]), bi = int_at(input, g[j]);
                    if (maximum ? bi > ai : bi < ai) best = j;
                } else if (maximum ? less(a, b) : less(b, a)) {
                    best = j;
                }
            }
            if (op == Op::argmin || op == Op::argmax) {
                ASSERT_EQ(int_at(result, o), best);
            } else if (is_int_kind(d)) {
                ASSERT_EQ(int_at(result, o), int_at(input, g[best]));
            } else {
                ASSERT_EQ(value_at(result, o), value_at(input, g[best]));
            }
            break;
        }
        case Op::any:
        case Op::all: {
            bool acc = op == Op::all;
            for (auto k : g) {
                const bool nonzero = is_int_kind(d) ? int_at(input, k) != 0 : value_at(input, k) != Complex(0);
                acc = op == Op::all ? (acc && nonzero) : (acc || nonzero);
            }
            ASSERT_EQ(int_at(result, o), acc ? 1u : 0u);
            break;
        }
        }
    }
}

Values values_for(Op op) {
    switch (op) {
    case Op::prod: return Values::ones;
    case Op::argmin:
    case Op::argmax:
    case Op::min:
    case Op::max: return Values::ties;
    case Op::any:
    case Op::all: return Values::sparse;
    default: return Values::small;
    }
}

const std::vector<std::optional<std::vector<int>>>& axis_sets() {
    static const std::vector<std::optional<std::vector<int>>> sets = {std::nullopt, std::vector<int>{0},
                                                                      std::vector<int>{-1}, std::vector<int>{1},
                                                                      std::vector<int>{0, 2}};
    return sets;
}

std::string axes_name(const std::optional<std::vector<int>>& axes) {
    if (!axes) return "all";
    std::string s = "{";
    for (int a : *axes) s += std::to_string(a) + ",";
    return s + "}";
}

class Reductions : public DeviceTest {
protected:
    /// One reduction of a 3-d array of class `layout`, checked.
    void sweep(Op op, const DType& d, LayoutClass layout, const std::optional<std::vector<int>>& axes,
               bool keepdims = false) {
        if ((op == Op::argmin || op == Op::argmax) && axes && axes->size() > 1) return;  // numpy: one axis or all
        SCOPED_TRACE(::testing::Message() << op_name(op) << " " << d.name() << " " << name_of(layout) << " axes "
                                          << axes_name(axes) << (keepdims ? " keepdims" : ""));
        HostArray host = random_host(d, {4, 5, 6}, values_for(op));
        const Array x = device_view(queue(), host, layout);
        const Array r = run(op, queue(), x, ReduceOptions{axes, keepdims, std::nullopt});
        check(op, host, axes, r.get(queue()));
    }
};

TEST_P(Reductions, SumEveryDtypeLayoutAndAxisSet) {
    for (const DType& d : dtypes::all_scalars())
        for (LayoutClass layout : {LayoutClass::contiguous, LayoutClass::stepped, LayoutClass::negative,
                                   LayoutClass::transposed, LayoutClass::broadcast})
            for (const auto& axes : axis_sets()) sweep(Op::sum, d, layout, axes);
}

TEST_P(Reductions, OtherReductionsEveryDtype) {
    // Every dtype goes through every reduction once (one compiled kernel each); a second layout and
    // axis set for a few dtypes per reduction (each costs a compilation on PoCL).
    for (Op op : {Op::prod, Op::mean, Op::min, Op::max, Op::argmin, Op::argmax, Op::any, Op::all}) {
        for (const DType& d : dtypes::all_scalars()) sweep(op, d, LayoutClass::transposed, std::vector<int>{1}, true);
        for (const DType& d : {DType(Kind::int8), DType(Kind::float16), DType(Kind::complex128)})
            sweep(op, d, LayoutClass::negative, std::nullopt);
    }
}

TEST_P(Reductions, ZeroDimensionalAndEmpty) {
    for (const DType& d : {DType(Kind::int8), DType(Kind::float16), DType(Kind::complex64)}) {
        SCOPED_TRACE(d.name());
        // 0-d: the value itself (sum of nothing reduced: `axes` empty; all axes: also the value).
        const HostArray h = random_host(d, {});
        const Array x = Array::from_host(queue(), h);
        for (const auto& axes :
             {std::optional<std::vector<int>>{}, std::optional<std::vector<int>>{std::vector<int>{}}}) {
            check(Op::sum, h, axes, sum(queue(), x, {axes}).get(queue()));
            check(Op::max, h, axes, max(queue(), x, {axes}).get(queue()));
        }
        // Empty: the reduction of an empty axis is the neutral element; an empty result launches nothing.
        const HostArray e = random_host(d, {3, 0, 4});
        const Array xe = Array::from_host(queue(), e);
        for (const auto& axes : axis_sets()) {
            check(Op::sum, e, axes, sum(queue(), xe, {axes}).get(queue()));
            check(Op::prod, e, axes, prod(queue(), xe, {axes}).get(queue()));
            check(Op::any, e, axes, any(queue(), xe, {axes}).get(queue()));
            check(Op::all, e, axes, all(queue(), xe, {axes}).get(queue()));
        }
        check(Op::mean, e, std::vector<int>{1}, mean(queue(), xe, {std::vector<int>{1}}).get(queue()));
        EXPECT_THROW(min(queue(), xe, {std::vector<int>{1}}), ArgumentError);
        EXPECT_THROW(argmax(queue(), xe), ArgumentError);
        EXPECT_EQ(max(queue(), xe, {std::vector<int>{0}}).size(), 0u);  // nothing reduced is empty: no error
    }
}

TEST_P(Reductions, StrategiesByShape) {
    // Short inner axis, short outer axis, middle axis, one huge output split over groups, many
    // small outputs: float32 and int32 (exact) on shapes that pick each strategy.
    const std::vector<std::pair<std::vector<std::size_t>, std::vector<int>>> cases =
        {{{4096, 8}, {1}},  {{8, 4096}, {0}},  {{3, 3000, 5}, {1}}, {{1 << 18}, {0}},
         {{64, 4096}, {1}}, {{4096, 64}, {0}}, {{2, 3}, {0, 1}},    {{1 << 16, 3}, {0}}};
    for (const DType& d : {DType(Kind::float32), DType(Kind::int32), DType(Kind::float16)})
        for (const auto& [shape, axes] : cases) {
            SCOPED_TRACE(::testing::Message() << d.name() << " shape[0] " << shape[0] << " axes " << axes_name(axes));
            const HostArray h = random_host(d, shape);
            const Array x = Array::from_host(queue(), h);
            check(Op::sum, h, axes, sum(queue(), x, {axes}).get(queue()));
            if (d.kind() == Kind::int32)
                check(Op::argmax, h, std::vector<int>{axes[0]},
                      argmax(queue(), x, {std::vector<int>{axes[0]}}).get(queue()));
        }
}

TEST_P(Reductions, ContiguousRunsAlignedOrNot) {
    // Built-in reductions of 4- and 8-byte items along contiguous memory load 16 bytes at a time
    // where every run starts 16-byte aligned and holds whole vectors, one at a time otherwise: views
    // at aligned and unaligned offsets, runs of whole and of partial vectors, rows whose stride
    // keeps or breaks the alignment, long enough to be split into pieces. The host reference reads
    // the same view back.
    using Sl = Slice;
    const std::vector<std::pair<std::vector<std::size_t>, std::vector<Sl>>> views =
        {{{(1 << 17) + 8}, {Sl{}}},                  // whole vectors, split into pieces
         {{(1 << 17) + 8}, {Sl{4, std::nullopt}}},   // aligned offset
         {{(1 << 17) + 8}, {Sl{1, std::nullopt}}},   // unaligned offset
         {{(1 << 17) + 3}, {Sl{}}},                  // a partial vector at the end
         {{37, 1024}, {Sl{}, Sl{}}},                 // rows of whole vectors
         {{37, 1024}, {Sl{}, Sl{4, std::nullopt}}},  // rows starting at an aligned offset
         {{37, 1026}, {Sl{}, Sl{}}},                 // rows whose stride breaks the alignment
         {{37, 1024}, {Sl{}, Sl{2, 1022}}},          // float64: aligned (2 items); float32: not
         {{4099, 8}, {Sl{}, Sl{}}},                  // short rows, one work item each
         {{4099, 12}, {Sl{}, Sl{}}},                 // short rows of 3 (float32) or 6 (float64) vectors
         {{4099, 8}, {Sl{}, Sl{4, std::nullopt}}},   // short rows starting at an aligned offset
         {{4099, 10}, {Sl{}, Sl{0, 8}}}};            // short rows whose stride breaks the alignment
    for (const DType& d : {DType(Kind::float32), DType(Kind::float64), DType(Kind::int64)})
        for (const auto& [shape, slices] : views) {
            SCOPED_TRACE(::testing::Message() << d.name() << " shape[0] " << shape[0] << " ndim " << shape.size()
                                              << " view start " << slices.back().start.value_or(0));
            const Array full = Array::from_host(queue(), random_host(d, shape, Values::ties));
            const Array x = full.slice(slices);
            const HostArray h = x.get(queue());
            const std::vector<int> last{static_cast<int>(shape.size()) - 1};
            check(Op::sum, h, last, sum(queue(), x, {last}).get(queue()));
            if (d.kind() != Kind::float32) continue;  // the other built-ins: one dtype (compilations cost)
            check(Op::max, h, last, max(queue(), x, {last}).get(queue()));
            if (shape.size() == 1) check(Op::min, h, std::nullopt, min(queue(), x).get(queue()));
        }
    // CUDA memory of another library may start at any address: here 4 bytes into an allocation.
    if (context().api().id() == ApiId::cuda()) {
        const std::size_t n = 1 << 12;
        const HostArray h = random_host(Kind::float32, {n});
        const Array x = foreign_array_at(queue().device(), Kind::float32, n, 4);
        x.set(queue(), h);
        check(Op::sum, h, std::nullopt, sum(queue(), x).get(queue()));
    }
}

TEST_P(Reductions, SameBitsEveryRun) {
    const HostArray h = random_host(Kind::float32, {1 << 18});
    const Array x = Array::from_host(queue(), h);
    const HostArray h2 = random_host(Kind::float32, {8, 1 << 14});
    const Array x2 = Array::from_host(queue(), h2);
    for (int run = 0; run < 2; ++run) {
        const auto a = sum(queue(), x).get(queue()).to_vector<float>();
        const auto b = sum(queue(), x).get(queue()).to_vector<float>();
        EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(float)), 0);
        const auto c = sum(queue(), x2, {std::vector<int>{1}}).get(queue()).to_vector<float>();
        const auto e = sum(queue(), x2, {std::vector<int>{1}}).get(queue()).to_vector<float>();
        EXPECT_EQ(std::memcmp(c.data(), e.data(), c.size() * sizeof(float)), 0);
    }
}

TEST_P(Reductions, PiecesCombinedInOneKernelOrTwo) {
    // A reduction split into pieces combines them in its own kernel (its last group to finish) where
    // one column of groups holds every output's pieces, else in a second kernel; both combine in the
    // same order, so their results have the same bits. The GPU forms are forced on CPU devices (they
    // take the CPU forms otherwise), then, on a CPU device, the shapes the CPU forms leave to the
    // GPU form (reduced axes not contiguous) run with the CPU's in-order combining of lanes. Each
    // result is written over a sentinel: a counter left non-zero by the launch before would leave
    // no group last, and the sentinel would stay. Several launches in a row share the queue's
    // counter.
    const DefaultFormsOnExit restore;
    const bool cpu_device = queue().device().params().type == DeviceType::cpu;
    for (const bool gpu_forms : {true, false}) {
        if (!gpu_forms && !cpu_device) break;
        detail::allow_cpu_code(!gpu_forms);
        const std::vector<std::pair<std::vector<std::size_t>, std::optional<std::vector<int>>>> cases =
            {{{(1 << 18) + 5}, std::nullopt},          // the whole sum: many lanes combine
             {{100001, 3}, std::vector<int>{0}},       // a few outputs, one work item each
             {{3, 100001}, std::vector<int>{1}},       // a column of groups per output: two kernels
             {{5, 7, 3001}, std::vector<int>{0, 2}}};  // seven outputs over two reduced axes
        // float32 on every case; int32 (exact, and argmax) and complex64 (a two-part accumulator) on
        // fewer, for the compilations' sake.
        for (const DType& d : {DType(Kind::float32), DType(Kind::int32), DType(Kind::complex64)})
            for (std::size_t c = 0; c < (d.kind() == Kind::float32 ? cases.size()
                                         : d.kind() == Kind::int32 ? 2
                                                                   : 1);
                 ++c) {
                const auto& [shape, axes] = cases[c];
                if (!gpu_forms && (c == 0 || c == 2)) continue;  // contiguous reduced axes: the CPU forms
                SCOPED_TRACE(gpu_forms ? "GPU forms" : "CPU forms allowed");
                const Op op = d.kind() == Kind::float32 && !axes ? Op::mean : Op::sum;
                SCOPED_TRACE(::testing::Message() << op_name(op) << " " << d.name() << " shape[0] " << shape[0]
                                                  << " axes " << axes_name(axes));
                const HostArray h = random_host(d, shape);
                const Array x = Array::from_host(queue(), h);
                std::vector<HostArray> results;
                for (const bool one_kernel : {true, false, true}) {
                    detail::allow_combine_in_kernel(one_kernel);
                    const Array first = run(op, queue(), x, {axes});
                    Array out = Array::empty(queue().device(), first.shape(), first.dtype());
                    fill(queue(), out, 12345);
                    run(op, queue(), x, {axes, false, out});
                    results.push_back(out.get(queue()));
                    check(op, h, axes, results.back());
                }
                for (std::size_t k = 1; k < results.size(); ++k)
                    EXPECT_EQ(std::memcmp(results[0].data(), results[k].data(), results[0].size() * d.itemsize()), 0)
                        << "run " << k << " differs in its bits";
                if (d.kind() == Kind::int32 && axes) {
                    detail::allow_combine_in_kernel(true);
                    check(Op::argmax, h, std::vector<int>{axes->front()},
                          argmax(queue(), x, {std::vector<int>{axes->front()}}).get(queue()));
                }
            }
    }
}

TEST_P(Reductions, LanesCombinedByWarpShuffles) {
    // Where warps of 32 can shuffle (CUDA; NVIDIA's OpenCL through PTX) a group's lanes combine by
    // shuffles within warps, then across them (reduction.mako's lanes_combined). Elsewhere the test
    // forces that form with the warps emulated in local memory, over the GPU forms, so that its
    // index arithmetic runs on CPU devices too: runs of lanes shorter than a warp, of several
    // warps with several outputs per group, the whole sum's 256-512 lanes and the last group's
    // combine of the pieces; accumulators of one and two 32-bit words (float32, complex64) and
    // argmin / argmax's (value, index) pairs with ties (the first index must win across warps).
    const DefaultFormsOnExit restore;
    detail::allow_cpu_code(false);
    detail::force_lane_shuffles(true);
    struct Case {
        Op op;
        Kind kind;
        std::vector<std::size_t> shape;
        std::optional<std::vector<int>> axes;
    };
    const std::vector<Case> cases =
        {{Op::sum, Kind::float32, {(1 << 18) + 5}, std::nullopt},       // lanes of a whole group, pieces
         {Op::sum, Kind::float32, {37, 130}, std::vector<int>{1}},      // 16 lanes an output
         {Op::sum, Kind::float32, {6, 1500}, std::vector<int>{1}},      // 128 lanes: several warps, outputs
         {Op::sum, Kind::complex64, {(1 << 16) + 3}, std::nullopt},     // a two-word accumulator
         {Op::argmax, Kind::int32, {(1 << 17) + 1}, std::nullopt},      // (value, index) with ties
         {Op::argmin, Kind::float32, {9, 3000}, std::vector<int>{1}}};  // ties within an output
    for (const Case& c : cases) {
        SCOPED_TRACE(::testing::Message() << op_name(c.op) << " " << DType(c.kind).name() << " shape[0] " << c.shape[0]
                                          << " axes " << axes_name(c.axes));
        const HostArray h = random_host(c.kind, c.shape, values_for(c.op));
        const Array x = Array::from_host(queue(), h);
        check(c.op, h, c.axes, run(c.op, queue(), x, {c.axes}).get(queue()));
    }
}

TEST_P(Reductions, OneKernelCombineHoldsOverManyLaunches) {
    // The last group of a whole sum reads every other group's partial result behind a device-wide
    // fence (reduction.mako, device_wide_fence): a fence that orders stores only within a group
    // (NVIDIA's OpenCL compiles mem_fence to membar.cta) leaves a race that one launch rarely
    // shows. Many launches in a row, each into a fresh output, must give the bits of the two-kernel
    // form. (On CPU devices the GPU forms are forced: the CPU forms have no pieces.)
    const DefaultFormsOnExit restore;
    detail::allow_cpu_code(false);
    const bool cpu_device = queue().device().params().type == DeviceType::cpu;
    const HostArray h = random_host(Kind::float32, {(std::size_t{1} << 20) + 3});
    const Array x = Array::from_host(queue(), h);
    detail::allow_combine_in_kernel(false);
    const HostArray expected = sum(queue(), x).get(queue());
    check(Op::sum, h, std::nullopt, expected);
    detail::allow_combine_in_kernel(true);
    const std::size_t launches = cpu_device ? 40 : 400;
    std::vector<Array> results;
    results.reserve(launches);
    for (std::size_t k = 0; k < launches; ++k) results.push_back(sum(queue(), x));
    int differing = 0;
    for (const Array& r : results)
        differing += std::memcmp(r.get(queue()).data(), expected.data(), sizeof(float)) != 0 ? 1 : 0;
    EXPECT_EQ(differing, 0) << "of " << launches << " one-kernel sums differ from the two-kernel one";
}

TEST_P(Reductions, NaNPropagatesAndComesFirst) {
    HostArray h = random_host(Kind::float32, {3, 50});
    h.at<float>({1, 7}) = std::nanf("");
    h.at<float>({1, 30}) = std::nanf("");
    const Array x = Array::from_host(queue(), h);
    const auto mx = max(queue(), x, {std::vector<int>{1}}).get(queue()).to_vector<float>();
    const auto mn = min(queue(), x).get(queue()).to_vector<float>();
    const auto am = argmin(queue(), x, {std::vector<int>{1}}).get(queue()).to_vector<std::int64_t>();
    const auto all_am = argmax(queue(), x).get(queue()).to_vector<std::int64_t>();
    EXPECT_FALSE(std::isnan(mx[0]));
    EXPECT_TRUE(std::isnan(mx[1]));
    EXPECT_TRUE(std::isnan(mn[0]));
    EXPECT_EQ(am[1], 7);
    EXPECT_EQ(all_am[0], 57);
}

TEST_P(Reductions, DotKeepsNumpysDtypeAndAccumulation) {
    // numpy's np.dot of two vectors: the promoted dtype of the inputs, integers summed in 64 bits
    // and stored wrapped, bool true where any product is, float16 summed in float and rounded once.
    // 3000 elements, so that the int8 and int16 totals wrap.
    constexpr std::size_t n = 3000;
    const auto wrapped = [](std::uint64_t v, const DType& d) {
        const std::size_t bits = 8 * d.itemsize();
        if (bits == 64) return v;
        const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
        v &= mask;
        if (is_signed(d) && ((v >> (bits - 1)) & 1) != 0) v |= ~mask;  // sign-extended, as int_at gives
        return v;
    };
    const std::vector<std::tuple<Kind, Kind, Kind>> cases = {{Kind::bool_, Kind::bool_, Kind::bool_},
                                                             {Kind::int8, Kind::int8, Kind::int8},
                                                             {Kind::uint8, Kind::int8, Kind::int16},
                                                             {Kind::uint32, Kind::uint32, Kind::uint32},
                                                             {Kind::bool_, Kind::int8, Kind::int8},
                                                             {Kind::float16, Kind::float16, Kind::float16},
                                                             {Kind::int8, Kind::float16, Kind::float16}};
    for (const auto& [ka, kb, kr] : cases) {
        const DType da(ka), db(kb), dr(kr);
        SCOPED_TRACE(::testing::Message() << da.name() << " . " << db.name());
        const HostArray a = random_host(da, {n}), b = random_host(db, {n});
        const HostArray r = dot(queue(), Array::from_host(queue(), a), Array::from_host(queue(), b)).get(queue());
        ASSERT_EQ(r.dtype(), dr);
        if (kr == Kind::float16) {
            long double ref = 0, magnitude = 0;
            for (std::size_t k = 0; k < n; ++k) {
                const long double p = value_at(a, k).real() * value_at(b, k).real();
                ref += p;
                magnitude += std::abs(p);
            }
            const long double tol = (n + 2) * unit_roundoff(Kind::float32) * magnitude +
                                    unit_roundoff(Kind::float16) * std::abs(ref) + 1e-7L;
            EXPECT_LE(std::abs(value_at(r, 0).real() - ref), tol);
            continue;
        }
        std::uint64_t exact = 0;
        bool any = false;
        for (std::size_t k = 0; k < n; ++k) {
            exact += int_at(a, k) * int_at(b, k);
            any = any || (int_at(a, k) != 0 && int_at(b, k) != 0);
        }
        EXPECT_EQ(int_at(r, 0), kr == Kind::bool_ ? std::uint64_t{any} : wrapped(exact, dr));
    }
    // bool: false where no product is true (a count of zero, not a wrapped one).
    const Array none = Array::zeros(queue(), {n}, Kind::bool_);
    const Array some = Array::from_host(queue(), random_host(Kind::bool_, {n}));
    EXPECT_EQ(int_at(dot(queue(), none, some).get(queue()), 0), 0u);
    // 256 true products: a count that an 8-bit store would wrap to zero.
    HostArray ones(Kind::bool_, {256});
    std::memset(ones.data(), 1, 256);
    const Array all = Array::from_host(queue(), ones);
    EXPECT_EQ(int_at(dot(queue(), all, all).get(queue()), 0), 1u);
    // The fused form (dot of expressions) agrees on the dtype and the wrap.
    const HostArray i8 = random_host(Kind::int8, {n});
    const Array x8 = Array::from_host(queue(), i8);
    const HostArray fused = dot(queue(), Expr(x8) + Expr(x8), Expr(x8)).get(queue());
    ASSERT_EQ(fused.dtype(), DType(Kind::int8));
    std::uint64_t exact = 0;
    for (std::size_t k = 0; k < n; ++k) exact += wrapped(2 * int_at(i8, k), DType(Kind::int8)) * int_at(i8, k);
    EXPECT_EQ(int_at(fused, 0), wrapped(exact, DType(Kind::int8)));
}

TEST_P(Reductions, DotGivenOutputAndAllocator) {
    for (const DType& d : {DType(Kind::float32), DType(Kind::int16), DType(Kind::complex128)}) {
        SCOPED_TRACE(d.name());
        const HostArray a = random_host(d, {1000}), b = random_host(d, {2000});
        const Array xa = Array::from_host(queue(), a);
        const Array xb = Array::from_host(queue(), b)[{Slice{std::nullopt, std::nullopt, -2}}];
        const HostArray bv = b[{Slice{std::nullopt, std::nullopt, -2}}].copy();
        const HostArray r = dot(queue(), xa, xb).get(queue());
        Complex ref = 0;
        long double magnitude = 0;
        for (std::size_t k = 0; k < 1000; ++k) {
            ref += value_at(a, k) * value_at(bv, k);
            magnitude += std::abs(value_at(a, k) * value_at(bv, k));
        }
        ASSERT_EQ(r.dtype(), d);  // numpy's: the inputs' dtype
        if (is_int_kind(d)) {
            // Accumulated in int64, stored wrapped into int16, as numpy's dot does.
            const auto exact = static_cast<std::int64_t>(ref.real());
            EXPECT_EQ(static_cast<std::int64_t>(value_at(r, 0).real()),
                      static_cast<std::int16_t>(static_cast<std::uint16_t>(exact & 0xffff)));
            continue;
        }
        const long double tol = 4 * 1002 * unit_roundoff(d) * magnitude;
        EXPECT_LE(std::abs(value_at(r, 0) - ref), tol);
    }
    // Into a given output of any layout: every third element of a larger array.
    const HostArray h = random_host(Kind::float64, {20, 30});
    const Array x = Array::from_host(queue(), h);
    const Array big = Array::zeros(queue(), {90}, Kind::float64);
    const Array stepped = big[{Slice{1, std::nullopt, 3}}];
    sum(queue(), x, {std::vector<int>{0}, false, stepped});
    const auto back = big.get(queue()).to_vector<double>();
    for (std::size_t j = 0; j < 30; ++j) {
        long double ref = 0;
        for (std::size_t i = 0; i < 20; ++i) ref += h.at<double>({i, j});
        EXPECT_NEAR(back[3 * j + 1], static_cast<double>(ref), 1e-13);
        EXPECT_EQ(back[3 * j], 0.0);
    }
    // Or into a buffer of the given allocator (a pool, as repeated reductions would use).
    const MemoryPool pool;
    ReduceOptions pooled{std::vector<int>{1}};
    pooled.allocator = pool;
    const Array by_row = sum(queue(), x, pooled);
    EXPECT_EQ(pool.active_blocks(), 1u);
    const auto rows = by_row.get(queue()).to_vector<double>();
    for (std::size_t i = 0; i < 20; ++i) {
        long double ref = 0, magnitude = 0;
        for (std::size_t j = 0; j < 30; ++j) {
            ref += h.at<double>({i, j});
            magnitude += std::abs(h.at<double>({i, j}));
        }
        // 30 terms: at most 30 roundings of at most u = 2^-53 of the running magnitude each.
        EXPECT_LE(std::abs(rows[i] - static_cast<double>(ref)), static_cast<double>(30 * magnitude) * 0x1p-53);
    }
}

TEST_P(Reductions, ReductionKernelWithBroadcastScalarsAndModule) {
    // sum over axis 1 of a * x[i] * y[i] + ${offset}(x[i]), y broadcast from (6,) to (4, 6).
    const ReductionKernel k(Kind::float64, "0", "a + b", "a * x[i] * (double)y[i] + ${offset}(x[i])",
                            "const double *x, const float *y, double a", "",
                            {{"offset",
                              Module::from_string("FUNCTION INLINE double ${prefix}(double v) { return v * v; }",
                                                  "offset")}},
                            "weighted");
    const HostArray hx = random_host(Kind::float64, {4, 6}), hy = random_host(Kind::float32, {6});
    const Array x = Array::from_host(queue(), hx), y = Array::from_host(queue(), hy);
    const HostArray r = k(queue(), {x, y, 1.5}, {std::vector<int>{1}}).get(queue());
    for (std::size_t o = 0; o < 4; ++o) {
        double ref = 0;
        for (std::size_t i = 0; i < 6; ++i) {
            const double v = hx.at<double>({o, i});
            ref += 1.5 * v * static_cast<double>(hy.at<float>({i})) + v * v;
        }
        EXPECT_NEAR(r.at<double>({o}), ref, 1e-13);
    }
    // The argument's position as a value: sum of i over 10 elements.
    const ReductionKernel positions(Kind::int64, "0", "a + b", "(int64_t)i + 0 * x[i]", "const int32_t *x");
    const Array z = Array::zeros(queue(), {10}, Kind::int32);
    EXPECT_EQ(positions(queue(), {z}).get(queue()).to_vector<std::int64_t>()[0], 45);
}

TEST_P(Reductions, BadInputNamesTheCulprit) {
    const Array x = Array::zeros(queue(), {3, 4}, Kind::float32);
    EXPECT_NE(argument_error_message([&] { sum(queue(), x, {std::vector<int>{2}}); }).find("out of range"),
              std::string::npos);
    EXPECT_NE(argument_error_message([&] {
                  sum(queue(), x, {std::vector<int>{1, -1}});
              }).find("repeated"),
              std::string::npos);
    EXPECT_NE(argument_error_message([&] {
                  sum(queue(), x, {std::vector<int>{0}, false, Array::zeros(queue(), {3}, Kind::float32)});
              }).find("shape"),
              std::string::npos);
    // out= of another dtype is numpy's for sum (cast into); argmax's indices refuse a float out.
    EXPECT_NE(argument_error_message([&] {
                  argmax(queue(), x, {std::vector<int>{0}, false, Array::zeros(queue(), {4}, Kind::float64)});
              }).find("dtype"),
              std::string::npos);
    const ReductionKernel k(Kind::float32, "0", "a + b", "x[i]", "const float *x");
    EXPECT_NE(argument_error_message([&] { k(queue(), {x, x}); }).find("arguments"), std::string::npos);
    EXPECT_NE(argument_error_message([&] { k(queue(), {1.0f}); }).find("x"), std::string::npos);
    EXPECT_NE(argument_error_message([&] { k(queue(), {Array::zeros(queue(), {3}, Kind::int32)}); }).find("int32"),
              std::string::npos);
    EXPECT_THROW(ReductionKernel(Kind::float32, "0", "a + b", "x[i]", "float *x"), ArgumentError);  // not const
    EXPECT_THROW(dot(queue(), x, x), ArgumentError);
    // An expression the dtype cannot take: a member of a float.
    const ReductionKernel bad(Kind::float32, "0", "a + b", "x[i].y", "const float *x");
    EXPECT_THROW(bad(queue(), {x}), CompileError);
    // An array of another context.
    Context other = Context::from_devices(bound_device().device());
    const Array foreign = Array::zeros(Queue(other.devices()[0]), {3}, Kind::float32);
    EXPECT_NE(argument_error_message([&] { sum(queue(), foreign); }).find("another context"), std::string::npos);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Reductions);

TEST(MultiArrayReductions, PartByPart) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const MultiQueue mq = MultiQueue::on_devices(context->devices());
    const HostArray h = random_host(Kind::int32, {7, 9, 4});
    const MultiArray x = MultiArray::from_host(mq, h);
    const MultiArray r =
        reduce_parts(mq, x, [](const Queue& q, const Array& a, const ReduceOptions& o) { return sum(q, a, o); },
                     {std::vector<int>{2}});
    check(Op::sum, h, std::vector<int>{2}, r.get(mq));
    EXPECT_THROW(reduce_parts(mq, x,
                              [](const Queue& q, const Array& a, const ReduceOptions& o) { return sum(q, a, o); }),
                 UnsupportedError);
}

/// Every other column on each device (a stepped slice of axis 1): a splay that splits an inner
/// axis, for reduce_whole's index mapping.
class ColumnSplay final : public Splay {
public:
    std::vector<std::vector<Slice>> operator()(const std::vector<std::size_t>&, std::size_t devices) const override {
        std::vector<std::vector<Slice>> out;
        for (std::size_t k = 0; k < devices; ++k)
            out.push_back(
                {Slice{}, Slice{static_cast<std::ptrdiff_t>(k), std::nullopt, static_cast<std::ptrdiff_t>(devices)}});
        return out;
    }
};

Reduction whole_of(Op op) {
    switch (op) {
    case Op::sum: return Reduction::sum;
    case Op::prod: return Reduction::prod;
    case Op::mean: return Reduction::mean;
    case Op::min: return Reduction::min;
    case Op::max: return Reduction::max;
    case Op::argmin: return Reduction::argmin;
    case Op::argmax: return Reduction::argmax;
    case Op::any: return Reduction::any;
    case Op::all: return Reduction::all;
    }
    throw std::logic_error("op");
}

TEST(MultiArrayReductions, WholeAcrossTheParts) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const MultiQueue mq = MultiQueue::on_devices(context->devices());
    const Queue& q0 = mq[context->devices()[0]];
    using Axes = std::optional<std::vector<int>>;
    // Every reduction, with dtypes spread over the cases (each new combination compiles kernels on
    // both devices): integers exact, float16 accumulated in float32, complex ordering.
    const std::vector<std::pair<Op, DType>> cases = {{Op::sum, Kind::int16},        {Op::sum, Kind::float16},
                                                     {Op::sum, Kind::complex64},    {Op::prod, Kind::float32},
                                                     {Op::mean, Kind::int16},       {Op::mean, Kind::float16},
                                                     {Op::min, Kind::float32},      {Op::max, Kind::int16},
                                                     {Op::argmin, Kind::float32},   {Op::argmax, Kind::int16},
                                                     {Op::argmax, Kind::complex64}, {Op::any, Kind::int16},
                                                     {Op::all, Kind::float32}};
    for (const auto& [op, d] : cases) {
        const bool arg = op == Op::argmin || op == Op::argmax;
        // EqualSplay (rows 4 + 3) over every axis and over axis 0 (and 2); ColumnSplay (a stepped
        // inner axis) over axis 1.
        for (const auto& [columns, axes, keepdims] :
             {std::tuple{false, Axes{}, false},
              std::tuple{false, Axes{arg ? std::vector<int>{0} : std::vector<int>{0, 2}}, true},
              std::tuple{true, Axes{std::vector<int>{1}}, false}}) {
            SCOPED_TRACE(::testing::Message() << op_name(op) << " " << d.name() << (columns ? " columns" : " rows")
                                              << " axes " << axes_name(axes) << (keepdims ? " keepdims" : ""));
            const HostArray h = random_host(d, {7, 9, 4}, values_for(op));
            const MultiArray x =
                MultiArray::from_host(mq, h,
                                      columns ? std::make_shared<ColumnSplay>() : std::shared_ptr<const Splay>());
            const Array r = reduce_whole(mq, x, whole_of(op), ReduceOptions{axes, keepdims, std::nullopt});
            ASSERT_EQ(r.device(), context->devices()[0]);
            check(op, h, axes, r.get(q0));
        }
    }
}

TEST(MultiArrayReductions, WholeIntoOutSameBitsAndErrors) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const MultiQueue mq = MultiQueue::on_devices(context->devices());
    const Queue& q0 = mq[context->devices()[0]];
    const HostArray h = random_host(Kind::float32, {9, 5});
    const MultiArray x = MultiArray::from_host(mq, h);
    // Into a stepped `out` on the first device.
    const Array big = Array::zeros(q0, {10}, Kind::float32);
    const Array out = big[{Slice{0, std::nullopt, 2}}];
    EXPECT_EQ(reduce_whole(mq, x, Reduction::sum, {std::vector<int>{0}, false, out}).base().native_handle(),
              big.base().native_handle());
    check(Op::sum, h, std::vector<int>{0}, out.copy(q0).get(q0));
    const auto a = reduce_whole(mq, x, Reduction::sum).get(q0).to_vector<float>();
    const auto b = reduce_whole(mq, x, Reduction::sum).get(q0).to_vector<float>();
    EXPECT_EQ(a, b);
    // A clone is reduced once.
    const MultiArray c = MultiArray::from_host(mq, h, std::make_shared<CloneSplay>());
    check(Op::sum, h, std::nullopt, reduce_whole(mq, c, Reduction::sum).get(q0));
    EXPECT_THROW(reduce_whole(mq, x, Reduction::sum, {std::vector<int>{1}}), UnsupportedError);  // split axis kept
    EXPECT_THROW(reduce_whole(mq, x, Reduction::min, {}, DType(Kind::float64)), ArgumentError);
    EXPECT_THROW(reduce_whole(mq, x, Reduction::sum, {std::vector<int>{2}}), ArgumentError);
    const Array elsewhere = Array::zeros(mq[context->devices()[1]], {5}, Kind::float32);
    EXPECT_THROW(reduce_whole(mq, x, Reduction::sum, {std::vector<int>{0}, false, elsewhere}), ArgumentError);
}

}  // namespace
}  // namespace kjarni::test
