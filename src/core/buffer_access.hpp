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
    /// A handle to memory that can move: `identity` names the allocation (its deleter runs when the
    /// last handle goes; its pointer is never used), `target` is the cell, shared by every handle,
    /// holding the backend buffer the memory is in now (at `offset`).
    static Buffer make_relocatable(BoundDevice device, std::shared_ptr<backend::Buffer> identity,
                                   std::shared_ptr<std::shared_ptr<backend::Buffer>> target, std::size_t offset,
                                   std::size_t size) {
        return Buffer(std::move(device), std::move(identity), offset, size, false, std::move(target));
    }
    /// The handle that names a buffer's allocation (for relocatable memory, not the backend buffer
    /// the memory is in now, which backend_of gives).
    static const std::shared_ptr<backend::Buffer>& identity(const Buffer& buffer) noexcept { return buffer.impl_; }
};

}  // namespace kjarni::detail
