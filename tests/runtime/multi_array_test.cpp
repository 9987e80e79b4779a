// MultiArray over the devices of the shared multi-device context: EqualSplay, CloneSplay and a
// user-defined splay; one kernel launch on a MultiQueue processing an EqualSplay array gives what
// one device gives for the whole array.

#include <gtest/gtest.h>

#include "kjarni/multi_array.hpp"
#include "kjarni/template.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

// Device i holds columns [2i, 2i + 2) of the last axis (the rest goes to the last device).
class ColumnSplay final : public Splay {
public:
    std::vector<std::vector<Slice>> operator()(const std::vector<std::size_t>& shape,
                                               std::size_t devices) const override {
        std::vector<std::vector<Slice>> out;
        for (std::size_t i = 0; i < devices; ++i) {
            const auto start = static_cast<std::ptrdiff_t>(2 * i);
            const std::optional<std::ptrdiff_t> stop =
                i + 1 == devices ? std::nullopt : std::optional<std::ptrdiff_t>(start + 2);
            out.push_back({Slice{}, Slice{start, stop}});
        }
        (void)shape;
        return out;
    }
};

const char* source = R"(
KERNEL void process(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, uint32_t n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = x[i] * x[i] - 3.0f * x[i] + 1.0f;
}
)";

class MultiArrays : public ::testing::Test {
protected:
    void SetUp() override {
        context_ = shared_multi_device_context();
        if (context_ == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    }
    Context* context_ = nullptr;
};

TEST_F(MultiArrays, EqualSplayKernelOnAMultiQueueMatchesOneDevice) {
    const BoundMultiDevice devices = context_->devices();
    const MultiQueue mq = MultiQueue::on_devices(devices);
    const std::size_t rows = 2 * devices.size() + 1, cols = 33;  // uneven split
    const auto data = random_vector<float>(rows * cols, -4, 4);
    const HostArray host = HostArray::from(data, {rows, cols});

    const MultiArray x = MultiArray::from_host(mq, host);
    const MultiArray y = MultiArray::empty(devices, {rows, cols}, dtypes::float32);
    const auto shapes = x.shapes();
    ASSERT_EQ(shapes.size(), devices.size());
    EXPECT_EQ(shapes[0], (std::vector<std::size_t>{3, cols}));  // the first part gets the extra row
    std::size_t total_rows = 0;
    for (const auto& s : shapes) total_rows += s[0];
    EXPECT_EQ(total_rows, rows);

    const Program program(devices, TemplateSource{std::string(source)}, {}, {});
    std::map<std::size_t, Sizes> sizes;
    PerDevice<std::uint32_t> counts;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        sizes[devices[i].index()] = Sizes{(x.parts()[i].size() + 63) / 64 * 64};
        counts.values.push_back(static_cast<std::uint32_t>(x.parts()[i].size()));
    }
    for (const Event& e : program.kernel("process").prepare(sizes)(mq, y, x, counts)) e.wait();
    const auto multi = y.get(mq).to_vector<float>();

    // The same on one device, whole.
    const Queue q(devices[0]);
    const Array xs = Array::from_host(q, host);
    const Array ys = Array::empty(devices[0], {rows, cols}, dtypes::float32);
    program.kernel("process")(q, {(rows * cols + 63) / 64 * 64}, std::nullopt, ys, xs,
                              static_cast<std::uint32_t>(rows * cols));
    const auto single = ys.get(q).to_vector<float>();
    EXPECT_EQ(multi, single);
    // Against the host: the device compiler may contract into fused multiply-adds.
    for (std::size_t i = 0; i < data.size(); ++i) {
        const double v = data[i];
        ASSERT_NEAR(single[i], v * v - 3 * v + 1, 1e-5 * (1 + v * v)) << i;
    }
}

TEST_F(MultiArrays, CloneAndUserDefinedSplays) {
    const BoundMultiDevice devices = context_->devices();
    const MultiQueue mq = MultiQueue::on_devices(devices);
    const auto data = random_vector<std::int32_t>(4 * 7, -100, 100);
    const HostArray host = HostArray::from(data, {4, 7});

    const MultiArray clone = MultiArray::from_host(mq, host, std::make_shared<CloneSplay>());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        EXPECT_EQ(clone.shapes()[i], (std::vector<std::size_t>{4, 7}));
        EXPECT_EQ(clone.parts()[i].get(mq.queues()[i]).to_vector<std::int32_t>(), data);
        EXPECT_EQ(clone.part(devices[i]).device(), devices[i]);
    }
    EXPECT_EQ(clone.get(mq).to_vector<std::int32_t>(), data);

    const MultiArray columns = MultiArray::from_host(mq, host, std::make_shared<ColumnSplay>());
    EXPECT_EQ(columns.shapes()[0], (std::vector<std::size_t>{4, 2}));
    const auto first = columns.parts()[0].get(mq.queues()[0]).to_vector<std::int32_t>();
    for (std::size_t r = 0; r < 4; ++r)
        for (std::size_t c = 0; c < 2; ++c) ASSERT_EQ(first[r * 2 + c], data[r * 7 + c]);
    EXPECT_EQ(columns.get(mq).to_vector<std::int32_t>(), data);
    // Device-to-device set between MultiArrays of the same parts.
    const MultiArray other = MultiArray::empty(devices, {4, 7}, dtypes::int32, {}, std::make_shared<ColumnSplay>());
    other.set(mq, columns);
    EXPECT_EQ(other.get(mq).to_vector<std::int32_t>(), data);
    EXPECT_THROW(MultiArray::empty(devices, {1, 7}, dtypes::int32), ArgumentError);  // EqualSplay: too few rows
}

}  // namespace
}  // namespace kjarni::test
