// Array views against a CPU model written out by hand (numpy's semantics): a kernel writing through a
// sliced, strided, transposed view; transfers of views with negative steps in both directions;
// device-to-device copies between views; integer indices, newaxis and ellipsis (layouts as numpy
// gives them); reshape views of any strides, copies only where numpy copies.

#include <gtest/gtest.h>

#include "kjarni/array.hpp"
#include "kjarni/array_operations.hpp"
#include "kjarni/template.hpp"
#include "support/array_reference.hpp"
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
    const Program program(bound_device(),
                          TemplateSource{std::string("KERNEL void k(GLOBAL_MEM int32_t* p) { p[0] = 1; }")}, {}, {});
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
    b[{Slice{std::nullopt, std::nullopt, -1}, Slice{1}}]
        .set(queue(), a[{Slice{1}, Slice{std::nullopt, std::nullopt, -1}}].transpose());
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

TEST_P(ArrayViews, IntegerIndicesNewaxisAndEllipsisAsNumpy) {
    const auto host = random_data();
    const HostArray h = HostArray::from(host, {N0, N1, N2});
    const Array a = Array::from_host(queue(), std::span<const std::int32_t>(host), {N0, N1, N2});
    const Slice all{};
    struct Case {
        const char* numpy;
        std::vector<Index> index;
        Shape shape;
        std::vector<std::ptrdiff_t> strides;                                 // numpy's, in bytes
        std::size_t offset;                                                  // numpy's, in bytes
        std::function<std::size_t(const std::vector<std::size_t>&)> source;  // flat position in `host`
    };
    const std::vector<Case> cases{
        {"a[2]", {2}, {7, 8}, {32, 4}, 448, [](const auto& i) { return flat(2, i[0], i[1]); }},
        {"a[-1, ::2, newaxis, 3]",
         {-1, Slice{std::nullopt, std::nullopt, 2}, newaxis, 3},
         {4, 1},
         {64, 0},
         1132,
         [](const auto& i) { return flat(5, 2 * i[0], 3); }},
        {"a[..., 1]", {ellipsis, 1}, {6, 7}, {224, 32}, 4, [](const auto& i) { return flat(i[0], i[1], 1); }},
        {"a[newaxis, 1, ..., ::-3]",
         {newaxis, 1, ellipsis, Slice{std::nullopt, std::nullopt, -3}},
         {1, 7, 3},
         {0, 32, -12},
         252,
         [](const auto& i) { return flat(1, i[1], 7 - 3 * i[2]); }},
        {"a[1, 2, 3]", {1, 2, 3}, {}, {}, 300, [](const auto&) { return flat(1, 2, 3); }},
        {"a[..., newaxis]",
         {ellipsis, newaxis},
         {6, 7, 8, 1},
         {224, 32, 4, 0},
         0,
         [](const auto& i) { return flat(i[0], i[1], i[2]); }},
        {"a[:, newaxis, 2:0:-1]",
         {all, newaxis, Slice{2, 0, -1}},
         {6, 1, 2, 8},
         {224, 0, -32, 4},
         64,
         [](const auto& i) { return flat(i[0], 2 - i[2], i[3]); }},
    };
    for (const Case& c : cases) {
        const Array v = a.index(c.index);
        EXPECT_EQ(v.shape(), c.shape) << c.numpy;
        EXPECT_EQ(v.strides(), c.strides) << c.numpy;
        EXPECT_EQ(v.offset(), c.offset) << c.numpy;
        const HostArray hv = h.index(c.index);
        EXPECT_EQ(hv.layout().strides, c.strides) << c.numpy;
        std::vector<std::int32_t> want;
        for_each_index(c.shape, [&](const std::vector<std::size_t>& i) { want.push_back(host[c.source(i)]); });
        EXPECT_EQ(v.get(queue()).to_vector<std::int32_t>(), want) << c.numpy;
        EXPECT_EQ(hv.to_vector<std::int32_t>(), want) << c.numpy;
    }
    // Writing through an integer-indexed view.
    const auto fresh = random_vector<std::int32_t>(N0 * N2, -9, 9);
    a[{Slice{}, -2}].set(queue(), std::span<const std::int32_t>(fresh));
    auto expected = host;
    for (std::size_t i = 0; i < N0; ++i)
        for (std::size_t k = 0; k < N2; ++k) expected[flat(i, N1 - 2, k)] = fresh[i * N2 + k];
    EXPECT_EQ(a.get(queue()).to_vector<std::int32_t>(), expected);
    EXPECT_THROW(a[{6}], ArgumentError);
    EXPECT_THROW(a[{-7}], ArgumentError);
    EXPECT_THROW((a[{0, 7}]), ArgumentError);
    EXPECT_THROW((a[{ellipsis, 0, ellipsis}]), ArgumentError);
    EXPECT_THROW((a[{0, 0, 0, 0}]), ArgumentError);
    EXPECT_NO_THROW((a[{0, 0, 0, ellipsis, newaxis}]));
}

// The elements of `r` read in `order` and laid into `shape` in that order (numpy.reshape on the CPU).
Reference reshape_reference(const Reference& r, const Shape& shape, Order order) {
    Reference out(shape, r.itemsize);
    const bool fortran = order == Order::F;
    // Inverse of flat_index over r.shape in the order.
    auto unflatten = [&](std::size_t k) {
        std::vector<std::size_t> index(r.shape.size());
        if (fortran) {
            for (std::size_t d = 0; d < r.shape.size(); ++d) {
                index[d] = k % r.shape[d];
                k /= r.shape[d];
            }
        } else {
            for (std::size_t d = r.shape.size(); d-- > 0;) {
                index[d] = k % r.shape[d];
                k /= r.shape[d];
            }
        }
        return index;
    };
    for_each_index(shape, [&](const std::vector<std::size_t>& i) {
        std::memcpy(out.at(i), r.at(unflatten(flat_index(shape, i, fortran))), r.itemsize);
    });
    return out;
}

TEST_P(ArrayViews, ReshapeGivesNumpysViews) {
    // Layouts numpy 2.4 gives (strides in bytes): a = arange(24, dtype=int64).reshape(2, 3, 4).
    const Layout a = Layout::contiguous({2, 3, 4}, 8);
    const Layout t = a.transpose(std::vector<std::size_t>{1, 0, 2});  // (3, 2, 4), strides (32, 96, 8)
    EXPECT_EQ(t.reshape(std::vector<std::ptrdiff_t>{3, 2, 2, 2}, 8).strides,
              (std::vector<std::ptrdiff_t>{32, 96, 16, 8}));
    EXPECT_FALSE(t.try_reshape(std::vector<std::ptrdiff_t>{3, 8}, 8));
    EXPECT_FALSE(t.try_reshape(std::vector<std::ptrdiff_t>{6, 4}, 8));
    EXPECT_FALSE(t.try_reshape(std::vector<std::ptrdiff_t>{3, 8}, 8, Order::F));
    // w = a[:, ::2, ::-1]: shape (2, 2, 4), strides (96, 64, -8).
    const Layout w = a.slice(
        std::vector<Slice>{Slice{}, Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
    ASSERT_EQ(w.strides, (std::vector<std::ptrdiff_t>{96, 64, -8}));
    EXPECT_EQ(w.reshape(std::vector<std::ptrdiff_t>{2, 2, 2, 2}, 8, Order::F).strides,
              (std::vector<std::ptrdiff_t>{96, 64, -8, -16}));
    EXPECT_EQ(w.reshape(std::vector<std::ptrdiff_t>{2, 1, 2, 1, 4}, 8).strides,
              (std::vector<std::ptrdiff_t>{96, 128, 64, -32, -8}));
    EXPECT_EQ(w.reshape(std::vector<std::ptrdiff_t>{2, 1, 2, 1, 4}, 8).offset, w.offset);
    EXPECT_FALSE(w.try_reshape(std::vector<std::ptrdiff_t>{2, 8}, 8));
    EXPECT_FALSE(w.try_reshape(std::vector<std::ptrdiff_t>{4, 2, 2}, 8));
    EXPECT_THROW(w.reshape(std::vector<std::ptrdiff_t>{2, 8}, 8), ArgumentError);
    EXPECT_THROW(w.try_reshape(std::vector<std::ptrdiff_t>{3, -1}, 8), ArgumentError);  // 16 elements
    EXPECT_THROW(w.try_reshape(std::vector<std::ptrdiff_t>{-1, -1}, 8), ArgumentError);
}

TEST_P(ArrayViews, ReshapeOfRandomViewsCopiesOnlyWhenNeeded) {
    const std::vector<Shape> targets_of_24{{24},      {2, 12},   {12, 2}, {4, 6},     {6, 4},       {2, 3, 4},
                                           {4, 3, 2}, {2, 2, 6}, {3, 8},  {1, 24, 1}, {2, 1, 3, 4}, {2, 2, 2, 3}};
    std::size_t views = 0, copies = 0;
    for (int round = 0; round < 12; ++round) {
        const DType dtype = round % 2 == 0 ? DType(dtypes::float32) : DType(dtypes::complex128);
        const ViewKind kind = static_cast<ViewKind>(round % 4);
        // Sources of 24 elements whose layouts allow some reshapes and not others.
        const Shape source_shape = round % 3 == 0 ? Shape{2, 3, 4} : round % 3 == 1 ? Shape{4, 6} : Shape{2, 1, 12};
        const ViewPair v = random_view(queue(), dtype, source_shape, kind);
        const Reference r = reference_of(v.host);
        for (const Shape& target : targets_of_24) {
            for (Order order : {Order::C, Order::F}) {
                const std::vector<std::ptrdiff_t> shape(target.begin(), target.end());
                const Array got = reshape(queue(), v.device, shape, order);
                const bool is_view = detail::backend_of(got.base()) == detail::backend_of(v.device.base());
                (is_view ? views : copies)++;
                const bool contiguous = order == Order::C ? v.device.is_c_contiguous() : v.device.is_f_contiguous();
                if (contiguous) {
                    EXPECT_TRUE(is_view) << "a contiguous array is always reshaped in place";
                }
                EXPECT_TRUE(same_elements(reference_of(queue(), got), reshape_reference(r, target, order)))
                    << name_of(kind) << " " << ::testing::PrintToString(source_shape) << " -> "
                    << ::testing::PrintToString(target) << (order == Order::C ? " C" : " F")
                    << (is_view ? " view" : " copy");
                if (is_view) {
                    EXPECT_NO_THROW(reshape(queue(), v.device, shape, order, CopyMode::never));
                    EXPECT_NO_THROW(v.device.reshape(shape, order));
                } else {
                    EXPECT_THROW(reshape(queue(), v.device, shape, order, CopyMode::never), ArgumentError);
                    EXPECT_THROW(v.device.reshape(shape, order), ArgumentError);
                }
                const Array fresh = reshape(queue(), v.device, shape, order, CopyMode::always);
                EXPECT_NE(detail::backend_of(fresh.base()), detail::backend_of(v.device.base()));
            }
        }
    }
    // Both kinds of result happened (else the sweep tests nothing of one of them).
    EXPECT_GT(views, 0u);
    EXPECT_GT(copies, 0u);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(ArrayViews);

}  // namespace
}  // namespace kjarni::test
