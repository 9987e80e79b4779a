// numpy's squeeze, expand_dims, moveaxis and swapaxes: views (the same memory, no copy) whose
// elements are those numpy's give, checked element by element against an index mapping on the
// host, over strided and reversed views; and their errors, which name the axis.

#include <gtest/gtest.h>

#include <numeric>

#include "algorithm_test_support.hpp"
#include "support/test_devices.hpp"

// A named namespace: unity builds put several test files in one translation unit.
namespace kjarni::test::array_view_ops {
namespace {

class ArrayViewOpsTest : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(ArrayViewOpsTest);

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ArgumentError& e) {
        return e.what();
    }
    return "(no ArgumentError)";
}

// Element `index` of a view (any strides) of a host array of int32.
std::int32_t at(const HostArray& base, const Layout& view, const std::vector<std::size_t>& index) {
    std::int32_t v;
    std::memcpy(&v, base.data() - base.layout().offset + view.offset_of(index), sizeof(v));
    return v;
}

// Calls f(index) for every index of `shape` in C order.
void for_each_index(const std::vector<std::size_t>& shape,
                    const std::function<void(const std::vector<std::size_t>&)>& f) {
    std::size_t total = 1;
    for (auto e : shape) total *= e;
    std::vector<std::size_t> index(shape.size(), 0);
    for (std::size_t k = 0; k < total; ++k) {
        f(index);
        for (std::size_t d = shape.size(); d-- > 0;) {
            if (++index[d] < shape[d]) break;
            index[d] = 0;
        }
    }
}

TEST(ArrayViewOps, ShapesAsNumpy) {
    // numpy 2.4's shapes for the same calls on np.empty((2, 1, 3, 1)).
    const Layout l = Layout::contiguous({2, 1, 3, 1}, 4);
    const std::vector<int> none;
    EXPECT_EQ(l.squeeze().shape, (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(l.squeeze(std::vector<int>{-1}).shape, (std::vector<std::size_t>{2, 1, 3}));
    EXPECT_EQ(l.squeeze(std::vector<int>{1, 3}).shape, (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(l.squeeze(none).shape, l.shape);
    EXPECT_EQ(l.expand_dims(std::vector<int>{0}).shape, (std::vector<std::size_t>{1, 2, 1, 3, 1}));
    EXPECT_EQ(l.expand_dims(std::vector<int>{-1}).shape, (std::vector<std::size_t>{2, 1, 3, 1, 1}));
    EXPECT_EQ(l.expand_dims(std::vector<int>{0, 2, -1}).shape, (std::vector<std::size_t>{1, 2, 1, 1, 3, 1, 1}));
    EXPECT_EQ(l.moveaxis(std::vector<int>{0}, std::vector<int>{-1}).shape, (std::vector<std::size_t>{1, 3, 1, 2}));
    EXPECT_EQ(l.moveaxis(std::vector<int>{0, 2}, std::vector<int>{-1, 0}).shape,
              (std::vector<std::size_t>{3, 1, 1, 2}));
    EXPECT_EQ(l.moveaxis(std::vector<int>{2, 0}, std::vector<int>{0, 1}).shape, (std::vector<std::size_t>{3, 2, 1, 1}));
    EXPECT_EQ(l.swapaxes(0, -2).shape, (std::vector<std::size_t>{3, 1, 2, 1}));
    const Layout scalar = Layout::contiguous({}, 4);
    EXPECT_EQ(scalar.expand_dims(std::vector<int>{0, 1}).shape, (std::vector<std::size_t>{1, 1}));
    EXPECT_EQ(scalar.squeeze().shape, std::vector<std::size_t>{});
}

TEST(ArrayViewOps, ErrorsNameTheAxis) {
    const Layout l = Layout::contiguous({2, 1, 3}, 4);
    EXPECT_NE(message_of([&] { l.squeeze(std::vector<int>{0}); }).find("axis 0 has extent 2"), std::string::npos);
    EXPECT_NE(message_of([&] { l.squeeze(std::vector<int>{3}); }).find("3 is out of range"), std::string::npos);
    EXPECT_NE(message_of([&] { l.squeeze(std::vector<int>{1, -2}); }).find("repeated"), std::string::npos);
    EXPECT_NE(message_of([&] { l.expand_dims(std::vector<int>{5}); }).find("5 is out of range"), std::string::npos);
    EXPECT_NE(message_of([&] { l.expand_dims(std::vector<int>{0, -5}); }).find("repeated"), std::string::npos);
    EXPECT_NE(message_of([&] {
                  l.moveaxis(std::vector<int>{0}, std::vector<int>{0, 1});
              }).find("2 destination"),
              std::string::npos);
    EXPECT_NE(message_of([&] { l.moveaxis(std::vector<int>{-4}, std::vector<int>{0}); }).find("-4 is out of range"),
              std::string::npos);
    EXPECT_NE(message_of([&] {
                  l.moveaxis(std::vector<int>{0, 1}, std::vector<int>{2, -1});
              }).find("repeated"),
              std::string::npos);
    EXPECT_NE(message_of([&] { l.swapaxes(0, 3); }).find("axis2"), std::string::npos);
}

TEST_P(ArrayViewOpsTest, ViewsShareMemoryAndReadNumpysElements) {
    // A reversed, stepped view of random int32: every op is a view of the same base, and reading
    // it back gives element [i...] == source[mapping(i)].
    HostArray host(DType(DType::Kind::int32), {4, 1, 10, 1});
    std::vector<std::int32_t> values = random_vector<std::int32_t>(host.size(), -1000000, 1000000);
    std::memcpy(host.data(), values.data(), values.size() * sizeof(std::int32_t));
    const Array whole = Array::from_host(queue(), host);
    const Array a = whole[{Slice{std::nullopt, std::nullopt, -1}, Slice{}, Slice{1, std::nullopt, 3}}];  // (4, 1, 3, 1)
    const HostArray source = a.get(queue()).copy();
    const auto check = [&](const Array& view,
                           const std::function<std::vector<std::size_t>(const std::vector<std::size_t>&)>& to_source) {
        EXPECT_EQ(view.base().size(), whole.base().size());
        EXPECT_EQ(view.offset(), a.offset());  // no copy: the same first element of the same memory
        const HostArray got = view.get(queue()).copy();
        for_each_index(view.shape(), [&](const std::vector<std::size_t>& index) {
            ASSERT_EQ(at(got, got.layout(), index), at(source, source.layout(), to_source(index)));
        });
    };
    check(a.squeeze(), [](const auto& i) { return std::vector<std::size_t>{i[0], 0, i[1], 0}; });
    check(a.squeeze({-1}), [](const auto& i) { return std::vector<std::size_t>{i[0], i[1], i[2], 0}; });
    check(a.expand_dims({0, -1}), [](const auto& i) { return std::vector<std::size_t>{i[1], i[2], i[3], i[4]}; });
    check(a.moveaxis(0, -1), [](const auto& i) { return std::vector<std::size_t>{i[3], i[0], i[1], i[2]}; });
    check(a.moveaxis({0, 2}, {-1, 0}), [](const auto& i) { return std::vector<std::size_t>{i[3], i[1], i[0], i[2]}; });
    check(a.swapaxes(0, 2), [](const auto& i) { return std::vector<std::size_t>{i[2], i[1], i[0], i[3]}; });
    check(a.transpose({2, 0, 3, 1}), [](const auto& i) { return std::vector<std::size_t>{i[1], i[3], i[0], i[2]}; });
    // A write through a view lands in the array it views.
    const Array row = a.squeeze().swapaxes(0, 1);  // (3, 4)
    fill(queue(), row, Expr(7));
    const auto back = a.get(queue()).copy().to_vector<std::int32_t>();
    EXPECT_EQ(back, std::vector<std::int32_t>(12, 7));
}

}  // namespace
}  // namespace kjarni::test::array_view_ops
