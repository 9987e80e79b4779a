// may_share_memory and transfer of an array to another device or context.

#include "kjarni/array_operations.hpp"
#include "kjarni/peer_access.hpp"

namespace kjarni {

bool may_share_memory(const Array& a, const Array& b) {
    if (a.size() == 0 || b.size() == 0) return false;
    if (detail::backend_of(a.base()) != detail::backend_of(b.base())) return false;
    // Byte ranges in the allocation: base() may itself be a region of it (Array::from_buffer).
    auto range = [](const Array& x) {
        const auto [low, high] = x.layout().extent(x.dtype().itemsize());
        const auto first = static_cast<std::ptrdiff_t>(x.base().offset() + x.offset());
        return std::pair{first + low, first + high};
    };
    const auto [a_low, a_high] = range(a);
    const auto [b_low, b_high] = range(b);
    return a_low < b_high && b_low < a_high;
}

Array transfer(const Array& array, const Queue& queue, const Allocator& allocator) {
    const Array out = Array::empty(queue.device(), array.shape(), array.dtype(), std::nullopt, 0, allocator);
    if (array.device().context() == queue.device().context()) {
        // Device to device within the context (Array::set: a peer copy between devices).
        out.set(queue, array);
        return out;
    }
    // Between contexts of one API, a C-contiguous array goes device to device where the driver
    // can (CUDA cuMemcpyPeerAsync; copy_between_contexts stages through the host elsewhere).
    if (array.is_c_contiguous() && array.size() != 0 &&
        array.device().context().api().id() == queue.device().context().api().id()) {
        copy_between_contexts(queue, out.base().get_sub_region(out.offset(), out.nbytes()),
                              array.base().get_sub_region(array.offset(), array.nbytes()));
        return out;
    }
    // Otherwise through the host, on a queue of the source's device.
    const Queue source_queue(array.device());
    out.set(queue, array.get(source_queue));
    return out;
}

}  // namespace kjarni
