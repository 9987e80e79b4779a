// Cube maps and arrays of them: a read at a direction through every texel centre of every face
// returns that texel (the face selection and the face coordinates against a CPU model of CUDA's
// cube map table), kernel writes by face land where the host reads them back, and the shapes and
// samplers a cube map cannot have are typed errors. On OpenCL the cube map is a 2-D image array
// and the prelude selects the face; on CUDA the texture unit does (its kernels are compiled by the
// suite's NVRTC cross-check here, run on the GPU machine).

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "support/argument_errors.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* cube_source = R"(
// coords: 4 floats a point (the direction, then the cube of an array); out: 4 floats a point.
KERNEL void read_cube(KJARNI_IMAGECUBE_READ(img), GLOBAL_MEM const float* coords, GLOBAL_MEM float* out, int n)
{
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    const float4 v = KJARNI_READ_IMAGECUBE_F(img, coords[4 * i], coords[4 * i + 1], coords[4 * i + 2]);
    out[4 * i] = v.x; out[4 * i + 1] = v.y; out[4 * i + 2] = v.z; out[4 * i + 3] = v.w;
}
KERNEL void read_cube_array(KJARNI_IMAGECUBE_ARRAY_READ(img), GLOBAL_MEM const float* coords, GLOBAL_MEM float* out,
                            int n)
{
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    const float4 v = KJARNI_READ_IMAGECUBE_ARRAY_F(img, coords[4 * i], coords[4 * i + 1], coords[4 * i + 2],
                                                   (int)coords[4 * i + 3]);
    out[4 * i] = v.x; out[4 * i + 1] = v.y; out[4 * i + 2] = v.z; out[4 * i + 3] = v.w;
}
KERNEL void read_cube_ui(KJARNI_IMAGECUBE_READ(img), GLOBAL_MEM const float* coords, GLOBAL_MEM unsigned int* out,
                         int n)
{
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    const uint4 v = KJARNI_READ_IMAGECUBE_UI(img, coords[4 * i], coords[4 * i + 1], coords[4 * i + 2]);
    out[4 * i] = v.x;
}
// Reads at a level of detail: coords' fourth float is the level.
KERNEL void read_2d_lod(KJARNI_IMAGE2D_READ(img), GLOBAL_MEM const float* coords, GLOBAL_MEM float* out, int n)
{
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    const float4 v = KJARNI_READ_IMAGE2D_LOD_F(img, coords[4 * i], coords[4 * i + 1], coords[4 * i + 3]);
    out[4 * i] = v.x; out[4 * i + 1] = v.y; out[4 * i + 2] = v.z; out[4 * i + 3] = v.w;
}
KERNEL void read_cube_lod(KJARNI_IMAGECUBE_READ(img), GLOBAL_MEM const float* coords, GLOBAL_MEM float* out, int n)
{
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    const float4 v = KJARNI_READ_IMAGECUBE_LOD_F(img, coords[4 * i], coords[4 * i + 1], coords[4 * i + 2],
                                                 coords[4 * i + 3]);
    out[4 * i] = v.x; out[4 * i + 1] = v.y; out[4 * i + 2] = v.z; out[4 * i + 3] = v.w;
}
// Writes face `layer` (6 * cube + face) of a cube map from 4 floats a pixel.
KERNEL void write_faces(KJARNI_IMAGE2D_ARRAY_WRITE(img), GLOBAL_MEM const float* values, int size)
{
    const int x = (int)get_global_id(0), y = (int)get_global_id(1), layer = (int)get_global_id(2);
    const GLOBAL_MEM float* p = values + 4 * ((layer * size + y) * size + x);
    KJARNI_WRITE_IMAGE2D_ARRAY_F(img, x, y, layer, KJARNI_MAKE_FLOAT4(p[0], p[1], p[2], p[3]));
}
)";

constexpr ImageFormat cube_rgba_f32{ChannelOrder::rgba, ChannelType::float32, false};
constexpr Sampler cube_sampler{AddressMode::clamp_to_edge, FilterMode::nearest, true};

// Appends the 4 channels of pixel `index` of `pixels` to `to`.
void append_pixel(std::vector<float>& to, const std::vector<float>& pixels, std::size_t index) {
    to.insert(to.end(), &pixels[4 * index], &pixels[4 * index] + 4);
}

// The direction that reads texel (i, j) of `face` at its centre, `ma` along the face's axis: the
// inverse of the cube map table (face: major axis and sign; s from sc, t from tc). With a
// power-of-two size and magnitude every step is exact, and |sc|, |tc| < ma keeps the axis major.
std::array<float, 3> cube_direction(int face, std::size_t i, std::size_t j, std::size_t size, float ma) {
    const float s = (static_cast<float>(i) + 0.5f) / static_cast<float>(size);
    const float t = (static_cast<float>(j) + 0.5f) / static_cast<float>(size);
    const float sc = (2.0f * s - 1.0f) * ma, tc = (2.0f * t - 1.0f) * ma;
    switch (face) {
    case 0: return {ma, -tc, -sc};    // +x: sc = -z, tc = -y
    case 1: return {-ma, -tc, sc};    // -x: sc = z, tc = -y
    case 2: return {sc, ma, tc};      // +y: sc = x, tc = z
    case 3: return {sc, -ma, -tc};    // -y: sc = x, tc = -z
    case 4: return {sc, -tc, ma};     // +z: sc = x, tc = -y
    default: return {-sc, -tc, -ma};  // -z: sc = -x, tc = -y
    }
}

class CubeMaps : public DeviceTest {
protected:
    void SetUp() override {
        if (!image_limits(bound_device()).supported) GTEST_SKIP() << bound_device().name() << " has no images";
    }
    Program& program() {
        if (!program_) program_.emplace(bound_device(), cube_source);
        return *program_;
    }
    // Every texel centre of every face of `cubes` cubes (0: a plain cube map), a random
    // power-of-two magnitude each; coords gets 4 floats a point, `expected_index` the texel's
    // packed index (layer, row, column).
    void every_texel(std::size_t size, std::size_t cubes, std::vector<float>& coords,
                     std::vector<std::size_t>& expected_index) {
        const auto exponents = random_vector<int>(6 * std::max<std::size_t>(cubes, 1) * size * size, -3, 6);
        std::size_t k = 0;
        for (std::size_t layer = 0; layer < 6 * std::max<std::size_t>(cubes, 1); ++layer) {
            for (std::size_t j = 0; j < size; ++j) {
                for (std::size_t i = 0; i < size; ++i, ++k) {
                    const auto d =
                        cube_direction(static_cast<int>(layer % 6), i, j, size, std::ldexp(1.0f, exponents[k]));
                    coords.insert(coords.end(), {d[0], d[1], d[2], static_cast<float>(layer / 6)});
                    expected_index.push_back((layer * size + j) * size + i);
                }
            }
        }
    }
    template <class T>
    std::vector<T> run_read(const char* kernel, const SampledImage& image, const std::vector<float>& coords) {
        const std::size_t n = coords.size() / 4;
        Buffer in = Buffer::allocate(bound_device(), coords.size() * sizeof(float));
        in.set(queue(), std::span<const float>(coords));
        Buffer out = Buffer::allocate(bound_device(), n * 4 * sizeof(T));
        program().kernel(kernel)(queue(), Sizes{n}, std::nullopt, image, in, out, static_cast<int>(n));
        std::vector<T> result(n * 4);
        out.get(queue(), std::span<T>(result));
        return result;
    }

private:
    std::optional<Program> program_;
};

TEST_P(CubeMaps, ADirectionReadsTheTexelOfItsFace) {
    for (const std::size_t cubes : {std::size_t{0}, std::size_t{3}}) {
        constexpr std::size_t size = 8;
        const ImageShape shape = cubes == 0 ? ImageShape::cube_map(size) : ImageShape::cube_map_array(size, cubes);
        const Image image = Image::allocate(bound_device(), shape, cube_rgba_f32);
        const auto pixels = random_vector<float>(shape.pixels() * 4, -100.0f, 100.0f);
        image.upload(queue(), std::span<const float>(pixels));

        std::vector<float> coords;
        std::vector<std::size_t> expected_index;
        every_texel(size, cubes, coords, expected_index);
        const auto got =
            run_read<float>(cubes == 0 ? "read_cube" : "read_cube_array", image.sampled(cube_sampler), coords);
        for (std::size_t p = 0; p < expected_index.size(); ++p) {
            for (std::size_t c = 0; c < 4; ++c) {
                ASSERT_EQ(got[4 * p + c], pixels[4 * expected_index[p] + c])
                    << to_string(shape) << ": direction (" << coords[4 * p] << ", " << coords[4 * p + 1] << ", "
                    << coords[4 * p + 2] << ") of cube " << coords[4 * p + 3] << ", channel " << c;
            }
        }
    }
}

TEST_P(CubeMaps, IntegerFacesReadAsIntegers) {
    const ImageFormat r_u32{ChannelOrder::r, ChannelType::uint32, false};
    if (!image_format_supported(bound_device(), r_u32)) GTEST_SKIP() << "no r uint32 images";
    constexpr std::size_t size = 4;
    const Image image = Image::allocate(bound_device(), ImageShape::cube_map(size), r_u32);
    const auto pixels = random_vector<std::uint32_t>(6 * size * size, 0, 0xFFFFFFFFu);
    image.upload(queue(), std::span<const std::uint32_t>(pixels));
    std::vector<float> coords;
    std::vector<std::size_t> expected_index;
    every_texel(size, 0, coords, expected_index);
    const auto got = run_read<std::uint32_t>("read_cube_ui", image.sampled(cube_sampler), coords);
    for (std::size_t p = 0; p < expected_index.size(); ++p) ASSERT_EQ(got[4 * p], pixels[expected_index[p]]) << p;
}

TEST_P(CubeMaps, KernelsWriteFacesAsLayers) {
    constexpr std::size_t size = 4, cubes = 2;
    const ImageShape shape = ImageShape::cube_map_array(size, cubes);
    const Image image = Image::allocate(bound_device(), shape, cube_rgba_f32);
    const auto values = random_vector<float>(shape.pixels() * 4, -10.0f, 10.0f);
    Buffer source = Buffer::allocate(bound_device(), values.size() * sizeof(float));
    source.set(queue(), std::span<const float>(values));
    program().kernel("write_faces")(queue(), Sizes{size, size, 6 * cubes}, std::nullopt, image, source,
                                    static_cast<int>(size));
    std::vector<float> back(values.size());
    image.download(queue(), std::span<float>(back));
    EXPECT_EQ(back, values);
    // One face alone, through a region: face 5 (-z) of cube 1 is layer 11.
    std::vector<float> face(size * size * 4);
    image.download_region(queue(), ImageRegion{{0, 0, 11}, {size, size, 1}}, std::as_writable_bytes(std::span(face)));
    EXPECT_TRUE(std::equal(face.begin(), face.end(), &values[11 * size * size * 4]));
}

TEST_P(CubeMaps, ShapesAndSamplersACubeMapCannotHaveAreTyped) {
    expect_argument("shape", [&] {
        Image::allocate(bound_device(), ImageShape{2, 8, 4, 1, 6, ImageKind::cube_map}, cube_rgba_f32);
    });
    expect_argument("shape", [&] {
        Image::allocate(bound_device(), ImageShape{2, 8, 8, 1, 5, ImageKind::cube_map}, cube_rgba_f32);
    });
    expect_argument("shape", [&] {
        Image::allocate(bound_device(), ImageShape{2, 8, 8, 1, 12, ImageKind::cube_map}, cube_rgba_f32);
    });
    expect_argument("shape", [&] {
        Image::allocate(bound_device(), ImageShape{2, 8, 8, 1, 8, ImageKind::cube_map_array}, cube_rgba_f32);
    });
    expect_argument("shape", [&] {
        Image::allocate(bound_device(), ImageShape{3, 8, 8, 8, 6, ImageKind::cube_map}, cube_rgba_f32);
    });
    const std::size_t too_big = image_limits(bound_device()).max_cube_map_size + 1;
    expect_argument("shape", [&] { Image::allocate(bound_device(), ImageShape::cube_map(too_big), cube_rgba_f32); });
    const Image image = Image::allocate(bound_device(), ImageShape::cube_map(4), cube_rgba_f32);
    expect_argument("sampler", [&] { image.sampled(Sampler{}); });  // not normalised
    expect_argument("sampler", [&] { image.sampled(Sampler{AddressMode::repeat, FilterMode::nearest, true}); });
    EXPECT_NE(to_string(image.shape()).find("cube map"), std::string::npos) << to_string(image.shape());
}

// Every level of a mipmapped image, uploaded through level(l), read back at each level's texel
// centres at that level of detail (nearest between levels and within them: exact). Where the
// device has no images of several levels (OpenCL), making one is a typed error, and the _LOD reads
// of an image of one level read it.
TEST_P(CubeMaps, MipmapLevelsReadAtTheirLevelOfDetail) {
    const ImageShape shape = ImageShape::d2(16, 8).with_levels(4);
    ASSERT_EQ(shape.max_levels(), 5u);
    ASSERT_EQ(shape.level_shape(3), ImageShape::d2(2, 1));
    const Sampler sampler{AddressMode::clamp_to_edge, FilterMode::nearest, true, FilterMode::nearest};
    std::vector<float> coords;
    std::vector<float> expected;
    if (!image_limits(bound_device()).mipmaps) {
        EXPECT_THROW(Image::allocate(bound_device(), shape, cube_rgba_f32), UnsupportedError);
        const ImageShape one = ImageShape::d2(16, 8);
        const Image image = Image::allocate(bound_device(), one, cube_rgba_f32);
        const auto pixels = random_vector<float>(one.pixels() * 4, -100.0f, 100.0f);
        image.upload(queue(), std::span<const float>(pixels));
        EXPECT_EQ(image.level(0).native_handle(), image.native_handle());
        expect_argument("level", [&] { image.level(1); });
        for (std::size_t y = 0; y < one.height; ++y) {
            for (std::size_t x = 0; x < one.width; ++x) {
                coords.insert(coords.end(), {(static_cast<float>(x) + 0.5f) / 16.0f,
                                             (static_cast<float>(y) + 0.5f) / 8.0f, 0.0f, static_cast<float>(x % 3)});
                append_pixel(expected, pixels, y * one.width + x);
            }
        }
        EXPECT_EQ(run_read<float>("read_2d_lod", image.sampled(sampler), coords), expected);
        return;
    }
    const Image image = Image::allocate(bound_device(), shape, cube_rgba_f32);
    expect_argument("level", [&] { image.level(4); });
    for (std::size_t level = 0; level < shape.levels; ++level) {
        const Image at = image.level(level);
        ASSERT_EQ(at.shape(), shape.level_shape(level));
        const auto pixels = random_vector<float>(at.shape().pixels() * 4, -100.0f, 100.0f);
        at.upload(queue(), std::span<const float>(pixels));
        const std::size_t w = at.shape().width, h = at.shape().height;
        for (std::size_t y = 0; y < h; ++y) {
            for (std::size_t x = 0; x < w; ++x) {
                coords.insert(coords.end(), {(static_cast<float>(x) + 0.5f) / static_cast<float>(w),
                                             (static_cast<float>(y) + 0.5f) / static_cast<float>(h), 0.0f,
                                             static_cast<float>(level)});
                append_pixel(expected, pixels, y * w + x);
            }
        }
    }
    EXPECT_EQ(run_read<float>("read_2d_lod", image.sampled(sampler), coords), expected);

    // A mipmapped cube map: level 1's faces read by direction at level of detail 1.
    const ImageShape cube = ImageShape::cube_map(8).with_levels(2);
    const Image cube_image = Image::allocate(bound_device(), cube, cube_rgba_f32);
    const Image level_one = cube_image.level(1);
    const auto faces = random_vector<float>(level_one.shape().pixels() * 4, -100.0f, 100.0f);
    level_one.upload(queue(), std::span<const float>(faces));
    std::vector<float> cube_coords;
    std::vector<std::size_t> expected_index;
    every_texel(4, 0, cube_coords, expected_index);
    for (std::size_t p = 3; p < cube_coords.size(); p += 4) cube_coords[p] = 1.0f;
    const auto got = run_read<float>("read_cube_lod", cube_image.sampled(cube_sampler), cube_coords);
    for (std::size_t p = 0; p < expected_index.size(); ++p) {
        for (std::size_t c = 0; c < 4; ++c) ASSERT_EQ(got[4 * p + c], faces[4 * expected_index[p] + c]) << p;
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(CubeMaps);

}  // namespace
}  // namespace kjarni::test
