#pragma once
/// The sizes of a launch. Sizes are given per dimension with the first dimension varying fastest:
/// global_size[0] is what get_global_size(0) returns, on both APIs. A global size must be a
/// multiple of the local size in each dimension. \file

#include <cstddef>
#include <vector>

namespace kjarni {

/// Up to three extents; {n}, {x, y}, {x, y, z}.
using Sizes = std::vector<std::size_t>;

/// pygpu's `GpuKernel(..., n=n)`: at least `n` work items in one dimension, the total padded up to
/// a multiple of the work-group size kjarni picks per device (the largest multiple of the kernel's
/// preferred_local_size_multiple within min(256, max_total_local_size), no larger than `n` padded
/// to that multiple). The kernel runs a few more work items than `n` and must compare its index
/// with `n`, as pygpu's must. ArgumentError for n = 0.
struct TotalSize {
    std::size_t n = 0;
};

}  // namespace kjarni
