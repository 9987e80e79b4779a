// numpy's squeeze, expand_dims, moveaxis and swapaxes as layouts: the same memory seen with axes
// removed, inserted or reordered (no element moves, so every one is a view whatever the strides).

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "array/axis.hpp"
#include "kjarni/array.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace {

// Each axis normalised against `ndim`; ArgumentError naming the axis when out of range or repeated.
std::vector<std::size_t> normalize_axes(std::span<const int> axes, std::size_t ndim, const char* what) {
    std::vector<std::size_t> out;
    std::vector<bool> seen(ndim, false);
    for (const int axis : axes) {
        const std::size_t a = detail::normalize_axis(axis, ndim, what);
        if (seen[a]) throw ArgumentError(what, fmt::format("axis {} is repeated in ({})", axis, fmt::join(axes, ", ")));
        seen[a] = true;
        out.push_back(a);
    }
    return out;
}

}  // namespace

Layout Layout::squeeze() const {
    Layout out;
    out.offset = offset;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == 1) continue;
        out.shape.push_back(shape[d]);
        out.strides.push_back(strides[d]);
    }
    return out;
}

Layout Layout::squeeze(std::span<const int> axes) const {
    const std::vector<std::size_t> removed = normalize_axes(axes, shape.size(), "axis");
    for (std::size_t k = 0; k < removed.size(); ++k)
        if (shape[removed[k]] != 1)
            throw ArgumentError("axis",
                                fmt::format("squeeze: axis {} has extent {}, not 1", axes[k], shape[removed[k]]));
    Layout out;
    out.offset = offset;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (std::find(removed.begin(), removed.end(), d) != removed.end()) continue;
        out.shape.push_back(shape[d]);
        out.strides.push_back(strides[d]);
    }
    return out;
}

Layout Layout::expand_dims(std::span<const int> axes) const {
    const std::size_t ndim = shape.size() + axes.size();
    const std::vector<std::size_t> inserted = normalize_axes(axes, ndim, "axis");
    Layout out;
    out.offset = offset;
    std::size_t from = 0;
    for (std::size_t d = 0; d < ndim; ++d) {
        if (std::find(inserted.begin(), inserted.end(), d) != inserted.end()) {
            out.shape.push_back(1);
            out.strides.push_back(0);  // as newaxis: an axis of extent 1 never steps
        } else {
            out.shape.push_back(shape[from]);
            out.strides.push_back(strides[from]);
            ++from;
        }
    }
    return out;
}

Layout Layout::moveaxis(std::span<const int> source, std::span<const int> destination) const {
    if (source.size() != destination.size())
        throw ArgumentError("destination", fmt::format("moveaxis: {} source axes and {} destination axes",
                                                       source.size(), destination.size()));
    const std::vector<std::size_t> from = normalize_axes(source, shape.size(), "source");
    const std::vector<std::size_t> to = normalize_axes(destination, shape.size(), "destination");
    // numpy's construction: the axes not moved in order, then each moved axis inserted at its
    // destination, in increasing order of destination.
    std::vector<std::size_t> order;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (std::find(from.begin(), from.end(), d) == from.end()) order.push_back(d);
    std::vector<std::size_t> by_destination(from.size());
    std::iota(by_destination.begin(), by_destination.end(), std::size_t{0});
    std::sort(by_destination.begin(), by_destination.end(),
              [&](std::size_t x, std::size_t y) { return to[x] < to[y]; });
    for (const std::size_t k : by_destination)
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(to[k]), from[k]);
    return transpose(order);
}

Layout Layout::swapaxes(int axis1, int axis2) const {
    const std::size_t a = detail::normalize_axis(axis1, shape.size(), "axis1");
    const std::size_t b = detail::normalize_axis(axis2, shape.size(), "axis2");
    Layout out = *this;
    std::swap(out.shape[a], out.shape[b]);
    std::swap(out.strides[a], out.strides[b]);
    return out;
}

}  // namespace kjarni
