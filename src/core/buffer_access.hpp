#pragma once
// Making public Buffer handles out of backend buffers (Buffer's constructor is private to it and
// this friend), for the memory pool and page-locked host memory.

#include <cstddef>
#include <memory>

#include "backend/backend.hpp"
#include "kjarni/buffer.hpp"

namespace kjarni::detail {

struct BufferAccess {
    static Buffer make(BoundDevice device, std::shared_ptr<backend::Buffer> impl, std::size_t offset,
                       std::size_t size) {
        return Buffer(std::move(device), std::move(impl), offset, size);
    }
    /// A handle to `impl` with the device and offset of `block`.
    static Buffer make(const Buffer& block, std::shared_ptr<backend::Buffer> impl, std::size_t size) {
        return Buffer(block.device(), std::move(impl), block.offset(), size);
    }
};

}  // namespace kjarni::detail
