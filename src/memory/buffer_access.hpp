#pragma once
// Making Buffer handles over memory an allocator hands out (pooled blocks, virtual allocations):
// the handle shares `block`'s allocation and device but carries its own owner (`impl`, usually an
// aliasing shared_ptr whose deleter gives the memory back) and size.

#include <memory>

#include "kjarni/buffer.hpp"

namespace kjarni::detail {

struct BufferAccess {
    static Buffer make(const Buffer& block, std::shared_ptr<backend::Buffer> impl, std::size_t size) {
        return Buffer(block.device(), std::move(impl), block.offset(), size);
    }
};

}  // namespace kjarni::detail
