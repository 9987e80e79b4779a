#include "kjarni/pitched_memory.hpp"

#include <fmt/format.h>

#include <cstring>

#include "backend/backend.hpp"
#include "core/buffer_access.hpp"
#include "core/device_label.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

using detail::device_label;

namespace {

void check_queue_on(const Queue& queue, const Buffer& buffer, const char* what) {
    if (!(queue.device().context() == buffer.device().context())) {
        throw ArgumentError("queue", fmt::format("belongs to another context than the {}", what));
    }
    if (!(queue.device() == buffer.device())) {
        throw ArgumentError("queue", fmt::format("is on {} but the {} is on {}", device_label(queue.device()), what,
                                                 device_label(buffer.device())));
    }
}

std::size_t checked_multiply(std::size_t a, std::size_t b, const char* argument) {
    std::size_t product = 0;
    if (__builtin_mul_overflow(a, b, &product))
        throw ArgumentError(argument, "describes more bytes than fit in size_t");
    return product;
}

std::size_t checked_add(std::size_t a, std::size_t b, const char* argument) {
    std::size_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) throw ArgumentError(argument, "describes more bytes than fit in size_t");
    return sum;
}

// The layout with its defaults filled in, checked against the extent and against `capacity`
// bytes of memory; returns it with the first and one-past-last byte the copy touches.
struct CheckedLayout {
    RectLayout layout;
    std::size_t first = 0;
    std::size_t end = 0;
};

CheckedLayout check_layout(const RectLayout& given, const RectExtent& extent, std::size_t capacity,
                           const char* argument) {
    RectLayout layout = given;
    if (layout.pitch == 0) layout.pitch = extent.width;
    if (layout.slice_pitch == 0) layout.slice_pitch = checked_multiply(layout.pitch, extent.height, argument);
    if (extent.width == 0 || extent.height == 0 || extent.depth == 0) return {layout, 0, 0};  // nothing moves
    if (checked_add(layout.x, extent.width, argument) > layout.pitch) {
        throw ArgumentError(argument, fmt::format("rows of {} bytes from x = {} do not fit in its pitch of {} bytes",
                                                  extent.width, layout.x, layout.pitch));
    }
    if (layout.slice_pitch % layout.pitch != 0) {
        throw ArgumentError(argument, fmt::format("slice pitch {} is not a multiple of its pitch {}",
                                                  layout.slice_pitch, layout.pitch));
    }
    if (checked_add(layout.y, extent.height, argument) > layout.slice_pitch / layout.pitch) {
        throw ArgumentError(argument, fmt::format("{} rows from y = {} do not fit in a slice of {} rows", extent.height,
                                                  layout.y, layout.slice_pitch / layout.pitch));
    }
    const std::size_t first =
        checked_add(layout.offset,
                    checked_add(checked_multiply(layout.z, layout.slice_pitch, argument),
                                checked_add(checked_multiply(layout.y, layout.pitch, argument), layout.x, argument),
                                argument),
                    argument);
    const std::size_t last_row_start =
        checked_add(first,
                    checked_add(checked_multiply(extent.depth - 1, layout.slice_pitch, argument),
                                checked_multiply(extent.height - 1, layout.pitch, argument), argument),
                    argument);
    const std::size_t end = checked_add(last_row_start, extent.width, argument);
    if (end > capacity) {
        throw ArgumentError(argument, fmt::format("the box ends at byte {}, past the end of its memory of {} bytes",
                                                  end, capacity));
    }
    return {layout, first, end};
}

bool empty(const RectExtent& extent) { return extent.width == 0 || extent.height == 0 || extent.depth == 0; }

// Offsets into the buffer's whole allocation, as the backend takes them.
RectLayout in_allocation(RectLayout layout, const Buffer& buffer) {
    layout.offset += buffer.offset();
    return layout;
}

}  // namespace

PitchedBuffer allocate_pitched(const BoundDevice& device, std::size_t width, std::size_t height,
                               std::size_t element_size) {
    if (element_size != 4 && element_size != 8 && element_size != 16) {
        throw ArgumentError("element_size", fmt::format("is {}; it must be 4, 8 or 16", element_size));
    }
    if (width == 0 || height == 0) return {Buffer::allocate(device, 0), width};
    checked_multiply(width, height, "height");
    backend::PitchedAllocation made =
        detail::backend_of(device.context())->allocate_pitched(device.index(), width, height, element_size);
    const std::size_t size = made.buffer->size();
    return {detail::BufferAccess::make(device, std::move(made.buffer), 0, size), made.pitch};
}

void fill_2d(const Queue& queue, const Buffer& buffer, std::size_t pitch, std::size_t width, std::size_t height,
             std::span<const std::byte> pattern, bool async) {
    check_queue_on(queue, buffer, "buffer");
    const std::size_t n = pattern.size();
    if (n != 1 && n != 2 && n != 4) {
        throw ArgumentError("pattern", fmt::format("has {} bytes; a 2-D fill takes 1, 2 or 4", n));
    }
    if (width % n != 0 || pitch % n != 0 || buffer.offset() % n != 0) {
        throw ArgumentError("pattern", fmt::format("of {} bytes must divide the width ({}), the pitch ({}) and the "
                                                   "buffer's offset in its allocation ({})",
                                                   n, width, pitch, buffer.offset()));
    }
    if (width > pitch) {
        throw ArgumentError("width", fmt::format("{} bytes do not fit in a pitch of {}", width, pitch));
    }
    if (width == 0 || height == 0) return;
    const std::size_t end = checked_add(checked_multiply(height - 1, pitch, "height"), width, "height");
    if (end > buffer.size()) {
        throw ArgumentError("height", fmt::format("{} rows of pitch {} end at byte {}, past the buffer's {} bytes",
                                                  height, pitch, end, buffer.size()));
    }
    detail::backend_of(queue)->fill_2d(*detail::backend_of(buffer), buffer.offset(), pitch, width, height,
                                       pattern.data(), n, !async);
}

void fill_2d(const Queue& queue, const Buffer& buffer, std::size_t pitch, std::size_t width, std::size_t height,
             std::uint8_t value, bool async) {
    fill_2d(queue, buffer, pitch, width, height, std::as_bytes(std::span(&value, 1)), async);
}

void fill_2d(const Queue& queue, const Buffer& buffer, std::size_t pitch, std::size_t width, std::size_t height,
             std::uint16_t value, bool async) {
    fill_2d(queue, buffer, pitch, width, height, std::as_bytes(std::span(&value, 1)), async);
}

void fill_2d(const Queue& queue, const Buffer& buffer, std::size_t pitch, std::size_t width, std::size_t height,
             std::uint32_t value, bool async) {
    fill_2d(queue, buffer, pitch, width, height, std::as_bytes(std::span(&value, 1)), async);
}

void copy_rect(const Queue& queue, const Buffer& dst, const RectLayout& dst_layout, const Buffer& src,
               const RectLayout& src_layout, const RectExtent& extent, bool async) {
    if (!(src.device().context() == dst.device().context())) {
        throw ArgumentError("src", "belongs to another context than the destination buffer");
    }
    if (!(queue.device().context() == dst.device().context())) {
        throw ArgumentError("queue", "belongs to another context than the buffers");
    }
    if (!(queue.device() == dst.device()) && !(queue.device() == src.device())) {
        throw ArgumentError("queue", fmt::format("is on {}, but the copy goes from {} to {}: use a queue of one of "
                                                 "them",
                                                 device_label(queue.device()), device_label(src.device()),
                                                 device_label(dst.device())));
    }
    const CheckedLayout to = check_layout(dst_layout, extent, dst.size(), "dst_layout");
    const CheckedLayout from = check_layout(src_layout, extent, src.size(), "src_layout");
    if (empty(extent)) return;
    if (detail::backend_of(src) == detail::backend_of(dst)) {
        const std::size_t to_first = to.first + dst.offset();
        const std::size_t from_first = from.first + src.offset();
        if (to_first < from.end + src.offset() && from_first < to.end + dst.offset()) {
            throw ArgumentError("src_layout", "spans bytes of the destination's span in the same allocation");
        }
    }
    detail::backend_of(queue)->copy_rect(*detail::backend_of(dst), in_allocation(to.layout, dst),
                                         *detail::backend_of(src), in_allocation(from.layout, src), extent, !async);
}

void copy_rect(const Queue& queue, const Buffer& dst, const RectLayout& dst_layout, std::span<const std::byte> src,
               const RectLayout& src_layout, const RectExtent& extent, bool async) {
    check_queue_on(queue, dst, "buffer");
    const CheckedLayout to = check_layout(dst_layout, extent, dst.size(), "dst_layout");
    const CheckedLayout from = check_layout(src_layout, extent, src.size(), "src_layout");
    if (empty(extent)) return;
    detail::backend_of(queue)->write_rect(*detail::backend_of(dst), in_allocation(to.layout, dst), src.data(),
                                          from.layout, extent, !async);
}

void copy_rect(const Queue& queue, std::span<std::byte> dst, const RectLayout& dst_layout, const Buffer& src,
               const RectLayout& src_layout, const RectExtent& extent, bool async) {
    check_queue_on(queue, src, "buffer");
    const CheckedLayout to = check_layout(dst_layout, extent, dst.size(), "dst_layout");
    const CheckedLayout from = check_layout(src_layout, extent, src.size(), "src_layout");
    if (empty(extent)) return;
    detail::backend_of(queue)->read_rect(dst.data(), to.layout, *detail::backend_of(src),
                                         in_allocation(from.layout, src), extent, !async);
}

}  // namespace kjarni
