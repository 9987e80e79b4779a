// The public Image: shapes, formats and samplers checked here, once for both backends, so that a
// backend only reports what its driver refuses.

#include "kjarni/image.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "backend/backend.hpp"
#include "core/device_label.hpp"
#include "kjarni/error.hpp"
#include "kjarni/pitched_memory.hpp"

namespace kjarni {

using detail::device_label;

namespace {

std::string backend_name(const BoundDevice& device) { return device.context().api().id().shortcut(); }

bool is_integer(ChannelType type) { return type != ChannelType::float16 && type != ChannelType::float32; }

void check_shape(const ImageShape& shape) {
    if (shape.dimensions < 1 || shape.dimensions > 3) {
        throw ArgumentError("shape", fmt::format("has {} dimensions; an image has 1, 2 or 3", shape.dimensions));
    }
    if (shape.width == 0 || shape.height == 0 || shape.depth == 0) {
        throw ArgumentError("shape", fmt::format("{} is empty", to_string(shape)));
    }
    if ((shape.dimensions < 2 && shape.height != 1) || (shape.dimensions < 3 && shape.depth != 1)) {
        throw ArgumentError("shape", fmt::format("{} has extents past its {} dimensions (they must be 1)",
                                                 to_string(shape), shape.dimensions));
    }
    if (shape.layered() && shape.dimensions == 3) {
        throw ArgumentError("shape", "a 3-D image cannot be layered");
    }
    if (shape.levels < 1 || shape.levels > shape.max_levels()) {
        throw ArgumentError("shape", fmt::format("{}: {} mipmap levels; its extents allow 1 to {}", to_string(shape),
                                                 shape.levels, shape.max_levels()));
    }
    if (shape.cube()) {
        if (shape.dimensions != 2 || shape.width != shape.height) {
            throw ArgumentError("shape", fmt::format("{}: a cube map's faces are square 2-D images", to_string(shape)));
        }
        const bool six =
            shape.kind == ImageKind::cube_map ? shape.layers == 6 : shape.layers % 6 == 0 && shape.layers > 0;
        if (!six) {
            throw ArgumentError("shape", fmt::format("{}: a cube map has 6 layers, an array of them 6 per cube",
                                                     to_string(shape)));
        }
    }
}

void check_limits(const ImageShape& shape, const ImageLimits& limits, const BoundDevice& device) {
    const auto over = [&](const char* extent, std::size_t value, std::size_t limit) {
        if (value > limit) {
            throw ArgumentError("shape", fmt::format("{}: its {} of {} exceeds the {} of {} of {}", to_string(shape),
                                                     extent, value, backend_name(device), limit, device_label(device)));
        }
    };
    if (shape.dimensions == 1) over("width", shape.width, limits.max_width_1d);
    if (shape.dimensions == 2) {
        over("width", shape.width, limits.max_width_2d);
        over("height", shape.height, limits.max_height_2d);
    }
    if (shape.dimensions == 3) {
        over("width", shape.width, limits.max_width_3d);
        over("height", shape.height, limits.max_height_3d);
        over("depth", shape.depth, limits.max_depth_3d);
    }
    if (shape.levels > 1 && !limits.mipmaps) {
        throw UnsupportedError(fmt::format("{}: the {} backend has no images of several mipmap levels on {}",
                                           to_string(shape), backend_name(device), device_label(device)));
    }
    if (shape.cube()) {
        over("face size", shape.width, limits.max_cube_map_size);
        if (shape.kind == ImageKind::cube_map_array) over("cube count", shape.layers / 6, limits.max_cube_maps);
    } else if (shape.layered()) {
        over("layer count", shape.layers, limits.max_layers);
    }
}

void check_format(const ImageFormat& format) {
    const bool narrow = format.channel_size() <= 2 && is_integer(format.type);
    if (format.normalized && !narrow) {
        throw ArgumentError("format", fmt::format("{}: only 8- and 16-bit integer channels can be normalised",
                                                  to_string(format)));
    }
}

void check_sampler(const Sampler& sampler, const ImageFormat& format, const ImageShape& shape) {
    if (shape.cube() && (!sampler.normalized_coordinates || sampler.address != AddressMode::clamp_to_edge)) {
        throw ArgumentError("sampler", "a cube map is read with normalised coordinates and clamp_to_edge addressing");
    }
    if (sampler.filter == FilterMode::linear && !format.reads_as_float()) {
        throw ArgumentError("sampler", fmt::format("linear filtering needs a float or normalised format, not {}",
                                                   to_string(format)));
    }
    if ((sampler.address == AddressMode::repeat || sampler.address == AddressMode::mirrored_repeat) &&
        !sampler.normalized_coordinates) {
        throw ArgumentError("sampler", "repeat and mirrored_repeat addressing need normalised coordinates");
    }
}

void check_box(const char* argument, const std::array<std::size_t, 3>& origin, const std::array<std::size_t, 3>& extent,
               const ImageShape& shape) {
    const auto limits = ImageRegion::whole(shape).extent;
    static constexpr const char* names[] = {"x", "y", "z"};
    for (std::size_t c = 0; c < 3; ++c) {
        if (extent[c] == 0) {
            throw ArgumentError(argument,
                                fmt::format("has extent 0 in {}: a region holds at least one pixel", names[c]));
        }
        // Unused coordinates have a limit of 1, so only origin 0 and extent 1 pass.
        if (origin[c] >= limits[c] || extent[c] > limits[c] - origin[c]) {
            throw ArgumentError(argument,
                                fmt::format("reaches {} .. {} in {}, beyond the {} image (which has {} there)",
                                            origin[c], origin[c] + extent[c], names[c], to_string(shape), limits[c]));
        }
    }
}

/// ArgumentError naming "host" unless `bytes` is exactly the packed pixels of `region`.
void check_host_size(std::size_t bytes, const ImageRegion& region, const ImageShape& shape, const ImageFormat& format) {
    const std::size_t needed = region.pixels() * format.pixel_size();
    if (bytes != needed)
        throw ArgumentError("host", fmt::format("holds {} bytes; {} of the {} image of {} needs {}", bytes,
                                                to_string(region), to_string(shape), to_string(format), needed));
}

}  // namespace

ImageLimits image_limits(const BoundDevice& device) {
    return detail::backend_of(device.context())->image_limits(device.index());
}

bool image_format_supported(const BoundDevice& device, const ImageFormat& format) {
    check_format(format);
    backend::Context& context = *detail::backend_of(device.context());
    return context.image_limits(device.index()).supported && context.image_format_supported(device.index(), format);
}

Image Image::allocate(const BoundDevice& device, const ImageShape& shape, const ImageFormat& format) {
    check_shape(shape);
    check_format(format);
    backend::Context& context = *detail::backend_of(device.context());
    const ImageLimits limits = context.image_limits(device.index());
    if (!limits.supported) {
        throw UnsupportedError(
            fmt::format("the {} backend has no images on {}", backend_name(device), device_label(device)));
    }
    check_limits(shape, limits, device);
    if (!context.image_format_supported(device.index(), format)) {
        throw ArgumentError("format", fmt::format("{} is not an image format {} supports on {}", to_string(format),
                                                  backend_name(device), device_label(device)));
    }
    return Image(device, context.create_image(device.index(), shape, format), shape, format);
}

Image::Image(BoundDevice device, std::shared_ptr<backend::Image> impl, ImageShape shape, ImageFormat format)
    : device_(std::move(device)), impl_(std::move(impl)), shape_(shape), format_(format) {}

Image Image::level(std::size_t level) const {
    if (level >= shape_.levels) {
        throw ArgumentError("level",
                            fmt::format("is {}; {} has levels 0 to {}", level, to_string(shape_), shape_.levels - 1));
    }
    if (shape_.levels == 1) return *this;
    const ImageShape shape = shape_.level_shape(level);
    return Image(device_, impl_->level(level, shape), shape, format_);
}

void Image::check_queue(const Queue& queue) const {
    if (!(queue.device() == device_)) {
        throw ArgumentError("queue", fmt::format("is on {} of {}, the image on {}", device_label(queue.device()),
                                                 queue.device().context() == device_.context() ? "the same context"
                                                                                               : "another context",
                                                 device_label(device_)));
    }
}

void Image::upload(const Queue& queue, std::span<const std::byte> host, bool async) const {
    upload_region(queue, ImageRegion::whole(shape_), host, async);
}

void Image::download(const Queue& queue, std::span<std::byte> host, bool async) const {
    download_region(queue, ImageRegion::whole(shape_), host, async);
}

void Image::upload_region(const Queue& queue, const ImageRegion& region, std::span<const std::byte> host,
                          bool async) const {
    check_queue(queue);
    check_box("region", region.origin, region.extent, shape_);
    check_host_size(host.size(), region, shape_, format_);
    impl_->write(*detail::backend_of(queue), region, host.data(), !async);
}

void Image::download_region(const Queue& queue, const ImageRegion& region, std::span<std::byte> host,
                            bool async) const {
    check_queue(queue);
    check_box("region", region.origin, region.extent, shape_);
    check_host_size(host.size(), region, shape_, format_);
    impl_->read(*detail::backend_of(queue), region, host.data(), !async);
}

namespace {

void check_buffer(const Buffer& buffer, const BoundDevice& device, std::size_t offset, std::size_t needed) {
    if (!(buffer.device() == device)) {
        throw ArgumentError("buffer", fmt::format("is on {}, the image on {}", device_label(buffer.device()),
                                                  device_label(device)));
    }
    if (offset > buffer.size() || buffer.size() - offset < needed) {
        throw ArgumentError("buffer", fmt::format("holds {} bytes; the pixels need {} from byte {} on", buffer.size(),
                                                  needed, offset));
    }
}

}  // namespace

void Image::copy_from(const Queue& queue, const Buffer& buffer, bool async) const {
    copy_region_from(queue, ImageRegion::whole(shape_), buffer, 0, async);
}

void Image::copy_to(const Queue& queue, const Buffer& buffer, bool async) const {
    copy_region_to(queue, ImageRegion::whole(shape_), buffer, 0, async);
}

void Image::copy_region_from(const Queue& queue, const ImageRegion& region, const Buffer& buffer, std::size_t offset,
                             bool async) const {
    check_queue(queue);
    check_box("region", region.origin, region.extent, shape_);
    check_buffer(buffer, device_, offset, region.pixels() * format_.pixel_size());
    impl_->copy_from_buffer(*detail::backend_of(queue), region, *detail::backend_of(buffer), buffer.offset() + offset,
                            !async);
}

void Image::copy_region_to(const Queue& queue, const ImageRegion& region, const Buffer& buffer, std::size_t offset,
                           bool async) const {
    check_queue(queue);
    check_box("region", region.origin, region.extent, shape_);
    check_buffer(buffer, device_, offset, region.pixels() * format_.pixel_size());
    impl_->copy_to_buffer(*detail::backend_of(queue), region, *detail::backend_of(buffer), buffer.offset() + offset,
                          !async);
}

void Image::copy_from(const Queue& queue, const Image& source, bool async) const {
    if (!(source.shape_ == shape_) || !(source.format_ == format_)) {
        throw ArgumentError("source",
                            fmt::format("is a {} image of {}; this one is a {} image of {}", to_string(source.shape_),
                                        to_string(source.format_), to_string(shape_), to_string(format_)));
    }
    if (source.impl_ == impl_) {  // the same pixels
        check_queue(queue);
        return;
    }
    copy_region_from(queue, source, ImageRegion::whole(shape_), {0, 0, 0}, async);
}

void Image::copy_region_from(const Queue& queue, const Image& source, const ImageRegion& source_region,
                             const std::array<std::size_t, 3>& destination_origin, bool async) const {
    check_queue(queue);
    if (!(source.device_ == device_)) {
        throw ArgumentError("source", fmt::format("is on {}, this image on {}", device_label(source.device_),
                                                  device_label(device_)));
    }
    if (!(source.format_ == format_) || source.shape_.dimensions != shape_.dimensions ||
        source.shape_.layered() != shape_.layered()) {
        throw ArgumentError("source", fmt::format("is a {} image of {}; this one is a {} image of {} (copies need the "
                                                  "same format, dimensions and layering)",
                                                  to_string(source.shape_), to_string(source.format_),
                                                  to_string(shape_), to_string(format_)));
    }
    check_box("source_region", source_region.origin, source_region.extent, source.shape_);
    check_box("destination_origin", destination_origin, source_region.extent, shape_);
    if (source.impl_ == impl_) {
        bool overlap = true;
        for (std::size_t c = 0; c < 3; ++c) {
            const std::size_t a = source_region.origin[c];
            const std::size_t b = destination_origin[c];
            if (a + source_region.extent[c] <= b || b + source_region.extent[c] <= a) overlap = false;
        }
        if (overlap) {
            throw ArgumentError("source_region", fmt::format("{} overlaps its destination at ({}, {}, {}) in the "
                                                             "same image",
                                                             to_string(source_region), destination_origin[0],
                                                             destination_origin[1], destination_origin[2]));
        }
    }
    impl_->copy_from_image(*detail::backend_of(queue), *source.impl_, source_region, destination_origin, !async);
}

SampledImage Image::sampled(const Sampler& sampler) const {
    check_sampler(sampler, format_, shape_);
    return SampledImage(device_, impl_->sampled(sampler), sampler);
}

std::uintptr_t Image::native_handle() const { return impl_->native_handle(); }

detail::KernelArg pack_kernel_arg(const Image& image, const detail::LaunchTarget&) {
    detail::KernelArg arg = image.impl_->write_argument();
    arg.context = detail::backend_of(image.device_.context()).get();
    return arg;
}

detail::KernelArg pack_kernel_arg(const SampledImage& image, const detail::LaunchTarget&) {
    detail::KernelArg arg = image.impl_->read_argument();
    arg.context = detail::backend_of(image.device_.context()).get();
    return arg;
}

// Copies between an image and pitched memory (issue 43, item 12): the box of the image moves as
// packed pixels (what both APIs copy between images and buffers), and a rectangular copy places
// those rows and slices at the buffer's pitches. CUDA could do it in one cuMemcpy3D, OpenCL has no
// pitch on the buffer side of clEnqueueCopyImageToBuffer: one path for both, at the cost of one
// extra device-to-device copy of the box, and none where the layout is packed already.

namespace {

// The byte box of an image region.
RectExtent image_region_bytes(const ImageRegion& region, const ImageFormat& format) {
    return RectExtent{region.extent[0] * format.pixel_size(), region.extent[1], region.extent[2]};
}

// Whether `layout` puts the box's bytes one after the other from its offset (pitches of 0 meaning
// packed, as copy_rect reads them): then no temporary is needed.
bool layout_is_packed(const RectLayout& layout, const RectExtent& extent) {
    if (layout.x != 0 || layout.y != 0 || layout.z != 0) return false;
    const std::size_t pitch = layout.pitch == 0 ? extent.width : layout.pitch;
    const std::size_t slice_pitch = layout.slice_pitch == 0 ? pitch * extent.height : layout.slice_pitch;
    return (extent.height == 1 || pitch == extent.width) &&
           (extent.depth == 1 || slice_pitch == extent.width * extent.height);
}

void check_same_device_buffer(const Buffer& buffer, const BoundDevice& device) {
    if (!(buffer.device() == device)) {
        throw ArgumentError("buffer", fmt::format("is on device {} ('{}'), the image on device {} ('{}')",
                                                  buffer.device().index(), buffer.device().name(), device.index(),
                                                  device.name()));
    }
}

}  // namespace

void Image::copy_region_from_pitched(const Queue& queue, const ImageRegion& region, const Buffer& buffer,
                                     const RectLayout& layout, bool async) const {
    check_same_device_buffer(buffer, device_);
    const RectExtent extent = image_region_bytes(region, format_);
    if (layout_is_packed(layout, extent)) {
        copy_region_from(queue, region, buffer, layout.offset, async);
        return;
    }
    // The queue and region are checked before anything is enqueued; a packed temporary of the box
    // gathers the rows, then fills the image.
    check_queue(queue);
    check_box("region", region.origin, region.extent, shape_);
    const Buffer staging = Buffer::allocate(device_, region.pixels() * format_.pixel_size());
    copy_rect(queue, staging, RectLayout{}, buffer, layout, extent, async);
    copy_region_from(queue, region, staging, 0, async);
}

void Image::copy_region_to_pitched(const Queue& queue, const ImageRegion& region, const Buffer& buffer,
                                   const RectLayout& layout, bool async) const {
    check_same_device_buffer(buffer, device_);
    const RectExtent extent = image_region_bytes(region, format_);
    if (layout_is_packed(layout, extent)) {
        copy_region_to(queue, region, buffer, layout.offset, async);
        return;
    }
    check_queue(queue);
    check_box("region", region.origin, region.extent, shape_);
    const Buffer staging = Buffer::allocate(device_, region.pixels() * format_.pixel_size());
    // The rectangular copy checks the layout against the buffer.
    copy_region_to(queue, region, staging, 0, async);
    copy_rect(queue, buffer, layout, staging, RectLayout{}, extent, async);
}

}  // namespace kjarni
