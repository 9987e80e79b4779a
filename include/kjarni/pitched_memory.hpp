#pragma once
/// Pitched memory, 2-D fills and 2-D/3-D copies (PyCUDA's mem_alloc_pitch,
/// memset_d2d8/16/32[_async], Memcpy2D, Memcpy3D, Memcpy3DPeer; PyOpenCL's
/// enqueue_copy with buffer/host origins, regions and pitches, i.e. clEnqueue{Read,Write,Copy}BufferRect).
/// kjarni/rect_layout.hpp says how a box lies in memory.
///
/// Asynchronous transfers (async = true) follow Buffer's rules: the host memory must stay alive and
/// untouched until the queue has passed the copy. Rectangular host transfers are never staged. \file

#include <cstddef>
#include <cstdint>
#include <span>

#include "kjarni/buffer.hpp"
#include "kjarni/rect_layout.hpp"

namespace kjarni {

/// A buffer for 2D data whose rows start at a pitch the device prefers.
struct PitchedBuffer {
    /// pitch * height bytes.
    Buffer buffer;
    /// Bytes from one row to the next, at least the width asked for.
    std::size_t pitch = 0;
};

/// `height` rows of at least `width` bytes each, at a pitch the device accesses efficiently with
/// elements of `element_size` bytes (4, 8 or 16). CUDA: cuMemAllocPitch. OpenCL: one buffer, the
/// rows padded to the device's base address alignment (CL_DEVICE_MEM_BASE_ADDR_ALIGN). An empty
/// extent gives an empty buffer of pitch `width`.
PitchedBuffer allocate_pitched(const BoundDevice& device, std::size_t width, std::size_t height,
                               std::size_t element_size = 4);

/// Fills `height` rows of `width` bytes, `pitch` bytes apart, from the start of `buffer`, with a
/// pattern of 1, 2 or 4 bytes (PyCUDA's memset_d2d8/16/32) that divides `width`, `pitch` and the
/// buffer's offset in its allocation. Bytes between the rows are left alone. 1-D fills of any
/// pattern are Buffer::fill.
void fill_2d(const Queue& queue, const Buffer& buffer, std::size_t pitch, std::size_t width, std::size_t height,
             std::span<const std::byte> pattern, bool async = false);
void fill_2d(const Queue& queue, const Buffer& buffer, std::size_t pitch, std::size_t width, std::size_t height,
             std::uint8_t value, bool async = false);
void fill_2d(const Queue& queue, const Buffer& buffer, std::size_t pitch, std::size_t width, std::size_t height,
             std::uint16_t value, bool async = false);
void fill_2d(const Queue& queue, const Buffer& buffer, std::size_t pitch, std::size_t width, std::size_t height,
             std::uint32_t value, bool async = false);

/// Copies the box `extent` from `src` (laid out as `src_layout`) to `dst` (as `dst_layout`).
/// Layouts are checked against the memory: a pitch of at least x + width, a slice pitch that is a
/// multiple of the pitch and holds y + height rows, and the last byte inside the buffer or span
/// (ArgumentError naming the side otherwise). The queue must be on the buffer's device (for two
/// buffers: on either's; they may be on different devices of one context, a peer copy). Two
/// regions of one allocation must not share any byte between their first and last.
void copy_rect(const Queue& queue, const Buffer& dst, const RectLayout& dst_layout, const Buffer& src,
               const RectLayout& src_layout, const RectExtent& extent, bool async = false);
void copy_rect(const Queue& queue, const Buffer& dst, const RectLayout& dst_layout, std::span<const std::byte> src,
               const RectLayout& src_layout, const RectExtent& extent, bool async = false);
void copy_rect(const Queue& queue, std::span<std::byte> dst, const RectLayout& dst_layout, const Buffer& src,
               const RectLayout& src_layout, const RectExtent& extent, bool async = false);

}  // namespace kjarni
