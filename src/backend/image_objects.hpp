#pragma once
// Image memory of a backend context (image_service.hpp makes it) and the sampled view kernels read.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "backend/backend_fwd.hpp"
#include "kjarni/image_format.hpp"

namespace kjarni::backend {

/// Image memory of one device (a CUDA array / an OpenCL image), holding its Context. Transfers move
/// a box of the image (kjarni's coordinates: a layer is the coordinate after the image's
/// dimensions) as packed pixels (rows, then slices or layers, without padding), in `queue`'s
/// order, which is on the image's device; the public layer has checked boxes, sizes and devices.
class Image {
public:
    virtual ~Image() = default;
    virtual std::size_t device_index() const = 0;
    /// CUarray / cl_mem.
    virtual std::uintptr_t native_handle() const = 0;
    /// Packed pixels of `region` (checked against the image) from / to the host.
    virtual void write(Queue& queue, const ImageRegion& region, const void* host, bool blocking) = 0;
    virtual void read(Queue& queue, const ImageRegion& region, void* host, bool blocking) = 0;
    /// Packed pixels of `region` from / to a buffer of the same device, from byte `offset` on.
    virtual void copy_from_buffer(Queue& queue, const ImageRegion& region, Buffer& source, std::size_t offset,
                                  bool blocking) = 0;
    virtual void copy_to_buffer(Queue& queue, const ImageRegion& region, Buffer& destination, std::size_t offset,
                                bool blocking) = 0;
    /// The box `source_region` of an image of the same format, dimensions and layering on the same
    /// device, to the box of the same extent at `origin` of this one.
    virtual void copy_from_image(Queue& queue, Image& source, const ImageRegion& source_region,
                                 const std::array<std::size_t, 3>& origin, bool blocking) = 0;
    /// The image read through `sampler` (checked against the format by the public layer).
    virtual std::shared_ptr<ImageSampler> sampled(const Sampler& sampler) = 0;
    /// Level `level` (at least 1, below the image's levels: checked by the public layer) of an
    /// image of several mipmap levels, of `shape`, keeping this image alive.
    virtual std::shared_ptr<Image> level(std::size_t level, const ImageShape& shape) = 0;
    /// The kernel argument of a WRITE parameter: kind image, the backend's bytes in `scalar`, and
    /// device_index set (the public layer sets the context).
    virtual KernelArg write_argument() = 0;
};

/// An image and a sampler together, as a kernel's READ parameter; keeps its image alive.
class ImageSampler {
public:
    virtual ~ImageSampler() = default;
    /// As Image::write_argument, for a READ parameter.
    virtual KernelArg read_argument() const = 0;
};

}  // namespace kjarni::backend
