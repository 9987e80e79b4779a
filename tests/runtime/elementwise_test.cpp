// ElementwiseKernel against CPU references on fresh random data: every layout class of its
// arrays, `i` as the C-order index, types from the call, half and bool arrays, Modules in the
// preamble, MultiArrays part by part, and the errors. a * x + b in float32 rounds twice (or once,
// contracted to fma): |err| <= 2 eps (|a x| + |b|).

#include <gtest/gtest.h>

#include <cmath>

#include "kjarni/elementwise.hpp"
#include "kjarni/functions.hpp"
#include "support/algorithm_data.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;

class ElementwiseTest : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(ElementwiseTest);

const ElementwiseKernel& axpb() {
    static const ElementwiseKernel kernel = [] {
        ElementwiseOptions options;
        options.name = "axpb";
        return ElementwiseKernel("float *y, const float *x, float a, const float *b", "y[i] = a * x[i] + b[i]", options);
    }();
    return kernel;
}

void check_axpb(const HostArray& y, const HostArray& x, float a, const HostArray& b) {
    const std::vector<std::size_t>& shape = y.shape();
    const HostArray yc = y.copy();
    for (std::size_t k = 0; k < yc.size(); ++k) {
        const double xv = broadcast_element(x, shape, k).c.real();
        const double bv = broadcast_element(b, shape, k).c.real();
        const double expected = a * xv + bv;
        const double got = detail::ScalarValue::read(std::span<const std::byte>(yc.data() + 4 * k, 4), float32).c.real();
        ASSERT_NEAR(got, expected, 2 * 0x1p-23 * (std::fabs(a * xv) + std::fabs(bv)) + 1e-30) << "element " << k;
    }
}

TEST_P(ElementwiseTest, AxpbOverEveryLayout) {
    for (const char* kind : {"contiguous", "stepped", "negative", "transposed", "offset"}) {
        SCOPED_TRACE(kind);
        const ViewCase x = random_view(queue(), float32, kind, 9, 33);
        const ViewCase b = random_view(queue(), float32, kind, 9, 33);
        const Array y = Array::empty(bound_device(), {9, 33}, float32);
        axpb()(queue(), y, x.device, 1.5f, b.device);
        check_axpb(y.get(queue()), x.host, 1.5f, b.host);
        // The output may be a view too.
        const ViewCase out = random_view(queue(), float32, kind, 9, 33);
        axpb()(queue(), out.device, x.device, -0.5f, b.device);
        check_axpb(out.device.get(queue()), x.host, -0.5f, b.host);
    }
    // Broadcast: x a row, b a column, a 0-d array; and an empty shape launches nothing.
    const HostArray row = random_host_array(float32, {33});
    const HostArray column = random_host_array(float32, {9, 1});
    const Array y = Array::empty(bound_device(), {9, 33}, float32);
    axpb()(queue(), y, Array::from_host(queue(), row), 2.0f, Array::from_host(queue(), column));
    check_axpb(y.get(queue()), row, 2.0f, column);
    const HostArray one = random_host_array(float32, {});
    const Array y0 = Array::empty(bound_device(), {}, float32);
    axpb()(queue(), y0, Array::from_host(queue(), one), 3.0f, Array::from_host(queue(), one));
    check_axpb(y0.get(queue()), one, 3.0f, one);
    const Array empty = Array::empty(bound_device(), {0, 3}, float32);
    axpb()(queue(), empty, empty, 1.0f, empty);
}

TEST_P(ElementwiseTest, IndexIsTheCOrderPositionAndTypesComeFromTheCall) {
    const ElementwiseKernel iota = ElementwiseKernel::from_names({"y", "scale"}, "y[i] = i * scale");
    const Array y32 = Array::empty(bound_device(), {3, 4}, int32);
    iota(queue(), y32[{Slice{}, Slice{}}], std::int32_t{2});
    const auto got = y32.get(queue()).to_vector<std::int32_t>();
    for (std::size_t k = 0; k < 12; ++k) EXPECT_EQ(got[k], 2 * static_cast<std::int32_t>(k));
    // A transposed output: i still counts in the output's own C order.
    const Array base = Array::empty(bound_device(), {4, 3}, float64);
    iota(queue(), base.transpose(), 0.5);
    const HostArray t = base.transpose().get(queue());
    const auto values = t.to_vector<double>();
    for (std::size_t k = 0; k < 12; ++k) EXPECT_EQ(values[k], 0.5 * static_cast<double>(k));
}

TEST_P(ElementwiseTest, HalfAndBoolArrays) {
    const ElementwiseKernel half_kernel("half *y, const half *x, const bool *m, float a",
                                        "STORE_HALF(y, i, m[i] ? a * LOAD_HALF(x, i) : -1.0f)");
    const HostArray x = random_host_array(float16, {101}, 4.0);
    const HostArray m = random_host_array(bool_, {101});
    const Array y = Array::empty(bound_device(), {101}, float16);
    half_kernel(queue(), y, Array::from_host(queue(), x), Array::from_host(queue(), m), 0.25f);
    const HostArray got = y.get(queue());
    for (std::size_t k = 0; k < 101; ++k) {
        const double xv = broadcast_element(x, {101}, k).c.real();
        const bool mv = broadcast_element(m, {101}, k).u != 0;
        const double expected = mv ? 0.25 * xv : -1.0;  // exact in half: a power-of-two scale
        EXPECT_EQ(broadcast_element(got, {101}, k).c.real(), expected) << k;
    }
}

TEST_P(ElementwiseTest, PreambleModulesAndLoopHooks) {
    ElementwiseOptions options;
    options.name = "complex_product";
    options.globals = {{"mul", functions::mul({complex64, complex64})}};
    options.preamble = "#define SCALE 2.0f\n";
    const ElementwiseKernel product("complex64_t *y, const complex64_t *a, const complex64_t *b",
                                    "y[i] = ${mul}(a[i], b[i]); y[i].x *= SCALE", options);
    const HostArray a = random_host_array(complex64, {77}, 2.0);
    const HostArray b = random_host_array(complex64, {77}, 2.0);
    const Array y = Array::empty(bound_device(), {77}, complex64);
    product(queue(), y, Array::from_host(queue(), a), Array::from_host(queue(), b));
    const HostArray got = y.get(queue());
    for (std::size_t k = 0; k < 77; ++k) {
        auto expected = broadcast_element(a, {77}, k).c * broadcast_element(b, {77}, k).c;
        expected = {2.0 * expected.real(), expected.imag()};
        EXPECT_LE(std::abs(broadcast_element(got, {77}, k).c - expected), 8 * 0x1p-23 * (1 + std::abs(expected))) << k;
    }
}

TEST_P(ElementwiseTest, ErrorsNameTheCulprit) {
    const Array y = Array::empty(bound_device(), {4, 5}, float32);
    const Array x = Array::empty(bound_device(), {4, 5}, float32);
    const Array wrong = Array::empty(bound_device(), {4, 5}, float64);
    const Array narrow = Array::empty(bound_device(), {5}, float32);
    EXPECT_THROW(axpb()(queue(), y, wrong, 1.0f, x), ArgumentError);          // dtype
    EXPECT_THROW(axpb()(queue(), y, 1.0f, 1.0f, x), ArgumentError);           // scalar for an array
    EXPECT_THROW(axpb()(queue(), y, x, x, x), ArgumentError);                 // array for a scalar
    EXPECT_THROW(axpb()(queue(), narrow, x, 1.0f, x), ArgumentError);         // broadcast output
    EXPECT_THROW(axpb()(queue(), y, Array::empty(bound_device(), {3}, float32), 1.0f, x), ArgumentError);
    const Array whole = Array::empty(bound_device(), {12}, float32);
    EXPECT_THROW(axpb()(queue(), whole[{Slice{0, 10}}], whole[{Slice{2, 12}}], 1.0f, whole[{Slice{2, 12}}]),
                 ArgumentError);                                              // partial overlap
    EXPECT_THROW(ElementwiseKernel("float *y, flot *x", "y[i] = x[i]"), ArgumentError);
    EXPECT_THROW(ElementwiseKernel("float *y, float *y", "y[i] = 0"), ArgumentError);
    try {
        axpb()(queue(), y, x);
        FAIL();
    } catch (const ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("takes 4 arguments"), std::string::npos) << e.what();
    }
}

TEST(ElementwiseMultiDevice, MultiArraysPartByPart) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "needs two devices of one platform";
    const BoundMultiDevice devices = context->devices();
    const MultiQueue queue = MultiQueue::on_devices(devices);
    const HostArray x = random_host_array(float32, {64, 8});
    const HostArray b = random_host_array(float32, {64, 8});
    const MultiArray dx = MultiArray::from_host(queue, x);
    const MultiArray db = MultiArray::from_host(queue, b);
    const MultiArray y = MultiArray::empty(devices, {64, 8}, float32);
    const std::vector<MultiOperand> args{y, dx, 0.75f, db};
    axpb()(queue, args);
    check_axpb(y.get(queue), x, 0.75f, b);
}

}  // namespace
}  // namespace kjarni::test
