// Joining arrays: concatenate, stack, hstack, vstack, dstack.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "array/axis.hpp"
#include "kjarni/array_operations.hpp"

namespace kjarni {

namespace {

std::string shape_text(const std::vector<std::size_t>& shape) { return fmt::format("({})", fmt::join(shape, ", ")); }

// The shape of the arrays joined along `axis`, after checking that they can be.
std::vector<std::size_t> joined_shape(const Queue& queue, const std::vector<Array>& arrays, std::size_t axis) {
    const Array& first = arrays[0];
    std::vector<std::size_t> shape = first.shape();
    shape[axis] = 0;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        const Array& a = arrays[i];
        const std::string name = fmt::format("arrays[{}]", i);
        if (!(a.device().context() == queue.device().context()))
            throw ArgumentError(name, "belongs to another context than the queue (transfer() it first)");
        if (a.dtype() != first.dtype())
            throw ArgumentTypeError(name, fmt::format("has dtype {}, arrays[0] has {} (convert with astype first)",
                                                      a.dtype().name(), first.dtype().name()));
        if (a.ndim() != first.ndim())
            throw ArgumentError(name, fmt::format("has {} dimensions (shape {}), arrays[0] has {} (shape {})", a.ndim(),
                                                  shape_text(a.shape()), first.ndim(), shape_text(first.shape())));
        for (std::size_t d = 0; d < a.ndim(); ++d) {
            if (d != axis && a.shape()[d] != first.shape()[d])
                throw ArgumentError(name,
                                    fmt::format("has shape {}, arrays[0] has {}: they differ along axis {}, not only "
                                                "along the joining axis {}",
                                                shape_text(a.shape()), shape_text(first.shape()), d, axis));
        }
        shape[axis] += a.shape()[axis];
    }
    return shape;
}

std::size_t joining_axis(const std::vector<Array>& arrays, std::ptrdiff_t axis) {
    if (arrays.empty()) throw ArgumentError("arrays", "is empty: at least one array is needed");
    if (arrays[0].ndim() == 0)
        throw ArgumentError("arrays", "arrays[0] is zero-dimensional: 0-d arrays cannot be concatenated");
    return detail::normalize_axis(axis, arrays[0].ndim());
}

void copy_parts(const Queue& queue, const std::vector<Array>& arrays, const Array& out, std::size_t axis) {
    std::vector<Index> region(out.ndim(), Slice{});
    std::ptrdiff_t start = 0;
    for (const Array& a : arrays) {
        const auto extent = static_cast<std::ptrdiff_t>(a.shape()[axis]);
        if (a.size() != 0) {
            region[axis] = Slice{start, start + extent};
            // C-contiguous both sides (every part of a C-contiguous output along axis 0): one
            // device-to-device copy, not waited for; otherwise one strided-copy kernel.
            out.index(region).set(queue, a, true);
        }
        start += extent;
    }
}

}  // namespace

void concatenate(const Queue& queue, const std::vector<Array>& arrays, const Array& out, std::ptrdiff_t axis) {
    out.require_writeable("out");
    const std::size_t ax = joining_axis(arrays, axis);
    const std::vector<std::size_t> shape = joined_shape(queue, arrays, ax);
    if (!(out.device() == queue.device()))
        throw ArgumentError("out", fmt::format("is on device {} of its context, the queue on device {}",
                                               out.device().index(), queue.device().index()));
    if (out.shape() != shape || out.dtype() != arrays[0].dtype())
        throw ArgumentError("out", fmt::format("has shape {} and dtype {}; the joined arrays have {} and {}",
                                               shape_text(out.shape()), out.dtype().name(), shape_text(shape),
                                               arrays[0].dtype().name()));
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        if (may_share_memory(out, arrays[i]))
            throw ArgumentError("out", fmt::format("shares memory with arrays[{}]", i));
    }
    copy_parts(queue, arrays, out, ax);
}

Array concatenate(const Queue& queue, const std::vector<Array>& arrays, std::ptrdiff_t axis,
                  const Allocator& allocator) {
    const std::size_t ax = joining_axis(arrays, axis);
    const Array out =
        Array::empty(queue.device(), joined_shape(queue, arrays, ax), arrays[0].dtype(), std::nullopt, 0, allocator);
    copy_parts(queue, arrays, out, ax);
    return out;
}

Array stack(const Queue& queue, const std::vector<Array>& arrays, std::ptrdiff_t axis, const Allocator& allocator) {
    if (arrays.empty()) throw ArgumentError("arrays", "is empty: at least one array is needed");
    const std::size_t ax = detail::normalize_axis(axis, arrays[0].ndim() + 1);
    std::vector<Array> expanded;
    expanded.reserve(arrays.size());
    std::vector<Index> where(ax, Slice{});
    where.emplace_back(newaxis);
    where.emplace_back(ellipsis);
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        if (arrays[i].shape() != arrays[0].shape())
            throw ArgumentError(fmt::format("arrays[{}]", i),
                                fmt::format("has shape {}, arrays[0] has {}: stacked arrays must have one "
                                            "shape",
                                            shape_text(arrays[i].shape()), shape_text(arrays[0].shape())));
        expanded.push_back(arrays[i].index(where));
    }
    return concatenate(queue, expanded, static_cast<std::ptrdiff_t>(ax), allocator);
}

Array hstack(const Queue& queue, const std::vector<Array>& arrays, const Allocator& allocator) {
    const std::vector<Array> a = atleast_1d(arrays);
    return concatenate(queue, a, !a.empty() && a[0].ndim() == 1 ? 0 : 1, allocator);
}

Array vstack(const Queue& queue, const std::vector<Array>& arrays, const Allocator& allocator) {
    return concatenate(queue, atleast_2d(arrays), 0, allocator);
}
Array dstack(const Queue& queue, const std::vector<Array>& arrays, const Allocator& allocator) {
    return concatenate(queue, atleast_3d(arrays), 2, allocator);
}

}  // namespace kjarni
