#pragma once
/// The settings and statistics of staged host transfers (kjarni/transfer_staging.hpp says what
/// staging does and sets them on a Context): plain values that the staging engine below the
/// public classes reads and counts. \file

#include <cstddef>
#include <cstdint>

namespace kjarni {

/// The settings of a context's staged host transfers (kjarni/transfer_staging.hpp): the threshold below
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

}  // namespace kjarni
