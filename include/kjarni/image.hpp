#pragma once
/// Images and textures: one Image type over a CUDA array (read through texture objects, written
/// through a surface object) and an OpenCL image (read through a sampler, written with
/// write_image*), with copies between images, buffers and the host.
///
/// Kernels take images through the prelude's macros, the same source on both backends:
///
///     KERNEL void k(KJARNI_IMAGE2D_READ(src), KJARNI_IMAGE2D_WRITE(dst), ...) {
///         float4 v = KJARNI_READ_IMAGE2D_F(src, x + 0.5f, y + 0.5f);   // float coordinates
///         KJARNI_WRITE_IMAGE2D_F(dst, x, y, v);                           // integer coordinates
///     }
///
/// and the host passes `image.sampled(sampler)` for a READ parameter and the Image itself for a
/// WRITE parameter. Reads and writes come in _F (float and normalised formats), _I (signed integer
/// formats) and _UI (unsigned integer formats) forms, for 1D, 2D, 3D, 1D_ARRAY and 2D_ARRAY
/// images (a layer index, an int, follows the coordinates of the layered forms), and reads of
/// cube maps: KJARNI_IMAGECUBE_READ(name) / KJARNI_IMAGECUBE_ARRAY_READ(name) parameters,
/// KJARNI_READ_IMAGECUBE_F(img, x, y, z) at the direction (x, y, z) and
/// KJARNI_READ_IMAGECUBE_ARRAY_F(img, x, y, z, cube) (their samplers use normalised coordinates;
/// a cube map is written as the 2D_ARRAY it is, the face as the layer).
/// KJARNI_READ_IMAGE1D_LOD_F(img, x, lod), KJARNI_READ_IMAGE2D_LOD_F(img, x, y, lod),
/// KJARNI_READ_IMAGE3D_LOD_F(img, x, y, z, lod) and KJARNI_READ_IMAGECUBE_LOD_F(img, x, y, z, lod)
/// (and _I, _UI) read at a mipmap level of detail (a float: 0 is level 0); on an image of one level
/// they read it as the plain forms do. Reads return a
/// float4 / int4 / uint4 whose first channels() components hold the pixel; the others are
/// unspecified on CUDA (OpenCL gives 0, 0, 1). Writes take a float4 / int4 / uint4 and store the
/// first channels() components, converted to the channel type as OpenCL does (normalised formats:
/// clamped and rounded; integers: saturated). KJARNI_MAKE_FLOAT4(a, b, c, d) (and _INT4, _UINT4)
/// build a value on both backends.
///
/// Transfers move the whole image, or a box of it (an ImageRegion), its pixels packed (no padding
/// between rows or slices; layers follow each other like slices). Asynchronous transfers follow
/// Buffer's rules: the host memory must stay alive and untouched until the queue has passed the
/// copy. \file

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/rect_layout.hpp"

namespace kjarni {

namespace backend {
class Image;
class ImageSampler;
}  // namespace backend

namespace detail {
struct LaunchTarget;
}

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

ImageLimits image_limits(const BoundDevice& device);
/// Whether `device` holds images of `format` (false where it has no images at all): what
/// Image::allocate checks.
bool image_format_supported(const BoundDevice& device, const ImageFormat& format);

class Image;

/// An Image with a Sampler, for a kernel's READ parameter (CUDA: a texture object, made once and
/// destroyed with the last handle; OpenCL: the image and a sampler object). Keep it alive until
/// the kernels using it have run.
class SampledImage {
public:
    const Sampler& sampler() const noexcept { return sampler_; }

private:
    friend class Image;
    friend detail::KernelArg pack_kernel_arg(const SampledImage& image, const detail::LaunchTarget& target);
    SampledImage(BoundDevice device, std::shared_ptr<backend::ImageSampler> impl, Sampler sampler)
        : device_(std::move(device)), impl_(std::move(impl)), sampler_(sampler) {}
    BoundDevice device_;
    std::shared_ptr<backend::ImageSampler> impl_;
    Sampler sampler_;
};

/// Image memory of one device. A handle: copies share the image, which is freed when the last
/// handle (SampledImages included) goes.
class Image {
public:
    /// An image of `shape` and `format` on `device`, contents undefined. ArgumentError naming
    /// "shape" for an empty or malformed shape or one beyond image_limits(device), naming "format"
    /// for a format the device does not support; UnsupportedError naming the backend where the
    /// device has no images.
    static Image allocate(const BoundDevice& device, const ImageShape& shape, const ImageFormat& format);

    const BoundDevice& device() const noexcept { return device_; }
    const ImageShape& shape() const noexcept { return shape_; }
    const ImageFormat& format() const noexcept { return format_; }
    /// Bytes of the packed pixels: shape().pixels() * format().pixel_size() (of level 0).
    std::size_t size_bytes() const noexcept { return shape_.pixels() * format_.pixel_size(); }

    /// Level `level` of a mipmapped image, as an image of one level (it keeps this one alive):
    /// its transfers and kernel writes reach that level. An image is its own level 0: the
    /// transfers and WRITE parameter of an image of several levels act on level 0, and a READ
    /// parameter (sampled()) sees every level (the prelude's _LOD reads pick one). ArgumentError
    /// naming "level" past shape().levels.
    Image level(std::size_t level) const;

    /// Copies the whole image from packed host pixels; `host` must hold exactly size_bytes().
    void upload(const Queue& queue, std::span<const std::byte> host, bool async = false) const;
    /// Copies the whole image to packed host pixels; `host` must hold exactly size_bytes().
    void download(const Queue& queue, std::span<std::byte> host, bool async = false) const;
    template <class T>
    void upload(const Queue& queue, std::span<const T> host, bool async = false) const {
        upload(queue, std::as_bytes(host), async);
    }
    template <class T>
    void download(const Queue& queue, std::span<T> host, bool async = false) const {
        download(queue, std::as_writable_bytes(host), async);
    }
    /// Copies packed pixels from the start of `buffer` (at least size_bytes() long, same device).
    void copy_from(const Queue& queue, const Buffer& buffer, bool async = false) const;
    /// Copies the packed pixels to the start of `buffer` (at least size_bytes() long, same device).
    void copy_to(const Queue& queue, const Buffer& buffer, bool async = false) const;
    /// Copies another image of the same device, shape and format.
    void copy_from(const Queue& queue, const Image& source, bool async = false) const;

    /// Sub-region transfers. Each checks the region against the image (ArgumentError naming
    /// "region": an empty extent, or a box reaching beyond the image or into coordinates it does
    /// not have) and the other side's size, as the whole-image forms do.

    /// Copies packed host pixels (exactly region.pixels() * pixel_size() bytes) into `region`.
    void upload_region(const Queue& queue, const ImageRegion& region, std::span<const std::byte> host,
                       bool async = false) const;
    /// Copies `region` to packed host pixels (exactly region.pixels() * pixel_size() bytes).
    void download_region(const Queue& queue, const ImageRegion& region, std::span<std::byte> host,
                         bool async = false) const;
    /// Copies packed pixels from `buffer` (same device), starting `offset` bytes into it, into
    /// `region`; the buffer must hold them (ArgumentError naming "buffer" otherwise).
    void copy_region_from(const Queue& queue, const ImageRegion& region, const Buffer& buffer, std::size_t offset = 0,
                          bool async = false) const;
    /// Copies `region` to packed pixels in `buffer` (same device), starting `offset` bytes into it.
    void copy_region_to(const Queue& queue, const ImageRegion& region, const Buffer& buffer, std::size_t offset = 0,
                        bool async = false) const;
    /// Copies `region` from a buffer (same device) whose pixels lie as `layout` says: rows `pitch`
    /// bytes apart, slices (or layers) `slice_pitch` apart, from byte `offset`, the box at byte x,
    /// row y, slice z of that layout (PyCUDA's Memcpy2D / Memcpy3D to an array with a source
    /// pitch). ArgumentError naming "region" as above, "buffer" for another device, and the
    /// layout's side ("src") where the layout does not fit the buffer (as copy_rect checks it).
    /// Packed layouts are copied directly; others through a packed temporary on the device.
    void copy_region_from_pitched(const Queue& queue, const ImageRegion& region, const Buffer& buffer,
                                  const RectLayout& layout, bool async = false) const;
    /// Copies `region` into a buffer (same device) laid out as `layout` (PyCUDA's Memcpy2D /
    /// Memcpy3D from an array to pitched memory); bytes of the buffer outside the box are left as
    /// they are. Errors as copy_region_from_pitched, the layout's side being "dst".
    void copy_region_to_pitched(const Queue& queue, const ImageRegion& region, const Buffer& buffer,
                                const RectLayout& layout, bool async = false) const;
    /// Copies the box `source_region` of `source` (same device and format, any shape of the same
    /// dimensions and layering) to the box of the same extent at `destination_origin` of this
    /// image. ArgumentError naming "source" for another device, format or kind of image,
    /// "source_region" / "destination_origin" for boxes that do not fit; a copy within one image
    /// must not overlap itself (ArgumentError naming "source_region").
    void copy_region_from(const Queue& queue, const Image& source, const ImageRegion& source_region,
                          const std::array<std::size_t, 3>& destination_origin, bool async = false) const;

    /// This image read through `sampler` (a READ parameter). ArgumentError naming "sampler" for
    /// linear filtering of an integer format, or repeat / mirrored_repeat without normalised
    /// coordinates; for a cube map, a sampler without normalised coordinates or with an address
    /// mode other than clamp_to_edge (what both backends do alike at a face's edge: linear
    /// filtering does not blend across faces).
    SampledImage sampled(const Sampler& sampler) const;

    /// CUarray / cl_mem.
    std::uintptr_t native_handle() const;

private:
    friend detail::KernelArg pack_kernel_arg(const Image& image, const detail::LaunchTarget& target);
    Image(BoundDevice device, std::shared_ptr<backend::Image> impl, ImageShape shape, ImageFormat format);
    void check_queue(const Queue& queue) const;

    BoundDevice device_;
    std::shared_ptr<backend::Image> impl_;
    ImageShape shape_;
    ImageFormat format_;
};

/// An Image as a kernel's WRITE parameter (CUDA: its surface object and format; OpenCL: the image).
detail::KernelArg pack_kernel_arg(const Image& image, const detail::LaunchTarget& target);
/// A SampledImage as a kernel's READ parameter.
detail::KernelArg pack_kernel_arg(const SampledImage& image, const detail::LaunchTarget& target);

}  // namespace kjarni
