#pragma once
/// Host transfers from pageable memory, staged through page-locked memory.
///
/// A driver copies ordinary (pageable) host memory through its own small page-locked buffers, one
/// thread, one chunk at a time: a fraction of what the bus carries from page-locked memory. So
/// Buffer::set / Buffer::get (and Array's host transfers, which use them) stage large transfers
/// themselves, per device of a context:
///  - the transfer is cut into chunks; each goes through one of a few page-locked slots;
///  - host to device: while chunk i is on the bus, chunk i+1 is copied into another slot;
///    device to host: chunk i is copied out of its slot while the next ones are on the bus;
///  - each chunk's host copy is split over several threads (one thread copies pageable memory at
///    about the speed of the bus, so one would leave the bus waiting);
///  - a slot is reused only after the transfer through it has completed (an event).
///
/// When: host memory of at least `threshold` bytes that does not lie in kjarni's own page-locked
/// memory (HostMemory, HostMemoryPool: those go straight to the driver). Memory page-locked by
/// other means (cuMemHostRegister, another library's pinned allocator) is staged like pageable
/// memory: correct, with one avoidable host copy.
///
/// async = true, staged:
///  - host to device returns once the data is in the slots and the transfers are enqueued: unlike
///    an unstaged asynchronous transfer, the host memory may be reused at once;
///  - device to host returns only when the data is in the host memory, as if async were false
///    (the data passes through the slots, which the host must copy out after the transfer).
/// Both hold whenever the rules above say the transfer is staged, also in the rare case where the
/// host cannot lock the memory for the slots (the transfer then goes directly, blocking).
///
/// Threads: transfers on different devices of a context stage independently; transfers on one
/// device from several threads take turns (they share the device's slots and the bus anyway).
/// The worker threads are made on the first staged transfer of a context, not before, and end with
/// the context. \file

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kjarni/context.hpp"

namespace kjarni {

/// The settings of a context's staged host transfers (see the top of the file): the threshold below
/// which transfers go straight to the driver, and the sizes and number of page-locked slots.
struct TransferStaging {
    /// Host transfers of fewer bytes go straight to the driver.
    /// 1 MiB: on the H100 machine staging beats the driver's own pageable path from 1 MiB up in
    /// both directions through CUDA and OpenCL (by 1.3-1.5x at 1 MiB) and ties or loses at
    /// 256 KiB (bench/transfers_bench.cpp, KJARNI_BENCH_SWEEP_STAGING=1).
    std::size_t threshold = std::size_t{1} << 20;
    /// Bytes of each page-locked slot, and the most one chunk carries. The first chunks of a
    /// transfer to the device (the last ones of a transfer from it) are smaller, so that the
    /// host copy nothing overlaps is short.
    /// 16 MiB: the best of 4/8/16 MiB from device to host on the H100 machine, close to the best
    /// the other way.
    std::size_t chunk_size = std::size_t{16} << 20;
    /// Page-locked slots per device (2 or more): chunks in flight at once, plus the one being
    /// copied on the host.
    /// 6: from the device, the host's copy out of a slot runs about as fast as the bus fills the
    /// next ones, so the bus idles whenever a copy runs late; two more slots than 4 absorb that
    /// (H100 machine, 256 MiB, 16 MiB chunks: 91% of pinned against 88% through CUDA and OpenCL
    /// alike, in two runs; 2, 3 and 8 slots were slower). To the device they change nothing.
    unsigned slots = 6;
    /// Threads copying each chunk on the host, the calling one included; 0: the number of
    /// hardware threads, at most 12. At most 256.
    unsigned threads = 0;
    /// Host copies into and out of the slots with non-temporal (streaming) stores where the CPU has
    /// them (x86-64): they skip reading every destination line first, which leaves more of the
    /// host's memory bandwidth to the copy and the DMA.
    bool streaming_stores = true;

    friend bool operator==(const TransferStaging&, const TransferStaging&) = default;
};

/// Counters of a context's host transfers of at least the threshold, since it was made.
struct TransferStagingStatistics {
    std::uint64_t staged_transfers = 0;
    std::uint64_t staged_chunks = 0;
    std::uint64_t staged_bytes = 0;
    /// Transfers not staged because the host memory is kjarni's page-locked memory.
    std::uint64_t page_locked_transfers = 0;
};

/// The staging settings of a context. Until set, the defaults of TransferStaging apply, except on
/// OpenCL devices that share memory with the host (CPU devices, integrated GPUs:
/// CL_DEVICE_HOST_UNIFIED_MEMORY), where nothing is staged (it would only add a copy).
/// Settings given explicitly apply to every device of the context. ArgumentError for
/// chunk_size 0, fewer than 2 slots or more than
/// 256 threads. Transfers already running finish with the old settings.
void set_transfer_staging(const Context& context, const TransferStaging& settings);
/// Back to the defaults described above.
void reset_transfer_staging(const Context& context);
/// The explicitly set settings; nullopt while the defaults apply.
std::optional<TransferStaging> transfer_staging(const Context& context);
TransferStagingStatistics transfer_staging_statistics(const Context& context);

/// Whether every byte of [data, data + size) lies in one live page-locked allocation made by
/// kjarni (HostMemory, HostMemoryPool). False for size 0.
bool is_kjarni_page_locked(const void* data, std::size_t size);

}  // namespace kjarni
