#pragma once

#include <cstddef>

namespace kjarni {

/// What PyCUDA's Function attributes report, per device; 0 where the API has no such figure.
struct KernelAttributes {
    /// The most threads / work items in one block for this kernel on this device.
    std::size_t max_total_local_size = 0;
    std::size_t registers = 0;
    /// Statically allocated shared/local memory, bytes.
    std::size_t shared_bytes = 0;
    std::size_t const_bytes = 0;
    /// Per-thread private (local, spill) memory, bytes.
    std::size_t local_bytes = 0;
    /// Work-group size multiple the device prefers for this kernel (OpenCL), or the warp size.
    std::size_t preferred_local_size_multiple = 0;
};

}  // namespace kjarni
