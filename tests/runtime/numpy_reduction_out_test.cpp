// out= of numpy's reductions and scans in kjarni against numpy itself, over every pair of input and
// out dtypes (data/numpy_reduction_out.txt, written by numpy with data/make_numpy_reduction_out.py):
// kjarni takes the outs numpy takes (any dtype, cast into unsafely; argmin and argmax: bool and the
// integers that convert to int64 safely) and refuses the others with an ArgumentError naming out,
// and writes numpy's values there: integers and bool exactly, floats within a few roundings of
// out's dtype (the order of additions may differ; the inputs keep every partial sum and product
// exact, and the float -> integer conversions away from integer steps, so that integers agree);
// min and max where the first element compared is one out cannot hold (numpy casts it first).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "algorithm_test_support.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"
#include "support/numpy_tables.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class ReductionOutTest : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(ReductionOutTest);

DType dtype_named(const std::string& name) {
    for (const Kind k :
         {Kind::bool_, Kind::int8, Kind::uint8, Kind::int16, Kind::uint16, Kind::int32, Kind::uint32, Kind::int64,
          Kind::uint64, Kind::float16, Kind::float32, Kind::float64, Kind::complex64, Kind::complex128})
        if (DType(k).name() == name) return k;
    throw std::invalid_argument("no dtype " + name);
}

// An input row's elements (their bits in hex; complex: real:imag) as a host array.
HostArray from_bits(const DType& d, const std::vector<std::string>& row) {
    HostArray a(d, {row.size() - 2});
    const std::size_t part = is_complex(d) ? d.itemsize() / 2 : d.itemsize();
    for (std::size_t k = 2; k < row.size(); ++k) {
        const std::string& w = row[k];
        const auto colon = w.find(':');
        const std::uint64_t first = std::stoull(w.substr(0, colon), nullptr, 16);
        std::memcpy(a.data() + (k - 2) * d.itemsize(), &first, part);  // little-endian host
        if (colon != std::string::npos) {
            const std::uint64_t second = std::stoull(w.substr(colon + 1), nullptr, 16);
            std::memcpy(a.data() + (k - 2) * d.itemsize() + part, &second, part);
        }
    }
    return a;
}

Array run(const std::string& fn, const Queue& q, const Array& x, const Array& out) {
    const ReduceOptions into{std::nullopt, false, out};
    if (fn == "sum") return sum(q, x, into);
    if (fn == "prod") return prod(q, x, into);
    if (fn == "mean") return mean(q, x, into);
    if (fn == "min") return min(q, x, into);
    if (fn == "max") return max(q, x, into);
    if (fn == "argmin") return argmin(q, x, into);
    if (fn == "argmax") return argmax(q, x, into);
    if (fn == "any") return any(q, x, into);
    if (fn == "all") return all(q, x, into);
    if (fn == "cumsum") return cumsum(q, x, std::nullopt, std::nullopt, out);
    if (fn == "cumprod") return cumprod(q, x, std::nullopt, std::nullopt, out);
    if (fn == "nansum") return nansum(q, x, into);
    if (fn == "nanprod") return nanprod(q, x, into);
    if (fn == "nanmin") return nanmin(q, x, into);
    if (fn == "nanmax") return nanmax(q, x, into);
    if (fn == "nanargmin") return nanargmin(q, x, into);
    if (fn == "nanargmax") return nanargmax(q, x, into);
    if (fn == "nanmean") return nanmean(q, x, into);
    if (fn == "var") return var(q, x, into);
    if (fn == "std") return std(q, x, into);
    if (fn == "nanvar") return nanvar(q, x, into);
    if (fn == "nanstd") return nanstd(q, x, into);
    throw std::invalid_argument("no function " + fn);
}

// The input row numpy reduced for `fn`.
std::string input_of(const std::string& fn) {
    if (fn == "nanprod") return "nanproducts";
    if (fn.rfind("nan", 0) == 0) return "nans";
    return fn.find("prod") != std::string::npos ? "products" : "input";
}

// The bits of `d`'s values: its significand's for floats, 64 for integers and bool (exact).
int digits_of(const DType& d) {
    if (is_int_kind(d)) return 64;
    if (d.kind() == Kind::float16) return 11;
    if (d.kind() == Kind::float32 || d.kind() == Kind::complex64) return 24;
    return 53;
}

// numpy's float (float.hex) next to kjarni's: equal, both NaN, or within a few roundings of
// `digits` bits (out's precision, or the computation's where that is coarser).
bool close(long double got, const std::string& want_text, int digits) {
    const long double want = std::strtold(want_text.c_str(), nullptr);
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want) || want == 0) return got == want;
    return std::fabs(got - want) <= std::ldexp(4.0L, -digits) * std::fabs(want);
}

// The moments (var, std, nanvar, nanstd, nanmean) compute in the array's float type (float64 for
// integers): numpy's value carries that type's roundings (float32 deviations summed into a float64
// out), and float16's are numpy's own (it computes deviations in float16, kjarni in float32), so
// that an integer out of a float16 array's variance is not compared.
bool is_moment(const std::string& fn) {
    return fn == "var" || fn == "std" || fn == "nanvar" || fn == "nanstd" || fn == "nanmean";
}

// Element k of `got` (of out's dtype) against numpy's text for it: integers and bool exactly,
// floats and complex within a few roundings of `digits` bits (close; out's precision when 0), and
// integers within those of a float computation of `digits` bits where that is below 64.
void expect_element(const HostArray& got, std::size_t k, const std::string& want, int digits = 0) {
    const DType& d = got.dtype();
    if (digits == 0) digits = digits_of(d);
    if (is_int_kind(d) && digits < 64) {
        // An integer out of a float computation (the moments): its roundings show past 2^digits.
        const long double expected = std::strtold(want.c_str(), nullptr);
        const bool is_signed =
            d.kind() == Kind::int8 || d.kind() == Kind::int16 || d.kind() == Kind::int32 || d.kind() == Kind::int64;
        const long double value = is_signed ? static_cast<long double>(static_cast<std::int64_t>(int_at(got, k)))
                                            : static_cast<long double>(int_at(got, k));
        EXPECT_LE(std::fabs(value - expected), std::ldexp(4.0L, -digits) * std::fabs(expected) + 1)
            << "element " << k << ": " << value << ", numpy " << want;
    } else if (is_int_kind(d)) {
        const std::uint64_t expected =
            want[0] == '-' ? static_cast<std::uint64_t>(std::stoll(want)) : std::stoull(want);
        EXPECT_EQ(int_at(got, k), expected) << "element " << k;
    } else if (is_complex(d)) {
        const auto comma = want.find(',');
        const Complex v = value_at(got, k);
        EXPECT_TRUE(close(v.real(), want.substr(0, comma), digits) && close(v.imag(), want.substr(comma + 1), digits))
            << "element " << k << ": " << v.real() << "+" << v.imag() << "j, numpy " << want;
    } else {
        const long double v = value_at(got, k).real();
        EXPECT_TRUE(close(v, want, digits)) << "element " << k << ": " << v << ", numpy " << want;
    }
}

bool is_first_element_row(const std::string& kind) {
    return kind == "firsts" || kind == "first" || kind == "grid" || kind == "view";
}

// Every pair's acceptance is checked; the values of a random sample of the accepted pairs (each
// pair compiles its own kernels, 2156 of them took 330 s on PoCL with NVRTC's cross-check), all of
// them with KJARNI_REDUCTION_OUT_ALL=1.
TEST_P(ReductionOutTest, ReductionsAndScansCastIntoOutAsNumpy) {
    const bool all_pairs = std::getenv("KJARNI_REDUCTION_OUT_ALL") != nullptr;
    std::bernoulli_distribution sampled(all_pairs ? 1.0 : 72.0 / 3634);
    std::map<std::string, Array> inputs;  // "input int8", "products int8", "nans int8", "nanproducts int8"
    std::size_t accepted = 0, refused = 0, valued = 0;
    for (const auto& row : numpy_table_rows("numpy_reduction_out.txt")) {
        if (is_first_element_row(row[0])) continue;  // MinAndMaxCompareTheFirstElementCastIntoOut
        if (row[0] == "input" || row[0] == "products" || row[0] == "nans" || row[0] == "nanproducts") {
            inputs.insert_or_assign(row[0] + " " + row[1],
                                    Array::from_host(queue(), from_bits(dtype_named(row[1]), row)));
            continue;
        }
        const std::string& fn = row[0];
        const DType out_dtype = dtype_named(row[2]);
        SCOPED_TRACE(fmt::format("{}({}, out={})", fn, row[1], row[2]));
        const Array& x = inputs.at(input_of(fn) + " " + row[1]);
        const bool scan = fn.rfind("cum", 0) == 0;
        const Array out =
            Array::zeros(queue(), scan ? std::vector<std::size_t>{x.size()} : std::vector<std::size_t>{}, out_dtype);
        if (row[3] == "0") {
            EXPECT_THROW(run(fn, queue(), x, out), ArgumentError);
            ++refused;
            continue;
        }
        ++accepted;
        if (!sampled(random_engine())) continue;
        ++valued;
        const Array result = run(fn, queue(), x, out);
        ASSERT_EQ(result.dtype(), out_dtype);
        const HostArray got = out.get(queue()).copy();
        ASSERT_EQ(got.size(), row.size() - 4);
        int digits = digits_of(out_dtype);
        if (is_moment(fn)) {
            const DType computed = x.dtype().kind() == Kind::float16 ? DType(Kind::float16)
                                   : is_int_kind(x.dtype())          ? DType(Kind::float64)
                                                                     : x.dtype();
            if (computed.kind() == Kind::float16 && is_int_kind(out_dtype)) continue;
            digits = std::min(digits, digits_of(computed));
        }
        for (std::size_t k = 0; k < got.size(); ++k) expect_element(got, k, row[4 + k], digits);
    }
    // 22 functions, 14 x 14 pairs. Refused as numpy: by argmin, argmax, nanargmin and nanargmax
    // uint64, floats and complex (4 x 14 x 6); by std and nanstd bool and the integers (2 x 14 x 9);
    // by nanmean and nanvar of float and complex arrays the same (2 x 5 x 9).
    EXPECT_EQ(accepted + refused, 22u * 14 * 14);
    EXPECT_EQ(refused, 4u * 14 * 6 + 2u * 14 * 9 + 2u * 5 * 9);
    std::printf("reduction out=: %zu pairs taken, %zu refused as numpy, values of %zu checked\n", accepted, refused,
                valued);
}

// min, max, nanmin and nanmax have no identity: numpy casts each output's first element (index 0 along the reduced
// axes) into out and compares the others with that value in its loop's dtype, so a first element
// out cannot hold changes the result (max of int16 [300, 100] into int8 is 100, not 300 cast, 44).
// A third of numpy's table's pairs where its value is not the extremum cast (all of them with
// KJARNI_REDUCTION_OUT_ALL=1), and the first element of views (reversed, transposed) along each set
// of axes, with keepdims.
TEST_P(ReductionOutTest, MinAndMaxCompareTheFirstElementCastIntoOutAsNumpy) {
    const bool all_pairs = std::getenv("KJARNI_REDUCTION_OUT_ALL") != nullptr;
    std::map<std::string, Array> firsts;  // "K DTYPE"
    std::optional<Array> grid;
    std::size_t first_rows = 0, pairs = 0, views = 0;
    for (const auto& row : numpy_table_rows("numpy_reduction_out.txt")) {
        if (row[0] == "firsts") {
            const std::vector<std::string> bits(row.begin() + 1, row.end());  // from_bits skips two words
            firsts.insert_or_assign(row[1] + " " + row[2],
                                    Array::from_host(queue(), from_bits(dtype_named(row[2]), bits)));
        } else if (row[0] == "first") {
            if (++first_rows % 3 != 0 && !all_pairs) continue;  // every third: their kernels are many
            SCOPED_TRACE(fmt::format("{} of firsts {} ({}) into {}", row[2], row[1], row[3], row[4]));
            const Array out = Array::zeros(queue(), {}, dtype_named(row[4]));
            run(row[2], queue(), firsts.at(row[1] + " " + row[3]), out);
            expect_element(out.get(queue()).copy(), 0, row[5]);
            ++pairs;
        } else if (row[0] == "grid") {
            grid = Array::from_host(queue(), from_bits(dtype_named(row[1]), row).reshape({3, 4}));
        } else if (row[0] == "view") {
            SCOPED_TRACE(fmt::format("{} of the {} grid over axes {}, keepdims {}", row[2], row[1], row[3], row[4]));
            Array x = *grid;
            if (row[1] == "reversed")
                x = x.slice(
                    std::vector<Slice>{Slice{std::nullopt, std::nullopt, -1}, Slice{std::nullopt, std::nullopt, -1}});
            else if (row[1] == "transposed") x = x.transpose();
            ReduceOptions options;
            if (row[3] != "all") {
                options.axes.emplace();
                for (const char c : row[3])
                    if (c != ',') options.axes->push_back(c - '0');
            }
            options.keepdims = row[4] == "1";
            const std::size_t count = row.size() - 6;
            std::vector<std::size_t> shape;  // the result's, from the view's shape and the axes
            for (std::size_t axis = 0; axis < x.ndim(); ++axis) {
                const bool reduced = !options.axes || std::find(options.axes->begin(), options.axes->end(),
                                                                static_cast<int>(axis)) != options.axes->end();
                if (!reduced) shape.push_back(x.shape()[axis]);
                else if (options.keepdims) shape.push_back(1);
            }
            options.out = Array::zeros(queue(), shape, dtype_named(row[5]));
            ASSERT_EQ(options.out->size(), count);
            (void)(row[2] == "max" ? max(queue(), x, options) : min(queue(), x, options));
            const HostArray got = options.out->get(queue()).copy();
            for (std::size_t k = 0; k < count; ++k) expect_element(got, k, row[6 + k]);
            ++views;
        }
    }
    EXPECT_GT(pairs, all_pairs ? 290u : 90u);
    EXPECT_EQ(views, 48u);
    std::printf("min and max into out: %zu pairs whose first element out cannot hold, %zu views\n", pairs, views);
}

}  // namespace
}  // namespace kjarni::test
