// Array views against a CPU model written out by hand (numpy's semantics): a kernel writing through a
// sliced, strided, transposed view; transfers of views with negative steps in both directions;
// device-to-device copies between views.

#include <gtest/gtest.h>

#include "kjarni/array.hpp"
#include "kjarni/template.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr std::size_t N0 = 6, N1 = 7, N2 = 8;

std::size_t flat(std::size_t i, std::size_t j, std::size_t k) { return (i * N1 + j) * N2 + k; }

class ArrayViews : public DeviceTest {
protected:
    std::vector<std::int32_t> random_data() { return random_vector<std::int32_t>(N0 * N1 * N2, -100000, 100000); }

};

TEST_P(ArrayViews, KernelWritesThroughASlicedStridedTransposedView) {
    const auto host = random_data();
    const Array a = Array::from_host(queue(), std::span<const std::int32_t>(host), {N0, N1, N2});
    // numpy: v = a[1:6:2, ::3, 2:8:2].transpose(2, 0, 1); shape (3, 3, 3); v[p, q, r] = a[1 + 2q, 3r, 2 + 2p].
    const Array v = a[{Slice{1, 6, 2}, Slice{std::nullopt, std::nullopt, 3}, Slice{2, 8, 2}}].transpose({2, 0, 1});
    ASSERT_EQ(v.shape(), (std::vector<std::size_t>{3, 3, 3}));
    EXPECT_FALSE(v.is_c_contiguous());
    std::vector<std::int64_t> strides;
    for (auto s : v.strides()) strides.push_back(s / 4);
    const std::string source = R"(
KERNEL void mark(GLOBAL_MEM int32_t* base, int64_t offset, int64_t s0, int64_t s1, int64_t s2)
{
    const SIZE_T p = get_global_id(2), q = get_global_id(1), r = get_global_id(0);
    base[offset + p * s0 + q * s1 + r * s2] = -(int32_t)(p * 100 + q * 10 + r) - 1;
}
)";
    const Program program(bound_device(), TemplateSource{source}, {}, {});
    // The view starts 232 bytes into the allocation: OpenCL devices only take sub-buffers at
    // CL_DEVICE_MEM_BASE_ADDR_ALIGN multiples, so the base and the offset go to the kernel.
    program.kernel("mark")(queue(), {3, 3, 3}, std::nullopt, v.base(), static_cast<std::int64_t>(v.offset() / 4),
                           strides[0], strides[1], strides[2]);
    std::vector<std::int32_t> back(host.size());
    a.get(queue(), std::span<std::int32_t>(back));
    auto expected = host;
    for (std::size_t p = 0; p < 3; ++p)
        for (std::size_t q = 0; q < 3; ++q)
            for (std::size_t r = 0; r < 3; ++r)
                expected[flat(1 + 2 * q, 3 * r, 2 + 2 * p)] = -static_cast<std::int32_t>(p * 100 + q * 10 + r) - 1;
    EXPECT_EQ(back, expected);
}

TEST_P(ArrayViews, GetAndSetOfViewsWithNegativeSteps) {
    const auto host = random_data();
    const Array a = Array::from_host(queue(), std::span<const std::int32_t>(host), {N0, N1, N2});
    // v = a[::-1, 1:5, ::-3]; shape (6, 4, 3); v[i, j, k] = a[5 - i, 1 + j, 7 - 3k].
    const Array v = a[{Slice{std::nullopt, std::nullopt, -1}, Slice{1, 5}, Slice{std::nullopt, std::nullopt, -3}}];
    ASSERT_EQ(v.shape(), (std::vector<std::size_t>{6, 4, 3}));
    const HostArray got = v.get(queue());
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 4; ++j)
            for (std::size_t k = 0; k < 3; ++k)
                ASSERT_EQ(got.at<std::int32_t>({i, j, k}), host[flat(5 - i, 1 + j, 7 - 3 * k)]) << i << j << k;
    // Set through the view from a host array that is itself a transposed (non-contiguous) view.
    const auto fresh = random_vector<std::int32_t>(6 * 4 * 3, -5, 5);
    const HostArray source = HostArray::from(fresh, {3, 4, 6}).transpose();  // source[i, j, k] = fresh[k, j, i]
    v.set(queue(), source);
    auto expected = host;
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 4; ++j)
            for (std::size_t k = 0; k < 3; ++k) expected[flat(5 - i, 1 + j, 7 - 3 * k)] = fresh[(k * 4 + j) * 6 + i];
    std::vector<std::int32_t> back(host.size());
    a.get(queue(), std::span<std::int32_t>(back));
    EXPECT_EQ(back, expected);
    // Get into a non-contiguous host destination.
    HostArray dest_storage(dtypes::int32, {3, 4, 6});
    const HostArray dest = dest_storage.transpose();
    v.get(queue(), dest);
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 4; ++j)
            for (std::size_t k = 0; k < 3; ++k)
                ASSERT_EQ(dest_storage.at<std::int32_t>({k, j, i}), fresh[(k * 4 + j) * 6 + i]);
    // A kernel refuses a view with negative strides.
    const Program program(bound_device(), TemplateSource{std::string("KERNEL void k(GLOBAL_MEM int32_t* p) { p[0] = 1; }")},
                          {}, {});
    EXPECT_THROW(program.kernel("k")(queue(), {1}, std::nullopt, v), ArgumentError);
}

TEST_P(ArrayViews, DeviceToDeviceBetweenViewsOfStructs) {
    // 12-byte elements: the copy kernel moves them in 4-byte units.
    const DType s = DType::struct_({{"a", dtypes::int32}, {"b", dtypes::float32, {2}}}, {.aligned = true});
    ASSERT_EQ(s.itemsize(), 12u);
    const auto bytes = random_bytes(5 * 6 * 12);
    HostArray host(s, {5, 6});
    std::memcpy(host.data(), bytes.data(), bytes.size());
    const Array a = Array::from_host(queue(), host);
    Array b = Array::zeros(queue(), {6, 5}, s, Order::F);
    // b[::-1, 1:] = a[1:, ::-1].T, i.e. b[5 - i, 1 + j] = a[1 + j, 5 - i]: b[i, j] = a[j, i] for j >= 1.
    b[{Slice{std::nullopt, std::nullopt, -1}, Slice{1}}].set(queue(), a[{Slice{1}, Slice{std::nullopt, std::nullopt, -1}}].transpose());
    const HostArray got = b.get(queue());
    for (std::size_t i = 0; i < 6; ++i) {
        for (std::size_t j = 0; j < 5; ++j) {
            const std::byte* g = got.data() + (i * 5 + j) * 12;
            if (j == 0) {
                EXPECT_EQ(std::count(g, g + 12, std::byte{0}), 12);
                continue;
            }
            const std::byte* expected = bytes.data() + (j * 6 + i) * 12;
            EXPECT_EQ(std::memcmp(g, expected, 12), 0) << i << " " << j;
        }
    }
    const auto field = extract_field(got, {std::string("b"), std::size_t{1}});
    EXPECT_EQ(field.shape(), (std::vector<std::size_t>{6, 5}));
    EXPECT_EQ(std::memcmp(&field.at<float>({2, 3}), got.data() + (2 * 5 + 3) * 12 + 8, 4), 0);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(ArrayViews);

}  // namespace
}  // namespace kjarni::test
