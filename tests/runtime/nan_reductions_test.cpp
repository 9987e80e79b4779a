// numpy's NaN-aware reductions (nansum nanprod nanmin nanmax nanargmin nanargmax nanmean), the
// moments (var std nanvar nanstd with ddof, dtype=, out=, keepdims, axes), any/all of NaN and
// signed zeros, and cumsum of bool, against long double references on fresh random data with NaN
// scattered in (and one slice of NaN only).
//
// Tolerances: sums and means within the summation bound n * u * sum|x| (u: the accumulation's unit
// roundoff), plus half an ulp of the stored result; products n * u * |p|; min/max/arg* exact; the
// variance within Chan-Golub-LeVeque's bound for the pairwise update, n * u * kappa * var with
// kappa = sqrt(1 + mean^2 / var) the problem's condition number (std: half of that, plus its sqrt's
// rounding).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithm_test_support.hpp"
#include "dtype/half.hpp"
#include "support/test_devices.hpp"

// A named namespace: unity builds put several test files in one translation unit.
namespace kjarni::test::nan_reductions {
namespace {

using Kind = DType::Kind;

class NanReductionsTest : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(NanReductionsTest);

enum class Op { nansum, nanprod, nanmin, nanmax, nanargmin, nanargmax, nanmean, var, std, nanvar, nanstd };

const char* name_of(Op op) {
    switch (op) {
    case Op::nansum: return "nansum";
    case Op::nanprod: return "nanprod";
    case Op::nanmin: return "nanmin";
    case Op::nanmax: return "nanmax";
    case Op::nanargmin: return "nanargmin";
    case Op::nanargmax: return "nanargmax";
    case Op::nanmean: return "nanmean";
    case Op::var: return "var";
    case Op::std: return "std";
    case Op::nanvar: return "nanvar";
    case Op::nanstd: return "nanstd";
    }
    return "?";
}

Array run(Op op, const Queue& q, const Array& a, const ReduceOptions& o, double ddof) {
    switch (op) {
    case Op::nansum: return nansum(q, a, o);
    case Op::nanprod: return nanprod(q, a, o);
    case Op::nanmin: return nanmin(q, a, o);
    case Op::nanmax: return nanmax(q, a, o);
    case Op::nanargmin: return nanargmin(q, a, o);
    case Op::nanargmax: return nanargmax(q, a, o);
    case Op::nanmean: return nanmean(q, a, o);
    case Op::var: return var(q, a, o, ddof);
    case Op::std: return kjarni::std(q, a, o, ddof);
    case Op::nanvar: return nanvar(q, a, o, ddof);
    case Op::nanstd: return nanstd(q, a, o, ddof);
    }
    throw std::logic_error("op");
}

bool has_nan_values(const DType& d) { return is_real(d) || is_complex(d); }

// Writes a NaN (complex: in one part) at element k.
void put_nan(HostArray& a, std::size_t k, bool real_part) {
    std::byte* p = a.data() + k * a.dtype().itemsize();
    const float f = std::numeric_limits<float>::quiet_NaN();
    const double v = std::numeric_limits<double>::quiet_NaN();
    const auto put = [p]<class T>(T x) { std::memcpy(p, &x, sizeof(T)); };
    switch (a.dtype().kind()) {
    case Kind::float16: put(detail::float_to_half(f)); break;
    case Kind::float32: put(f); break;
    case Kind::float64: put(v); break;
    case Kind::complex64: put(real_part ? std::complex<float>(f, 1) : std::complex<float>(1, f)); break;
    case Kind::complex128: put(real_part ? std::complex<double>(v, 1) : std::complex<double>(1, v)); break;
    default: break;
    }
}

bool is_nan(const Complex& c) { return std::isnan(c.real()) || std::isnan(c.imag()); }

long double unit(const DType& d) {
    return d.kind() == Kind::float64 || d.kind() == Kind::complex128 || is_int_kind(d) ? std::ldexp(1.0L, -53)
                                                                                       : std::ldexp(1.0L, -24);
}

class Checker {
public:
    Checker(Op op, const HostArray& host, const std::optional<std::vector<int>>& axes, double ddof)
        : op_(op), host_(host), ddof_(ddof), groups_(reduction_groups(host.shape(), flags(host.ndim(), axes))) {}

    void check(const HostArray& got_view) const {
        const HostArray got = got_view.copy();
        ASSERT_EQ(got.size(), groups_.size());
        const DType d = host_.dtype();
        const long double u = unit(d);
        for (std::size_t o = 0; o < groups_.size(); ++o) {
            std::vector<Complex> values;
            std::vector<std::size_t> positions;
            bool any_nan = false;
            for (std::size_t r = 0; r < groups_[o].size(); ++r) {
                const Complex v = value_at(host_, groups_[o][r]);
                if (is_nan(v)) {
                    any_nan = true;
                    if (op_ == Op::var || op_ == Op::std) values.push_back(v);
                    continue;
                }
                values.push_back(v);
                positions.push_back(r);
            }
            const std::size_t count = values.size();
            const Complex g = op_ == Op::nanargmin || op_ == Op::nanargmax
                                  ? Complex(static_cast<long double>(int_at(got, o)))
                                  : value_at(got, o);
            SCOPED_TRACE(fmt::format("output {} of {} ({} values{})", o, groups_.size(), count,
                                     any_nan ? ", NaN among them" : ""));
            long double abs_sum = 0;
            Complex sum = 0, product = 1;
            for (const Complex& v : values) {
                abs_sum += std::abs(v);
                sum += v;
                product *= v;
            }
            const long double stored =
                d.kind() == Kind::float16 ? std::ldexp(1.0L, -11) : u;  // half an ulp of the result
            switch (op_) {
            case Op::nansum:
                EXPECT_LE(std::abs(g - sum), count * u * abs_sum + stored * std::abs(sum)) << g << " vs " << sum;
                break;
            case Op::nanprod:
                EXPECT_LE(std::abs(g - product), (count + 1) * u * std::abs(product) + stored * std::abs(product))
                    << g << " vs " << product;
                break;
            case Op::nanmean: {
                if (count == 0) {
                    EXPECT_TRUE(is_nan(g)) << g;
                    break;
                }
                const Complex mean = sum / static_cast<long double>(count);
                EXPECT_LE(std::abs(g - mean), (count + 1) * u * abs_sum / count + stored * std::abs(mean))
                    << g << " vs " << mean;
                break;
            }
            case Op::nanmin:
            case Op::nanmax: {
                if (count == 0) {
                    EXPECT_TRUE(is_nan(g)) << g;
                    break;
                }
                Complex best = values[0];
                for (const Complex& v : values) {
                    const bool less = v.real() < best.real() || (v.real() == best.real() && v.imag() < best.imag());
                    const bool more = v.real() > best.real() || (v.real() == best.real() && v.imag() > best.imag());
                    if (op_ == Op::nanmin ? less : more) best = v;
                }
                EXPECT_EQ(g, best);
                break;
            }
            case Op::nanargmin:
            case Op::nanargmax: {
                std::size_t best = 0;
                for (std::size_t k = 1; k < count; ++k) {
                    const Complex v = values[k], b = values[best];
                    const bool less = v.real() < b.real() || (v.real() == b.real() && v.imag() < b.imag());
                    const bool more = v.real() > b.real() || (v.real() == b.real() && v.imag() > b.imag());
                    if (op_ == Op::nanargmin ? less : more) best = k;
                }
                EXPECT_EQ(static_cast<std::size_t>(g.real()), positions[best]);
                break;
            }
            default: {
                // Two passes in long double: the mean, then the squared deviations.
                const bool root = op_ == Op::std || op_ == Op::nanstd;
                const Complex mean = sum / static_cast<long double>(count);
                long double m2 = 0;
                for (const Complex& v : values) m2 += std::norm(v - mean);
                const long double divisor = std::max(static_cast<long double>(count) - ddof_, 0.0L);
                EXPECT_EQ(g.imag(), 0);
                if (any_nan && (op_ == Op::var || op_ == Op::std)) {
                    EXPECT_TRUE(std::isnan(g.real())) << g;
                    break;
                }
                if (divisor == 0 || count == 0) {
                    EXPECT_TRUE(std::isnan(g.real()) || std::isinf(g.real())) << g;
                    break;
                }
                const long double variance = m2 / divisor;
                const long double kappa = std::sqrt(1 + std::norm(mean) / std::max(m2 / count, 1e-300L));
                const long double bound = (count + 2) * u * kappa * variance;
                if (root)
                    EXPECT_LE(std::abs(g.real() - std::sqrt(variance)),
                              bound / (2 * std::sqrt(variance)) + (u + stored) * std::sqrt(variance));
                else EXPECT_LE(std::abs(g.real() - variance), bound + stored * variance) << g << " vs " << variance;
            }
            }
            if (::testing::Test::HasFailure()) return;
        }
    }

private:
    Op op_;
    HostArray host_;
    double ddof_;
    std::vector<std::vector<std::size_t>> groups_;
};

// A (5, 7, 6) array of random values (near 1 for products) with NaN at random places and the
// whole [0, :, 0] row NaN (for reductions along axis 1: a slice of NaN only).
HostArray random_with_nan(const DType& d, Op op, bool all_nan_row) {
    HostArray h = random_host(d, {5, 7, 6}, op == Op::nanprod ? Values::ones : Values::small);
    if (!has_nan_values(d)) return h;
    auto& rng = random_engine();
    std::bernoulli_distribution nan(0.15), part(0.5);
    for (std::size_t k = 0; k < h.size(); ++k)
        if (nan(rng)) put_nan(h, k, part(rng));
    if (all_nan_row)
        for (std::size_t j = 0; j < 7; ++j) put_nan(h, j * 6, part(rng));
    return h;
}

TEST_P(NanReductionsTest, EveryReductionEveryFloatDtype) {
    const std::vector<DType> floats{Kind::float16, Kind::float32, Kind::float64, Kind::complex64, Kind::complex128};
    for (Op op : {Op::nansum, Op::nanprod, Op::nanmin, Op::nanmax, Op::nanargmin, Op::nanargmax, Op::nanmean, Op::var,
                  Op::std, Op::nanvar, Op::nanstd}) {
        const bool arg = op == Op::nanargmin || op == Op::nanargmax;
        // Each compiled reduction costs seconds on PoCL: every dtype for nansum, nanmean and var
        // (the three accumulations), float16, float32 and complex128 for the others (float16's
        // conversions, complex ordering), float32 alone for the std forms of the variance.
        std::vector<DType> dtypes = floats;
        if (op == Op::std || op == Op::nanstd) dtypes = {Kind::float32};
        else if (op == Op::nanvar) dtypes = {Kind::float16, Kind::complex64};
        else if (op != Op::nansum && op != Op::nanmean && op != Op::var)
            dtypes = {Kind::float16, Kind::float32, Kind::complex128};
        for (const DType& d : dtypes) {
            // One kernel per (op, dtype) along axis 1 with keepdims; float32 also over every axis
            // and over axes (0, 2).
            std::vector<std::optional<std::vector<int>>> axis_sets{std::vector<int>{1}};
            if (d.kind() == Kind::float32) {
                axis_sets.push_back(std::nullopt);
                if (!arg) axis_sets.push_back(std::vector<int>{0, 2});
            }
            for (const auto& axes : axis_sets) {
                const double ddof = op == Op::var || op == Op::nanstd ? 1.0 : 0.0;
                SCOPED_TRACE(fmt::format("{} {} axes {} ddof {}", name_of(op), d.name(),
                                         axes ? fmt::format("{}", fmt::join(*axes, ",")) : "all", ddof));
                // The slice of NaN only would make nanarg* raise: left out there (tested below).
                HostArray h = random_with_nan(d, op, !arg);
                const Array x = Array::from_host(queue(), h);
                const Array r = run(op, queue(), x, ReduceOptions{axes, true, std::nullopt}, ddof);
                const DType want = op == Op::nanargmin || op == Op::nanargmax ? DType(Kind::int64)
                                   : (op >= Op::var && is_complex(d))         ? real_for(d)
                                                                              : d;
                ASSERT_EQ(r.dtype(), want);
                Checker(op, h, axes, ddof).check(r.get(queue()));
                if (::testing::Test::HasFailure()) return;
            }
        }
    }
}

std::vector<std::uint8_t> bytes_of(const HostArray& a) {
    const HostArray c = a.copy();
    const auto* p = reinterpret_cast<const std::uint8_t*>(c.data());
    return std::vector<std::uint8_t>(p, p + c.size() * c.dtype().itemsize());
}

TEST_P(NanReductionsTest, NansumAndNanprodTakeAnyDtypeAsNumpysSumOfTheReplacedArray) {
    // numpy's nansum / nanprod are np.sum / np.prod of the array with NaN replaced by 0 / 1, so they
    // take an integer or bool dtype= of a float array, and a real one of a complex array, each
    // element converted as astype (kjarni refused them as same_kind casts). Values from numpy 2.4.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> f = {1.7f, nan, -2.9f, 3.2f};
    const Array x = Array::from_host(queue(), std::span<const float>(f), {f.size()});
    EXPECT_EQ(nansum(queue(), x, {}, DType(Kind::int32)).get(queue()).to_vector<std::int32_t>(),
              std::vector<std::int32_t>{2});
    EXPECT_EQ(nanprod(queue(), x, {}, DType(Kind::int32)).get(queue()).to_vector<std::int32_t>(),
              std::vector<std::int32_t>{-6});
    const std::vector<double> g = {0.0, std::numeric_limits<double>::quiet_NaN(), 0.5};
    const Array y = Array::from_host(queue(), std::span<const double>(g), {g.size()});
    EXPECT_EQ(nansum(queue(), y, {}, DType(Kind::bool_)).get(queue()).to_vector<std::uint8_t>(),
              std::vector<std::uint8_t>{1});
    EXPECT_EQ(nanprod(queue(), y, {}, DType(Kind::bool_)).get(queue()).to_vector<std::uint8_t>(),
              std::vector<std::uint8_t>{0});
    const std::vector<std::complex<float>> z = {{1.5f, 2.0f}, {nan, 1.0f}, {-2.5f, -1.0f}};
    const Array c = Array::from_host(queue(), std::span<const std::complex<float>>(z), {z.size()});
    EXPECT_EQ(nansum(queue(), c, {}, DType(Kind::float64)).get(queue()).to_vector<double>(), std::vector<double>{-1.0});
    EXPECT_THROW(nanmean(queue(), x, {}, DType(Kind::int32)), ArgumentError);  // numpy's TypeError
    // nanmean likewise: a real dtype of a complex array is the mean of the real parts of the
    // elements that are not NaN (a NaN in either part leaves the element out).
    const std::vector<std::complex<float>> w = {{1.5f, 2.0f}, {nan, 1.0f}, {-2.5f, -1.0f}, {4.0f, nan}, {3.5f, 0.0f}};
    const Array cw = Array::from_host(queue(), std::span<const std::complex<float>>(w), {w.size()});
    EXPECT_EQ(nanmean(queue(), cw, {}, DType(Kind::float64)).get(queue()).to_vector<double>(),
              std::vector<double>{2.5 / 3});
    EXPECT_EQ(nanmean(queue(), cw, {}, DType(Kind::float32)).dtype(), DType(Kind::float32));
}

TEST_P(NanReductionsTest, MomentsOfComplexArraysInARealDtypeAsNumpys) {
    // numpy's var / std / nanvar / nanstd of a complex array with a real dtype=: the mean is the real
    // parts' (the sum cast to the real dtype), the squared deviations |x - mean|^2 = (re - mean)^2 +
    // im^2, summed over the elements that are not NaN (nan*; else a NaN makes the slice NaN) and
    // divided by count - ddof. Random complex64 rows with NaN scattered in, computed in float64,
    // against that formula in long double: within float64's rounding of the sums.
    const std::size_t rows = 6, n = 300;
    auto re = random_vector<float>(rows * n, -4.0f, 6.0f), im = random_vector<float>(rows * n, -3.0f, 1.0f);
    std::vector<std::complex<float>> z(rows * n);
    const auto flags = random_vector<int>(rows * n, 0, 19);
    for (std::size_t k = 0; k < z.size(); ++k) {
        z[k] = {re[k], im[k]};
        if (flags[k] == 0) z[k].real(std::numeric_limits<float>::quiet_NaN());
        if (flags[k] == 1) z[k].imag(std::numeric_limits<float>::quiet_NaN());
    }
    for (std::size_t c = 0; c < n; ++c) z[c] = {re[c], im[c]};  // row 0 without NaN
    const Array x = Array::from_host(queue(), std::span<const std::complex<float>>(z), {rows, n});
    const ReduceOptions along_rows{std::vector<int>{1}};
    for (const double ddof : {0.0, 1.0}) {
        const auto v = var(queue(), x, along_rows, ddof, DType(Kind::float64)).get(queue()).to_vector<double>();
        const auto s = std(queue(), x, along_rows, ddof, DType(Kind::float64)).get(queue()).to_vector<double>();
        const auto nv = nanvar(queue(), x, along_rows, ddof, DType(Kind::float64)).get(queue()).to_vector<double>();
        const auto ns = nanstd(queue(), x, along_rows, ddof, DType(Kind::float64)).get(queue()).to_vector<double>();
        for (std::size_t r = 0; r < rows; ++r) {
            long double total = 0, count = 0;
            for (std::size_t c = 0; c < n; ++c) {
                const auto e = z[r * n + c];
                if (std::isnan(e.real()) || std::isnan(e.imag())) continue;
                total += e.real();
                count += 1;
            }
            const long double mean = total / count;
            long double squares = 0, magnitude = 0;
            bool any_nan = false;
            for (std::size_t c = 0; c < n; ++c) {
                const auto e = z[r * n + c];
                if (std::isnan(e.real()) || std::isnan(e.imag())) {
                    any_nan = true;
                    continue;
                }
                squares += (e.real() - mean) * (e.real() - mean) + static_cast<long double>(e.imag()) * e.imag();
                magnitude +=
                    static_cast<long double>(e.real()) * e.real() + static_cast<long double>(e.imag()) * e.imag();
            }
            const long double want = squares / (count - ddof);
            const double bound = 4.0 * n * 0x1p-53 * static_cast<double>(magnitude / (count - ddof));
            SCOPED_TRACE(fmt::format("row {} ddof {}", r, ddof));
            EXPECT_NEAR(nv[r], static_cast<double>(want), bound);
            EXPECT_NEAR(ns[r], std::sqrt(static_cast<double>(want)), bound / std::sqrt(static_cast<double>(want)));
            if (any_nan) {
                EXPECT_TRUE(std::isnan(v[r]) && std::isnan(s[r])) << v[r] << " " << s[r];
            } else {
                EXPECT_NEAR(v[r], static_cast<double>(want), bound);
                EXPECT_NEAR(s[r], std::sqrt(static_cast<double>(want)), bound / std::sqrt(static_cast<double>(want)));
            }
        }
    }
}

TEST_P(NanReductionsTest, VarAndStdInAnIntegerDtypeTakeNumpysTruncatingSteps) {
    // numpy's var / std with an integer dtype=: the mean truncated into the dtype, the deviations
    // squared in the promoted dtype (int8 wraps), their sum in the dtype divided in float64 and
    // truncated. Values from numpy 2.4.
    const std::vector<std::int8_t> small = {100, 120, -128, 77, 5, 6, 7, 8};
    const Array x = Array::from_host(queue(), std::span<const std::int8_t>(small), {2, 4});
    const ReduceOptions rows{std::vector<int>{1}};
    const DType i8(Kind::int8), i32(Kind::int32);
    EXPECT_EQ(var(queue(), x, rows, 0, i8).get(queue()).to_vector<std::int8_t>(), (std::vector<std::int8_t>{5, 1}));
    EXPECT_EQ(var(queue(), x, {}, 0, i8).get(queue()).to_vector<std::int8_t>(), std::vector<std::int8_t>{11});
    const std::vector<float> f = {1.7f, 2.9f, -3.2f, 4.4f, 4.5f, 5.1f, 6.9f, -1.0f};
    const Array y = Array::from_host(queue(), std::span<const float>(f), {2, 4});
    EXPECT_EQ(var(queue(), y, rows, 0, DType(Kind::uint64)).get(queue()).to_vector<std::uint64_t>(),
              (std::vector<std::uint64_t>{7, 9}));
    EXPECT_EQ(std(queue(), y, {}, 0, i32).get(queue()).to_vector<std::int32_t>(), std::vector<std::int32_t>{3});
    // ddof at the count: x / 0 in float64, then numpy's x86 conversion of infinity and NaN.
    EXPECT_EQ(var(queue(), y, rows, 4, i32).get(queue()).to_vector<std::int32_t>(),
              (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(),
                                         std::numeric_limits<std::int32_t>::min()}));
    // numpy refuses: std of an array result in an integer dtype (its sqrt cannot write float64 into
    // it), booleans subtracted, an integer dtype of nanvar of a float array.
    EXPECT_THROW(std(queue(), y, rows, 0, i32), ArgumentError);
    const Array b =
        Array::from_host(queue(), std::span<const std::int8_t>(small), {2, 4}).astype(queue(), DType(Kind::bool_));
    EXPECT_THROW(var(queue(), b, rows, 0, DType(Kind::bool_)), ArgumentError);
    EXPECT_THROW(nanvar(queue(), y, rows, 0, i32), ArgumentError);
}

TEST_P(NanReductionsTest, IntegerAndBoolArraysAreThePlainReductions) {
    for (const DType& d : {DType(Kind::int16), DType(Kind::bool_), DType(Kind::uint32)}) {
        SCOPED_TRACE(d.name());
        const HostArray h = random_host(d, {5, 7, 6});
        const Array x = Array::from_host(queue(), h);
        const ReduceOptions o{std::vector<int>{1}};
        EXPECT_EQ(nansum(queue(), x, o).dtype(), sum(queue(), x, o).dtype());
        EXPECT_EQ(bytes_of(nansum(queue(), x, o).get(queue())), bytes_of(sum(queue(), x, o).get(queue())));
        EXPECT_EQ(bytes_of(nanargmax(queue(), x, o).get(queue())), bytes_of(argmax(queue(), x, o).get(queue())));
        // var of integers: float64, against the long double two-pass reference.
        const Array v = var(queue(), x, o, 1.0);
        ASSERT_EQ(v.dtype(), DType(Kind::float64));
        Checker(Op::var, h, std::vector<int>{1}, 1.0).check(v.get(queue()));
        ASSERT_EQ(nanmean(queue(), x, o).dtype(), DType(Kind::float64));
    }
}

TEST_P(NanReductionsTest, MomentsOptionsAndEdges) {
    // var far from zero (mean 1000, spread 1: E[x^2] - E[x]^2 would lose six digits of float32).
    HostArray h = random_host(Kind::float32, {3, 200});
    auto values = h.to_vector<float>();
    for (auto& v : values) v += 1000.0f;
    std::memcpy(h.data(), values.data(), values.size() * sizeof(float));
    const Array x = Array::from_host(queue(), h);
    Checker(Op::var, h, std::vector<int>{1}, 0).check(var(queue(), x, ReduceOptions{std::vector<int>{1}}).get(queue()));
    // dtype=float64 computes and returns float64; out= receives it (keepdims); -1 axes.
    const Array out = Array::empty(bound_device(), {3, 1}, Kind::float64);
    const Array r = kjarni::std(queue(), x, ReduceOptions{std::vector<int>{-1}, true, out}, 0.0, DType(Kind::float64));
    EXPECT_EQ(r.base().size(), out.base().size());
    Checker(Op::std, h, std::vector<int>{1}, 0).check(out.get(queue()));
    EXPECT_THROW(nanvar(queue(), x, {}, 0, DType(Kind::int32)), ArgumentError);  // numpy's TypeError
    EXPECT_THROW(var(queue(), x, ReduceOptions{std::vector<int>{1}, false, out}),
                 ArgumentError);  // out of the wrong dtype and shape
    // ddof past the count: numpy divides by max(n - ddof, 0): inf for a non-zero sum of squares.
    const auto big = var(queue(), x, ReduceOptions{std::vector<int>{1}}, 201).get(queue()).to_vector<float>();
    for (float v : big) EXPECT_TRUE(std::isinf(v)) << v;
    // nanvar there gives NaN, as numpy's (np.nanvar(x, axis=1, ddof=201) is nan, np.var's inf).
    const auto nan_big = nanvar(queue(), x, ReduceOptions{std::vector<int>{1}}, 201).get(queue()).to_vector<float>();
    for (float v : nan_big) EXPECT_TRUE(std::isnan(v)) << v;
    // Into a complex out= numpy writes that NaN by np.copyto: NaN + 0j from nanvar (a division by
    // NaN would give NaN + NaNj), and nanstd's square root of it NaN + NaNj (numpy 2.4).
    const Array complex_out = Array::empty(bound_device(), {3}, Kind::complex64);
    nanvar(queue(), x, ReduceOptions{std::vector<int>{1}, false, complex_out}, 201);
    for (const auto v : complex_out.get(queue()).to_vector<std::complex<float>>())
        EXPECT_TRUE(std::isnan(v.real()) && v.imag() == 0.0f) << v;
    nanstd(queue(), x, ReduceOptions{std::vector<int>{1}, false, complex_out}, 201);
    for (const auto v : complex_out.get(queue()).to_vector<std::complex<float>>())
        EXPECT_TRUE(std::isnan(v.real()) && std::isnan(v.imag())) << v;
    // nanmin of an empty axis: numpy's ValueError; nanargmin of a slice of NaN only: the same.
    const Array empty = Array::empty(bound_device(), {3, 0}, Kind::float32);
    EXPECT_THROW(nanmin(queue(), empty, ReduceOptions{std::vector<int>{1}}), ArgumentError);
    HostArray with_nan_row = random_host(Kind::float64, {4, 5});
    for (std::size_t j = 0; j < 5; ++j) put_nan(with_nan_row, 2 * 5 + j, true);
    const Array y = Array::from_host(queue(), with_nan_row);
    EXPECT_THROW(nanargmin(queue(), y, ReduceOptions{std::vector<int>{1}}), ArgumentError);
    EXPECT_NO_THROW(nanargmin(queue(), y, ReduceOptions{std::vector<int>{0}}));
    const auto mins = nanmin(queue(), y, ReduceOptions{std::vector<int>{1}}).get(queue()).to_vector<double>();
    EXPECT_TRUE(std::isnan(mins[2]));
    EXPECT_FALSE(std::isnan(mins[1]));
    const auto sums = nansum(queue(), y, ReduceOptions{std::vector<int>{1}}).get(queue()).to_vector<double>();
    EXPECT_EQ(sums[2], 0.0);
}

TEST_P(NanReductionsTest, MomentsOfSlicesHoldingAnInfinityOrNaNAreNaN) {
    // numpy's var subtracts the mean: a slice holding an infinity meets inf - inf (or NaN), so its
    // var and std are NaN, also of one element and with ddof; nanvar skips NaN but not infinities
    // (numpy 2.4.6: var([inf]), var([nan]), var([1, inf]), var([-inf, 1, 2, 3, 4]), var([inf+0j]),
    // nanvar([1, inf]), nanvar([inf]) are nan; nanvar([nan, 1]) 0, nanvar([nan, 1, 3]) 1).
    constexpr float inf = std::numeric_limits<float>::infinity();
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    const auto values_of = [&](const Array& r) { return r.get(queue()).to_vector<float>(); };
    const auto vector_of = [&](std::vector<float> v) {
        return Array::from_host(queue(), std::span<const float>(v), {v.size()});
    };
    for (const std::vector<float>& v : {std::vector<float>{inf}, std::vector<float>{nan}, std::vector<float>{1, inf},
                                        std::vector<float>{-inf, 1, 2, 3, 4}, std::vector<float>{inf, inf},
                                        std::vector<float>{2, -inf, 5, 1, 7, 3, 9, 4, 6, 8, 0, 5, 3}}) {
        SCOPED_TRACE(::testing::Message() << "[" << fmt::format("{}", fmt::join(v, ", ")) << "]");
        const Array x = vector_of(v);
        EXPECT_TRUE(std::isnan(values_of(var(queue(), x))[0]));
        EXPECT_TRUE(std::isnan(values_of(kjarni::std(queue(), x, {}, 1.0))[0]));
        if (std::none_of(v.begin(), v.end(), [](float e) { return std::isnan(e); })) {
            EXPECT_TRUE(std::isnan(values_of(nanvar(queue(), x))[0]));
            EXPECT_TRUE(std::isnan(values_of(nanstd(queue(), x))[0]));
        }
    }
    EXPECT_EQ(values_of(nanvar(queue(), vector_of({nan, 1})))[0], 0.0f);
    EXPECT_EQ(values_of(nanvar(queue(), vector_of({nan, 1, 3})))[0], 1.0f);
    // Along an axis only the rows holding one: the others keep their variance (numpy's var of
    // [[1, 2, 4], [1, inf, 3], [3, 3, 3]] along axis 1: 1.5555557, nan, 0), in every float dtype.
    for (const Kind kind : {Kind::float16, Kind::float32, Kind::float64}) {
        SCOPED_TRACE(DType(kind).name());
        const std::vector<float> rows{1, 2, 4, 1, inf, 3, 3, 3, 3};
        const Array x = vector_of(rows).reshape({3, 3}).astype(queue(), DType(kind));
        const auto r = var(queue(), x, ReduceOptions{std::vector<int>{1}}).astype(queue(), Kind::float32);
        const auto got = values_of(r);
        EXPECT_NEAR(got[0], 14.0f / 9.0f, 1e-3f);
        EXPECT_TRUE(std::isnan(got[1]));
        EXPECT_EQ(got[2], 0.0f);
    }
    // complex: an infinite part of either kind.
    for (const std::complex<float> bad : {std::complex<float>(inf, 0), std::complex<float>(2, inf)}) {
        const std::vector<std::complex<float>> v{{1, 0}, bad, {3, -1}};
        const Array x = Array::from_host(queue(), std::span<const std::complex<float>>(v), {v.size()});
        EXPECT_TRUE(std::isnan(values_of(var(queue(), x))[0])) << bad;
    }
}

TEST_P(NanReductionsTest, AnyAllTakeNaNAsTrueAndSignedZeroAsFalse) {
    for (const DType& d : {DType(Kind::float16), DType(Kind::float32), DType(Kind::complex64)}) {
        SCOPED_TRACE(d.name());
        HostArray h = random_host(d, {4, 6}, Values::sparse);
        // Row 0: NaN and zeros only; row 1: -0.0 and zeros only.
        for (std::size_t j = 0; j < 6; ++j) {
            std::memset(h.data() + j * d.itemsize(), 0, d.itemsize());
            std::memset(h.data() + (6 + j) * d.itemsize(), 0, d.itemsize());
        }
        put_nan(h, 3, false);
        const std::size_t sign_byte = d.kind() == Kind::complex64 ? 3 : d.itemsize() - 1;
        for (std::size_t j = 0; j < 6; j += 2) h.data()[(6 + j) * d.itemsize() + sign_byte] = std::byte{0x80};
        const Array x = Array::from_host(queue(), h);
        const auto anys = any(queue(), x, ReduceOptions{std::vector<int>{-1}}).get(queue()).to_vector<std::uint8_t>();
        const auto alls =
            all(queue(), x.transpose(), ReduceOptions{std::vector<int>{0}}).get(queue()).to_vector<std::uint8_t>();
        for (std::size_t i = 0; i < 4; ++i) {
            bool some = false, every = true;
            for (std::size_t j = 0; j < 6; ++j) {
                const Complex v = value_at(h, i * 6 + j);
                const bool t = is_nan(v) || v != Complex(0);
                some = some || t;
                every = every && t;
            }
            EXPECT_EQ(anys[i] != 0, some) << i;
            EXPECT_EQ(alls[i] != 0, every) << i;
        }
        EXPECT_EQ(anys[0], 1);
        EXPECT_EQ(anys[1], 0);
    }
    // cumsum of bool counts in int64, as numpy's.
    HostArray b = random_host(Kind::bool_, {3, 50});
    const Array c = cumsum(queue(), Array::from_host(queue(), b), 1);
    ASSERT_EQ(c.dtype(), DType(Kind::int64));
    const auto got = c.get(queue()).to_vector<std::int64_t>();
    for (std::size_t i = 0; i < 3; ++i) {
        std::int64_t running = 0;
        for (std::size_t j = 0; j < 50; ++j) {
            running += static_cast<std::int64_t>(int_at(b, i * 50 + j));
            ASSERT_EQ(got[i * 50 + j], running) << i << ", " << j;
        }
    }
}

}  // namespace
}  // namespace kjarni::test::nan_reductions
