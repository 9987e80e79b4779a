#pragma once
// The iteration space of a generated kernel over several arrays that share one (broadcast) shape:
// numpy's broadcasting, then axes reordered and merged so that the kernel decodes as few
// coordinates as possible. Used by the elementwise kernels, the reductions and the scans.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kjarni/array.hpp"

namespace kjarni::detail {

/// numpy's broadcast of several shapes (size-1 and missing leading axes stretch). ArgumentError
/// naming every shape when they do not broadcast; `what` names the operation in the message.
std::vector<std::size_t> broadcast_shapes(std::span<const std::vector<std::size_t>> shapes, const std::string& what);

/// One array's strides in elements over a broadcast shape: 0 along stretched or missing axes.
/// ArgumentError when a stride is not a multiple of the itemsize (`name` names the array).
std::vector<std::ptrdiff_t> element_strides(const Layout& layout, std::size_t itemsize,
                                            const std::vector<std::size_t>& shape, std::string_view name);

/// A set of operands iterated together.
struct IterationSpace {
    /// Extents, slowest axis first (the last axis varies fastest).
    std::vector<std::size_t> shape;
    /// Per operand, its stride in elements along each axis of `shape`.
    std::vector<std::vector<std::ptrdiff_t>> strides;
    /// Per axis, whether it is reduced (all false for elementwise spaces).
    std::vector<bool> reduced;

    std::size_t ndim() const noexcept { return shape.size(); }
    std::size_t size() const noexcept;
    /// Whether operand `k` walks memory contiguously in the space's order (element i at i).
    bool contiguous(std::size_t k) const noexcept;
};

/// Sorts the axes by the first operand's absolute strides (largest first, so that the fastest
/// index walks its memory; stable, ties keep numpy's order), then merges neighbouring axes where
/// every operand's strides allow it and, with `reduced` given, both axes are reduced or both kept.
/// Axes of extent 1 are dropped. With `keep_order` the axes are not reordered (scans need the
/// scanned axis last and the order of the others free, but reductions of a given output order
/// may too). A space of no axes has size 1 (a 0-d array).
IterationSpace make_iteration_space(std::vector<std::size_t> shape, std::vector<std::vector<std::ptrdiff_t>> strides,
                                    std::vector<bool> reduced = {}, bool keep_order = false);

/// The space make_iteration_space gives `operands` C-contiguous arrays of one shape of `n` > 1
/// elements: one axis that every operand walks with stride 1 (made without merging axes).
IterationSpace contiguous_space(std::size_t n, std::size_t operands);

/// The most work items a grid-stride kernel's grid has (grid_for): such a loop adds it to an index
/// below the element count, so 32-bit indices need that much room below 2^31.
inline constexpr std::size_t most_grid_items = std::size_t{1} << 30;

/// Whether 32-bit index arithmetic is safe: the element count plus most_grid_items, and every
/// element offset of every operand (its first element's offset `offsets[k]` from the start of its
/// allocation plus what its strides reach), stay below 2^31.
bool fits_32_bits(const IterationSpace& space, const std::vector<std::ptrdiff_t>& offsets);

}  // namespace kjarni::detail
