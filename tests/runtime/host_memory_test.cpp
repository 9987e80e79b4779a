// Page-locked host memory: round trips through it (sync and async), mapped memory used by a
// kernel, the flags each API accepts, and the pool (statistics, reuse, threads).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "kjarni/host_memory.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* mapped_source = R"(
KERNEL void affine(GLOBAL_MEM int32_t* y, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = y[i] * 3 + 1;
}
)";

class HostMemoryTest : public DeviceTest {
protected:
    bool is_opencl() { return context().api().id() == ApiId::opencl(); }

    // Host (pinned) -> device -> host (pinned), checked byte for byte.
    void round_trip(HostMemoryFlags flags, bool async, std::size_t size) {
        const auto data = random_bytes(size);
        HostMemory source = HostMemory::allocate(context(), size, flags);
        HostMemory back = HostMemory::allocate(context(), size, flags);
        ASSERT_EQ(source.size(), size);
        ASSERT_NE(source.data(), nullptr);
        ASSERT_TRUE(source.flags() == flags);
        std::copy(data.begin(), data.end(), source.data());
        const std::byte poison{0xA5};
        std::fill(back.data(), back.data() + size, poison);
        Buffer device = Buffer::allocate(bound_device(), size);
        device.set(queue(), std::span<const std::byte>(source.bytes()), async);
        device.get(queue(), back.bytes(), async);
        if (async) queue().synchronize();
        ASSERT_TRUE(std::equal(data.begin(), data.end(), back.data()));
    }
};

TEST_P(HostMemoryTest, RoundTripSync) { round_trip({}, false, 100003); }

TEST_P(HostMemoryTest, RoundTripAsync) { round_trip({}, true, 1 << 20); }

TEST_P(HostMemoryTest, RoundTripPortableAsync) { round_trip({.portable = true}, true, 4099); }

TEST_P(HostMemoryTest, TypedSpansOverTheMemory) {
    const std::size_t n = 5000;
    const auto values = random_vector<double>(n, -1e6, 1e6);
    HostMemory memory = HostMemory::allocate(context(), n * sizeof(double) + 3);
    const std::span<double> span = memory.as_span<double>();
    ASSERT_EQ(span.size(), n);  // whole elements only
    std::copy(values.begin(), values.end(), span.begin());
    Buffer device = Buffer::allocate(bound_device(), n * sizeof(double));
    device.set(queue(), std::span<const double>(span), true);
    std::vector<double> back(n);
    device.get(queue(), std::span<double>(back));
    EXPECT_EQ(back, values);
    // Copies share the memory.
    const HostMemory copy = memory;
    EXPECT_EQ(copy.data(), memory.data());
}

TEST_P(HostMemoryTest, WriteCombined) {
    if (is_opencl()) {
        EXPECT_THROW(HostMemory::allocate(context(), 4096, {.write_combined = true}), UnsupportedError);
        EXPECT_THROW(HostMemory::allocate(context(), 0, {.write_combined = true}), UnsupportedError);
        EXPECT_THROW(HostMemoryPool({.write_combined = true}).allocate(context(), 100), UnsupportedError);
    } else {
        round_trip({.write_combined = true}, true, 65536);
    }
}

// Mapped memory as a kernel argument: CUDA, and OpenCL devices sharing memory with the host.
bool kernels_see_mapped_memory(const TestDevice& device) {
    return device.api == "cuda" || device.device().properties().unified_memory;
}

TEST_P(HostMemoryTest, MappedMemoryWrittenByAKernel) {
    if (!kernels_see_mapped_memory(GetParam())) {
        HostMemory memory = HostMemory::allocate(context(), 64, {.mapped = true});
        EXPECT_THROW(memory.device_buffer(bound_device()), UnsupportedError);
        return;
    }
    const std::size_t n = 3000;
    const auto values = random_vector<std::int32_t>(n, -100000, 100000);
    HostMemory memory = HostMemory::allocate(context(), n * sizeof(std::int32_t), {.portable = true, .mapped = true});
    std::copy(values.begin(), values.end(), memory.as_span<std::int32_t>().begin());
    Program program(bound_device(), mapped_source);
    {
        Buffer device = memory.device_buffer(bound_device());
        EXPECT_EQ(device.size(), memory.size());
        program.kernel("affine")(queue(), {n}, std::nullopt, device, static_cast<unsigned>(n));
        queue().synchronize();
    }
    const auto result = memory.as_span<std::int32_t>();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], values[i] * 3 + 1) << i;
    // The kernel's writes are ordinary memory contents: a transfer from the device buffer agrees.
    Buffer device = memory.device_buffer(bound_device());
    std::vector<std::int32_t> back(n);
    device.get(queue(), std::span<std::int32_t>(back));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], values[i] * 3 + 1) << i;
}

TEST_P(HostMemoryTest, DeviceBufferOutlivesTheHandle) {
    if (!kernels_see_mapped_memory(GetParam())) GTEST_SKIP() << "no kernel access to mapped memory here";
    const auto data = random_bytes(8192);
    std::optional<Buffer> device;
    {
        HostMemory memory = HostMemory::allocate(context(), data.size(), {.mapped = true});
        std::copy(data.begin(), data.end(), memory.data());
        device = memory.device_buffer(bound_device());
    }
    std::vector<std::byte> back(data.size());
    device->get(queue(), std::span<std::byte>(back));
    EXPECT_EQ(back, data);
}

TEST_P(HostMemoryTest, Errors) {
    HostMemory plain = HostMemory::allocate(context(), 256);
    EXPECT_THROW(plain.device_buffer(bound_device()), UnsupportedError);
    HostMemory empty = HostMemory::allocate(context(), 0, {.mapped = true});
    EXPECT_EQ(empty.size(), 0u);
    EXPECT_EQ(empty.data(), nullptr);
    EXPECT_TRUE(empty.bytes().empty());
    EXPECT_EQ(empty.device_buffer(bound_device()).size(), 0u);
    EXPECT_THROW(HostMemoryPool({}, 17), ArgumentError);
}

TEST_P(HostMemoryTest, PoolStatisticsAndReuse) {
    HostMemoryPool pool;
    const std::size_t rounded = MemoryPool::allocation_size(1000, 4);
    std::byte* first = nullptr;
    {
        HostMemory a = pool.allocate(context(), 1000);
        EXPECT_EQ(a.size(), 1000u);
        first = a.data();
        EXPECT_EQ(pool.active_blocks(), 1u);
        EXPECT_EQ(pool.active_bytes(), 1000u);
        EXPECT_EQ(pool.managed_bytes(), rounded);
        EXPECT_EQ(pool.held_blocks(), 0u);
        const HostMemory copy = a;  // the block returns when the last handle goes
    }
    EXPECT_EQ(pool.active_blocks(), 0u);
    EXPECT_EQ(pool.active_bytes(), 0u);
    EXPECT_EQ(pool.held_blocks(), 1u);
    EXPECT_EQ(pool.managed_bytes(), rounded);
    {
        HostMemory b = pool.allocate(context(), 1001);  // same bin: the held block comes back
        EXPECT_EQ(b.data(), first);
        EXPECT_EQ(pool.held_blocks(), 0u);
        HostMemory c = pool.allocate(context(), 5000);  // another bin: a new block
        EXPECT_NE(c.data(), first);
        EXPECT_EQ(pool.active_blocks(), 2u);
        EXPECT_EQ(pool.active_bytes(), 6001u);
        EXPECT_EQ(pool.managed_bytes(), rounded + MemoryPool::allocation_size(5000, 4));
        // Pooled memory works for transfers like any other.
        const auto data = random_bytes(5000);
        std::copy(data.begin(), data.end(), c.data());
        Buffer device = Buffer::allocate(bound_device(), 5000);
        device.set(queue(), std::span<const std::byte>(c.bytes()), true);
        device.get(queue(), b.bytes().first(1000), true);
        queue().synchronize();
        EXPECT_TRUE(std::equal(b.data(), b.data() + 1000, data.begin()));
    }
    EXPECT_EQ(pool.held_blocks(), 2u);
    pool.free_held();
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(pool.managed_bytes(), 0u);

    pool.stop_holding();
    { HostMemory d = pool.allocate(context(), 300); }
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(pool.active_blocks(), 0u);
    EXPECT_EQ(pool.managed_bytes(), 0u);
}

TEST_P(HostMemoryTest, PoolMappedBlocksStayOutWhileTheirBufferLives) {
    if (!kernels_see_mapped_memory(GetParam())) GTEST_SKIP() << "no kernel access to mapped memory here";
    HostMemoryPool pool({.mapped = true});
    EXPECT_TRUE(pool.flags().mapped);
    std::optional<Buffer> device;
    std::byte* first = nullptr;
    {
        HostMemory a = pool.allocate(context(), 2048);
        first = a.data();
        device = a.device_buffer(bound_device());
    }
    EXPECT_EQ(pool.active_blocks(), 1u);  // the buffer still uses it
    HostMemory b = pool.allocate(context(), 2048);
    EXPECT_NE(b.data(), first);
    device.reset();
    EXPECT_EQ(pool.held_blocks(), 1u);
    HostMemory c = pool.allocate(context(), 2050);  // same bin as 2048
    EXPECT_EQ(c.data(), first);
}

TEST_P(HostMemoryTest, MemoryOutlivesItsPool) {
    std::optional<HostMemory> memory;
    const auto data = random_bytes(777);
    {
        HostMemoryPool pool;
        memory = pool.allocate(context(), data.size());
    }
    std::copy(data.begin(), data.end(), memory->data());
    Buffer device = Buffer::allocate(bound_device(), data.size());
    device.set(queue(), std::span<const std::byte>(memory->bytes()));
    std::vector<std::byte> back(data.size());
    device.get(queue(), std::span<std::byte>(back));
    EXPECT_EQ(back, data);
}

TEST_P(HostMemoryTest, PoolFromManyThreads) {
    HostMemoryPool pool;
    Context ctx = context();
    std::vector<std::thread> threads;
    std::vector<int> failures(8, 0);
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 50; ++round) {
                const std::size_t size = 64 + static_cast<std::size_t>((t * 131 + round * 17) % 3000);
                HostMemory memory = pool.allocate(ctx, size);
                std::memset(memory.data(), t + 1, size);
                std::this_thread::yield();
                for (std::size_t i = 0; i < size; ++i) {
                    if (memory.data()[i] != static_cast<std::byte>(t + 1)) ++failures[static_cast<std::size_t>(t)];
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (int f : failures) EXPECT_EQ(f, 0);
    EXPECT_EQ(pool.active_blocks(), 0u);
    EXPECT_EQ(pool.active_bytes(), 0u);
    EXPECT_GT(pool.held_blocks(), 0u);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(HostMemoryTest);

}  // namespace
}  // namespace kjarni::test
