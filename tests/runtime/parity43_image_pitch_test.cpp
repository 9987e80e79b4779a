// Issue 43, item 12: copies between an image and pitched buffer memory (PyCUDA's Memcpy2D /
// Memcpy3D between arrays and pitched memory). Random pixels, random pitches and origins; every
// byte of the buffer and the image checked against a host model (the box moved, the rest untouched).

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test::parity43_image_pitch {
namespace {

class Parity43ImagePitch : public DeviceTest {
protected:
    void SetUp() override {
        if (!image_limits(bound_device()).supported) GTEST_SKIP() << bound_device().name() << " has no images";
    }
};

// Byte (x, y, z) of a layout, as copy_rect reads it (pitches already resolved).
std::size_t at(const RectLayout& layout, std::size_t x, std::size_t y, std::size_t z) {
    return layout.offset + (layout.z + z) * layout.slice_pitch + (layout.y + y) * layout.pitch + layout.x + x;
}

struct Case {
    ImageShape shape;
    ImageFormat format;
    ImageRegion region;
    RectLayout layout;  // pitches given in full
    std::size_t buffer_size;
};

void run(const Queue& queue, const Case& c) {
    const BoundDevice device = queue.device();
    const Image image = Image::allocate(device, c.shape, c.format);
    const std::size_t pixel = c.format.pixel_size();
    const std::size_t width = c.shape.width, height = c.shape.height;
    std::vector<std::byte> pixels = random_bytes(image.size_bytes());
    image.upload(queue, std::span<const std::byte>(pixels));
    std::vector<std::byte> memory = random_bytes(c.buffer_size);
    const Buffer buffer = Buffer::allocate(device, c.buffer_size);
    buffer.set(queue, std::span<const std::byte>(memory));

    // Image -> pitched buffer: the box lands at the layout's places, nothing else changes.
    image.copy_region_to_pitched(queue, c.region, buffer, c.layout);
    std::vector<std::byte> expected = memory;
    const auto image_byte = [&](std::size_t x, std::size_t y, std::size_t z) {
        return ((z * height + y) * width + x) * pixel;
    };
    for (std::size_t z = 0; z < c.region.extent[2]; ++z) {
        for (std::size_t y = 0; y < c.region.extent[1]; ++y) {
            std::memcpy(&expected[at(c.layout, 0, y, z)],
                        &pixels[image_byte(c.region.origin[0], c.region.origin[1] + y, c.region.origin[2] + z)],
                        c.region.extent[0] * pixel);
        }
    }
    std::vector<std::byte> back(c.buffer_size);
    buffer.get(queue, std::span<std::byte>(back));
    ASSERT_EQ(back, expected) << to_string(c.region);

    // Pitched buffer -> image: fresh bytes into the box, the rest of the image unchanged.
    memory = random_bytes(c.buffer_size);
    buffer.set(queue, std::span<const std::byte>(memory));
    image.copy_region_from_pitched(queue, c.region, buffer, c.layout, true);
    for (std::size_t z = 0; z < c.region.extent[2]; ++z) {
        for (std::size_t y = 0; y < c.region.extent[1]; ++y) {
            std::memcpy(&pixels[image_byte(c.region.origin[0], c.region.origin[1] + y, c.region.origin[2] + z)],
                        &memory[at(c.layout, 0, y, z)], c.region.extent[0] * pixel);
        }
    }
    std::vector<std::byte> image_back(image.size_bytes());
    image.download(queue, std::span<std::byte>(image_back));
    ASSERT_EQ(image_back, pixels) << to_string(c.region);
}

TEST_P(Parity43ImagePitch, Item12ImageBufferCopiesWithAPitch) {
    const ImageFormat rgba_f32{ChannelOrder::rgba, ChannelType::float32, false};
    const ImageFormat r_u8{ChannelOrder::r, ChannelType::uint8, false};
    // 2-D: rows of a 13 x 7 box of a 37 x 19 image at pitch 40 * 16 + 24, from byte 40, box at
    // (32 bytes, 2 rows) of the layout.
    {
        const RectLayout layout{40, 40 * 16 + 24, (40 * 16 + 24) * 12, 32, 2, 0};
        run(queue(), {ImageShape::d2(37, 19), rgba_f32, ImageRegion{{5, 9, 0}, {13, 7, 1}}, layout,
                      layout.offset + layout.slice_pitch});
    }
    // 2-D of one-byte pixels with an odd pitch.
    {
        const RectLayout layout{3, 61, 61 * 30, 1, 0, 0};
        run(queue(), {ImageShape::d2(50, 29), r_u8, ImageRegion{{0, 1, 0}, {50, 28, 1}}, layout,
                      layout.offset + layout.slice_pitch});
    }
    // 3-D: a 6 x 5 x 4 box with a slice pitch of its own.
    {
        const RectLayout layout{0, 6 * 16 + 32, (6 * 16 + 32) * 7, 0, 1, 1};
        run(queue(),
            {ImageShape::d3(9, 8, 7), rgba_f32, ImageRegion{{2, 3, 1}, {6, 5, 4}}, layout, layout.slice_pitch * 6});
    }
    // A packed layout: the direct path.
    {
        const RectLayout layout{16, 0, 0, 0, 0, 0};
        const BoundDevice device = bound_device();
        const Image image = Image::allocate(device, ImageShape::d2(10, 4), rgba_f32);
        const std::vector<std::byte> pixels = random_bytes(image.size_bytes());
        image.upload(queue(), std::span<const std::byte>(pixels));
        const Buffer buffer = Buffer::allocate(device, 16 + image.size_bytes());
        image.copy_region_to_pitched(queue(), ImageRegion::whole(image.shape()), buffer, layout);
        std::vector<std::byte> back(image.size_bytes());
        buffer.get_sub_region(16, image.size_bytes()).get(queue(), std::span<std::byte>(back));
        EXPECT_EQ(back, pixels);
    }
}

TEST_P(Parity43ImagePitch, Item12PitchedCopiesRefuseWhatDoesNotFit) {
    const BoundDevice device = bound_device();
    const Image image = Image::allocate(device, ImageShape::d2(16, 16), ImageFormat{});
    const Buffer small = Buffer::allocate(device, 1024);
    // Rows of 8 pixels of 16 bytes at a pitch of 200: 16 rows need 3200 bytes.
    const RectLayout layout{0, 200, 200 * 16, 0, 0, 0};
    EXPECT_THROW(image.copy_region_to_pitched(queue(), ImageRegion{{0, 0, 0}, {8, 16, 1}}, small, layout),
                 ArgumentError);
    EXPECT_THROW(image.copy_region_from_pitched(queue(), ImageRegion{{0, 0, 0}, {8, 16, 1}}, small, layout),
                 ArgumentError);
    // A region beyond the image is refused by name before anything is allocated or enqueued.
    try {
        image.copy_region_from_pitched(queue(), ImageRegion{{10, 0, 0}, {8, 1, 1}}, small, layout);
        FAIL() << "no error";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "region");
    }
    // A buffer of another context.
    const Context other = Context::from_devices(GetParam().device());
    const Buffer elsewhere = Buffer::allocate(other.devices()[0], 4096);
    try {
        image.copy_region_to_pitched(queue(), ImageRegion{{0, 0, 0}, {2, 2, 1}}, elsewhere, layout);
        FAIL() << "no error";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "buffer");
    }
}

TEST_P(Parity43ImagePitch, Item12ThreeChannelFormatsWhereTheDriverHasThem) {
    const BoundDevice device = bound_device();
    std::size_t supported = 0;
    for (const ChannelType type :
         {ChannelType::uint8, ChannelType::uint16, ChannelType::uint32, ChannelType::int8, ChannelType::int16,
          ChannelType::int32, ChannelType::float16, ChannelType::float32}) {
        for (const bool normalized : {false, true}) {
            const ImageFormat format{ChannelOrder::rgb, type, normalized};
            if (normalized && (format.channel_size() > 2 || type == ChannelType::float16)) continue;
            SCOPED_TRACE(to_string(format));
            EXPECT_EQ(format.channels(), 3u);
            EXPECT_EQ(format.pixel_size(), 3 * format.channel_size());
            const bool has = image_format_supported(device, format);
            if (is_cuda()) {
                EXPECT_FALSE(has) << "CUDA arrays have no 3-channel formats";
            }
            if (!has) {
                try {
                    Image::allocate(device, ImageShape::d2(7, 5), format);
                    ADD_FAILURE() << "an unsupported format was allocated";
                } catch (const ArgumentError& e) {
                    EXPECT_EQ(e.argument(), "format");
                }
                continue;
            }
            ++supported;
            // Packed 3-channel pixels go in and come back byte for byte.
            const Image image = Image::allocate(device, ImageShape::d2(7, 5), format);
            EXPECT_EQ(image.size_bytes(), 7u * 5u * format.pixel_size());
            const std::vector<std::byte> pixels = random_bytes(image.size_bytes());
            image.upload(queue(), std::span<const std::byte>(pixels));
            std::vector<std::byte> back(image.size_bytes());
            image.download(queue(), std::span<std::byte>(back));
            EXPECT_EQ(back, pixels);
        }
    }
    RecordProperty("rgb_formats_supported", static_cast<int>(supported));
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Parity43ImagePitch);

}  // namespace
}  // namespace kjarni::test::parity43_image_pitch
