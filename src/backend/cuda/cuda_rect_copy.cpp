// Pitched transfers on a CUDA stream: 2-D memsets (cuMemsetD2D8/16/32Async) and 3-D copies between
// host and device memory (cuMemcpy3DAsync), or between devices (cuMemcpy3DPeerAsync). A 2-D copy
// is a 3-D one of depth 1.

#include <cuda.h>

#include <cstdint>
#include <cstring>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"

namespace kjarni::backend::cuda {

namespace {

// One side of a copy, in the members CUDA_MEMCPY3D and CUDA_MEMCPY3D_PEER share.
struct Side {
    CUmemorytype type;
    CUdeviceptr device = 0;
    const void* host = nullptr;
    const RectLayout* layout;
};

template <class Params>
void set_source(Params& p, const Side& side) {
    p.srcMemoryType = side.type;
    p.srcDevice = side.device;
    p.srcHost = side.host;
    p.srcXInBytes = side.layout->x;
    p.srcY = side.layout->y;
    p.srcZ = side.layout->z;
    p.srcPitch = side.layout->pitch;
    // CUDA counts a slice in rows; the public layer checked that the slice pitch is a multiple.
    p.srcHeight = side.layout->slice_pitch / side.layout->pitch;
}

template <class Params>
void set_destination(Params& p, const Side& side) {
    p.dstMemoryType = side.type;
    p.dstDevice = side.device;
    p.dstHost = const_cast<void*>(side.host);
    p.dstXInBytes = side.layout->x;
    p.dstY = side.layout->y;
    p.dstZ = side.layout->z;
    p.dstPitch = side.layout->pitch;
    p.dstHeight = side.layout->slice_pitch / side.layout->pitch;
}

template <class Params>
void set_extent(Params& p, const RectExtent& extent) {
    p.WidthInBytes = extent.width;
    p.Height = extent.height;
    p.Depth = extent.depth;
}

Side device_side(Buffer& buffer, const RectLayout& layout) {
    return {CU_MEMORYTYPE_DEVICE, static_cast<CudaBuffer&>(buffer).at(layout.offset), nullptr, &layout};
}

Side host_side(const void* pointer, const RectLayout& layout) {
    return {CU_MEMORYTYPE_HOST, 0, static_cast<const unsigned char*>(pointer) + layout.offset, &layout};
}

}  // namespace

void CudaQueue::fill_2d(Buffer& dst, std::size_t offset, std::size_t pitch, std::size_t width, std::size_t height,
                        const void* pattern, std::size_t pattern_size, bool blocking) {
    const CUdeviceptr start = static_cast<CudaBuffer&>(dst).at(offset);
    const Driver& driver = context_->driver();
    CurrentContext current(driver, context_->cu_context(device_index_));
    // The value is passed by value: nothing of `pattern` is read after return.
    switch (pattern_size) {
    case 1: {
        unsigned char value = 0;
        std::memcpy(&value, pattern, 1);
        KJARNI_CU(driver, MemsetD2D8Async, start, pitch, value, width, height, stream_.get());
        break;
    }
    case 2: {
        std::uint16_t value = 0;
        std::memcpy(&value, pattern, 2);
        KJARNI_CU(driver, MemsetD2D16Async, start, pitch, value, width / 2, height, stream_.get());
        break;
    }
    default: {
        std::uint32_t value = 0;
        std::memcpy(&value, pattern, 4);
        KJARNI_CU(driver, MemsetD2D32Async, start, pitch, value, width / 4, height, stream_.get());
        break;
    }
    }
    if (blocking) KJARNI_CU(driver, StreamSynchronize, stream_.get());
}

void CudaQueue::write_rect(Buffer& dst, const RectLayout& dst_layout, const void* src, const RectLayout& src_layout,
                           const RectExtent& extent, bool blocking) {
    CUDA_MEMCPY3D p{};
    set_source(p, host_side(src, src_layout));
    set_destination(p, device_side(dst, dst_layout));
    set_extent(p, extent);
    const Driver& driver = context_->driver();
    CurrentContext current(driver, context_->cu_context(device_index_));
    KJARNI_CU(driver, Memcpy3DAsync, &p, stream_.get());
    if (blocking) KJARNI_CU(driver, StreamSynchronize, stream_.get());
}

void CudaQueue::read_rect(void* dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                          const RectExtent& extent, bool blocking) {
    CUDA_MEMCPY3D p{};
    set_source(p, device_side(src, src_layout));
    set_destination(p, host_side(dst, dst_layout));
    set_extent(p, extent);
    const Driver& driver = context_->driver();
    CurrentContext current(driver, context_->cu_context(device_index_));
    KJARNI_CU(driver, Memcpy3DAsync, &p, stream_.get());
    if (blocking) KJARNI_CU(driver, StreamSynchronize, stream_.get());
}

void CudaQueue::copy_rect(Buffer& dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                          const RectExtent& extent, bool blocking) {
    const Driver& driver = context_->driver();
    CurrentContext current(driver, context_->cu_context(device_index_));
    if (dst.device_index() == src.device_index()) {
        CUDA_MEMCPY3D p{};
        set_source(p, device_side(src, src_layout));
        set_destination(p, device_side(dst, dst_layout));
        set_extent(p, extent);
        KJARNI_CU(driver, Memcpy3DAsync, &p, stream_.get());
    } else {
        // Between devices: each side names its context (direct with peer access, else staged by
        // the driver), as for 1-D peer copies.
        CUDA_MEMCPY3D_PEER p{};
        set_source(p, device_side(src, src_layout));
        set_destination(p, device_side(dst, dst_layout));
        set_extent(p, extent);
        p.srcContext = context_->cu_context(src.device_index());
        p.dstContext = context_->cu_context(dst.device_index());
        KJARNI_CU(driver, Memcpy3DPeerAsync, &p, stream_.get());
    }
    if (blocking) KJARNI_CU(driver, StreamSynchronize, stream_.get());
}

}  // namespace kjarni::backend::cuda
