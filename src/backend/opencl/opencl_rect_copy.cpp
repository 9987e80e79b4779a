// Pitched transfers on an OpenCL queue. The rectangular copies map one to one onto
// clEnqueue{Write,Read,Copy}BufferRect; the byte offset of a layout in its buffer joins the x origin
// (OpenCL computes an origin's address as z * slice_pitch + y * row_pitch + x, so the sum addresses
// the same byte). OpenCL has no 2-D fill: fill_2d fills the first row, then copies the rows filled
// so far below themselves (1, 2, 4, ... rows), 1 + ceil(log2(height)) commands in all.

#include <algorithm>

#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_queue.hpp"

namespace kjarni::backend::opencl {

namespace {

struct Origin {
    std::size_t values[3];
};

Origin buffer_origin(const RectLayout& layout) { return {{layout.offset + layout.x, layout.y, layout.z}}; }
Origin host_origin(const RectLayout& layout) { return {{layout.x, layout.y, layout.z}}; }

}  // namespace

void OpenClQueue::fill_2d(Buffer& dst, std::size_t offset, std::size_t pitch, std::size_t width, std::size_t height,
                          const void* pattern, std::size_t pattern_size, bool blocking) {
    const cl_mem mem = mem_of(dst);
    check(cl().clEnqueueFillBuffer(queue_.get(), mem, pattern, pattern_size, offset, width, 0, nullptr, nullptr),
          "clEnqueueFillBuffer");
    // Rows [0, filled) are the source, rows [filled, filled + rows) the destination: the two
    // never overlap, and the in-order queue runs each copy after the one before.
    for (std::size_t filled = 1; filled < height;) {
        const std::size_t rows = std::min(filled, height - filled);
        const std::size_t src_origin[3] = {offset, 0, 0};
        const std::size_t dst_origin[3] = {offset, filled, 0};
        const std::size_t region[3] = {width, rows, 1};
        check(cl().clEnqueueCopyBufferRect(queue_.get(), mem, mem, src_origin, dst_origin, region, pitch, 0, pitch, 0,
                                           0, nullptr, nullptr),
              "clEnqueueCopyBufferRect");
        filled += rows;
    }
    finish_if(blocking);
}

void OpenClQueue::write_rect(Buffer& dst, const RectLayout& dst_layout, const void* src, const RectLayout& src_layout,
                             const RectExtent& extent, bool blocking) {
    const Origin buffer = buffer_origin(dst_layout);
    const Origin host = host_origin(src_layout);
    const std::size_t region[3] = {extent.width, extent.height, extent.depth};
    check(cl().clEnqueueWriteBufferRect(queue_.get(), mem_of(dst), blocking ? CL_TRUE : CL_FALSE, buffer.values,
                                        host.values, region, dst_layout.pitch, dst_layout.slice_pitch, src_layout.pitch,
                                        src_layout.slice_pitch,
                                        static_cast<const unsigned char*>(src) + src_layout.offset, 0, nullptr,
                                        nullptr),
          "clEnqueueWriteBufferRect");
    if (!blocking) finish_if(false);
}

void OpenClQueue::read_rect(void* dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                            const RectExtent& extent, bool blocking) {
    const Origin buffer = buffer_origin(src_layout);
    const Origin host = host_origin(dst_layout);
    const std::size_t region[3] = {extent.width, extent.height, extent.depth};
    check(cl().clEnqueueReadBufferRect(queue_.get(), mem_of(src), blocking ? CL_TRUE : CL_FALSE, buffer.values,
                                       host.values, region, src_layout.pitch, src_layout.slice_pitch, dst_layout.pitch,
                                       dst_layout.slice_pitch, static_cast<unsigned char*>(dst) + dst_layout.offset, 0,
                                       nullptr, nullptr),
          "clEnqueueReadBufferRect");
    if (!blocking) finish_if(false);
}

void OpenClQueue::copy_rect(Buffer& dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                            const RectExtent& extent, bool blocking) {
    const Origin from = buffer_origin(src_layout);
    const Origin to = buffer_origin(dst_layout);
    const std::size_t region[3] = {extent.width, extent.height, extent.depth};
    check(cl().clEnqueueCopyBufferRect(queue_.get(), mem_of(src), mem_of(dst), from.values, to.values, region,
                                       src_layout.pitch, src_layout.slice_pitch, dst_layout.pitch,
                                       dst_layout.slice_pitch, 0, nullptr, nullptr),
          "clEnqueueCopyBufferRect");
    finish_if(blocking);
}

}  // namespace kjarni::backend::opencl
