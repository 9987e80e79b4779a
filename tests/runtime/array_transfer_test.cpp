// Array creation, transfers and layout functions: empty (strides, first-element offset, allocator),
// zeros, from_host / get / set (synchronous and asynchronous), C and Fortran order, copy,
// ascontiguous, asfortran, reshape, view, and arrays as kernel arguments.

#include <gtest/gtest.h>

#include "kjarni/array.hpp"
#include "kjarni/template.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class ArrayTransfers : public DeviceTest {};

TEST_P(ArrayTransfers, RoundTripsSynchronousAndAsynchronous) {
    const auto data = random_vector<double>(4 * 5 * 3, -1, 1);
    const Array a = Array::from_host(queue(), std::span<const double>(data), {4, 5, 3});
    EXPECT_EQ(a.shape(), (std::vector<std::size_t>{4, 5, 3}));
    EXPECT_EQ(a.strides(), (std::vector<std::ptrdiff_t>{120, 24, 8}));
    EXPECT_EQ(a.dtype(), dtypes::float64);
    EXPECT_EQ(a.size(), 60u);
    EXPECT_EQ(a.nbytes(), 480u);
    EXPECT_EQ(a.device(), bound_device());
    EXPECT_EQ(a.get(queue()).to_vector<double>(), data);
    std::vector<double> back(data.size());
    a.get(queue(), std::span<double>(back), true);
    queue().synchronize();
    EXPECT_EQ(back, data);
    const auto other = random_vector<double>(data.size(), -1, 1);
    a.set(queue(), std::span<const double>(other), true);
    queue().synchronize();
    EXPECT_EQ(a.get(queue()).to_vector<double>(), other);
    EXPECT_THROW(a.set(queue(), HostArray(dtypes::float64, {4, 5})), ArgumentError);
}

TEST_P(ArrayTransfers, OrdersCopiesAndReshapes) {
    const auto data = random_vector<std::int32_t>(6 * 4, -1000, 1000);
    const Array c = Array::from_host(queue(), std::span<const std::int32_t>(data), {6, 4});
    const Array f = c.asfortran(queue());
    EXPECT_TRUE(f.is_f_contiguous());
    EXPECT_FALSE(f.is_c_contiguous());
    EXPECT_EQ(f.strides(), (std::vector<std::ptrdiff_t>{4, 24}));
    EXPECT_EQ(f.get(queue()).to_vector<std::int32_t>(), data);
    // The Fortran array's memory is the transpose's C order.
    const Array raw = Array::from_buffer(f.base(), dtypes::int32, Layout::contiguous({4, 6}, 4));
    const auto t = raw.get(queue()).to_vector<std::int32_t>();
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 4; ++j) ASSERT_EQ(t[j * 6 + i], data[i * 4 + j]);
    EXPECT_EQ(detail::backend_of(c.ascontiguous(queue()).base()), detail::backend_of(c.base()));  // no copy needed
    const Array back = f.ascontiguous(queue());
    EXPECT_TRUE(back.is_c_contiguous());
    EXPECT_EQ(back.get(queue()).to_vector<std::int32_t>(), data);
    const Array copied = c.copy(queue());
    EXPECT_NE(detail::backend_of(copied.base()), detail::backend_of(c.base()));
    // Reshape is a view of a C-contiguous array; a Fortran one must be copied first.
    const Array r = c.reshape({2, -1, 3});
    EXPECT_EQ(r.shape(), (std::vector<std::size_t>{2, 4, 3}));
    EXPECT_EQ(r.get(queue()).to_vector<std::int32_t>(), data);
    EXPECT_THROW(f.reshape({24}), ArgumentError);
    EXPECT_THROW(c.reshape({5, -1}), ArgumentError);
    const Array u = c.view(dtypes::uint32);
    EXPECT_EQ(u.dtype(), dtypes::uint32);
    EXPECT_THROW(c.view(dtypes::int64), ArgumentError);
    const Array z = Array::zeros(queue(), {3, 7}, dtypes::complex64, Order::F);
    for (const auto& v : z.get(queue()).to_vector<std::complex<float>>()) ASSERT_EQ(v, std::complex<float>(0, 0));
}

TEST_P(ArrayTransfers, EmptyWithStridesOffsetAndAllocator) {
    std::size_t calls = 0, requested = 0;
    const Allocator allocator = [&](const BoundDevice& device, std::size_t size) {
        ++calls;
        requested = size;
        return Buffer::allocate(device, size + 64);
    };
    // Rows reversed in memory, padded rows: first element at row 2 of the allocation.
    const Array a =
        Array::empty(bound_device(), {3, 4}, dtypes::float32, std::vector<std::ptrdiff_t>{-32, 4}, 64, allocator);
    EXPECT_EQ(calls, 1u);
    EXPECT_EQ(requested, 64u + 16u);
    EXPECT_EQ(a.offset(), 64u);
    const auto data = random_vector<float>(12, -1, 1);
    a.set(queue(), std::span<const float>(data));
    EXPECT_EQ(a.get(queue()).to_vector<float>(), data);
    // Memory rows 0, 1, 2 hold array rows 2, 1, 0.
    std::vector<float> memory(24);
    a.base().get_sub_region(0, 96).get(queue(), std::span<float>(memory));
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 4; ++j) ASSERT_EQ(memory[(2 - i) * 8 + j], data[i * 4 + j]);
    EXPECT_THROW(Array::empty(bound_device(), {3, 4}, dtypes::float32, std::vector<std::ptrdiff_t>{-32, 4}, 32),
                 ArgumentError);
}

TEST_P(ArrayTransfers, ArraysAsKernelArguments) {
    const auto x = random_vector<float>(1000, -10, 10);
    const Array in = Array::from_host(queue(), std::span<const float>(x), {1000});
    const Array out = Array::empty(bound_device(), {1000}, dtypes::float32);
    const std::string source = R"(
KERNEL void twice(GLOBAL_MEM ${T}* out, GLOBAL_MEM const ${T}* in)
{
    const SIZE_T i = get_global_id(0);
    out[i] = in[i] * 2;
}
)";
    const Program program(bound_device(), TemplateSource{source}, {}, {{"T", in.dtype()}});
    program.kernel("twice")(queue(), {1000}, std::nullopt, out, in);
    const auto y = out.get(queue()).to_vector<float>();
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] * 2) << i;
}

TEST_P(ArrayTransfers, AsType) {
    const auto data = random_vector<double>(5 * 4, -100, 100);
    const Array a = Array::from_host(queue(), std::span<const double>(data), {5, 4});
    // A non-contiguous view converted to complex64, in Fortran order.
    const Array v = a[{Slice{std::nullopt, std::nullopt, -2}}].transpose();  // v[i, j] = a[4 - 2j, i]
    const Array c = v.astype(queue(), dtypes::complex64, Order::F);
    EXPECT_EQ(c.dtype(), dtypes::complex64);
    EXPECT_TRUE(c.is_f_contiguous());
    const HostArray got = c.get(queue());
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            ASSERT_EQ(got.at<std::complex<float>>({i, j}),
                      std::complex<float>(static_cast<float>(data[(4 - 2 * j) * 4 + i]), 0));
    const auto ints = a.astype(queue(), dtypes::int32).get(queue()).to_vector<std::int32_t>();
    for (std::size_t i = 0; i < data.size(); ++i) ASSERT_EQ(ints[i], static_cast<std::int32_t>(data[i]));
    EXPECT_EQ(detail::backend_of(a.astype(queue(), dtypes::float64, Order::C, false).base()),
              detail::backend_of(a.base()));
}

KJARNI_INSTANTIATE_DEVICE_TESTS(ArrayTransfers);

}  // namespace
}  // namespace kjarni::test
