#include "algorithms/iteration_space.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kjarni/error.hpp"

namespace kjarni::detail {

std::vector<std::size_t> broadcast_shapes(std::span<const std::vector<std::size_t>> shapes, const std::string& what) {
    std::size_t ndim = 0;
    for (const auto& s : shapes) ndim = std::max(ndim, s.size());
    std::vector<std::size_t> out(ndim, 1);
    for (const auto& s : shapes) {
        const std::size_t lead = ndim - s.size();
        for (std::size_t k = 0; k < s.size(); ++k) {
            std::size_t& extent = out[lead + k];
            if (s[k] == 1 || s[k] == extent) continue;
            if (extent != 1) {
                std::vector<std::string> names;
                for (const auto& t : shapes) names.push_back(fmt::format("({})", fmt::join(t, ", ")));
                throw ArgumentError(what, fmt::format("shapes {} do not broadcast together (axis {} of the result: {} "
                                                      "against {})",
                                                      fmt::join(names, ", "), lead + k, extent, s[k]));
            }
            extent = s[k];
        }
    }
    return out;
}

std::vector<std::ptrdiff_t> element_strides(const Layout& layout, std::size_t itemsize,
                                            const std::vector<std::size_t>& shape, std::string_view name) {
    if (layout.ndim() > shape.size())
        throw ArgumentError(std::string(name),
                            fmt::format("has {} axes, more than the {} of the result", layout.ndim(), shape.size()));
    const std::size_t lead = shape.size() - layout.ndim();
    const auto size = static_cast<std::ptrdiff_t>(itemsize);
    std::vector<std::ptrdiff_t> out(shape.size(), 0);
    for (std::size_t k = 0; k < layout.ndim(); ++k) {
        if (layout.shape[k] == shape[lead + k]) {
            if (layout.strides[k] % size != 0)
                throw ArgumentError(std::string(name),
                                    fmt::format("stride {} of axis {} is not a multiple of the itemsize {}",
                                                layout.strides[k], k, itemsize));
            out[lead + k] = layout.shape[k] == 1 ? 0 : layout.strides[k] / size;
        } else if (layout.shape[k] != 1) {
            throw ArgumentError(std::string(name), fmt::format("shape ({}) does not broadcast to ({})",
                                                               fmt::join(layout.shape, ", "), fmt::join(shape, ", ")));
        }
    }
    return out;
}

std::size_t IterationSpace::size() const noexcept {
    return std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
}

bool IterationSpace::contiguous(std::size_t k) const noexcept {
    return shape.empty() || (shape.size() == 1 && strides[k][0] == 1);
}

IterationSpace make_iteration_space(std::vector<std::size_t> shape, std::vector<std::vector<std::ptrdiff_t>> strides,
                                    std::vector<bool> reduced, bool keep_order) {
    const std::size_t operands = strides.size();
    if (reduced.empty()) reduced.assign(shape.size(), false);
    IterationSpace space;
    space.strides.resize(operands);
    if (std::find(shape.begin(), shape.end(), std::size_t{0}) != shape.end()) {
        // Nothing to iterate over: one empty axis, reduced if any reduced axis is there.
        space.shape = {0};
        space.reduced = {std::find(reduced.begin(), reduced.end(), true) != reduced.end()};
        for (auto& s : space.strides) s = {0};
        return space;
    }
    // Axes of extent 1 play no part.
    std::vector<std::size_t> axes;
    for (std::size_t k = 0; k < shape.size(); ++k)
        if (shape[k] != 1) axes.push_back(k);
    if (!keep_order && operands > 0) {
        // The fastest index should walk the first operand's memory: sort by its strides, largest
        // first. Stable, so equal strides (broadcast axes) keep their order.
        std::stable_sort(axes.begin(), axes.end(), [&](std::size_t a, std::size_t b) {
            return std::llabs(strides[0][a]) > std::llabs(strides[0][b]);
        });
    }
    for (const std::size_t axis : axes) {
        bool can_merge = !space.shape.empty() && space.reduced.back() == reduced[axis];
        for (std::size_t k = 0; can_merge && k < operands; ++k)
            can_merge = strides[k][axis] * static_cast<std::ptrdiff_t>(shape[axis]) == space.strides[k].back();
        if (can_merge) {
            // The previous (outer) axis steps exactly over a whole run of this one: one axis.
            space.shape.back() *= shape[axis];
            for (std::size_t k = 0; k < operands; ++k) space.strides[k].back() = strides[k][axis];
        } else {
            space.shape.push_back(shape[axis]);
            space.reduced.push_back(reduced[axis]);
            for (std::size_t k = 0; k < operands; ++k) space.strides[k].push_back(strides[k][axis]);
        }
    }
    return space;
}

IterationSpace contiguous_space(std::size_t n, std::size_t operands) {
    IterationSpace space;
    space.shape.assign(1, n);
    space.reduced.assign(1, false);
    space.strides.assign(operands, std::vector<std::ptrdiff_t>(1, 1));
    return space;
}

bool fits_32_bits(const IterationSpace& space, const std::vector<std::ptrdiff_t>& offsets) {
    constexpr std::size_t limit = std::size_t{1} << 31;
    // Grid-stride loops add the grid size to an index below the count: keep room for it.
    if (space.size() >= limit - most_grid_items) return false;
    for (std::size_t k = 0; k < space.strides.size(); ++k) {
        const auto& s = space.strides[k];
        std::size_t reach = static_cast<std::size_t>(std::llabs(offsets.at(k)));
        for (std::size_t d = 0; d < space.ndim(); ++d)
            reach += static_cast<std::size_t>(std::llabs(s[d])) * (space.shape[d] - 1);
        if (reach >= limit) return false;
    }
    return true;
}

}  // namespace kjarni::detail
