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
#include "kjarni/image_format.hpp"
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
