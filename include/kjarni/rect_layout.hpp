#pragma once
/// How a box of bytes lies in linear memory, for 2-D and 3-D copies (PyCUDA's
/// Memcpy2D/Memcpy3D; PyOpenCL's enqueue_copy with origins, regions and pitches).
///
/// Memory is seen as slices of rows: byte (x, y, z) of the layout is at
///   offset + z * slice_pitch + y * pitch + x
/// from the start of the memory (a Buffer's start, or a host pointer). A copy moves a box of
/// `width` bytes by `height` rows by `depth` slices from the source's origin (x, y, z) to the
/// destination's. \file

#include <cstddef>

namespace kjarni {

/// Where a 3D region lies in linear memory: the offset of its first byte and the pitches of its
/// rows and slices, for rectangular copies.
struct RectLayout {
    /// Bytes from the start of the memory to byte (0, 0, 0) of the layout.
    std::size_t offset = 0;
    /// Bytes from one row to the next; 0: the copy's width (rows packed).
    std::size_t pitch = 0;
    /// Bytes from one slice to the next, a multiple of the pitch; 0: pitch times the copy's height.
    std::size_t slice_pitch = 0;
    /// The origin of the box: x in bytes, y in rows, z in slices.
    std::size_t x = 0;
    std::size_t y = 0;
    std::size_t z = 0;
};

/// The size of the box: width in bytes, height in rows, depth in slices.
struct RectExtent {
    std::size_t width = 0;
    std::size_t height = 1;
    std::size_t depth = 1;
};

}  // namespace kjarni
