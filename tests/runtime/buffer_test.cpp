// Buffers: allocation, sub-regions, host and device copies (synchronous and asynchronous), peer
// copies between devices of one context, fills, and the errors for misuse.

#include <gtest/gtest.h>

#include <cstring>

#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class Buffers : public DeviceTest {
protected:
    std::vector<std::byte> read(const Buffer& buffer) {
        std::vector<std::byte> back(buffer.size());
        buffer.get(queue(), std::span<std::byte>(back));
        return back;
    }
    // Fills with a byte no random test data is likely to reproduce everywhere, so unwritten
    // bytes show.
    void poison(const Buffer& buffer) {
        const std::byte p{0xA5};
        buffer.fill(queue(), std::span(&p, 1));
    }
};

TEST_P(Buffers, RoundTripSynchronousAndAsynchronous) {
    for (std::size_t size : {std::size_t{1}, std::size_t{3}, std::size_t{4096}, std::size_t{1000003}}) {
        auto buffer = Buffer::allocate(bound_device(), size);
        EXPECT_EQ(buffer.size(), size);
        EXPECT_EQ(buffer.offset(), 0u);
        EXPECT_EQ(buffer.device(), bound_device());
        const auto data = random_bytes(size);
        buffer.set(queue(), std::span<const std::byte>(data));
        EXPECT_EQ(read(buffer), data) << size;

        const auto more = random_bytes(size);
        std::vector<std::byte> back(size);
        buffer.set(queue(), std::span<const std::byte>(more), true);
        buffer.get(queue(), std::span<std::byte>(back), true);
        queue().synchronize();
        EXPECT_EQ(back, more) << size;
    }
}

TEST_P(Buffers, PartialHostTransfersTouchOnlyTheirBytes) {
    auto buffer = Buffer::allocate(bound_device(), 1000);
    poison(buffer);
    const auto data = random_bytes(300);
    buffer.set(queue(), std::span<const std::byte>(data));
    const auto back = read(buffer);
    EXPECT_TRUE(std::equal(data.begin(), data.end(), back.begin()));
    EXPECT_TRUE(std::all_of(back.begin() + 300, back.end(), [](std::byte b) { return b == std::byte{0xA5}; }));
    std::vector<std::byte> head(17);
    buffer.get(queue(), std::span<std::byte>(head));
    EXPECT_TRUE(std::equal(head.begin(), head.end(), data.begin()));
}

TEST_P(Buffers, ZeroSizeBufferIsValid) {
    auto empty = Buffer::allocate(bound_device(), 0);
    EXPECT_EQ(empty.size(), 0u);
    empty.set(queue(), std::span<const std::byte>{});
    empty.get(queue(), std::span<std::byte>{});
    const std::byte p{1};
    empty.fill(queue(), std::span(&p, 1));
    auto other = Buffer::allocate(bound_device(), 0);
    other.set(queue(), empty);
    EXPECT_EQ(empty.get_sub_region(0, 0).size(), 0u);
    EXPECT_THROW(empty.get_sub_region(1, 0), ArgumentError);
}

TEST_P(Buffers, SubRegionsViewTheirPartOfTheAllocation) {
    const std::size_t size = 4096;
    auto buffer = Buffer::allocate(bound_device(), size);
    const auto data = random_bytes(size);
    buffer.set(queue(), std::span<const std::byte>(data));

    auto region = buffer.get_sub_region(1000, 777);
    EXPECT_EQ(region.offset(), 1000u);
    EXPECT_EQ(region.size(), 777u);
    EXPECT_EQ(region.native_handle(), buffer.native_handle());
    const auto part = read(region);
    EXPECT_TRUE(std::equal(part.begin(), part.end(), data.begin() + 1000));

    auto nested = region.get_sub_region(77, 100);
    EXPECT_EQ(nested.offset(), 1077u);
    const auto patch = random_bytes(100);
    nested.set(queue(), std::span<const std::byte>(patch));
    auto expected = data;
    std::copy(patch.begin(), patch.end(), expected.begin() + 1077);
    EXPECT_EQ(read(buffer), expected);
}

TEST_P(Buffers, SubRegionBoundsAreChecked) {
    auto buffer = Buffer::allocate(bound_device(), 100);
    EXPECT_NO_THROW(buffer.get_sub_region(100, 0));
    try {
        buffer.get_sub_region(101, 0);
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "origin");
    }
    try {
        buffer.get_sub_region(50, 51);
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "size");
    }
    // origin + size overflowing size_t must not wrap around into range.
    EXPECT_THROW(buffer.get_sub_region(50, SIZE_MAX), ArgumentError);
}

TEST_P(Buffers, DeviceToDeviceCopiesBetweenRegions) {
    const std::size_t size = 1 << 20;
    auto a = Buffer::allocate(bound_device(), size);
    auto b = Buffer::allocate(bound_device(), size);
    const auto data = random_bytes(size);
    a.set(queue(), std::span<const std::byte>(data));
    poison(b);
    b.get_sub_region(333, 5000).set(queue(), a.get_sub_region(12345, 5000));
    const auto back = read(b);
    for (std::size_t i = 0; i < size; ++i) {
        const std::byte expected = i >= 333 && i < 5333 ? data[12345 + i - 333] : std::byte{0xA5};
        ASSERT_EQ(back[i], expected) << "byte " << i;
    }
    // Within one allocation, disjoint regions may be copied; overlapping ones are refused.
    a.get_sub_region(0, 100).set(queue(), a.get_sub_region(100, 100));
    EXPECT_THROW(a.get_sub_region(0, 100).set(queue(), a.get_sub_region(50, 100)), ArgumentError);
}

TEST_P(Buffers, LargeDeviceCopiesAtOddOffsetsAndSizes) {
    // Copies of a MiB and more take the backend's copy kernel on CPU OpenCL devices (a run of bytes
    // per work item), and those of 64 KiB and more between offsets that are multiples of 16 on GPU
    // OpenCL devices (16-byte vectors, the last bytes one by one; backend/opencl/opencl_copy_kernel.hpp):
    // sizes around the thresholds and with a ragged end, offsets that are multiples of 16 and
    // offsets that are no multiple of anything, synchronous and not; every byte of the destination
    // checked, those outside the copied region still poisoned.
    const std::size_t total = (6 << 20) + 77;
    auto a = Buffer::allocate(bound_device(), total);
    auto b = Buffer::allocate(bound_device(), total);
    const auto data = random_bytes(total);
    a.set(queue(), std::span<const std::byte>(data));
    struct Case {
        std::size_t size, src, dst;
        bool async;
    };
    for (const Case c : {Case{(1 << 20) - 1, 0, 0, false}, Case{1 << 20, 0, 0, true}, Case{(1 << 20) + 1, 1, 3, false},
                         Case{(5 << 20) + 4097, 12345, 333, true}, Case{(6 << 20) + 76, 0, 1, false},
                         Case{(64 << 10) - 16, 16, 32, false}, Case{(64 << 10) + 7, 48, 4096, true},
                         Case{(6 << 20) + 61, 16, 0, false}, Case{(3 << 20) + 15, 1 << 20, 4080, true}}) {
        SCOPED_TRACE(::testing::Message() << c.size << " bytes from " << c.src << " to " << c.dst);
        poison(b);
        b.get_sub_region(c.dst, c.size).set(queue(), a.get_sub_region(c.src, c.size), c.async);
        const auto back = read(b);
        for (std::size_t i = 0; i < total; ++i) {
            const bool inside = i >= c.dst && i < c.dst + c.size;
            const std::byte expected = inside ? data[c.src + i - c.dst] : std::byte{0xA5};
            ASSERT_EQ(back[i], expected) << "byte " << i;
        }
    }
}

TEST_P(Buffers, LargeCopiesBetweenChangingBuffersCopyEachOnesBytes) {
    // The copy kernel of an OpenCL queue keeps what it was last given and sets only what changed
    // (opencl_copy_kernel.hpp): copies that change only the source, only the destination, both,
    // and buffers made after others were released (a driver may hand out a released cl_mem's
    // value again), each checked whole.
    const std::size_t size = 2 << 20;
    const auto upload = [&](const std::vector<std::byte>& data) {
        auto buffer = Buffer::allocate(bound_device(), size);
        buffer.set(queue(), std::span<const std::byte>(data));
        return buffer;
    };
    const auto a_data = random_bytes(size), b_data = random_bytes(size);
    const auto a = upload(a_data), b = upload(b_data);
    auto d = Buffer::allocate(bound_device(), size);
    auto e = Buffer::allocate(bound_device(), size);
    d.set(queue(), a);
    EXPECT_EQ(read(d), a_data);
    d.set(queue(), b);  // another source
    EXPECT_EQ(read(d), b_data);
    e.set(queue(), b);  // another destination
    EXPECT_EQ(read(e), b_data);
    e.set(queue(), d.get_sub_region(0, size));  // both
    EXPECT_EQ(read(e), b_data);
    for (int round = 0; round < 3; ++round) {
        SCOPED_TRACE(::testing::Message() << "round " << round);
        const auto data = random_bytes(size);
        const auto fresh = upload(data);  // made after the last round's were released
        auto target = Buffer::allocate(bound_device(), size);
        d.set(queue(), fresh);
        EXPECT_EQ(read(d), data);
        target.set(queue(), a);
        EXPECT_EQ(read(target), a_data);
    }
}

TEST_P(Buffers, FillWithEveryPatternSize) {
    for (std::size_t pattern_size = 1; pattern_size <= 128; pattern_size *= 2) {
        const std::size_t size = pattern_size * 37;
        auto buffer = Buffer::allocate(bound_device(), size + 2 * pattern_size);
        poison(buffer);
        const auto pattern = random_bytes(pattern_size);
        // Fill a region that starts one pattern in, so the edges show writes outside it.
        buffer.get_sub_region(pattern_size, size).fill(queue(), std::span<const std::byte>(pattern));
        const auto back = read(buffer);
        for (std::size_t i = 0; i < back.size(); ++i) {
            const bool inside = i >= pattern_size && i < pattern_size + size;
            const std::byte expected = inside ? pattern[(i - pattern_size) % pattern_size] : std::byte{0xA5};
            ASSERT_EQ(back[i], expected) << "pattern of " << pattern_size << " bytes, byte " << i;
        }
    }
}

TEST_P(Buffers, FillArgumentsAreChecked) {
    auto buffer = Buffer::allocate(bound_device(), 96);
    const auto three = random_bytes(3);
    EXPECT_THROW(buffer.fill(queue(), std::span<const std::byte>(three)), ArgumentError);
    const auto big = random_bytes(256);
    EXPECT_THROW(buffer.fill(queue(), std::span<const std::byte>(big)), ArgumentError);
    EXPECT_THROW(buffer.fill(queue(), std::span<const std::byte>{}), ArgumentError);
    const auto sixty_four = random_bytes(64);
    EXPECT_THROW(buffer.fill(queue(), std::span<const std::byte>(sixty_four)), ArgumentError);  // 96 % 64
    const auto four = random_bytes(4);
    EXPECT_THROW(buffer.get_sub_region(2, 8).fill(queue(), std::span<const std::byte>(four)), ArgumentError);
}

TEST_P(Buffers, HostTransfersLargerThanTheBufferAreRefused) {
    auto buffer = Buffer::allocate(bound_device(), 10);
    const auto data = random_bytes(11);
    try {
        buffer.set(queue(), std::span<const std::byte>(data));
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "host");
    }
    std::vector<std::byte> back(11);
    EXPECT_THROW(buffer.get(queue(), std::span<std::byte>(back)), ArgumentError);
    auto small = Buffer::allocate(bound_device(), 5);
    try {
        small.set(queue(), buffer);
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "source");
    }
}

TEST_P(Buffers, BufferOfAnotherContextIsRefused) {
    const Context other = Context::from_devices(GetParam().device());
    auto foreign = Buffer::allocate(other.devices()[0], 64);
    auto mine = Buffer::allocate(bound_device(), 64);
    try {
        mine.set(queue(), foreign);
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "source");
    }
    const auto data = random_bytes(64);
    try {
        foreign.set(queue(), std::span<const std::byte>(data));
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "queue");
        EXPECT_NE(std::string(e.what()).find("another context"), std::string::npos) << e.what();
    }
}

TEST_P(Buffers, HugeAllocationIsOutOfMemory) {
    const std::uint64_t total = GetParam().device().properties().total_memory;
    try {
        Buffer::allocate(bound_device(), static_cast<std::size_t>(total) * 4);
        FAIL() << "no exception";
    } catch (const OutOfMemoryError& e) {
        EXPECT_FALSE(e.call().empty());
        EXPECT_FALSE(e.code_name().empty());
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Buffers);

TEST(MultiDeviceBuffers, CopiesBetweenDevicesOfOneContext) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const BoundDevice d0 = context->devices()[0];
    const BoundDevice d1 = context->devices()[1];
    Queue q0(d0);
    Queue q1(d1);
    // (5 MiB + 3: on a CPU device, memory of kjarni's own mapping; backend/opencl/opencl_cpu_memory.hpp)
    const std::size_t size = (5 << 20) + 3;
    auto a = Buffer::allocate(d0, size);
    auto b = Buffer::allocate(d1, size);
    const auto data = random_bytes(size);
    a.set(q0, std::span<const std::byte>(data));
    const std::byte p{0xA5};
    b.fill(q1, std::span(&p, 1));
    q1.synchronize();
    // On the destination's queue, then back on the source's queue.
    b.set(q1, a);
    std::vector<std::byte> back(size);
    b.get(q1, std::span<std::byte>(back));
    EXPECT_EQ(back, data);
    const auto more = random_bytes(size);
    b.set(q1, std::span<const std::byte>(more));
    a.set(q0, b);
    a.get(q0, std::span<std::byte>(back));
    EXPECT_EQ(back, more);

    // A host transfer must use a queue of the buffer's own device, and says which is which.
    try {
        a.set(q1, std::span<const std::byte>(data));
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "queue");
        EXPECT_NE(std::string(e.what()).find("device 1"), std::string::npos) << e.what();
    }
    // A third device's queue may not carry a copy between two others.
    if (context->device_count() >= 3) {
        Queue q2(context->devices()[2]);
        EXPECT_THROW(b.set(q2, a), ArgumentError);
    }
}

}  // namespace
}  // namespace kjarni::test
