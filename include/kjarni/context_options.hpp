#pragma once
/// How a Context is made (pygpu's init(..., sched=, single_stream=, kernel cache), PyCUDA's
/// Device.make_context(flags) and Context.set_shared_config), and what a context can say about its
/// devices (pygpu's GpuContext.bin_id, largest_memblock, free_gmem, total_gmem). \file

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjarni {

class BoundDevice;

/// How a host thread waits for the device (CUDA's CU_CTX_SCHED_*; pygpu's sched "default", "spin",
/// "yield", "sync"): automatic lets the driver choose by the number of active contexts and cores;
/// spin keeps the thread busy-waiting (lowest latency); yield spins but gives up the core between
/// polls; blocking_sync puts the thread to sleep on a primitive the driver signals (no CPU used).
enum class Scheduling : std::uint8_t { automatic, spin, yield, blocking_sync };

/// The shared memory bank width of a context (PyCUDA's Context.set_shared_config,
/// cuCtxSetSharedMemConfig). Devices since Volta have one fixed width and ignore it.
enum class SharedMemoryBanks : std::uint8_t { default_size, four_bytes, eight_bytes };

std::string to_string(Scheduling scheduling);
std::string to_string(SharedMemoryBanks banks);

/// Options of Context::from_devices. The defaults make the context the plain overload does.
///
/// CUDA-only choices (scheduling, map_host, lmem_resize_to_max, shared_memory_banks) are
/// UnsupportedError naming the backend on OpenCL, whose contexts have no such settings.
struct ContextOptions {
    /// CUDA: contexts of kjarni's own (cuCtxCreate, PyCUDA's Device.make_context), one per device,
    /// destroyed with the kjarni context, instead of the devices' primary contexts (shared with the
    /// CUDA runtime, CuPy, PyTorch). Memory, programs and streams of one are not usable in another.
    /// OpenCL contexts are always kjarni's own: accepted and changes nothing.
    bool own_contexts = false;
    /// How host threads wait (CU_CTX_SCHED_*). With primary contexts (own_contexts false) a
    /// non-automatic choice is applied to the primary context (cuDevicePrimaryCtxSetFlags), that is
    /// for every user of it in the process, as pygpu does.
    Scheduling scheduling = Scheduling::automatic;
    /// CU_CTX_MAP_HOST: page-locked host memory may be mapped into the device's address space (the
    /// driver has done so always since CUDA 11; kept for PyCUDA's flag set).
    bool map_host = false;
    /// CU_CTX_LMEM_RESIZE_TO_MAX: keep the local memory a launch grew to, instead of shrinking it
    /// back (faster repeated launches of kernels with large stacks, at the cost of memory).
    bool lmem_resize_to_max = false;
    /// The shared memory bank width set on each device's context once it exists (CUDA only; a
    /// driver without cuCtxSetSharedMemConfig gives UnsupportedError when asked for a non-default).
    SharedMemoryBanks shared_memory_banks = SharedMemoryBanks::default_size;

    /// pygpu's single_stream: every Queue made on a device of this context is the same driver queue
    /// (one CUDA stream / one cl_command_queue per device), so work is in one order without events
    /// between queues. Queues made with QueueOptions (a priority) are refused (ArgumentError).
    bool single_stream = false;

    /// The on-disk cache of compiled programs for programs of this context, instead of the
    /// environment's (KJARNI_CACHE_DIR): a directory kjarni creates if needed, used even where
    /// KJARNI_CACHE turns the process-wide cache off (the program asked for it). A Program's own
    /// ProgramOptions::cache_dir wins over it.
    std::optional<std::filesystem::path> kernel_cache_dir;
    /// The bound on that cache's entries' total size in bytes (least recently used entries are
    /// evicted past it); the environment's (KJARNI_CACHE_MAX_BYTES, 1 GiB) if unset. With no
    /// kernel_cache_dir it bounds a cache in the environment's directory.
    std::optional<std::uint64_t> kernel_cache_max_bytes;

    /// Compiler options every Program of this context gets before its own
    /// ProgramOptions::compiler_options (PyCUDA's default `options` of SourceModule set once).
    std::vector<std::string> compiler_options;

    friend bool operator==(const ContextOptions&, const ContextOptions&) = default;
};

/// The binary compatibility identity of a device (pygpu's GpuContext.bin_id): programs compiled for
/// one device run unchanged on every device with the same bin_id. CUDA: "sm_XY" (the compute
/// capability); OpenCL: the platform, device name, device and driver versions.
std::string bin_id(const BoundDevice& device);

/// The largest single allocation the device gives now, in bytes (pygpu's largest_memblock),
/// found by allocating: on CUDA it is exact (allocations are made at once; a bisection between the
/// free memory and nothing, each probe freed at once); OpenCL devices that report their largest
/// free block (cl_amd_device_attribute_query) answer that; elsewhere, where allocations are only
/// made on first use and no probe can tell, std::nullopt.
std::optional<std::uint64_t> largest_memblock(const BoundDevice& device);

}  // namespace kjarni
