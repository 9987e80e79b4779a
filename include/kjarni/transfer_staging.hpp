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
/// The same slots relay copies between devices that the driver copies slowly, with no host copy
/// (each chunk read into a slot on the source device, written out of it on the destination):
/// copy_between_contexts on OpenCL (kjarni/peer_access.hpp), and Buffer::set between two OpenCL
/// devices of a context that do not share the host's memory, from the threshold up (both count
/// in the statistics; they use `slots` and `chunk_size`, at most 4 MiB a chunk).
///
/// Threads: transfers on different devices of a context stage independently; transfers on one
/// device from several threads take turns (they share the device's slots and the bus anyway).
/// The worker threads are made on the first staged transfer of a context, not before, and end with
/// the context. \file

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kjarni/context.hpp"
#include "kjarni/transfer_staging_settings.hpp"

namespace kjarni {

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
