#pragma once
/// The vocabulary of images (kjarni/image.hpp): pixel formats, image shapes (1-D to 3-D, layered,
/// cube maps, mipmap levels), regions, samplers and a device's image limits, as plain values that
/// every layer may speak. \file

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace kjarni {

/// Channels of a pixel, in memory order. rgb (three channels, PyCUDA's and PyOpenCL's 3-channel
/// formats) only where the driver has it: CUDA arrays have 1, 2 or 4 channels (Image::allocate
/// refuses rgb there, ArgumentError naming "format"), OpenCL drivers list which CL_RGB formats they
/// hold (image_format_supported). Reads of rgb give alpha 1 on OpenCL.
enum class ChannelOrder : std::uint8_t { r, rg, rgba, rgb };

/// The type of one channel. float16 is stored as IEEE half and read as float.
enum class ChannelType : std::uint8_t { uint8, uint16, uint32, int8, int16, int32, float16, float32 };

std::string to_string(ChannelOrder order);
std::string to_string(ChannelType type);

/// The channels of an image's pixel: their order, their type and whether integers read as
/// normalized floats.
struct ImageFormat {
    ChannelOrder order = ChannelOrder::rgba;
    ChannelType type = ChannelType::float32;
    /// 8- and 16-bit integer channels read as floats in [0, 1] (unsigned) / [-1, 1] (signed) and
    /// written from them (OpenCL CL_UNORM_INT8 ..., CUDA's normalised-float read mode). Not allowed
    /// with 32-bit or floating channels (ArgumentError).
    bool normalized = false;

    std::size_t channels() const noexcept;
    std::size_t channel_size() const noexcept;
    /// Bytes of one pixel: channels() * channel_size().
    std::size_t pixel_size() const noexcept;
    /// Whether kernels read it with the _F macros (floating or normalised channels).
    bool reads_as_float() const noexcept;
    friend bool operator==(const ImageFormat&, const ImageFormat&) = default;
};

std::string to_string(const ImageFormat& format);

/// What the layers of a 2-D layered image are: plain layers, the six faces of one cube map, or
/// the faces of an array of cube maps (six per cube, cube c's face f at layer 6 * c + f).
enum class ImageKind : std::uint8_t { plain, cube_map, cube_map_array };

/// The extent of an image: 1, 2 or 3 dimensions; a layered image (1 or 2 dimensions) is an array
/// of `layers` images of that extent. Unused extents are 1.
///
/// A cube map is a square layered 2-D image of six faces, in the order +x, -x, +y, -y, +z, -z;
/// kernels read it by a direction (KJARNI_READ_IMAGECUBE_*) and write it by face (the layered
/// 2-D write with the face as the layer). Transfers see its faces as layers. CUDA reads it through
/// the texture hardware (a CUDA_ARRAY3D_CUBEMAP array); OpenCL, which has no cube maps, holds a
/// 2-D image array and selects the face and its coordinates in the kernel by the same rule
/// (major axis, then the face's s and t as CUDA's and OpenGL's cube map tables give them).
struct ImageShape {
    unsigned dimensions = 2;
    std::size_t width = 1;
    std::size_t height = 1;
    std::size_t depth = 1;
    /// 0: not layered; otherwise the number of layers (at least 1).
    std::size_t layers = 0;
    ImageKind kind = ImageKind::plain;
    /// Mipmap levels: level l has each extent (not the layers) halved l times, rounded down, at
    /// least 1; at most max_levels(). Images of more than one level exist where
    /// ImageLimits::mipmaps says so (CUDA's mipmapped arrays).
    std::size_t levels = 1;

    static ImageShape d1(std::size_t width) { return {1, width, 1, 1, 0}; }
    static ImageShape d2(std::size_t width, std::size_t height) { return {2, width, height, 1, 0}; }
    static ImageShape d3(std::size_t width, std::size_t height, std::size_t depth) {
        return {3, width, height, depth, 0};
    }
    static ImageShape layered_1d(std::size_t width, std::size_t layers) { return {1, width, 1, 1, layers}; }
    static ImageShape layered_2d(std::size_t width, std::size_t height, std::size_t layers) {
        return {2, width, height, 1, layers};
    }
    /// A cube map of six `size` x `size` faces.
    static ImageShape cube_map(std::size_t size) { return {2, size, size, 1, 6, ImageKind::cube_map}; }
    /// An array of `cubes` cube maps (6 * cubes layers).
    static ImageShape cube_map_array(std::size_t size, std::size_t cubes) {
        return {2, size, size, 1, 6 * cubes, ImageKind::cube_map_array};
    }

    /// This shape with `count` mipmap levels.
    ImageShape with_levels(std::size_t count) const {
        ImageShape shape = *this;
        shape.levels = count;
        return shape;
    }

    bool layered() const noexcept { return layers != 0; }
    bool cube() const noexcept { return kind != ImageKind::plain; }
    /// width * height * depth * max(layers, 1): the pixels of level 0.
    std::size_t pixels() const noexcept;
    /// The most levels its extents allow: 1 + log2 of the largest, rounded down.
    std::size_t max_levels() const noexcept;
    /// The shape of level `level` (one level of it).
    ImageShape level_shape(std::size_t level) const noexcept;
    friend bool operator==(const ImageShape&, const ImageShape&) = default;
};

std::string to_string(const ImageShape& shape);

/// A box of an image's pixels: `origin` and `extent` per coordinate (x, y, z), where a layered
/// image's layer is the coordinate after its dimensions (y of a 1-D array, z of a 2-D array, as
/// OpenCL counts them). Coordinates an image does not have take origin 0 and extent 1. Its
/// pixels, packed, are extent[0] * extent[1] * extent[2] pixels: rows of extent[0], then slices.
struct ImageRegion {
    std::array<std::size_t, 3> origin{0, 0, 0};
    std::array<std::size_t, 3> extent{1, 1, 1};

    /// The whole of an image of `shape`.
    static ImageRegion whole(const ImageShape& shape);
    /// extent[0] * extent[1] * extent[2].
    std::size_t pixels() const noexcept { return extent[0] * extent[1] * extent[2]; }
    friend bool operator==(const ImageRegion&, const ImageRegion&) = default;
};

std::string to_string(const ImageRegion& region);

/// What coordinates outside the image read (OpenCL's CLK_ADDRESS_*, CUDA's address modes):
/// none: unspecified (the fastest); clamp: the border colour, all zero (OpenCL: alpha 1 for
/// formats without alpha); clamp_to_edge: the nearest edge pixel; repeat and mirrored_repeat
/// (normalised coordinates only): the image tiled, or tiled with every other copy mirrored.
enum class AddressMode : std::uint8_t { none, clamp, clamp_to_edge, repeat, mirrored_repeat };

/// nearest: the pixel the coordinate falls in; linear: bilinear (trilinear in 3-D) interpolation
/// between the pixel centres around it (float and normalised formats only). Hardware may compute
/// the weights in low precision (CUDA: 9-bit fixed point with 8 fractional bits).
enum class FilterMode : std::uint8_t { nearest, linear };

/// How a kernel reads an image: addressing outside it, filtering, and normalized coordinates.
struct Sampler {
    AddressMode address = AddressMode::clamp_to_edge;
    FilterMode filter = FilterMode::nearest;
    /// Coordinates in [0, 1) across the image instead of [0, width): pixel i covers [i, i + 1),
    /// its centre at i + 0.5, either way.
    bool normalized_coordinates = false;
    /// Between mipmap levels, for the _LOD reads of an image of several levels: nearest takes the
    /// level nearest the level of detail, linear blends the two around it.
    FilterMode mipmap_filter = FilterMode::nearest;
    friend bool operator==(const Sampler&, const Sampler&) = default;
};

/// What images a device can hold. `supported` false: none at all (OpenCL CL_DEVICE_IMAGE_SUPPORT
/// false), every other field 0.
struct ImageLimits {
    bool supported = false;
    std::size_t max_width_1d = 0;
    std::size_t max_width_2d = 0;
    std::size_t max_height_2d = 0;
    std::size_t max_width_3d = 0;
    std::size_t max_height_3d = 0;
    std::size_t max_depth_3d = 0;
    std::size_t max_layers = 0;
    /// The largest face of a cube map, and the most cube maps in an array of them (0: none).
    std::size_t max_cube_map_size = 0;
    std::size_t max_cube_maps = 0;
    /// Whether images of more than one mipmap level can be made (CUDA: yes; OpenCL: no, kjarni
    /// does not use cl_khr_mipmap_image).
    bool mipmaps = false;
};

}  // namespace kjarni
