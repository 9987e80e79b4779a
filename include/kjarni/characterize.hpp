#pragma once
/// Device characterization (pyopencl.characterize): how local (CUDA: shared) memory
/// is banked, how many work items access it at once, how much of it a kernel may use, how wide the
/// implicit SIMD groups are, which build options trade accuracy for speed, and the driver bugs
/// kjarni knows of.
///
/// Everything here comes from what the API reports or from the vendors' documentation for the
/// vendor and architecture the device reports; nothing is guessed. Where neither tells, the answer
/// says so: std::nullopt, or UnsupportedError where a number is required.
///
/// The rules work on DeviceFacts, plain data that facts_of() reads from a Device, so that they can
/// be checked (and used) for any device description. \file

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kjarni/device.hpp"
#include "kjarni/device_facts.hpp"
#include "kjarni/device_parameters.hpp"

namespace kjarni::characterize {

DeviceFacts facts_of(const Device& device);

/// The banks of local memory of a Device (kjarni/device_facts.hpp has the rule).
std::optional<LocalMemoryBanks> local_memory_banks(const Device& device);

/// pyopencl.characterize's three numbers, one by one.
std::optional<std::size_t> local_memory_bank_count(const Device& device);
std::optional<std::size_t> local_memory_access_granularity(const Device& device);
std::optional<std::size_t> simultaneous_work_items_on_local_access(const Device& device);

/// Local memory a kernel may use, in bytes: all of it, except on NVIDIA devices of compute
/// capability 1.x, which pass kernel arguments through shared memory (up to 256 bytes): less
/// 4 bytes per 32-bit argument when `nargs` is given, else less 256.
std::size_t usable_local_mem_size(const DeviceFacts& facts, std::optional<std::size_t> nargs = std::nullopt);
std::size_t usable_local_mem_size(const Device& device, std::optional<std::size_t> nargs = std::nullopt);

/// Work items executed across the lanes of implicit SIMD for elements of `type_size` bytes (1, 2,
/// 4 or 8): the warp or wavefront on GPUs that report one (the same for every type size); on CPUs
/// the native vector width for the type (CL_DEVICE_NATIVE_VECTOR_WIDTH_*), where the OpenCL
/// compiler vectorizes across work items. std::nullopt where the API reports neither.
/// ArgumentError for another type_size.
std::optional<std::size_t> simd_group_size(const DeviceFacts& facts, std::size_t type_size);
std::optional<std::size_t> simd_group_size(const Device& device, std::size_t type_size);

/// Compiler options (ProgramOptions::compiler_options) that allow fast but less accurate floating
/// point: CUDA "--use_fast_math" (and its parts); OpenCL "-cl-mad-enable", "-cl-no-signed-zeros",
/// "-cl-unsafe-math-optimizations", "-cl-finite-math-only", "-cl-fast-relaxed-math" (OpenCL 1.0's,
/// valid on every device).
std::vector<std::string> fast_inaccurate_build_options(const DeviceFacts& facts);
std::vector<std::string> fast_inaccurate_build_options(const Device& device);

/// The result of a local-memory access analysis.
struct LocalAccessConflict {
    /// The most distinct bank words that one bank must serve for one access of all simultaneous
    /// work items: the passes the access takes.
    std::size_t multiplicity = 1;
    /// The fewest passes any layout needs for as many distinct words (items wider than a bank word
    /// need several even without conflicts).
    std::size_t minimum = 1;
    /// Empty when conflict-free; else which work items meet on which bank.
    std::string explanation;
    bool conflict_free() const noexcept { return multiplicity <= minimum; }
};

/// A general access: simultaneous work item w reads or writes the item of `itemsize` bytes at
/// element index `element_offsets[w]` (in items from the start of the local array; equal indices
/// are one word, served to all at once). ArgumentError for an itemsize of 0, more offsets than
/// the simultaneous work items, or banks with a zero field.
LocalAccessConflict local_access_conflicts(const LocalMemoryBanks& banks, std::size_t itemsize,
                                           std::span<const std::size_t> element_offsets);

/// pyopencl's why_not_local_access_conflict_free: the simultaneous work items 0, 1, ... access a
/// local array of `array_shape` (C order, the last axis fastest), stored with the (padded)
/// `stored_shape` (empty: array_shape), consecutive work items stepping along `axis` (the axes
/// after it held at 0; work items beyond the axis' extent carry into the axes before it). Without
/// `axis`, every axis is tried and the worst reported. ArgumentError for an empty or zero shape, a
/// stored shape of another rank or smaller, an axis out of range; UnsupportedError (for the Device
/// form) where the banks are unknown.
LocalAccessConflict why_not_local_access_conflict_free(const LocalMemoryBanks& banks, std::size_t itemsize,
                                                       std::span<const std::size_t> array_shape,
                                                       std::span<const std::size_t> stored_shape = {},
                                                       std::optional<std::size_t> axis = std::nullopt);
LocalAccessConflict why_not_local_access_conflict_free(const Device& device, std::size_t itemsize,
                                                       std::span<const std::size_t> array_shape,
                                                       std::span<const std::size_t> stored_shape = {},
                                                       std::optional<std::size_t> axis = std::nullopt);

/// PoCL's version (major, minor) from a platform's name and version string, as PyOpenCL's
/// get_pocl_version reads it: only for the platform named exactly "Portable Computing Language",
/// from a version of the form "OpenCL <x.y> PoCL <major>.<minor>..." (PoCL in any of its
/// spellings' cases); std::nullopt otherwise.
std::optional<std::pair<int, int>> pocl_version(std::string_view platform_name, std::string_view platform_version);

/// PyOpenCL's has_struct_arg_count_bug: which driver, if any, is expected to count a struct passed
/// by value as several kernel arguments (PoCL issue 197): "apple" for devices of type CPU on the
/// platform named "Apple"; "pocl" for PoCL up to 0.13, and for 0.14 (or an unreadable PoCL
/// version, taken as 0.14) where facts.struct_arg_counted_per_field says the compiler does so;
/// "" otherwise (and always on CUDA). The quirks apple_struct_arg_count / pocl_struct_arg_count.
std::string has_struct_arg_count_bug(const DeviceFacts& facts);
std::string has_struct_arg_count_bug(const Device& device);

/// PyOpenCL's has_amd_double_support: whether the device offers AMD's double-precision extension
/// cl_amd_fp64 (the incomplete support of AMD's low-end boards; whether cl_khr_fp64 is there too
/// does not matter). The quirk amd_double_support. False on CUDA.
bool has_amd_double_support(const DeviceFacts& facts);
bool has_amd_double_support(const Device& device);

/// A driver bug kjarni knows (the quirks of src/backend/opencl/opencl_quirks.hpp).
struct DriverQuirk {
    std::string name;
    std::string description;
    /// What kjarni does about it.
    std::string workaround;
};

/// Every quirk kjarni knows.
const std::vector<DriverQuirk>& all_driver_quirks();
/// The quirks of the drivers of a device (by API, vendor and platform).
std::vector<DriverQuirk> driver_quirks(const DeviceFacts& facts);
std::vector<DriverQuirk> driver_quirks(const Device& device);
/// Whether the quirk of that name affects the device; ArgumentError for a name not in
/// all_driver_quirks().
bool has_driver_quirk(const Device& device, std::string_view name);
bool has_driver_quirk(const DeviceFacts& facts, std::string_view name);

}  // namespace kjarni::characterize
