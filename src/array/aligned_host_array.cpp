// Host arrays at a chosen alignment: PyCUDA's aligned_empty and its relatives.

#include "kjarni/aligned_host_array.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <new>

#include "kjarni/error.hpp"

namespace kjarni {

namespace {

HostArray allocate_aligned(const DType& dtype, std::vector<std::size_t> shape, Order order, std::size_t alignment,
                           bool zero) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        throw ArgumentError("alignment", fmt::format("{} is not a power of two", alignment));
    std::size_t bytes = dtype.itemsize();
    for (const std::size_t extent : shape) {
        if (extent != 0 && bytes > std::numeric_limits<std::size_t>::max() / extent)
            throw ArgumentError("shape", "the array's size in bytes overflows");
        bytes *= extent;
    }
    // At least one byte, so that even an empty array has an aligned address of its own.
    const std::size_t allocated = bytes == 0 ? 1 : bytes;
    const std::align_val_t align{std::max(alignment, alignof(std::max_align_t))};
    auto* memory = static_cast<std::byte*>(::operator new(allocated, align));
    std::shared_ptr<std::byte> storage(memory, [align](std::byte* p) { ::operator delete(p, align); });
    if (zero) std::memset(memory, 0, allocated);
    return HostArray::adopt(std::move(storage), bytes, dtype, std::move(shape), order);
}

Order order_like(const HostArray& like) {
    return like.is_f_contiguous() && !like.is_c_contiguous() ? Order::F : Order::C;
}

}  // namespace

HostArray aligned_empty(const DType& dtype, std::vector<std::size_t> shape, Order order, std::size_t alignment) {
    return allocate_aligned(dtype, std::move(shape), order, alignment, false);
}

HostArray aligned_zeros(const DType& dtype, std::vector<std::size_t> shape, Order order, std::size_t alignment) {
    return allocate_aligned(dtype, std::move(shape), order, alignment, true);
}

HostArray aligned_empty_like(const HostArray& like, std::size_t alignment) {
    return allocate_aligned(like.dtype(), like.shape(), order_like(like), alignment, false);
}

HostArray aligned_zeros_like(const HostArray& like, std::size_t alignment) {
    return allocate_aligned(like.dtype(), like.shape(), order_like(like), alignment, true);
}

}  // namespace kjarni
