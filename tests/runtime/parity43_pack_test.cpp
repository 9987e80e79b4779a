// Issue 43 item 3: VirtualManager::pack compacts live virtual allocations into fewer, smaller real
// allocations; every handle (buffers, sub-regions, arrays and their views) follows its memory, so
// kernels launched afterwards with the old handles read and write the new place.

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/virtual_buffers.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace parity43_pack {

constexpr const char* affine_source = R"(
KERNEL void affine(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, float b, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + b;
}
)";

class Parity43Item3 : public DeviceTest {
protected:
    std::vector<std::byte> write_random(const Buffer& buffer) {
        auto data = random_bytes(buffer.size());
        buffer.set(queue(), std::span<const std::byte>(data));
        return data;
    }
    std::vector<std::byte> read(const Buffer& buffer) {
        std::vector<std::byte> out(buffer.size());
        buffer.get(queue(), std::span<std::byte>(out));
        return out;
    }
};

// A fragmented arrangement: a 100 kB real allocation holds a 4 kB virtual one, beside a 4 kB one it
// depends on. Packing gives two 4 kB real allocations; the contents and the handles survive.
TEST_P(Parity43Item3, PackMovesLiveAllocationsIntoLessMemory) {
    ZeroOffsetManager manager(bound_device());
    std::optional<Buffer> big = manager.allocate(100000);
    const Buffer b = manager.allocate(4096, *big);
    big.reset();
    const Buffer c = manager.allocate(4096, b);  // takes the unused 100 kB allocation
    const Buffer d = manager.allocate(4096);     // no dependencies: shares b's allocation
    ASSERT_EQ(manager.statistics().real_size_total, 100000u + 4096u);
    ASSERT_EQ(manager.statistics().real_num, 2u);
    const Buffer c_part = c.get_sub_region(1000, 2000);
    const auto b_data = write_random(b);
    const auto c_data = write_random(c);
    const auto old_c = c.native_handle();

    manager.pack(queue());
    const auto stats = manager.statistics();
    EXPECT_EQ(stats.real_num, 2u);
    EXPECT_EQ(stats.real_size_total, 2u * 4096u);
    EXPECT_EQ(stats.virtual_num, 3u);
    EXPECT_EQ(stats.virtual_size_total, 3u * 4096u);
    EXPECT_NE(c.native_handle(), old_c) << "c should have moved out of the 100 kB allocation";
    EXPECT_EQ(c_part.native_handle(), c.native_handle());
    // b and d were not declared dependent: they may share; b and c never do.
    EXPECT_NE(b.native_handle(), c.native_handle());
    // b and d shared memory before pack, so d's bytes are b's: b's contents survive either way.
    EXPECT_EQ(read(b), b_data);
    EXPECT_EQ(read(c), c_data);
    std::vector<std::byte> part(2000);
    c_part.get(queue(), std::span<std::byte>(part));
    EXPECT_TRUE(std::equal(part.begin(), part.end(), c_data.begin() + 1000));

    // A second pack finds nothing to gain and moves nothing.
    const auto before = c.native_handle();
    manager.pack(queue());
    EXPECT_EQ(c.native_handle(), before);
    EXPECT_EQ(manager.statistics(), stats);
}

// Arrays made before pack launch kernels on the new memory: one computes y = 3x + 1 from x after
// both moved, checked on the host against the same arithmetic (exact in float32: 3x + 1 of values
// with few significant bits).
TEST_P(Parity43Item3, ArraysAndViewsFollowTheirMemoryIntoKernels) {
    const std::size_t n = 1000;
    ZeroOffsetManager manager(bound_device());
    std::optional<Array> filler = Array::empty(bound_device(), {50000}, dtypes::float32, Order::C, manager.allocator());
    const Array x = Array::empty(bound_device(), {n}, dtypes::float32, Order::C, manager.allocator(*filler));
    filler.reset();
    const Array y = Array::empty(bound_device(), {n}, dtypes::float32, Order::C, manager.allocator(x));
    const Array y_tail = y[{Slice{n / 2, std::nullopt}}];
    std::vector<float> host_x = random_vector<float>(n, -64.0f, 64.0f);
    for (auto& v : host_x) v = std::round(v * 4.0f) / 4.0f;
    x.set(queue(), std::span<const float>(host_x));
    ASSERT_EQ(manager.statistics().real_size_total, 50000u * 4u + n * 4u);

    manager.pack(queue());
    EXPECT_EQ(manager.statistics().real_size_total, 2u * n * 4u);

    Program program(bound_device(), affine_source);
    program.kernel("affine")(queue(), {n}, std::nullopt, y, x, 3.0f, 1.0f, static_cast<unsigned>(n));
    const auto result = y.get(queue()).to_vector<float>();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], 3.0f * host_x[i] + 1.0f) << i;
    const auto tail = y_tail.get(queue()).to_vector<float>();
    for (std::size_t i = 0; i < n / 2; ++i) ASSERT_EQ(tail[i], result[n / 2 + i]) << i;
    // Dependencies still hold after the move: a new allocation dependent on x and y shares neither.
    const Buffer z = manager.allocate(n * 4, {x, y});
    EXPECT_NE(z.native_handle(), x.base().native_handle());
    EXPECT_NE(z.native_handle(), y.base().native_handle());
    EXPECT_EQ(virtual_allocation_id(y_tail.base()), virtual_allocation_id(y.base()));
}

// A TrivialManager never moves anything: each virtual allocation has a real one of its size.
TEST_P(Parity43Item3, TrivialManagerPackOnlyFrees) {
    TrivialManager manager(bound_device());
    const Buffer a = manager.allocate(512);
    const auto handle = a.native_handle();
    manager.pack(queue());
    EXPECT_EQ(a.native_handle(), handle);
    EXPECT_EQ(manager.statistics().real_num, 1u);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Parity43Item3);

}  // namespace parity43_pack

}  // namespace kjarni::test
