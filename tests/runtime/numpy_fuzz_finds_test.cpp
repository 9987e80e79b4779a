// Differences from numpy that long runs of the differential fuzzer (tests/numpy_fuzz/) found, each
// checked on fresh random data against numpy's rule (found with numpy 2.4 itself):
// - astype to bool inside an expression whose result is not bool: a uint8 value becomes 0 or 1
//   (bool and uint8 share their C type, and the conversion was taken for a no-op: assign(a,
//   astype(a, bool)) left a uint8 4 as 4, numpy's np.copyto gives 1).
// Every result is an integer or bool, compared exactly.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "algorithm_test_support.hpp"
#include "kjarni/expression.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class NumpyFuzzFindsTest : public DeviceTest {
protected:
    HostArray run(const Expr& e) { return evaluate(queue(), e).get(queue()).copy(); }
};
KJARNI_INSTANTIATE_DEVICE_TESTS(NumpyFuzzFindsTest);

constexpr Kind integer_kinds[] = {Kind::int8,  Kind::uint8,  Kind::int16, Kind::uint16,
                                  Kind::int32, Kind::uint32, Kind::int64, Kind::uint64};

// Random integers of every size, a quarter of them zero (so that both truth values occur).
HostArray random_ints(const DType& d, std::size_t count) {
    HostArray a(d, {count});
    auto& rng = random_engine();
    std::uniform_int_distribution<std::uint64_t> any;
    std::bernoulli_distribution zero(0.25);
    for (std::size_t k = 0; k < count; ++k) {
        const std::uint64_t v = zero(rng) ? 0 : any(rng) >> std::uniform_int_distribution<int>(0, 63)(rng);
        std::memcpy(a.data() + k * d.itemsize(), &v, d.itemsize());  // little-endian host
    }
    return a;
}

TEST_P(NumpyFuzzFindsTest, AstypeToBoolGivesZeroOrOneInsideAnyExpression) {
    constexpr std::size_t n = 257;
    for (const Kind kind : integer_kinds) {
        const DType d = kind;
        SCOPED_TRACE(d.name());
        const HostArray h = random_ints(d, n);
        const Array a = Array::from_host(queue(), h);
        // The truth values taken on as integers (numpy: x.astype(bool).astype(int64), and
        // x.astype(bool) * 3 promoted to int64 by the weak 3).
        const HostArray as_int = run(astype(astype(a, dtypes::bool_), dtypes::int64));
        const HostArray tripled = run(astype(a, dtypes::bool_) * Expr(std::int64_t{3}));
        ASSERT_EQ(tripled.dtype(), DType(Kind::int64));
        // np.copyto(a, a.astype(bool)): the bool converted back into a's dtype.
        const Array in_place = Array::from_host(queue(), h);
        assign(queue(), in_place, astype(in_place, dtypes::bool_));
        const HostArray assigned = in_place.get(queue()).copy();
        for (std::size_t k = 0; k < n; ++k) {
            const std::uint64_t truth = int_at(h, k) != 0 ? 1 : 0;
            ASSERT_EQ(int_at(as_int, k), truth) << "element " << k << ": " << int_at(h, k);
            ASSERT_EQ(int_at(tripled, k), 3 * truth) << "element " << k;
            ASSERT_EQ(int_at(assigned, k), truth) << "element " << k;
        }
    }
}

}  // namespace
}  // namespace kjarni::test
