#pragma once
// Kernels the algorithm layer generates: compiled once per (context, device, key) and kept by the
// context (program/kernel_cache.hpp), launched through the one checked launch path that
// PreparedKernel uses (program/checked_launch.hpp) with arguments packed as PreparedKernel's
// are (kjarni/detail/kernel_packing.hpp).

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "kjarni/array.hpp"
#include "kjarni/context.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

struct CachedKernel;

struct GeneratedKernel {
    /// The kernel and its launch checks, kept by the context's cache.
    std::shared_ptr<const CachedKernel> kernel;
    /// The most work items per group this kernel can take on its device.
    std::size_t max_local_size = 0;
    /// The device's compute units (to size grids to the machine).
    std::size_t compute_units = 0;
    /// Whether the device is a GPU (grids are sized differently: see grid_for).
    bool gpu = false;
};

/// The kernel `name` of the source `render()` makes, on `device`. `key` must identify that source
/// completely (render() is called on a miss only); the Program machinery's memory and disk caches
/// and the NVRTC cross-check observer see the source as for any Program. No multiply-add
/// contraction unless `contraction` allows it; `max_registers` as program/kernel_cache.hpp's.
GeneratedKernel generated_kernel(const BoundDevice& device, const std::string& key, const std::string& name,
                                 const std::function<std::string()>& render, bool allow_contraction = false,
                                 std::size_t max_registers = 0);

/// Launches with OpenCL sizes (global = total work items, a multiple of local), 1 to 3 dimensions,
/// through the checked launch path: ArgumentError when the sizes, the dynamic local memory, the
/// queue or an argument do not fit the kernel.
void launch(const Queue& queue, const GeneratedKernel& kernel, std::span<const std::size_t> global,
            std::span<const std::size_t> local, std::span<const KernelArg> args, std::size_t local_mem = 0);

/// The whole allocation behind an array as a kernel argument (no sub-buffer: views are reached
/// through an element offset, so that any offset works on OpenCL).
KernelArg whole_allocation(const Array& array);
/// The offset of the array's first element in elements from the start of whole_allocation();
/// ArgumentError naming the array when it is not a multiple of the itemsize.
std::ptrdiff_t element_offset(const Array& array, std::string_view name);
/// Whether the array's element at `offset` elements from the start of whole_allocation() lies on a
/// multiple of `bytes` in device memory (`bytes` a power of two of at most 128). kjarni's
/// allocations and every OpenCL buffer (CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 128 bytes) start
/// aligned, so there the offset decides; CUDA memory of another library
/// (Buffer::from_backend_buffer) may start anywhere, so its address is looked at.
bool lies_aligned(const Array& array, std::ptrdiff_t offset, std::size_t bytes);

/// A scalar kernel argument of `size` bytes (detail::pack_bytes).
KernelArg scalar_arg(const void* value, std::size_t size);

}  // namespace kjarni::detail
