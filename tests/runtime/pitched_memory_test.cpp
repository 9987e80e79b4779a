// Pitched memory: allocation, 2-D fills of 8/16/32-bit patterns, and 2-D/3-D copies with pitches
// and origins between the host and a device, within a device and between devices, each checked
// byte for byte against the same box moved on the CPU over random contents.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kjarni/pitched_memory.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

// The box copy on the CPU; layouts with their pitches given (no defaults).
void reference_copy(std::vector<std::byte>& dst, const RectLayout& d, const std::vector<std::byte>& src,
                    const RectLayout& s, const RectExtent& e) {
    for (std::size_t z = 0; z < e.depth; ++z) {
        for (std::size_t y = 0; y < e.height; ++y) {
            const std::size_t from = s.offset + (s.z + z) * s.slice_pitch + (s.y + y) * s.pitch + s.x;
            const std::size_t to = d.offset + (d.z + z) * d.slice_pitch + (d.y + y) * d.pitch + d.x;
            std::memcpy(dst.data() + to, src.data() + from, e.width);
        }
    }
}

class PitchedMemory : public DeviceTest {
protected:
    std::vector<std::byte> read(const Buffer& buffer) {
        std::vector<std::byte> back(buffer.size());
        buffer.get(queue(), std::span<std::byte>(back));
        return back;
    }
    // A buffer of random bytes, returned with its contents.
    Buffer random_buffer(std::size_t size, std::vector<std::byte>& contents, const BoundDevice& device) {
        contents = random_bytes(size);
        Buffer buffer = Buffer::allocate(device, size);
        buffer.set(queue_for(device), std::span<const std::byte>(contents));
        return buffer;
    }
    Queue& queue_for(const BoundDevice& device) {
        if (device == bound_device()) return queue();
        if (!other_queue_) other_queue_.emplace(device);
        return *other_queue_;
    }

private:
    std::optional<Queue> other_queue_;
};

TEST_P(PitchedMemory, AllocationPadsRows) {
    for (std::size_t element_size : {4u, 8u, 16u}) {
        const PitchedBuffer pitched = allocate_pitched(bound_device(), 1001, 37, element_size);
        EXPECT_GE(pitched.pitch, 1001u);
        EXPECT_EQ(pitched.pitch % element_size, 0u);
        EXPECT_EQ(pitched.buffer.size(), pitched.pitch * 37);
        // Every row is usable: a box of the whole width round-trips.
        const auto data = random_bytes(1001 * 37);
        copy_rect(queue(), pitched.buffer, {.pitch = pitched.pitch}, std::span<const std::byte>(data), {.pitch = 1001},
                  {.width = 1001, .height = 37});
        std::vector<std::byte> back(data.size());
        copy_rect(queue(), std::span<std::byte>(back), {.pitch = 1001}, pitched.buffer, {.pitch = pitched.pitch},
                  {.width = 1001, .height = 37});
        EXPECT_EQ(back, data);
    }
    const PitchedBuffer empty = allocate_pitched(bound_device(), 0, 5);
    EXPECT_EQ(empty.buffer.size(), 0u);
    EXPECT_THROW(allocate_pitched(bound_device(), 10, 10, 3), ArgumentError);
}

TEST_P(PitchedMemory, Fill2DTouchesOnlyItsRows) {
    const std::size_t size = 64 * 1024;
    struct Case {
        std::size_t pattern_size, offset, pitch, width, height;
        bool async;
    };
    const Case cases[] = {{1, 0, 333, 101, 150, false}, {2, 256, 512, 300, 77, true}, {4, 1024, 1028, 1024, 40, false},
                          {4, 512, 64, 60, 1, true},    {1, 128, 50, 50, 300, true},  {2, 0, 200, 2, 321, false}};
    for (const Case& c : cases) {
        std::vector<std::byte> expected;
        const Buffer whole = random_buffer(size, expected, bound_device());
        const Buffer region = whole.get_sub_region(c.offset, size - c.offset);
        const auto pattern = random_bytes(c.pattern_size);
        fill_2d(queue(), region, c.pitch, c.width, c.height, std::span<const std::byte>(pattern), c.async);
        if (c.async) queue().synchronize();
        for (std::size_t row = 0; row < c.height; ++row) {
            for (std::size_t i = 0; i < c.width; ++i)
                expected[c.offset + row * c.pitch + i] = pattern[i % c.pattern_size];
        }
        EXPECT_EQ(read(whole), expected) << c.pattern_size << " " << c.offset << " " << c.pitch << " " << c.width;
    }
    // The typed overloads put the value's bytes down as the host holds them.
    std::vector<std::byte> contents;
    const Buffer buffer = random_buffer(4096, contents, bound_device());
    const auto value = random_vector<std::uint32_t>(1, 0, 0xFFFFFFFFu)[0];
    fill_2d(queue(), buffer, 64, 32, 10, value);
    const auto back = read(buffer);
    for (std::size_t row = 0; row < 10; ++row) {
        for (std::size_t i = 0; i < 32; i += 4) {
            std::uint32_t got = 0;
            std::memcpy(&got, back.data() + row * 64 + i, 4);
            ASSERT_EQ(got, value);
        }
    }
    fill_2d(queue(), buffer, 64, 32, 10, std::uint16_t{0xBEEF});
    fill_2d(queue(), buffer, 64, 32, 10, std::uint8_t{0x42});
    EXPECT_EQ(read(buffer)[64 * 9 + 31], std::byte{0x42});
}

TEST_P(PitchedMemory, Fill2DErrors) {
    const Buffer buffer = Buffer::allocate(bound_device(), 4096);
    const std::byte three[3]{};
    const std::byte eight[8]{};
    const std::byte four[4]{};
    EXPECT_THROW(fill_2d(queue(), buffer, 64, 32, 4, std::span<const std::byte>(three)), ArgumentError);
    EXPECT_THROW(fill_2d(queue(), buffer, 64, 32, 4, std::span<const std::byte>(eight)), ArgumentError);
    EXPECT_THROW(fill_2d(queue(), buffer, 64, 30, 4, std::span<const std::byte>(four)), ArgumentError);  // width
    EXPECT_THROW(fill_2d(queue(), buffer, 62, 32, 4, std::span<const std::byte>(four)), ArgumentError);  // pitch
    EXPECT_THROW(fill_2d(queue(), buffer, 32, 64, 4, std::span<const std::byte>(four)),
                 ArgumentError);  // width > pitch
    EXPECT_THROW(fill_2d(queue(), buffer, 64, 64, 65, std::span<const std::byte>(four)),
                 ArgumentError);                                                              // past the end
    EXPECT_NO_THROW(fill_2d(queue(), buffer, 64, 64, 64, std::span<const std::byte>(four)));  // exactly fits
    EXPECT_THROW(fill_2d(queue(), buffer.get_sub_region(2, 64), 64, 64, 1, std::span<const std::byte>(four)),
                 ArgumentError);  // offset in the allocation
}

// Host -> device -> device -> host, in 2-D and 3-D, with origins, offsets and pitches on every side.
TEST_P(PitchedMemory, BoxesMoveBetweenHostAndDevice) {
    struct Case {
        RectLayout host, device, device2, host_back;
        RectExtent extent;
        bool async;
    };
    const Case cases[] = {
        // 2-D: rows of 37 bytes out of a host image of pitch 50, into a device pitch of 64.
        {{.offset = 3, .pitch = 50, .slice_pitch = 50 * 40, .x = 5, .y = 2},
         {.offset = 128, .pitch = 64, .slice_pitch = 64 * 30, .x = 11, .y = 1},
         {.offset = 0, .pitch = 40, .slice_pitch = 40 * 29, .x = 0, .y = 0},
         {.offset = 7, .pitch = 45, .slice_pitch = 45 * 31, .x = 8, .y = 3},
         {.width = 37, .height = 28, .depth = 1},
         false},
        // 3-D with z origins and slices padded beyond the box.
        {{.offset = 0, .pitch = 24, .slice_pitch = 24 * 10, .x = 1, .y = 1, .z = 1},
         {.offset = 256, .pitch = 32, .slice_pitch = 32 * 12, .x = 4, .y = 2, .z = 2},
         {.offset = 8, .pitch = 20, .slice_pitch = 20 * 9, .x = 0, .y = 1, .z = 0},
         {.offset = 1, .pitch = 21, .slice_pitch = 21 * 8, .x = 2, .y = 0, .z = 3},
         {.width = 17, .height = 7, .depth = 5},
         true},
    };
    const std::size_t size = 32 * 1024;
    for (const Case& c : cases) {
        const auto host = random_bytes(size);
        std::vector<std::byte> device_expected;
        const Buffer device = random_buffer(size, device_expected, bound_device());
        std::vector<std::byte> device2_expected;
        const Buffer device2 = random_buffer(size, device2_expected, bound_device());
        std::vector<std::byte> back = random_bytes(size);
        std::vector<std::byte> back_expected = back;

        copy_rect(queue(), device, c.device, std::span<const std::byte>(host), c.host, c.extent, c.async);
        copy_rect(queue(), device2, c.device2, device, c.device, c.extent, c.async);
        copy_rect(queue(), std::span<std::byte>(back), c.host_back, device2, c.device2, c.extent, c.async);
        if (c.async) queue().synchronize();

        reference_copy(device_expected, c.device, host, c.host, c.extent);
        reference_copy(device2_expected, c.device2, device_expected, c.device, c.extent);
        reference_copy(back_expected, c.host_back, device2_expected, c.device2, c.extent);
        EXPECT_EQ(read(device), device_expected);
        EXPECT_EQ(read(device2), device2_expected);
        EXPECT_EQ(back, back_expected);
    }
}

TEST_P(PitchedMemory, SubRegionsAndDefaultPitches) {
    // Offsets of the buffers' views add to the layouts' own; pitch 0 packs the rows, slice pitch 0
    // packs the slices.
    const std::size_t size = 8192;
    std::vector<std::byte> expected;
    const Buffer whole = random_buffer(size, expected, bound_device());
    const Buffer view = whole.get_sub_region(512, 4096);
    const auto host = random_bytes(600);
    const RectExtent extent{.width = 10, .height = 6, .depth = 3};
    copy_rect(queue(), view, {.offset = 16, .pitch = 32, .slice_pitch = 32 * 8, .y = 1},
              std::span<const std::byte>(host), {}, extent);
    reference_copy(expected, {.offset = 512 + 16, .pitch = 32, .slice_pitch = 32 * 8, .y = 1}, host,
                   {.pitch = 10, .slice_pitch = 60}, extent);
    EXPECT_EQ(read(whole), expected);
}

TEST_P(PitchedMemory, PeerBoxes) {
    Context* multi = shared_multi_device_context();
    if (multi == nullptr) GTEST_SKIP() << "needs a context of two devices";
    const BoundDevice first = multi->devices()[0];
    const BoundDevice second = multi->devices()[1];
    const Queue queue_first(first);
    const Queue queue_second(second);
    const std::size_t size = 16384;
    const auto a_contents = random_bytes(size);
    const auto b_contents = random_bytes(size);
    const Buffer a = Buffer::allocate(first, size);
    const Buffer b = Buffer::allocate(second, size);
    a.set(queue_first, std::span<const std::byte>(a_contents));
    b.set(queue_second, std::span<const std::byte>(b_contents));
    const RectLayout from{.offset = 64, .pitch = 100, .slice_pitch = 100 * 20, .x = 3, .y = 4, .z = 1};
    const RectLayout to{.offset = 0, .pitch = 128, .slice_pitch = 128 * 16, .x = 20, .y = 0, .z = 2};
    const RectExtent extent{.width = 70, .height = 15, .depth = 4};
    copy_rect(queue_first, b, to, a, from, extent);  // the queue of the source's device
    queue_first.synchronize();
    auto expected = b_contents;
    reference_copy(expected, to, a_contents, from, extent);
    std::vector<std::byte> back(size);
    b.get(queue_second, std::span<std::byte>(back));
    EXPECT_EQ(back, expected);
}

TEST_P(PitchedMemory, CopyErrors) {
    const Buffer buffer = Buffer::allocate(bound_device(), 4096);
    std::vector<std::byte> host(4096);
    const RectExtent extent{.width = 16, .height = 4, .depth = 2};
    auto to_device = [&](const RectLayout& dst) {
        copy_rect(queue(), buffer, dst, std::span<const std::byte>(host), {}, extent);
    };
    EXPECT_THROW(to_device({.pitch = 20, .x = 5}), ArgumentError);                         // x + width > pitch
    EXPECT_THROW(to_device({.pitch = 8}), ArgumentError);                                  // pitch < width
    EXPECT_THROW(to_device({.pitch = 32, .slice_pitch = 100}), ArgumentError);             // not a multiple
    EXPECT_THROW(to_device({.pitch = 32, .slice_pitch = 32 * 4, .y = 1}), ArgumentError);  // rows past the slice
    EXPECT_THROW(to_device({.offset = 4000, .pitch = 32}), ArgumentError);                 // past the end
    EXPECT_THROW(to_device({.pitch = 32, .slice_pitch = 32 * 4, .z = 31}), ArgumentError);
    EXPECT_NO_THROW(to_device({.offset = 4096 - (32 * 4 + 32 * 3 + 16), .pitch = 32}));  // ends on the last byte
    // Host spans are checked the same way.
    EXPECT_THROW(copy_rect(queue(), buffer, {}, std::span<const std::byte>(host).subspan(0, 100), {}, extent),
                 ArgumentError);
    // One allocation: the spans may not meet.
    EXPECT_THROW(copy_rect(queue(), buffer, {.offset = 64}, buffer, {}, extent), ArgumentError);
    EXPECT_NO_THROW(copy_rect(queue(), buffer, {.offset = 2048}, buffer, {}, extent));
    // Nothing to move is no error and moves nothing.
    EXPECT_NO_THROW(copy_rect(queue(), buffer, {}, std::span<const std::byte>(host), {}, {.width = 0}));
    // The queue must be on the buffer's device.
    if (Context* multi = shared_multi_device_context()) {
        const Buffer elsewhere = Buffer::allocate(multi->devices()[1], 4096);
        const Queue wrong(multi->devices()[0]);
        EXPECT_THROW(copy_rect(wrong, std::span<std::byte>(host), {}, elsewhere, {}, extent), ArgumentError);
        EXPECT_THROW(copy_rect(queue(), std::span<std::byte>(host), {}, elsewhere, {}, extent), ArgumentError);
    }
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(PitchedMemory);

}  // namespace kjarni::test
