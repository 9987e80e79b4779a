#pragma once
// Where each part of a MultiArray lies in the whole array, for the algorithms that combine the
// parts (reductions and scans across them).

#include <cstddef>
#include <vector>

#include "kjarni/multi_array.hpp"

namespace kjarni::detail {

/// One part's region of the whole array: along each axis, the whole array's indices
/// start + step * j for j < extent (the part's own extents).
struct PartRegion {
    std::vector<std::size_t> start;
    std::vector<std::size_t> step;
    std::vector<std::size_t> extent;
};

struct Partition {
    /// Per part, in the order of devices().
    std::vector<PartRegion> parts;
    /// Per axis, whether the parts split it (some part holds less than the whole extent).
    std::vector<bool> split;
    /// CloneSplay: every part is the whole array (no axis split).
    bool clone = false;
};

/// The partition of a MultiArray. Splays other than CloneSplay are taken to split the array into
/// disjoint parts that cover it, as EqualSplay does.
Partition partition_of(const MultiArray& array);

}  // namespace kjarni::detail
