// Images: round trips of several formats and shapes, kernel reads (nearest and linear filtering,
// address modes, 1-D/2-D/3-D and layered) and writes through the prelude's macros, copies between
// images, buffers and the host, and the errors of bad input. Every result is checked against a
// CPU model over random contents. One program holds every kernel (compiled once per context).

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "support/argument_errors.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

// Each read kernel samples the image at n points; coords holds 4 floats a point (x, y, z or
// layer, unused) and out 4 values a point.
constexpr const char* image_source = R"(
#define READ_KERNEL(name, decl, call, T) \
KERNEL void name(decl, GLOBAL_MEM const float* coords, GLOBAL_MEM T* out, int n) \
{ \
    const int i = (int)get_global_id(0); \
    if (i >= n) return; \
    const float x = coords[4 * i], y = coords[4 * i + 1], z = coords[4 * i + 2]; \
    const int layer_1d = (int)y, layer_2d = (int)z; \
    (void)z; (void)layer_1d; (void)layer_2d; \
    call; \
    out[4 * i] = v.x; out[4 * i + 1] = v.y; out[4 * i + 2] = v.z; out[4 * i + 3] = v.w; \
}
READ_KERNEL(read_2d_f, KJARNI_IMAGE2D_READ(img), const float4 v = KJARNI_READ_IMAGE2D_F(img, x, y), float)
READ_KERNEL(read_2d_i, KJARNI_IMAGE2D_READ(img), const int4 v = KJARNI_READ_IMAGE2D_I(img, x, y), int)
READ_KERNEL(read_2d_ui, KJARNI_IMAGE2D_READ(img), const uint4 v = KJARNI_READ_IMAGE2D_UI(img, x, y), unsigned int)
READ_KERNEL(read_1d_f, KJARNI_IMAGE1D_READ(img), const float4 v = KJARNI_READ_IMAGE1D_F(img, x), float)
READ_KERNEL(read_3d_f, KJARNI_IMAGE3D_READ(img), const float4 v = KJARNI_READ_IMAGE3D_F(img, x, y, z), float)
READ_KERNEL(read_1d_array_f, KJARNI_IMAGE1D_ARRAY_READ(img),
            const float4 v = KJARNI_READ_IMAGE1D_ARRAY_F(img, x, layer_1d), float)
READ_KERNEL(read_2d_array_f, KJARNI_IMAGE2D_ARRAY_READ(img),
            const float4 v = KJARNI_READ_IMAGE2D_ARRAY_F(img, x, y, layer_2d), float)

// Writes pixel (x, y) (of layer z for the array) from 4 values a pixel.
KERNEL void write_2d_f(KJARNI_IMAGE2D_WRITE(img), GLOBAL_MEM const float* values, int width)
{
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    const GLOBAL_MEM float* p = values + 4 * (y * width + x);
    KJARNI_WRITE_IMAGE2D_F(img, x, y, KJARNI_MAKE_FLOAT4(p[0], p[1], p[2], p[3]));
}
KERNEL void write_2d_i(KJARNI_IMAGE2D_WRITE(img), GLOBAL_MEM const int* values, int width)
{
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    const GLOBAL_MEM int* p = values + 4 * (y * width + x);
    KJARNI_WRITE_IMAGE2D_I(img, x, y, KJARNI_MAKE_INT4(p[0], p[1], p[2], p[3]));
}
KERNEL void write_2d_ui(KJARNI_IMAGE2D_WRITE(img), GLOBAL_MEM const unsigned int* values, int width)
{
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    const GLOBAL_MEM unsigned int* p = values + 4 * (y * width + x);
    KJARNI_WRITE_IMAGE2D_UI(img, x, y, KJARNI_MAKE_UINT4(p[0], p[1], p[2], p[3]));
}
KERNEL void write_2d_array_f(KJARNI_IMAGE2D_ARRAY_WRITE(img), GLOBAL_MEM const float* values, int width, int height)
{
    const int x = (int)get_global_id(0), y = (int)get_global_id(1), layer = (int)get_global_id(2);
    const GLOBAL_MEM float* p = values + 4 * ((layer * height + y) * width + x);
    KJARNI_WRITE_IMAGE2D_ARRAY_F(img, x, y, layer, KJARNI_MAKE_FLOAT4(p[0], p[1], p[2], p[3]));
}
)";

constexpr ImageFormat rgba_f32{ChannelOrder::rgba, ChannelType::float32, false};

// Random pixels that survive any copy bit for bit: floats finite (no NaN payloads to canonicalise),
// half floats finite too, integers anything.
std::vector<std::byte> random_pixels(const ImageFormat& format, std::size_t pixels) {
    const std::size_t values = pixels * format.channels();
    std::vector<std::byte> bytes(values * format.channel_size());
    if (format.type == ChannelType::float32) {
        const auto v = random_vector<float>(values, -100.0f, 100.0f);
        std::memcpy(bytes.data(), v.data(), bytes.size());
    } else if (format.type == ChannelType::float16) {
        auto v = random_vector<std::uint16_t>(values, 0, 0xFFFF);
        for (auto& h : v) h = static_cast<std::uint16_t>(h & 0xBBFF);  // exponent never all ones
        std::memcpy(bytes.data(), v.data(), bytes.size());
    } else {
        bytes = random_bytes(bytes.size());
    }
    return bytes;
}

float centre(std::size_t i) { return static_cast<float>(i) + 0.5f; }

// The texel (clamped to the edge) of a 2-D single-channel float image.
float texel(const std::vector<float>& image, std::size_t width, std::size_t height, long x, long y) {
    x = std::clamp(x, 0L, static_cast<long>(width) - 1);
    y = std::clamp(y, 0L, static_cast<long>(height) - 1);
    return image[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)];
}

class Images : public DeviceTest {
protected:
    void SetUp() override {
        limits_ = image_limits(bound_device());
        if (!limits_.supported) {
            GTEST_SKIP() << bound_device().name() << " has no image support (CL_DEVICE_IMAGE_SUPPORT false)";
        }
    }
    // One program for every test of a context: the context's program cache finds it again.
    Program& program() {
        if (!program_) program_.emplace(bound_device(), image_source);
        return *program_;
    }
    Image upload_random(const ImageShape& shape, const ImageFormat& format, std::vector<std::byte>& contents) {
        Image image = Image::allocate(bound_device(), shape, format);
        contents = random_pixels(format, shape.pixels());
        image.upload(queue(), std::span<const std::byte>(contents));
        return image;
    }
    // Runs a read kernel at `coords` (4 floats a point); returns 4 values a point.
    template <class T>
    std::vector<T> sample(const char* kernel, const SampledImage& image, const std::vector<float>& coords) {
        const std::size_t n = coords.size() / 4;
        Buffer in = Buffer::allocate(bound_device(), coords.size() * sizeof(float));
        in.set(queue(), std::span<const float>(coords));
        Buffer out = Buffer::allocate(bound_device(), n * 4 * sizeof(T));
        out.fill(queue(), std::as_bytes(std::span<const std::uint8_t>(poison_.data(), 1)));
        program().kernel(kernel)(queue(), Sizes{n}, std::nullopt, image, in, out, static_cast<int>(n));
        std::vector<T> result(n * 4);
        out.get(queue(), std::span<T>(result));
        return result;
    }
    bool supported(const ImageFormat& format) {
        try {
            Image::allocate(bound_device(), ImageShape::d2(2, 2), format);
            return true;
        } catch (const ArgumentError& error) {
            if (error.argument() != "format") throw;
            return false;
        }
    }

    ImageLimits limits_;

private:
    std::optional<Program> program_;
    const std::array<std::uint8_t, 1> poison_{0xA5};
};

TEST_P(Images, RoundTripKeepsEveryByte) {
    const std::vector<ImageFormat> formats = {
        {ChannelOrder::r, ChannelType::uint8, false},      {ChannelOrder::rg, ChannelType::int16, false},
        {ChannelOrder::rgba, ChannelType::float32, false}, {ChannelOrder::r, ChannelType::float16, false},
        {ChannelOrder::rgba, ChannelType::uint8, true},    {ChannelOrder::rg, ChannelType::uint32, false},
        {ChannelOrder::r, ChannelType::int8, true},        {ChannelOrder::rgba, ChannelType::int32, false},
        {ChannelOrder::rgba, ChannelType::float16, false}, {ChannelOrder::rgba, ChannelType::int16, true},
    };
    const std::vector<ImageShape> shapes = {ImageShape::d1(61), ImageShape::d2(37, 23), ImageShape::d3(13, 7, 5),
                                            ImageShape::layered_1d(29, 4), ImageShape::layered_2d(11, 9, 3)};
    int checked = 0;
    for (const ImageFormat& format : formats) {
        if (!supported(format)) {
            std::printf("%s: not supported by %s, skipped\n", to_string(format).c_str(), bound_device().name().c_str());
            continue;
        }
        for (const ImageShape& shape : shapes) {
            std::vector<std::byte> contents;
            const Image image = upload_random(shape, format, contents);
            EXPECT_EQ(image.size_bytes(), contents.size());
            std::vector<std::byte> back(contents.size(), std::byte{0x5A});
            image.download(queue(), std::span<std::byte>(back));
            EXPECT_EQ(back, contents) << to_string(format) << ", " << to_string(shape);
            ++checked;
        }
    }
    EXPECT_GE(checked, 15) << "too few formats supported to mean much";
}

TEST_P(Images, NearestReadsThePixelTheCoordinateFallsIn) {
    const std::size_t width = 19, height = 13;
    std::vector<std::byte> bytes;
    const Image image = upload_random(ImageShape::d2(width, height), rgba_f32, bytes);
    std::vector<float> pixels(bytes.size() / 4);
    std::memcpy(pixels.data(), bytes.data(), bytes.size());
    // Every pixel, at a random point inside it (unnormalised coordinates: pixel i covers [i, i + 1)).
    std::vector<float> coords;
    const auto offsets = random_vector<float>(width * height * 2, 0.05f, 0.95f);
    for (std::size_t y = 0; y < height; ++y) {
        for (std::size_t x = 0; x < width; ++x) {
            const std::size_t i = y * width + x;
            coords.insert(coords.end(),
                          {static_cast<float>(x) + offsets[2 * i], static_cast<float>(y) + offsets[2 * i + 1], 0, 0});
        }
    }
    const auto got =
        sample<float>("read_2d_f", image.sampled({AddressMode::clamp_to_edge, FilterMode::nearest, false}), coords);
    for (std::size_t i = 0; i < width * height; ++i) {
        for (std::size_t c = 0; c < 4; ++c)
            ASSERT_EQ(got[4 * i + c], pixels[4 * i + c]) << "pixel " << i << " channel " << c;
    }
}

TEST_P(Images, IntegerFormatsReadAsIntegersAndNormalisedOnesAsFractions) {
    const std::size_t width = 16, height = 8;
    std::vector<float> coords;
    for (std::size_t y = 0; y < height; ++y) {
        for (std::size_t x = 0; x < width; ++x) coords.insert(coords.end(), {centre(x), centre(y), 0, 0});
    }
    const std::size_t n = width * height;
    // rgba formats: OpenCL requires them of every device with images (other orders are optional).
    {  // rgba uint16: read_imageui, exact
        const ImageFormat format{ChannelOrder::rgba, ChannelType::uint16, false};
        std::vector<std::byte> bytes;
        const Image image = upload_random(ImageShape::d2(width, height), format, bytes);
        std::vector<std::uint16_t> values(n * 4);
        std::memcpy(values.data(), bytes.data(), bytes.size());
        const auto got = sample<unsigned int>("read_2d_ui", image.sampled({}), coords);
        for (std::size_t i = 0; i < n * 4; ++i) ASSERT_EQ(got[i], values[i]) << i;
    }
    {  // rgba int8: read_imagei, sign-extended, exact
        const ImageFormat format{ChannelOrder::rgba, ChannelType::int8, false};
        std::vector<std::byte> bytes;
        const Image image = upload_random(ImageShape::d2(width, height), format, bytes);
        const auto got = sample<int>("read_2d_i", image.sampled({}), coords);
        for (std::size_t i = 0; i < n * 4; ++i)
            ASSERT_EQ(got[i], static_cast<int>(static_cast<std::int8_t>(bytes[i]))) << i;
    }
    {  // rgba uint8 normalised: v / 255, to float precision
        const ImageFormat format{ChannelOrder::rgba, ChannelType::uint8, true};
        std::vector<std::byte> bytes;
        const Image image = upload_random(ImageShape::d2(width, height), format, bytes);
        const auto got = sample<float>("read_2d_f", image.sampled({}), coords);
        for (std::size_t i = 0; i < n * 4; ++i) {
            ASSERT_NEAR(got[i], static_cast<float>(std::to_integer<int>(bytes[i])) / 255.0f, 1e-6f) << i;
        }
    }
}

TEST_P(Images, OneDThreeDAndLayeredReads) {
    struct Case {
        const char* kernel;
        ImageShape shape;
    };
    const std::vector<Case> cases = {{"read_1d_f", ImageShape::d1(53)},
                                     {"read_3d_f", ImageShape::d3(9, 7, 5)},
                                     {"read_1d_array_f", ImageShape::layered_1d(23, 6)},
                                     {"read_2d_array_f", ImageShape::layered_2d(11, 5, 4)}};
    for (const Case& c : cases) {
        std::vector<std::byte> bytes;
        const Image image = upload_random(c.shape, rgba_f32, bytes);
        std::vector<float> pixels(bytes.size() / 4);
        std::memcpy(pixels.data(), bytes.data(), bytes.size());
        // The packed index of every pixel (layers follow each other like slices); the second or
        // third coordinate of a layered image is its layer, given as an integer.
        const std::size_t rows = c.shape.dimensions == 1 ? std::max<std::size_t>(c.shape.layers, 1) : c.shape.height;
        const std::size_t slices = c.shape.dimensions == 3   ? c.shape.depth
                                   : c.shape.dimensions == 2 ? std::max<std::size_t>(c.shape.layers, 1)
                                                             : 1;
        const bool layered_rows = c.shape.dimensions == 1 && c.shape.layered();
        const bool layered_slices = c.shape.dimensions == 2 && c.shape.layered();
        std::vector<float> coords;
        for (std::size_t z = 0; z < slices; ++z) {
            for (std::size_t y = 0; y < rows; ++y) {
                for (std::size_t x = 0; x < c.shape.width; ++x) {
                    coords.insert(coords.end(), {centre(x), layered_rows ? static_cast<float>(y) : centre(y),
                                                 layered_slices ? static_cast<float>(z) : centre(z), 0});
                }
            }
        }
        const auto got = sample<float>(c.kernel, image.sampled({}), coords);
        ASSERT_EQ(got.size(), pixels.size());
        for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], pixels[i]) << c.kernel << " value " << i;
    }
}

// Linear filtering against a CPU bilinear model. Hardware texture units compute the weights in
// 9-bit fixed point with 8 fractional bits (CUDA's documentation; NVIDIA's OpenCL uses the same
// units): each weight may be off by up to 1/256, which moves the result by at most 1/256 of the
// spread of the two values it blends, per axis. So the tolerance is 2/256 of the spread of the
// four pixels blended, plus float rounding of the sum. CPU implementations (PoCL) use float
// weights and land well inside it.
TEST_P(Images, LinearFilteringMatchesBilinearInterpolation) {
    const std::size_t width = 23, height = 17;
    const ImageFormat format{ChannelOrder::r, ChannelType::float32, false};
    std::vector<std::byte> bytes;
    const Image image = upload_random(ImageShape::d2(width, height), format, bytes);
    std::vector<float> pixels(width * height);
    std::memcpy(pixels.data(), bytes.data(), bytes.size());
    const std::size_t n = 500;
    const auto xs = random_vector<float>(n, -1.0f, static_cast<float>(width) + 1.0f);
    const auto ys = random_vector<float>(n, -1.0f, static_cast<float>(height) + 1.0f);
    std::vector<float> coords;
    for (std::size_t i = 0; i < n; ++i) coords.insert(coords.end(), {xs[i], ys[i], 0, 0});
    for (const bool normalized : {false, true}) {
        std::vector<float> at = coords;
        if (normalized) {
            for (std::size_t i = 0; i < n; ++i) {
                at[4 * i] /= static_cast<float>(width);
                at[4 * i + 1] /= static_cast<float>(height);
            }
        }
        const auto got =
            sample<float>("read_2d_f", image.sampled({AddressMode::clamp_to_edge, FilterMode::linear, normalized}), at);
        for (std::size_t i = 0; i < n; ++i) {
            // The pixel centres around the point, and the weights of the one after them.
            const double u = static_cast<double>(xs[i]) - 0.5, v = static_cast<double>(ys[i]) - 0.5;
            const long x0 = static_cast<long>(std::floor(u)), y0 = static_cast<long>(std::floor(v));
            const double a = u - static_cast<double>(x0), b = v - static_cast<double>(y0);
            const double t00 = texel(pixels, width, height, x0, y0), t10 = texel(pixels, width, height, x0 + 1, y0);
            const double t01 = texel(pixels, width, height, x0, y0 + 1),
                         t11 = texel(pixels, width, height, x0 + 1, y0 + 1);
            const double expected = (1 - a) * (1 - b) * t00 + a * (1 - b) * t10 + (1 - a) * b * t01 + a * b * t11;
            const double spread = std::max({t00, t10, t01, t11}) - std::min({t00, t10, t01, t11});
            const double tolerance =
                2.0 / 256.0 * spread + 1e-5 * std::max({std::abs(t00), std::abs(t10), std::abs(t01), std::abs(t11)});
            ASSERT_NEAR(got[4 * i], expected, tolerance)
                << "at (" << xs[i] << ", " << ys[i] << ")" << (normalized ? " normalised" : "");
        }
    }
}

TEST_P(Images, AddressModesOutsideTheImage) {
    const std::size_t width = 7, height = 5;
    std::vector<std::byte> bytes;
    const Image image = upload_random(ImageShape::d2(width, height), rgba_f32, bytes);
    std::vector<float> pixels(bytes.size() / 4);
    std::memcpy(pixels.data(), bytes.data(), bytes.size());
    const auto pixel = [&](long x, long y, std::size_t c) {
        return pixels[4 * (static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)) + c];
    };
    // Pixel centres from 3 before the image to 3 past it in each direction.
    std::vector<std::pair<long, long>> points;
    for (long y = -3; y < static_cast<long>(height) + 3; ++y) {
        for (long x = -3; x < static_cast<long>(width) + 3; ++x) points.emplace_back(x, y);
    }
    const auto run = [&](const Sampler& sampler) {
        std::vector<float> coords;
        for (const auto& [x, y] : points) {
            float cx = static_cast<float>(x) + 0.5f, cy = static_cast<float>(y) + 0.5f;
            if (sampler.normalized_coordinates) {
                cx /= static_cast<float>(width);
                cy /= static_cast<float>(height);
            }
            coords.insert(coords.end(), {cx, cy, 0, 0});
        }
        return sample<float>("read_2d_f", image.sampled(sampler), coords);
    };
    const auto wrap = [](long i, long n) { return ((i % n) + n) % n; };
    const auto mirror = [](long i, long n) {
        const long period = ((i % (2 * n)) + 2 * n) % (2 * n);
        return period < n ? period : 2 * n - 1 - period;
    };
    const long w = static_cast<long>(width), h = static_cast<long>(height);
    for (const bool normalized : {false, true}) {
        const auto edge = run({AddressMode::clamp_to_edge, FilterMode::nearest, normalized});
        const auto border = run({AddressMode::clamp, FilterMode::nearest, normalized});
        for (std::size_t i = 0; i < points.size(); ++i) {
            const auto [x, y] = points[i];
            const bool inside = x >= 0 && x < w && y >= 0 && y < h;
            for (std::size_t c = 0; c < 4; ++c) {
                ASSERT_EQ(edge[4 * i + c], pixel(std::clamp(x, 0L, w - 1), std::clamp(y, 0L, h - 1), c))
                    << "clamp_to_edge at (" << x << ", " << y << ")";
                // The border of an rgba format is all zero on both APIs.
                ASSERT_EQ(border[4 * i + c], inside ? pixel(x, y, c) : 0.0f) << "clamp at (" << x << ", " << y << ")";
            }
        }
    }
    const auto repeat = run({AddressMode::repeat, FilterMode::nearest, true});
    const auto mirrored = run({AddressMode::mirrored_repeat, FilterMode::nearest, true});
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto [x, y] = points[i];
        for (std::size_t c = 0; c < 4; ++c) {
            ASSERT_EQ(repeat[4 * i + c], pixel(wrap(x, w), wrap(y, h), c)) << "repeat at (" << x << ", " << y << ")";
            ASSERT_EQ(mirrored[4 * i + c], pixel(mirror(x, w), mirror(y, h), c))
                << "mirrored_repeat at (" << x << ", " << y << ")";
        }
    }
}

TEST_P(Images, KernelWritesConvertToTheChannelType) {
    const std::size_t width = 21, height = 11, n = width * height;
    const Sizes grid{width, height};
    {  // rgba float32 and a 2-D array of it: exact
        const auto values = random_vector<float>(n * 4, -50.0f, 50.0f);
        Buffer in = Buffer::allocate(bound_device(), values.size() * sizeof(float));
        in.set(queue(), std::span<const float>(values));
        const Image image = Image::allocate(bound_device(), ImageShape::d2(width, height), rgba_f32);
        program().kernel("write_2d_f")(queue(), grid, std::nullopt, image, in, static_cast<int>(width));
        std::vector<float> back(n * 4);
        image.download(queue(), std::span<float>(back));
        EXPECT_EQ(back, values);

        const std::size_t layers = 3;
        const auto layered_values = random_vector<float>(n * 4 * layers, -50.0f, 50.0f);
        Buffer layered_in = Buffer::allocate(bound_device(), layered_values.size() * sizeof(float));
        layered_in.set(queue(), std::span<const float>(layered_values));
        const Image layered = Image::allocate(bound_device(), ImageShape::layered_2d(width, height, layers), rgba_f32);
        program().kernel("write_2d_array_f")(queue(), Sizes{width, height, layers}, std::nullopt, layered, layered_in,
                                             static_cast<int>(width), static_cast<int>(height));
        std::vector<float> layered_back(layered_values.size());
        layered.download(queue(), std::span<float>(layered_back));
        EXPECT_EQ(layered_back, layered_values);
    }
    // rgba formats: OpenCL requires them of every device with images (other orders are optional).
    {  // rgba uint8 normalised: round(clamp(v, 0, 1) * 255); values past [0, 1] saturate
        const auto values = random_vector<float>(n * 4, -0.2f, 1.2f);
        Buffer in = Buffer::allocate(bound_device(), values.size() * sizeof(float));
        in.set(queue(), std::span<const float>(values));
        const Image image = Image::allocate(bound_device(), ImageShape::d2(width, height),
                                            {ChannelOrder::rgba, ChannelType::uint8, true});
        program().kernel("write_2d_f")(queue(), grid, std::nullopt, image, in, static_cast<int>(width));
        std::vector<std::uint8_t> back(n * 4);
        image.download(queue(), std::span<std::uint8_t>(back));
        for (std::size_t i = 0; i < n * 4; ++i) {
            const float v = std::clamp(values[i], 0.0f, 1.0f) * 255.0f;
            // OpenCL allows the float to normalised-integer conversion 0.6 ULP of error (NVIDIA's
            // hardware takes it: 65.55 becomes 65), so the stored integer is within 0.6 of v.
            ASSERT_LE(std::abs(static_cast<double>(back[i]) - static_cast<double>(v)), 0.6)
                << "value " << i << " from " << values[i];
        }
    }
    {  // rgba int8: write_imagei saturates
        const auto values = random_vector<int>(n * 4, -300, 300);
        Buffer in = Buffer::allocate(bound_device(), values.size() * sizeof(int));
        in.set(queue(), std::span<const int>(values));
        const Image image = Image::allocate(bound_device(), ImageShape::d2(width, height),
                                            {ChannelOrder::rgba, ChannelType::int8, false});
        program().kernel("write_2d_i")(queue(), grid, std::nullopt, image, in, static_cast<int>(width));
        std::vector<std::int8_t> back(n * 4);
        image.download(queue(), std::span<std::int8_t>(back));
        for (std::size_t i = 0; i < n * 4; ++i) ASSERT_EQ(back[i], std::clamp(values[i], -128, 127)) << i;
    }
    {  // rgba uint16: write_imageui saturates
        const auto values = random_vector<unsigned int>(n * 4, 0, 100000);
        Buffer in = Buffer::allocate(bound_device(), values.size() * sizeof(unsigned int));
        in.set(queue(), std::span<const unsigned int>(values));
        const Image image = Image::allocate(bound_device(), ImageShape::d2(width, height),
                                            {ChannelOrder::rgba, ChannelType::uint16, false});
        program().kernel("write_2d_ui")(queue(), grid, std::nullopt, image, in, static_cast<int>(width));
        std::vector<std::uint16_t> back(n * 4);
        image.download(queue(), std::span<std::uint16_t>(back));
        for (std::size_t i = 0; i < n * 4; ++i) ASSERT_EQ(back[i], std::min(values[i], 65535u)) << i;
    }
}

TEST_P(Images, CopiesBetweenImagesBuffersAndTheHost) {
    const ImageFormat format{ChannelOrder::rgba, ChannelType::int16, false};
    for (const ImageShape& shape : {ImageShape::d2(33, 17), ImageShape::d3(8, 6, 5), ImageShape::layered_1d(40, 3)}) {
        const std::size_t size = shape.pixels() * format.pixel_size();
        const auto contents = random_pixels(format, shape.pixels());
        // Buffer -> image -> image -> buffer (at an offset) -> host, and image -> host.
        Buffer source = Buffer::allocate(bound_device(), size);
        source.set(queue(), std::span<const std::byte>(contents));
        const Image first = Image::allocate(bound_device(), shape, format);
        const Image second = Image::allocate(bound_device(), shape, format);
        first.copy_from(queue(), source);
        second.copy_from(queue(), first, true);
        Buffer target = Buffer::allocate(bound_device(), size + 256);
        target.fill(queue(), std::as_bytes(std::span<const std::uint8_t>(std::array<std::uint8_t, 1>{0xEE})));
        second.copy_to(queue(), target.get_sub_region(256, size), true);
        queue().synchronize();
        std::vector<std::byte> back(size + 256);
        target.get(queue(), std::span<std::byte>(back));
        EXPECT_TRUE(std::all_of(back.begin(), back.begin() + 256, [](std::byte b) { return b == std::byte{0xEE}; }))
            << "bytes before the region were written";
        EXPECT_TRUE(std::equal(contents.begin(), contents.end(), back.begin() + 256)) << to_string(shape);
        std::vector<std::byte> direct(size);
        second.download(queue(), std::span<std::byte>(direct), true);
        queue().synchronize();
        EXPECT_EQ(direct, contents) << to_string(shape);
    }
}

// A CPU model of an image's packed pixels, in region coordinates (a layer after the dimensions).
struct PixelModel {
    std::array<std::size_t, 3> size;
    std::size_t pixel;
    std::vector<std::byte> bytes;

    std::size_t at(std::size_t x, std::size_t y, std::size_t z) const {
        return ((z * size[1] + y) * size[0] + x) * pixel;
    }
    // The packed pixels of a box.
    std::vector<std::byte> extract(const ImageRegion& r) const {
        std::vector<std::byte> out;
        for (std::size_t z = 0; z < r.extent[2]; ++z)
            for (std::size_t y = 0; y < r.extent[1]; ++y) {
                const auto first =
                    bytes.begin() + static_cast<std::ptrdiff_t>(at(r.origin[0], r.origin[1] + y, r.origin[2] + z));
                out.insert(out.end(), first, first + static_cast<std::ptrdiff_t>(r.extent[0] * pixel));
            }
        return out;
    }
    // Stores packed pixels into the box of `extent` at `origin`.
    void store(const std::array<std::size_t, 3>& origin, const std::array<std::size_t, 3>& extent,
               std::span<const std::byte> packed) {
        std::size_t from = 0;
        for (std::size_t z = 0; z < extent[2]; ++z)
            for (std::size_t y = 0; y < extent[1]; ++y) {
                const std::size_t row = extent[0] * pixel;
                std::memcpy(bytes.data() + at(origin[0], origin[1] + y, origin[2] + z), packed.data() + from, row);
                from += row;
            }
    }
};

// A random box inside `size` (at least one pixel in every coordinate).
ImageRegion random_region(const std::array<std::size_t, 3>& size) {
    ImageRegion region;
    for (std::size_t c = 0; c < 3; ++c) {
        region.extent[c] = static_cast<std::size_t>(random_vector<int>(1, 1, static_cast<int>(size[c]))[0]);
        region.origin[c] =
            static_cast<std::size_t>(random_vector<int>(1, 0, static_cast<int>(size[c] - region.extent[c]))[0]);
    }
    return region;
}

// Sub-region copies image <-> host, image <-> buffer (at an offset) and image <-> image of another
// size, each checked against the CPU model over random contents, with the pixels outside the box
// left as they were.
TEST_P(Images, SubRegionCopiesMatchTheHostModel) {
    const ImageFormat format{ChannelOrder::rgba, ChannelType::int16, false};
    const std::size_t pixel = format.pixel_size();
    const std::array<std::pair<ImageShape, ImageShape>, 5> shapes{{
        {ImageShape::d1(50), ImageShape::d1(23)},
        {ImageShape::d2(33, 17), ImageShape::d2(20, 25)},
        {ImageShape::d3(9, 7, 5), ImageShape::d3(6, 8, 4)},
        {ImageShape::layered_1d(40, 4), ImageShape::layered_1d(31, 6)},
        {ImageShape::layered_2d(12, 9, 3), ImageShape::layered_2d(10, 11, 2)},
    }};
    for (const auto& [shape, other_shape] : shapes) {
        SCOPED_TRACE(to_string(shape));
        PixelModel model{ImageRegion::whole(shape).extent, pixel, {}};
        const Image image = upload_random(shape, format, model.bytes);
        const auto check_whole = [&](const Image& which, const PixelModel& expected, const char* step) {
            std::vector<std::byte> whole(expected.bytes.size());
            which.download(queue(), std::span<std::byte>(whole));
            EXPECT_EQ(whole, expected.bytes) << step;
        };
        // Image -> host.
        const ImageRegion read_box = random_region(model.size);
        std::vector<std::byte> part(read_box.pixels() * pixel);
        image.download_region(queue(), read_box, std::span<std::byte>(part));
        EXPECT_EQ(part, model.extract(read_box)) << to_string(read_box);
        // Host -> image (asynchronously, then waited for).
        const ImageRegion write_box = random_region(model.size);
        const auto written = random_pixels(format, write_box.pixels());
        image.upload_region(queue(), write_box, std::span<const std::byte>(written), true);
        queue().synchronize();
        model.store(write_box.origin, write_box.extent, written);
        check_whole(image, model, "after upload_region");
        // Image -> buffer, at an offset; the bytes around it untouched.
        const ImageRegion out_box = random_region(model.size);
        const std::size_t offset = 3 * pixel;
        const std::size_t out_size = out_box.pixels() * pixel;
        Buffer buffer = Buffer::allocate(bound_device(), offset + out_size + 64);
        buffer.fill(queue(), std::as_bytes(std::span<const std::uint8_t>(std::array<std::uint8_t, 1>{0xEE})));
        image.copy_region_to(queue(), out_box, buffer, offset);
        std::vector<std::byte> back(buffer.size());
        buffer.get(queue(), std::span<std::byte>(back));
        const auto expected_out = model.extract(out_box);
        EXPECT_TRUE(
            std::equal(expected_out.begin(), expected_out.end(), back.begin() + static_cast<std::ptrdiff_t>(offset)))
            << to_string(out_box);
        EXPECT_TRUE(std::all_of(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(offset),
                                [](std::byte b) { return b == std::byte{0xEE}; }));
        EXPECT_TRUE(std::all_of(back.begin() + static_cast<std::ptrdiff_t>(offset + out_size), back.end(),
                                [](std::byte b) { return b == std::byte{0xEE}; }));
        // Buffer -> image, from an offset.
        const ImageRegion in_box = random_region(model.size);
        const auto incoming = random_pixels(format, in_box.pixels());
        Buffer source = Buffer::allocate(bound_device(), offset + incoming.size());
        source.get_sub_region(offset, incoming.size()).set(queue(), std::span<const std::byte>(incoming));
        image.copy_region_from(queue(), in_box, source, offset);
        model.store(in_box.origin, in_box.extent, incoming);
        check_whole(image, model, "after copy_region_from(buffer)");
        // Image -> image of another size: a box that fits both, at a random place in the other.
        PixelModel other{ImageRegion::whole(other_shape).extent, pixel, {}};
        const Image target = upload_random(other_shape, format, other.bytes);
        std::array<std::size_t, 3> common{};
        for (std::size_t c = 0; c < 3; ++c) common[c] = std::min(model.size[c], other.size[c]);
        ImageRegion from = random_region(common);
        from.origin = random_region(model.size).origin;
        for (std::size_t c = 0; c < 3; ++c) from.origin[c] = std::min(from.origin[c], model.size[c] - from.extent[c]);
        std::array<std::size_t, 3> to{};
        for (std::size_t c = 0; c < 3; ++c) {
            to[c] =
                static_cast<std::size_t>(random_vector<int>(1, 0, static_cast<int>(other.size[c] - from.extent[c]))[0]);
        }
        target.copy_region_from(queue(), image, from, to);
        other.store(to, from.extent, model.extract(from));
        check_whole(target, other, "after copy_region_from(image)");
    }
}

TEST_P(Images, SubRegionBadInputIsTyped) {
    const Image image = Image::allocate(bound_device(), ImageShape::d2(8, 4), rgba_f32);
    std::vector<std::byte> host(16 * 4);
    const ImageRegion box{{2, 1, 0}, {4, 1, 1}};  // 4 pixels of 16 bytes
    expect_argument("region", [&] {
        image.upload_region(queue(), {{5, 0, 0}, {4, 1, 1}}, std::span<const std::byte>(host));
    });
    expect_argument("region", [&] {
        image.download_region(queue(), {{0, 0, 0}, {0, 1, 1}}, std::span<std::byte>(host));
    });
    expect_argument("region", [&] {
        image.download_region(queue(), {{0, 0, 1}, {4, 1, 1}}, std::span<std::byte>(host));
    });
    expect_argument("region", [&] {
        image.download_region(queue(), {{0, 0, 0}, {4, 1, 2}}, std::span<std::byte>(host));
    });
    std::vector<std::byte> short_host(16 * 4 - 1);
    expect_argument("host", [&] { image.upload_region(queue(), box, std::span<const std::byte>(short_host)); });
    Buffer small = Buffer::allocate(bound_device(), 16 * 4);
    expect_argument("buffer", [&] { image.copy_region_to(queue(), box, small, 1); });
    expect_argument("buffer", [&] { image.copy_region_from(queue(), box, small, 16 * 4 + 1); });
    const Image other = Image::allocate(bound_device(), ImageShape::d2(3, 3), rgba_f32);
    expect_argument("destination_origin", [&] { other.copy_region_from(queue(), image, box, {0, 0, 0}); });
    expect_argument("source_region", [&] {
        other.copy_region_from(queue(), image, {{0, 0, 0}, {9, 1, 1}}, {0, 0, 0});
    });
    expect_argument("source_region", [&] { image.copy_region_from(queue(), image, box, {3, 1, 0}); });  // overlaps
    const Image layered = Image::allocate(bound_device(), ImageShape::layered_1d(8, 4), rgba_f32);
    expect_argument("source", [&] { layered.copy_region_from(queue(), image, box, {0, 0, 0}); });
    // Non-overlapping boxes of one image copy.
    EXPECT_NO_THROW(image.copy_region_from(queue(), image, {{0, 0, 0}, {4, 2, 1}}, {4, 2, 0}));
}

TEST_P(Images, BadInputIsATypedErrorNamingTheCulprit) {
    const BoundDevice device = bound_device();
    expect_argument("shape", [&] { Image::allocate(device, ImageShape::d2(0, 5), rgba_f32); });
    expect_argument("shape", [&] { Image::allocate(device, ImageShape::d3(4, 4, 0), rgba_f32); });
    expect_argument("shape", [&] { Image::allocate(device, ImageShape{2, 4, 4, 3, 0}, rgba_f32); });
    expect_argument("shape", [&] { Image::allocate(device, ImageShape{4, 4, 4, 3, 0}, rgba_f32); });
    expect_argument("shape", [&] { Image::allocate(device, ImageShape::d2(limits_.max_width_2d + 1, 1), rgba_f32); });
    expect_argument("shape",
                    [&] { Image::allocate(device, ImageShape::d3(1, 1, limits_.max_depth_3d + 1), rgba_f32); });
    expect_argument("shape",
                    [&] { Image::allocate(device, ImageShape::layered_1d(4, limits_.max_layers + 1), rgba_f32); });
    expect_argument("format", [&] {
        Image::allocate(device, ImageShape::d2(4, 4), {ChannelOrder::r, ChannelType::float32, true});
    });
    expect_argument("format", [&] {
        Image::allocate(device, ImageShape::d2(4, 4), {ChannelOrder::r, ChannelType::int32, true});
    });

    const Image image = Image::allocate(device, ImageShape::d2(8, 4), rgba_f32);
    std::vector<std::byte> short_host(image.size_bytes() - 1), long_host(image.size_bytes() + 16);
    expect_argument("host", [&] { image.upload(queue(), std::span<const std::byte>(short_host)); });
    expect_argument("host", [&] { image.download(queue(), std::span<std::byte>(long_host)); });
    expect_argument("buffer", [&] { image.copy_from(queue(), Buffer::allocate(device, image.size_bytes() - 4)); });
    expect_argument("source",
                    [&] { image.copy_from(queue(), Image::allocate(device, ImageShape::d2(4, 8), rgba_f32)); });
    expect_argument("sampler", [&] { image.sampled({AddressMode::repeat, FilterMode::nearest, false}); });
    const Image integers = Image::allocate(device, ImageShape::d2(8, 4), {ChannelOrder::r, ChannelType::uint32, false});
    expect_argument("sampler", [&] { integers.sampled({AddressMode::clamp, FilterMode::linear, false}); });

    // Image arguments against what the kernel declares. OpenCL only: CUDA reports parameter sizes
    // alone (where the driver has cuFuncGetParamInfo), and a texture object is as large as a pointer.
    if (device.context().api().id() == ApiId::opencl()) {
        Buffer coords = Buffer::allocate(device, 16);
        Buffer out = Buffer::allocate(device, 16);
        // A sampled image where the kernel writes one (a sampler fills no parameter there).
        EXPECT_THROW(program().kernel("write_2d_f")(queue(), Sizes{1, 1}, std::nullopt, image.sampled({}), coords, 1),
                     ArgumentError);
        // An image to write where the kernel reads one (the sampler would be missing).
        EXPECT_THROW(program().kernel("read_2d_f")(queue(), Sizes{1}, std::nullopt, image, coords, out, 1),
                     ArgumentError);
        // A Buffer where the kernel declares an image.
        EXPECT_THROW(program().kernel("read_2d_f")(queue(), Sizes{1}, std::nullopt, out, coords, out, 1),
                     ArgumentError);
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Images);

}  // namespace
}  // namespace kjarni::test
