// out= of numpy's reductions and scans in kjarni against numpy itself, over every pair of input and
// out dtypes (data/numpy_reduction_out.txt, written by numpy with data/make_numpy_reduction_out.py):
// kjarni takes the outs numpy takes (any dtype, cast into unsafely; argmin and argmax: bool and the
// integers that convert to int64 safely) and refuses the others with an ArgumentError naming out,
// and writes numpy's values there: integers and bool exactly, floats within a few roundings of
// out's dtype (the order of additions may differ; the inputs keep every partial sum and product
// exact, and the float -> integer conversions away from integer steps, so that integers agree).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

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
    throw std::invalid_argument("no function " + fn);
}

// numpy's float (float.hex) next to kjarni's: equal, both NaN, or within a few roundings of `d`.
bool close(long double got, const std::string& want_text, const DType& d) {
    const long double want = std::strtold(want_text.c_str(), nullptr);
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want) || want == 0) return got == want;
    const int digits = d.kind() == Kind::float16                                  ? 11
                       : d.kind() == Kind::float32 || d.kind() == Kind::complex64 ? 24
                                                                                  : 53;
    return std::fabs(got - want) <= std::ldexp(4.0L, -digits) * std::fabs(want);
}

// Every pair's acceptance is checked; the values of a random sample of the accepted pairs (each
// pair compiles its own kernels, 2156 of them took 330 s on PoCL with NVRTC's cross-check), all of
// them with KJARNI_REDUCTION_OUT_ALL=1.
TEST_P(ReductionOutTest, ReductionsAndScansCastIntoOutAsNumpy) {
    const bool all_pairs = std::getenv("KJARNI_REDUCTION_OUT_ALL") != nullptr;
    std::bernoulli_distribution sampled(all_pairs ? 1.0 : 64.0 / 1904);
    std::map<std::string, Array> inputs;  // "input int8", "products int8"
    std::size_t accepted = 0, refused = 0, valued = 0;
    for (const auto& row : numpy_table_rows("numpy_reduction_out.txt")) {
        if (row[0] == "input" || row[0] == "products") {
            inputs.insert_or_assign(row[0] + " " + row[1],
                                    Array::from_host(queue(), from_bits(dtype_named(row[1]), row)));
            continue;
        }
        const std::string& fn = row[0];
        const DType out_dtype = dtype_named(row[2]);
        SCOPED_TRACE(fmt::format("{}({}, out={})", fn, row[1], row[2]));
        const Array& x = inputs.at((fn.find("prod") != std::string::npos ? "products " : "input ") + row[1]);
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
        for (std::size_t k = 0; k < got.size(); ++k) {
            const std::string& want = row[4 + k];
            if (is_int_kind(out_dtype)) {
                const std::uint64_t expected =
                    want[0] == '-' ? static_cast<std::uint64_t>(std::stoll(want)) : std::stoull(want);
                EXPECT_EQ(int_at(got, k), expected) << "element " << k;
            } else if (is_complex(out_dtype)) {
                const auto comma = want.find(',');
                const Complex v = value_at(got, k);
                EXPECT_TRUE(close(v.real(), want.substr(0, comma), out_dtype) &&
                            close(v.imag(), want.substr(comma + 1), out_dtype))
                    << "element " << k << ": " << v.real() << "+" << v.imag() << "j, numpy " << want;
            } else {
                const long double v = value_at(got, k).real();
                EXPECT_TRUE(close(v, want, out_dtype)) << "element " << k << ": " << v << ", numpy " << want;
            }
        }
    }
    // 11 functions, 14 x 14 pairs; argmin and argmax refuse uint64, floats and complex.
    EXPECT_EQ(accepted + refused, 11u * 14 * 14);
    EXPECT_EQ(refused, 2u * 14 * 6);
    std::printf("reduction out=: %zu pairs taken, %zu refused as numpy, values of %zu checked\n", accepted, refused,
                valued);
}

}  // namespace
}  // namespace kjarni::test
