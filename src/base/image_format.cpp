// The image vocabulary's values (kjarni/image_format.hpp): names, sizes, mipmap levels, regions.

#include "kjarni/image_format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kjarni {

namespace {

bool is_integer(ChannelType type) { return type != ChannelType::float16 && type != ChannelType::float32; }

// The extents of an image in kjarni's region coordinates (a layer after the dimensions).
std::array<std::size_t, 3> region_limits(const ImageShape& shape) {
    if (shape.dimensions == 1 && shape.layered()) return {shape.width, shape.layers, 1};
    if (shape.dimensions == 2 && shape.layered()) return {shape.width, shape.height, shape.layers};
    return {shape.width, shape.height, shape.depth};
}

}  // namespace

std::string to_string(ChannelOrder order) {
    switch (order) {
    case ChannelOrder::r: return "r";
    case ChannelOrder::rg: return "rg";
    case ChannelOrder::rgba: return "rgba";
    case ChannelOrder::rgb: return "rgb";
    }
    return "?";
}

std::string to_string(ChannelType type) {
    switch (type) {
    case ChannelType::uint8: return "uint8";
    case ChannelType::uint16: return "uint16";
    case ChannelType::uint32: return "uint32";
    case ChannelType::int8: return "int8";
    case ChannelType::int16: return "int16";
    case ChannelType::int32: return "int32";
    case ChannelType::float16: return "float16";
    case ChannelType::float32: return "float32";
    }
    return "?";
}

std::size_t ImageFormat::channels() const noexcept {
    switch (order) {
    case ChannelOrder::r: return 1;
    case ChannelOrder::rg: return 2;
    case ChannelOrder::rgb: return 3;
    case ChannelOrder::rgba: return 4;
    }
    return 4;
}

std::size_t ImageFormat::channel_size() const noexcept {
    switch (type) {
    case ChannelType::uint8:
    case ChannelType::int8: return 1;
    case ChannelType::uint16:
    case ChannelType::int16:
    case ChannelType::float16: return 2;
    case ChannelType::uint32:
    case ChannelType::int32:
    case ChannelType::float32: return 4;
    }
    return 0;
}

std::size_t ImageFormat::pixel_size() const noexcept { return channels() * channel_size(); }

bool ImageFormat::reads_as_float() const noexcept { return normalized || !is_integer(type); }

std::string to_string(const ImageFormat& format) {
    return fmt::format("{} {}{}", to_string(format.order), to_string(format.type),
                       format.normalized ? " normalised" : "");
}

std::size_t ImageShape::pixels() const noexcept { return width * height * depth * std::max<std::size_t>(layers, 1); }

std::size_t ImageShape::max_levels() const noexcept {
    std::size_t largest = std::max({width, dimensions >= 2 ? height : 1, dimensions >= 3 ? depth : 1});
    std::size_t count = 1;
    while (largest > 1) {
        largest /= 2;
        ++count;
    }
    return count;
}

ImageShape ImageShape::level_shape(std::size_t level) const noexcept {
    const auto halved = [level](std::size_t extent) {
        return level >= 64 ? std::size_t{1} : std::max<std::size_t>(extent >> level, 1);
    };
    ImageShape shape = *this;
    shape.width = halved(width);
    if (dimensions >= 2) shape.height = halved(height);
    if (dimensions >= 3) shape.depth = halved(depth);
    shape.levels = 1;
    return shape;
}

std::string to_string(const ImageShape& shape) {
    std::string text = fmt::format("{}-D {}", shape.dimensions, shape.width);
    if (shape.dimensions >= 2) text += fmt::format(" x {}", shape.height);
    if (shape.dimensions >= 3) text += fmt::format(" x {}", shape.depth);
    if (shape.levels != 1) text += fmt::format(", {} mipmap levels", shape.levels);
    if (shape.kind == ImageKind::cube_map) return text + ", a cube map (6 faces)";
    if (shape.kind == ImageKind::cube_map_array) {
        return text + fmt::format(", {} layers: an array of {} cube maps", shape.layers, shape.layers / 6);
    }
    if (shape.layered()) text += fmt::format(", {} layers", shape.layers);
    return text;
}

ImageRegion ImageRegion::whole(const ImageShape& shape) { return ImageRegion{{0, 0, 0}, region_limits(shape)}; }

std::string to_string(const ImageRegion& region) {
    return fmt::format("origin ({}, {}, {}), extent ({}, {}, {})", region.origin[0], region.origin[1], region.origin[2],
                       region.extent[0], region.extent[1], region.extent[2]);
}

}  // namespace kjarni
