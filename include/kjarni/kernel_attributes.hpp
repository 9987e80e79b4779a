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
    /// The most dynamic local memory one launch of this kernel may ask for (PreparedKernel's
    /// `local_mem`), bytes. CUDA: the device's opt-in limit (MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 227 KiB
    /// on sm_90) less the static shared memory; kjarni opts in per kernel when a launch needs more than
    /// the default 48 KiB. OpenCL: local_mem_size less the static local memory.
    std::size_t max_dynamic_local_bytes = 0;
    /// Work-group size multiple the device prefers for this kernel (OpenCL), or the warp size.
    std::size_t preferred_local_size_multiple = 0;
};

}  // namespace kjarni
