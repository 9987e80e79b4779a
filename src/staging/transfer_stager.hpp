#pragma once
// The staging of large host transfers through page-locked slots (the rules are in
// include/kjarni/transfer_staging.hpp). One per context, in detail::ContextState; it makes nothing
// (slots, threads) until the first transfer it stages.
//
// Per device a Lane: the device's slots, each with the event of the last transfer through it, and
// a mutex held for a whole staged transfer (transfers to one device take turns). The worker
// threads are shared by the lanes.

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "backend/backend.hpp"
#include "kjarni/transfer_staging_settings.hpp"

namespace kjarni::detail {

class ParallelCopier;

/// The sizes of the chunks of a transfer to the device, in order: the first ones small and doubling
/// (the host copy of the first chunk overlaps nothing, so it should be short), then `chunk_size`,
/// the last one ragged. A transfer from the device uses them in reverse (its last chunk's host
/// copy overlaps nothing). Exposed for tests.
std::vector<std::size_t> chunk_plan(std::size_t size, std::size_t chunk_size);

/// The most one chunk of TransferStager's relays carries (less where the settings' chunk_size is
/// less): smaller than the slots, so that the write of the last chunk, which nothing overlaps, is
/// short; 4 MiB is still far above the cost of the host's wait and enqueue per chunk. The
/// environment variable KJARNI_RELAY_CHUNK_MIB (a whole number of MiB, read once) replaces it, for
/// measurements (bench/multi_gpu_bench.cpp); bad values are ignored.
std::size_t relay_chunk_size();

/// The environment variable KJARNI_RELAY_CHUNK_MIB in bytes: a whole number of MiB from 1 to
/// `most_mib`; `fallback` where it is unset or anything else. The relays of the staging and of the
/// fallback collectives read it once each (their defaults and bounds differ).
std::size_t relay_chunk_setting(std::size_t fallback, std::size_t most_mib);

class TransferStager {
public:
    TransferStager();
    ~TransferStager();  // waits for transfers still running through the slots
    TransferStager(const TransferStager&) = delete;
    TransferStager& operator=(const TransferStager&) = delete;

    /// Stages the write if the rules say so and returns true; false: the caller writes directly.
    /// Where the slots cannot be had (the host cannot lock the memory) a write the rules would
    /// stage goes directly but blocking, so that the staged rules of asynchronous writes still hold.
    bool write(backend::Context& context, backend::Queue& queue, backend::Buffer& destination, std::size_t offset,
               std::span<const std::byte> host, bool async);
    /// Stages the read (complete when it returns) if the rules say so and returns true.
    bool read(backend::Context& context, backend::Queue& queue, std::span<std::byte> host, backend::Buffer& source,
              std::size_t offset);
    /// Copies `size` bytes of `source` (at `source_offset`: a buffer of this stager's context, read on
    /// `source_queue`) into `destination` (at `destination_offset`: a buffer of another context of
    /// the same API, written on `destination_queue`) through the page-locked slots of the source's
    /// device, with no host copy: each chunk is read into a slot and, once there (the host waits
    /// for it), written out of the slot on the destination queue; the reads run ahead by the slots
    /// less one, so that both directions are on the bus at once. Whatever the threshold and the
    /// device's memory. Returns once every read is done and the last write enqueued (`async`) or
    /// done. False, having copied nothing, where the slots cannot be had.
    bool relay(backend::Context& context, backend::Queue& source_queue, backend::Buffer& source,
               std::size_t source_offset, backend::Queue& destination_queue, backend::Buffer& destination,
               std::size_t destination_offset, std::size_t size, bool async);

    /// A copy between buffers of two devices of this context, enqueued on `queue` (of either
    /// device), relayed like `relay` through the source device's slots where the rules stage a
    /// transfer of that size on both devices (OpenCL devices that do not share the host's memory,
    /// or explicit settings): the reads on a queue of the source's device, the writes on one of
    /// the destination's, `queue` being one of them and the other a helper queue of the stager,
    /// ordered by events both ways, so that the copy is in `queue`'s order like the driver's. The
    /// host waits only to reuse a slot. False: the caller copies directly.
    bool relay_between_devices(backend::Context& context, backend::Queue& queue, backend::Buffer& destination,
                               std::size_t destination_offset, std::size_t destination_device, backend::Buffer& source,
                               std::size_t source_offset, std::size_t source_device, std::size_t size, bool async);

    void set_settings(std::optional<TransferStaging> settings);
    std::optional<TransferStaging> settings() const;
    TransferStagingStatistics statistics() const;

private:
    struct Lane;
    struct Use;
    /// What a transfer of `size` bytes at `host` on the device needs, or nullopt if it is not staged.
    std::optional<Use> begin(backend::Context& context, std::size_t device_index, const void* host, std::size_t size);
    /// The lane of a device and the settings in force (mutex_ held).
    Use use_of(backend::Context& context, std::size_t device_index, const TransferStaging& settings);
    void count(std::size_t chunks, std::size_t bytes);

    mutable std::mutex mutex_;  // guards the members below (not the lanes' insides)
    std::optional<TransferStaging> settings_;
    TransferStagingStatistics statistics_;
    std::vector<std::unique_ptr<Lane>> lanes_;  // by device index, made on first use
    std::vector<std::shared_ptr<backend::Queue>> helpers_;  // by device index, made on first use
    std::shared_ptr<ParallelCopier> copier_;
};

}  // namespace kjarni::detail
