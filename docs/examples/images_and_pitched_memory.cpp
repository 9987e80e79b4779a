// The example of docs/images-and-pitched-memory.md: an image uploaded from the host, read in a
// kernel through a sampler with linear filtering and written by the kernel into a second image,
// copies between images, buffers and the host (whole and by region); then pitched memory, a 2-D
// fill, and 2-D and 3-D rectangle copies between the host, buffers and pitched rows. Every result
// is checked against the same operation done on the CPU over random data. The first argument names
// the device (a device specifier), else the first device is used; on a device without images the
// image half is skipped (the pitched half runs everywhere).

#include <kjarni/kjarni.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

namespace {

std::mt19937 engine(std::random_device{}());

std::vector<float> random_floats(std::size_t n) {
    std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
    std::vector<float> values(n);
    for (auto& v : values) v = uniform(engine);
    return values;
}

std::vector<std::byte> random_bytes(std::size_t n) {
    std::vector<std::byte> bytes(n);
    for (auto& b : bytes) b = static_cast<std::byte>(engine());
    return bytes;
}

bool report(bool ok, const char* what) {
    std::cout << what << ": " << (ok ? "OK" : "MISMATCH") << '\n';
    return ok;
}

//! [kernel]
// The same source on CUDA and OpenCL: the prelude's macros declare the parameters (a texture object
// or an image and its sampler; a surface or a write-only image) and read and write them.
constexpr const char* pairs_source = R"(
KERNEL void average_pairs(KJARNI_IMAGE2D_READ(src), KJARNI_IMAGE2D_WRITE(dst))
{
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    // Pixel i covers [i, i + 1): x + 1.0 lies halfway between the centres of pixels x and x + 1,
    // where linear filtering gives their mean.
    const float4 v = KJARNI_READ_IMAGE2D_F(src, x + 1.0f, y + 0.5f);
    KJARNI_WRITE_IMAGE2D_F(dst, x, y, v);
}
)";
//! [kernel]

bool images(const kjarni::Queue& queue) {
    const kjarni::BoundDevice& device = queue.device();
    constexpr std::size_t width = 40, height = 24;
    const std::vector<float> pixels = random_floats(width * height);
    bool ok = true;

    //! [images]
    // A single-channel float32 image, filled from packed host pixels (rows of `width`).
    const kjarni::ImageFormat format{kjarni::ChannelOrder::r, kjarni::ChannelType::float32};
    const kjarni::Image src = kjarni::Image::allocate(device, kjarni::ImageShape::d2(width, height), format);
    src.upload(queue, std::span<const float>(pixels));

    // The kernel reads src through a sampler and writes dst, one pixel narrower. The sampled
    // image (a texture object on CUDA) must live until the kernel has run: here, to the end of
    // the function, after the synchronous read below.
    const kjarni::Image dst = kjarni::Image::allocate(device, kjarni::ImageShape::d2(width - 1, height), format);
    const kjarni::SampledImage src_linear =
        src.sampled(kjarni::Sampler{kjarni::AddressMode::clamp_to_edge, kjarni::FilterMode::linear});
    const kjarni::Program program(device, pairs_source);
    program.kernel("average_pairs")(queue, kjarni::Sizes{width - 1, height}, std::nullopt, src_linear, dst);

    // Image to buffer (packed pixels), then the buffer to the host.
    const kjarni::Buffer packed = kjarni::Buffer::allocate(device, dst.size_bytes());
    dst.copy_to(queue, packed);
    std::vector<float> averages((width - 1) * height);
    packed.get(queue, std::span<float>(averages));
    //! [images]
    bool average_ok = true;
    for (std::size_t y = 0; y < height; ++y) {
        for (std::size_t x = 0; x + 1 < width; ++x) {
            const float a = pixels[y * width + x], b = pixels[y * width + x + 1];
            // Weights of one half are exact even in hardware's 8-bit fixed point; what remains is
            // the rounding of two products and a sum.
            const double exact = 0.5 * (static_cast<double>(a) + b);
            average_ok = average_ok && std::abs(averages[y * (width - 1) + x] - exact) <=
                                           std::ldexp(1.0, -22) * (std::abs(a) + std::abs(b));
        }
    }
    ok = report(average_ok, "image: linear filtering in a kernel, written to an image, copied to a buffer") && ok;

    //! [regions]
    // A box of 8 x 5 pixels at (30, 10): replaced from the host, then read back with its
    // surroundings through a buffer at an offset.
    const kjarni::ImageRegion box{{30, 10, 0}, {8, 5, 1}};
    const std::vector<float> patch = random_floats(box.pixels());
    src.upload_region(queue, box, std::as_bytes(std::span<const float>(patch)));
    const kjarni::ImageRegion around{{28, 9, 0}, {12, 7, 1}};
    const kjarni::Buffer staging = kjarni::Buffer::allocate(device, 64 + around.pixels() * sizeof(float));
    src.copy_region_to(queue, around, staging, /*offset=*/64);
    std::vector<float> staged(16 + around.pixels());  // 64 bytes before the pixels
    staging.get(queue, std::span<float>(staged));
    const std::vector<float> read_back(staged.begin() + 16, staged.end());
    //! [regions]
    bool region_ok = true;
    for (std::size_t y = 0; y < 7; ++y) {
        for (std::size_t x = 0; x < 12; ++x) {
            const std::size_t ix = 28 + x, iy = 9 + y;
            const bool in_box = ix >= 30 && ix < 38 && iy >= 10 && iy < 15;
            const float expected = in_box ? patch[(iy - 10) * 8 + (ix - 30)] : pixels[iy * width + ix];
            region_ok = region_ok && read_back[y * 12 + x] == expected;
        }
    }
    ok = report(region_ok, "image regions: from the host, to a buffer at an offset") && ok;
    return ok;
}

bool pitched(const kjarni::Queue& queue) {
    const kjarni::BoundDevice& device = queue.device();
    bool ok = true;

    //! [pitched]
    // 13 rows of 100 bytes, each starting at a pitch the device prefers.
    constexpr std::size_t row_bytes = 100, rows = 13;
    const kjarni::PitchedBuffer image = kjarni::allocate_pitched(device, row_bytes, rows);
    std::cout << "pitch: " << image.pitch << " bytes for rows of " << row_bytes << '\n';

    // Every row set to 0x2a, then packed host rows copied into rows 2..10, bytes 12..91. A box
    // that does not start at row 0 needs the slice pitch (here the whole buffer's rows): by
    // default a slice is only as tall as the box.
    kjarni::fill_2d(queue, image.buffer, image.pitch, row_bytes, rows, std::uint8_t{0x2a});
    const std::vector<std::byte> host = random_bytes(80 * 9);
    const kjarni::RectLayout rows_2_to_10{.pitch = image.pitch, .slice_pitch = image.pitch * rows, .x = 12, .y = 2};
    kjarni::copy_rect(queue, image.buffer, rows_2_to_10, std::span<const std::byte>(host), kjarni::RectLayout{},
                      kjarni::RectExtent{80, 9});

    // The whole 100 x 13 bytes back into packed host rows.
    std::vector<std::byte> back(row_bytes * rows);
    kjarni::copy_rect(queue, std::span<std::byte>(back), kjarni::RectLayout{}, image.buffer,
                      kjarni::RectLayout{.pitch = image.pitch}, kjarni::RectExtent{row_bytes, rows});
    //! [pitched]
    bool pitched_ok = image.pitch >= row_bytes && image.buffer.size() >= image.pitch * rows;
    for (std::size_t y = 0; y < rows; ++y) {
        for (std::size_t x = 0; x < row_bytes; ++x) {
            const bool copied = x >= 12 && x < 92 && y >= 2 && y < 11;
            const std::byte expected = copied ? host[(y - 2) * 80 + (x - 12)] : std::byte{0x2a};
            pitched_ok = pitched_ok && back[y * row_bytes + x] == expected;
        }
    }
    ok = report(pitched_ok, "pitched rows: fill_2d and 2-D copies") && ok;

    //! [box]
    // A 3-D box of 6 x 4 x 3 floats, from (1, 2, 1) of a 10 x 8 x 5 volume of floats in one buffer,
    // to (0, 0, 2) of a 6 x 4 x 6 volume in another: widths and x in bytes, y in rows, z in slices.
    const std::vector<float> volume = random_floats(10 * 8 * 5);
    const kjarni::Buffer from = kjarni::Buffer::allocate(device, volume.size() * sizeof(float));
    from.set(queue, std::span<const float>(volume));
    const kjarni::Buffer to = kjarni::Buffer::allocate(device, 6 * 4 * 6 * sizeof(float));
    to.fill(queue, std::as_bytes(std::span<const float>(volume.data(), 1)));
    const kjarni::RectLayout from_layout{.pitch = 10 * sizeof(float),
                                         .slice_pitch = 10 * 8 * sizeof(float),
                                         .x = 1 * sizeof(float),
                                         .y = 2,
                                         .z = 1};
    const kjarni::RectLayout to_layout{.pitch = 6 * sizeof(float), .slice_pitch = 6 * 4 * sizeof(float), .z = 2};
    kjarni::copy_rect(queue, to, to_layout, from, from_layout, kjarni::RectExtent{6 * sizeof(float), 4, 3});
    std::vector<float> result(6 * 4 * 6);
    to.get(queue, std::span<float>(result));
    //! [box]
    bool box_ok = true;
    for (std::size_t z = 0; z < 6; ++z) {
        for (std::size_t y = 0; y < 4; ++y) {
            for (std::size_t x = 0; x < 6; ++x) {
                const float expected = z >= 2 && z < 5 ? volume[((z - 2 + 1) * 8 + (y + 2)) * 10 + (x + 1)] : volume[0];
                box_ok = box_ok && result[(z * 4 + y) * 6 + x] == expected;
            }
        }
    }
    ok = report(box_ok, "3-D box between two buffers") && ok;
    return ok;
}

int run(const kjarni::Context& context) {
    const kjarni::Queue queue(context.devices()[0]);
    bool ok = pitched(queue);
    if (kjarni::image_limits(queue.device()).supported) ok = images(queue) && ok;
    else std::cout << queue.device().name() << " has no images: their part skipped\n";
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<kjarni::Device> devices = kjarni::devices_from_specifiers(argc > 1 ? argv[1] : "");
        if (devices.empty()) throw kjarni::NotFoundError("no device: no GPU API is available here");
        return run(kjarni::Context::from_devices(devices.front()));
    } catch (const kjarni::Error& e) {
        std::cerr << "images and pitched memory example failed: " << e.what() << '\n';
        return 1;
    }
}
