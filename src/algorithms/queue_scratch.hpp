#pragma once
// Device memory that a queue's kernels leave ready for the next one, so that no fill runs before
// them (a launch fewer per call):
//   - counters that stay zero between kernels: a kernel takes a counter, and the work group that
//     brings it to its last value sets it back to zero before the kernel ends (a reduction split
//     into pieces combines them in its own kernel: reduction_engine.cpp);
//   - the single-pass scan's state: its ticket counter (zero between kernels, as above) and status
//     words tagged with the launch's epoch, so that words of earlier launches read as not written
//     (scan_engine.cpp, data/kernels/scan.mako).
// Kernels of one queue run in order, so each finds what the one before left. Not for a queue that
// records: a recording may replay at any time, beside other work of the queue.

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

/// The kernel argument of at least `count` 4-byte counters for a kernel enqueued on `queue`, all
/// zero when it starts: the queue's own set, made (and zeroed, one fill) at its first use and
/// grown when a launch needs more. The set lives as long as the context.
KernelArg self_resetting_counters(const Queue& queue, std::size_t count);

/// The single-pass scan's state for one launch on `queue`: `bytes` bytes (a 16-byte ticket counter
/// that is zero, then 64-bit status words) and the epoch the launch tags its words with, which no
/// word there carries yet. The state is zeroed when made or grown, and again when the epochs wrap
/// around (every 2^32 - 1 launches). The launch must be enqueued while `hold` is held: launches
/// from several threads then reach the queue in the order of their epochs.
struct TaggedState {
    KernelArg buffer;
    std::uint32_t epoch = 1;
    std::unique_lock<std::mutex> hold;
};
TaggedState single_pass_state(const Queue& queue, std::size_t bytes);

/// Sets the epoch the queue's last single pass took (the next takes the one after, or 1 after
/// 2^32 - 1, with the words zeroed first), for tests of the wrap-around; nothing when the queue
/// has no single-pass state yet.
void set_last_single_pass_epoch(const Queue& queue, std::uint32_t epoch);

}  // namespace kjarni::detail
