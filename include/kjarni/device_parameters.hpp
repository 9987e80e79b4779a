#pragma once
/// What a device can do, in the vocabulary of grunnur's DeviceParameters, plus the raw attributes a
/// PyCUDA or PyOpenCL user reads. Plain data: filled once by the backend when the device is found. \file

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kjarni {

enum class DeviceType { cpu = 1, gpu = 2, accelerator = 3, other = 4 };

std::string to_string(DeviceType type);

/// The limits and sizes of a device that kernels are planned with (work group sizes, local memory,
/// warp size, ...), the same fields on every API.
struct DeviceParameters {
    /// Multiprocessors (CUDA) / compute units (OpenCL).
    std::size_t compute_units = 0;
    /// Shared (CUDA) / local (OpenCL) memory per block, in bytes.
    std::size_t local_mem_size = 0;
    /// Independent local-memory channels usable by one warp without serialization: the count of
    /// characterize::local_memory_banks where the vendor's data gives one, 1 on CPUs, else 32
    /// (characterize::local_mem_banks_parameter says which).
    std::size_t local_mem_banks = 0;
    /// Maximum block / work-group extent in each dimension.
    std::vector<std::size_t> max_local_sizes;
    /// Maximum number of blocks / work groups in each dimension.
    std::vector<std::size_t> max_num_groups;
    /// Maximum number of threads in one block / work items in one work group.
    std::size_t max_total_local_size = 0;
    /// Threads executed in lockstep (1 on CPUs).
    std::size_t warp_size = 0;
    DeviceType type = DeviceType::other;
};

/// A CUDA compute capability (major.minor), ordered as versions are.
struct ComputeCapability {
    int major = 0;
    int minor = 0;
    friend auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;
};

/// The attributes users of PyCUDA and PyOpenCL read most, typed, on both APIs.
struct DeviceProperties {
    std::string vendor;
    std::string driver_version;
    /// Global memory, bytes.
    std::uint64_t total_memory = 0;
    /// Largest single allocation, bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE; total memory on CUDA).
    std::uint64_t max_allocation_size = 0;
    /// Core clock, kHz (CU_DEVICE_ATTRIBUTE_CLOCK_RATE / CL_DEVICE_MAX_CLOCK_FREQUENCY).
    std::uint64_t clock_rate_khz = 0;
    /// Memory clock and bus width, where the API reports them.
    std::optional<std::uint64_t> memory_clock_rate_khz;
    std::optional<std::uint64_t> memory_bus_width_bits;
    std::optional<std::uint64_t> l2_cache_size;
    /// CUDA devices, and NVIDIA devices on OpenCL (cl_nv_device_attribute_query).
    std::optional<ComputeCapability> compute_capability;
    /// "0000:65:00.0"-style, where the API reports it.
    std::optional<std::string> pci_bus_id;
    /// Whether the device can address host memory directly (unified memory / CL_DEVICE_HOST_UNIFIED_MEMORY).
    bool unified_memory = false;
};

/// One raw attribute as the API names it ("MAX_THREADS_PER_BLOCK", "CL_DEVICE_EXTENSIONS").
struct DeviceAttribute {
    using Value = std::variant<std::int64_t, std::string, std::vector<std::int64_t>>;
    std::string name;
    Value value;
};

std::string to_string(const DeviceAttribute::Value& value);

// The knobs of a device's context, set through kjarni/device_settings.hpp.

/// Per-thread stack, the printf FIFO and the device-side malloc heap, in bytes (CU_LIMIT_*).
enum class ContextLimit : std::uint8_t { stack_size, printf_fifo_size, malloc_heap_size };
/// What a device's L1 / shared memory split should favour (CU_FUNC_CACHE_PREFER_*).
enum class CachePreference : std::uint8_t { none, shared, l1, equal };

}  // namespace kjarni
