#pragma once
/// The facts about a device that characterization's rules read (kjarni/characterize.hpp), as plain
/// data, with the rules a backend needs while it describes its own devices (the banking of local
/// memory). Vocabulary below every layer: a DeviceFacts can be filled for any device description,
/// real or not. \file

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "kjarni/device_parameters.hpp"

namespace kjarni::characterize {

enum class Vendor { nvidia, amd, intel, apple, arm, qualcomm, other };

/// The vendor named by a vendor string ("NVIDIA Corporation", "Advanced Micro Devices, Inc.",
/// "Intel(R) Corporation", ...); other when not one of those.
Vendor vendor_of(std::string_view vendor);

/// What the rules read of a device.
struct DeviceFacts {
    bool cuda = false;  ///< the CUDA API (else OpenCL)
    std::string vendor;
    std::string platform_name;
    DeviceType type = DeviceType::other;
    std::optional<ComputeCapability> compute_capability;
    /// DeviceParameters::warp_size: the API's own number where it has one (CUDA; NVIDIA's and AMD's
    /// OpenCL extensions), 1 where it has none.
    std::size_t warp_size = 1;
    std::size_t local_mem_size = 0;
    bool unified_memory = false;
    /// CL_DEVICE_NATIVE_VECTOR_WIDTH_{CHAR, SHORT, INT, LONG} where reported (OpenCL).
    std::optional<std::size_t> native_vector_width_1, native_vector_width_2, native_vector_width_4,
        native_vector_width_8;
    /// The platform's version string (CL_PLATFORM_VERSION, "OpenCL 3.0 PoCL 3.1 ..."; CUDA's
    /// driver version).
    std::string platform_version;
    /// The device's extensions, space-separated (CL_DEVICE_EXTENSIONS; empty on CUDA).
    std::string extensions;
    /// Whether the compiler counted a by-value struct of two longs as two kernel arguments, when
    /// measured. facts_of measures it only where has_struct_arg_count_bug needs it (PoCL 0.14, or
    /// a PoCL version string it cannot read), as PyOpenCL does.
    std::optional<bool> struct_arg_counted_per_field;
};

/// The banks of local memory, per the vendor's documentation.
struct LocalMemoryBanks {
    /// Banks that serve one access in parallel.
    std::size_t count = 0;
    /// Bytes of one bank word (successive words go to successive banks).
    std::size_t granularity = 0;
    /// Work items whose accesses of one instruction are served together and may conflict (NVIDIA:
    /// a warp, a half-warp before compute capability 2.0; AMD GCN and later: 32).
    std::size_t simultaneous_work_items = 0;
};

/// NVIDIA: 32 banks of 4 bytes, a warp of 32 at once (compute capability 2.0 and later; 16 banks
/// and a half-warp of 16 before; on 3.x the 4-byte mode, the default). AMD GPUs: 32 banks of 4
/// bytes, 32 work items at once (the LDS of GCN and RDNA). std::nullopt elsewhere: CPUs have no
/// banked local memory, and the other vendors' banking is not documented per device here.
std::optional<LocalMemoryBanks> local_memory_banks(const DeviceFacts& facts);
/// Why local_memory_banks has no answer ("" when it has).
std::string local_memory_banks_unknown_reason(const DeviceFacts& facts);

/// What DeviceParameters::local_mem_banks says for a device of these facts: local_memory_banks'
/// count where the vendor's data gives one; 1 for CPUs (local memory served from caches has no
/// banks to conflict on); otherwise 32, the documented default (what NVIDIA since compute
/// capability 2.0 and AMD's GCN and RDNA have, so a safe guess for padding decisions, though not
/// a documented fact for that device).
std::size_t local_mem_banks_parameter(const DeviceFacts& facts);

}  // namespace kjarni::characterize
