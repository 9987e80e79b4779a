#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

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
    /// CUDA (PyCUDA's function_attribute PTX_VERSION, BINARY_VERSION): the PTX virtual
    /// architecture the kernel was compiled for and the architecture of its binary, as major * 10 +
    /// minor (90 for compute_90 / sm_90). 0 on OpenCL.
    int ptx_version = 0;
    int binary_version = 0;
    /// CUDA (CACHE_MODE_CA): whether global loads were compiled to be cached in L1 as well
    /// (-Xptxas -dlcm=ca), as the driver reports it: drivers for GPUs that cache global loads in L1
    /// by default may answer false even for JitCacheMode::global_l1. false on OpenCL.
    bool cache_mode_ca = false;
};

/// A kernel attribute that can be set (PyCUDA's Function.set_attribute; CUDA cuFuncSetAttribute).
/// max_dynamic_shared_bytes: the most dynamic shared memory a launch may ask for;
/// preferred_shared_memory_carveout: percent of the L1/shared split for shared memory (-1: the
/// default); the cluster attributes (sm_90 and later): a required cluster shape, whether a cluster
/// may exceed the portable size (0/1), and the scheduling policy preference.
enum class KernelAttribute : std::uint8_t {
    max_dynamic_shared_bytes,
    preferred_shared_memory_carveout,
    required_cluster_width,
    required_cluster_height,
    required_cluster_depth,
    non_portable_cluster_size_allowed,
    cluster_scheduling_policy_preference,
};

std::string to_string(KernelAttribute attribute);

/// Which code the driver prefers when a fatbin holds both PTX and a binary for the device
/// (CU_JIT_FALLBACK_STRATEGY: CU_PREFER_PTX / CU_PREFER_BINARY).
enum class JitFallback : std::uint8_t { prefer_ptx, prefer_binary };
/// Where global loads are cached (CU_JIT_CACHE_MODE): none (no L1), global_l2 (-dlcm=cg: L2 only),
/// global_l1 (-dlcm=ca: L1 and L2).
enum class JitCacheMode : std::uint8_t { none, global_l2, global_l1 };

/// The driver's PTX JIT options beyond the register limit and optimisation level (PyCUDA's
/// jit_option set), for PTX loaded with Program::from_binary (CUDA only; UnsupportedError naming
/// the backend on OpenCL). A program given any of them records a JitReport.
struct JitOptions {
    /// CU_JIT_THREADS_PER_BLOCK: the block size to compile for (limits registers so that this many
    /// threads fit); not together with ProgramOptions::jit_max_registers (ArgumentError).
    std::optional<unsigned> threads_per_block;
    std::optional<JitFallback> fallback;
    std::optional<JitCacheMode> cache_mode;
    /// Bytes kept of the JIT's information and error logs (CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    /// CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES); at most 16 MiB each (ArgumentError). The error log
    /// also goes into the BackendError of PTX that does not compile.
    std::size_t info_log_bytes = 0;
    std::size_t error_log_bytes = 8192;
    /// CU_JIT_LOG_VERBOSE: the information log says more (registers, spills per function).
    bool log_verbose = false;

    /// Whether anything beyond the defaults is asked.
    bool any() const noexcept {
        return threads_per_block || fallback || cache_mode || info_log_bytes != 0 || error_log_bytes != 8192 ||
               log_verbose;
    }
    friend bool operator==(const JitOptions&, const JitOptions&) = default;
};

/// What the JIT said when it compiled a program's PTX on a device (CU_JIT_WALL_TIME, the logs,
/// and the block size it compiled for when threads_per_block was given).
struct JitReport {
    float wall_time_ms = 0;
    std::string info_log;
    std::string error_log;
    /// The threads per block the JIT compiled for (CU_JIT_THREADS_PER_BLOCK's output); 0 when not
    /// asked.
    unsigned threads_per_block = 0;
};

}  // namespace kjarni
