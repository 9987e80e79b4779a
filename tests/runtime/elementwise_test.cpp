// ElementwiseKernel against CPU references on fresh random data: every layout class of its
// arrays, `i` as the C-order index, types from the call, half and bool arrays, Modules in the
// preamble, MultiArrays part by part, and the errors. a * x + b in float32 rounds twice (or once,
// contracted to fma): |err| <= 2 eps (|a x| + |b|).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

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
        return ElementwiseKernel("float *y, const float *x, float a, const float *b", "y[i] = a * x[i] + b[i]",
                                 options);
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
        const double got =
            detail::ScalarValue::read(std::span<const std::byte>(yc.data() + 4 * k, 4), float32).c.real();
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

TEST_P(ElementwiseTest, DefsOfThePreambleServeTheOperation) {
    // The parts render separately (elementwise_kernel.cpp), as one template: a <%def> of the
    // preamble is called from the operation, a <%! %> name of the loop hook is used there too.
    ElementwiseOptions options;
    options.preamble = "<%def name=\"twice(v)\">(2 * ${v})</%def>#define KJ_TEST_ONE 1\n";
    options.loop_prep = "<%! offset = 3 %>";
    const ElementwiseKernel k("int *y, const int *x", "y[i] = ${twice('x[i]')} + ${offset} * KJ_TEST_ONE", options);
    const std::vector<std::int32_t> x{1, -2, 30, 7, 0};
    const Array y = Array::empty(bound_device(), {5}, int32);
    k(queue(), y, Array::from_host(queue(), HostArray::from(x)));
    const HostArray got = y.get(queue());
    // Exact: small integers.
    for (std::size_t j = 0; j < x.size(); ++j) EXPECT_EQ(broadcast_element(got, {5}, j).i, 2 * x[j] + 3) << j;
}

TEST_P(ElementwiseTest, ErrorsNameTheCulprit) {
    const Array y = Array::empty(bound_device(), {4, 5}, float32);
    const Array x = Array::empty(bound_device(), {4, 5}, float32);
    const Array wrong = Array::empty(bound_device(), {4, 5}, float64);
    const Array narrow = Array::empty(bound_device(), {5}, float32);
    EXPECT_THROW(axpb()(queue(), y, wrong, 1.0f, x), ArgumentError);   // dtype
    EXPECT_THROW(axpb()(queue(), y, 1.0f, 1.0f, x), ArgumentError);    // scalar for an array
    EXPECT_THROW(axpb()(queue(), y, x, x, x), ArgumentError);          // array for a scalar
    EXPECT_THROW(axpb()(queue(), narrow, x, 1.0f, x), ArgumentError);  // broadcast output
    EXPECT_THROW(axpb()(queue(), y, Array::empty(bound_device(), {3}, float32), 1.0f, x), ArgumentError);
    const Array whole = Array::empty(bound_device(), {12}, float32);
    EXPECT_THROW(axpb()(queue(), whole[{Slice{0, 10}}], whole[{Slice{2, 12}}], 1.0f, whole[{Slice{2, 12}}]),
                 ArgumentError);  // partial overlap
    EXPECT_THROW(ElementwiseKernel("float *y, flot *x", "y[i] = x[i]"), ArgumentError);
    EXPECT_THROW(ElementwiseKernel("float *y, float *y", "y[i] = 0"), ArgumentError);
    try {
        axpb()(queue(), y, x);
        FAIL();
    } catch (const ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("takes 4 arguments"), std::string::npos) << e.what();
    }
}

/// The element k of a C-contiguous host array as a long double (real part).
long double at(const HostArray& a, std::size_t k) { return broadcast_element(a, a.shape(), k).c.real(); }

/// Random values small enough that x + 2 z fits every dtype (integers in [-20, 20], unsigned [0, 40]).
HostArray small_values(const DType& d, std::size_t n) {
    if (!is_integer(d)) return random_host_array(d, {n}, 20.0);
    HostArray out(d, {n});
    std::uniform_int_distribution<std::int64_t> values(is_signed(d) ? -20 : 0, is_signed(d) ? 20 : 40);
    for (std::size_t k = 0; k < n; ++k) {
        detail::ScalarValue v;
        v.kind = detail::ScalarValue::Kind::signed_integer;
        v.i = values(random_engine());
        const auto bytes = v.write(d);
        std::memcpy(out.data() + k * d.itemsize(), bytes.data(), d.itemsize());
    }
    return out;
}

TEST_P(ElementwiseTest, VectorLoadsKeepTheScalarLoopsResults) {
    // Contiguous aligned arrays of every width take 16-byte vectors (the lengths leave leftovers
    // for the scalar tail); offset views do not (misaligned); a broadcast element is read alone.
    const ElementwiseKernel add = ElementwiseKernel::from_names({"y", "x", "z"}, "y[i] = x[i] + z[i] * 2");
    for (const DType& d : {DType(int8), DType(uint16), DType(int64), DType(float32)})
        for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{1003}}) {
            SCOPED_TRACE(::testing::Message() << d.name() << " n " << n);
            const HostArray x = small_values(d, n + 1);
            const HostArray z = small_values(d, n + 1);
            const Array dx = Array::from_host(queue(), x), dz = Array::from_host(queue(), z);
            const Array y = Array::empty(bound_device(), {n + 1}, d);
            for (const std::ptrdiff_t first : {0, 1}) {
                const Array yv = y[{Slice{first, first + static_cast<std::ptrdiff_t>(n)}}];
                add(queue(), yv, dx[{Slice{first, first + static_cast<std::ptrdiff_t>(n)}}],
                    dz[{Slice{first, first + static_cast<std::ptrdiff_t>(n)}}]);
                const HostArray got = yv.copy(queue()).get(queue());
                for (std::size_t k = 0; k < n; ++k) {
                    const auto j = k + static_cast<std::size_t>(first);
                    if (d.kind() == DType::Kind::float32) {
                        const float e = static_cast<float>(at(x, j)) + static_cast<float>(at(z, j)) * 2.0f;
                        ASSERT_EQ(static_cast<float>(at(got, k)), e) << "element " << k;
                    } else if (d.kind() == DType::Kind::float64) {
                        const double e = static_cast<double>(at(x, j)) + static_cast<double>(at(z, j)) * 2.0;
                        ASSERT_EQ(static_cast<double>(at(got, k)), e) << "element " << k;
                    } else {
                        // Integers: exact (no value leaves the dtype's range).
                        const auto e = static_cast<long long>(at(x, j)) + static_cast<long long>(at(z, j)) * 2;
                        ASSERT_EQ(static_cast<long long>(at(got, k)), e) << "element " << k;
                    }
                }
            }
        }
}

TEST_P(ElementwiseTest, VectorLoadsOnlyWhereTheAddressAllows) {
    // CUDA memory of another library may start at any address: an input 4 bytes and an output 8
    // bytes into their allocations (16-byte loads there fault), and an aligned one beside them.
    if (context().api().id() != ApiId::cuda()) GTEST_SKIP() << "OpenCL buffers start aligned";
    const ElementwiseKernel twice = ElementwiseKernel::from_names({"y", "x"}, "y[i] = 2 * x[i]");
    const std::size_t n = 1003;
    const HostArray x = random_host_array(float32, {n});
    for (const auto& [x_skip, y_skip] : {std::pair<std::size_t, std::size_t>{4, 0}, {0, 8}, {16, 0}}) {
        SCOPED_TRACE(::testing::Message() << "x " << x_skip << " bytes in, y " << y_skip);
        const Array dx = foreign_array_at(bound_device(), float32, n, x_skip);
        const Array dy = foreign_array_at(bound_device(), float32, n, y_skip);
        dx.set(queue(), x);
        twice(queue(), dy, dx);
        const HostArray got = dy.get(queue());
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(got.at<float>({k}), 2 * x.at<float>({k})) << "element " << k;
    }
}

TEST_P(ElementwiseTest, VectorLoadsReadWhatTheOperationMayKeep) {
    const std::size_t n = 515;
    const HostArray x = random_host_array(float32, {n}, 10.0);
    const HostArray y0 = random_host_array(float32, {n}, 10.0);
    const Array dx = Array::from_host(queue(), x);
    const auto run = [&](const ElementwiseKernel& k, const auto&... scalars) {
        const Array y = Array::from_host(queue(), y0);
        k(queue(), y, dx, scalars...);
        return y.get(queue());
    };
    // Updated in place, written under a condition, `i` as a value, a broadcast element.
    const HostArray updated = run(ElementwiseKernel("float *y, const float *x", "y[i] += x[i]"));
    const HostArray kept = run(ElementwiseKernel("float *y, const float *x", "if (x[i] > 0) y[i] = x[i]"));
    const HostArray chosen =
        run(ElementwiseKernel("float *y, const float *x", "y[i] = x[i] > 0 && i % 2 ? x[i] : y[i]"));
    const HostArray indexed =
        run(ElementwiseKernel("float *y, const float *x, float a", "y[i] = a * x[i] + (float)i"), 0.5f);
    // A function-like macro of the preamble may write its argument: no vectors, same result.
    ElementwiseOptions options;
    options.preamble = "#define KJ_TEST_SET(a, v) ((a) = (v))\n";
    const HostArray through_macro =
        run(ElementwiseKernel("float *y, const float *x", "if (x[i] < 0) KJ_TEST_SET(y[i], x[i])", options));
    for (std::size_t k = 0; k < n; ++k) {
        const float xv = static_cast<float>(at(x, k)), yv = static_cast<float>(at(y0, k));
        ASSERT_EQ(static_cast<float>(at(updated, k)), yv + xv) << k;
        ASSERT_EQ(static_cast<float>(at(kept, k)), xv > 0 ? xv : yv) << k;
        ASSERT_EQ(static_cast<float>(at(chosen, k)), xv > 0 && k % 2 ? xv : yv) << k;
        ASSERT_EQ(static_cast<float>(at(indexed, k)), 0.5f * xv + static_cast<float>(k)) << k;
        ASSERT_EQ(static_cast<float>(at(through_macro, k)), xv < 0 ? xv : yv) << k;
    }
    // A member written: the element is read first (only its imaginary part changes).
    const HostArray c = random_host_array(complex64, {n}, 2.0);
    const Array dc = Array::from_host(queue(), c);
    const Array out = Array::from_host(queue(), c);
    ElementwiseKernel("complex64_t *y, const complex64_t *x", "y[i].y = x[i].x")(queue(), out, dc);
    const HostArray got = out.get(queue());
    for (std::size_t k = 0; k < n; ++k) {
        const auto e = broadcast_element(c, {n}, k).c;
        ASSERT_EQ(broadcast_element(got, {n}, k).c, std::complex<double>(e.real(), e.real())) << k;
    }
    // The same view twice (in place through two names): y[i] = 1 lands before x[i] is read.
    const Array same = Array::from_host(queue(), x);
    ElementwiseKernel::from_names({"y", "x"}, "y[i] = 1.0f; y[i] += x[i]")(queue(), same, same);
    const HostArray twos = same.get(queue());
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(static_cast<float>(at(twos, k)), 2.0f) << k;
    // One broadcast element among vectors: y = x + b[0].
    const HostArray b = random_host_array(float32, {1}, 10.0);
    const Array y = Array::empty(bound_device(), {n}, float32);
    ElementwiseKernel("float *y, const float *x, const float *b", "y[i] = x[i] + b[i]")(queue(), y, dx,
                                                                                        Array::from_host(queue(), b));
    const HostArray sums = y.get(queue());
    for (std::size_t k = 0; k < n; ++k)
        ASSERT_EQ(static_cast<float>(at(sums, k)), static_cast<float>(at(x, k)) + static_cast<float>(at(b, 0))) << k;
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
