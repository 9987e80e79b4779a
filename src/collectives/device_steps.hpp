#pragma once
// The device-side steps of the fallback engine: combining two arrays by a reduction operation with
// kjarni's elementwise kernels, the division of avg, and byte copies between contiguous arrays of
// any devices of one context.
//
// Kernels run only on whole allocations that the fallback made itself (temporaries at offset 0), never
// on a user's view, so that OpenCL's sub-buffer alignment rule never refuses an operand; a user's
// arrays are read and written by buffer copies, which take any offset.

#include <cstddef>
#include <optional>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/buffer.hpp"
#include "kjarni/collectives.hpp"
#include "kjarni/event.hpp"
#include "kjarni/host_memory.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

/// accumulator = accumulator op x, elementwise (avg adds: divide_for_avg finishes it). Both are
/// one-dimensional arrays of one dtype and size made by the fallback, on the queue's device.
/// Enqueued.
void combine(const Queue& queue, const Array& accumulator, const Array& x, ReduceOp op);
/// accumulator /= count for avg (the public header's rules); nothing for the other operations.
void divide_for_avg(const Queue& queue, const Array& accumulator, ReduceOp op, int count);

/// The bytes of a contiguous array as a buffer region.
Buffer bytes_of(const Array& array);
/// Elements [first, first + size) of a one-dimensional contiguous array, as a buffer region.
Buffer elements_of(const Array& array, std::size_t first, std::size_t size);
/// A new one-dimensional array of `size` elements of `dtype` on the queue's device.
Array temporary(const Queue& queue, const DType& dtype, std::size_t size);
/// Copies `source` into `target` (same size; buffers of one context, any devices), enqueued on
/// `queue` (of target's device) after everything enqueued so far on `source_queue` (of source's
/// device, may be `queue`). The driver's own copy: DeviceCopier stages where that is slow.
void copy_after(const Queue& queue, const Buffer& target, const Queue& source_queue, const Buffer& source);

/// copy_after for a run of copies between the devices of one context. On OpenCL devices that do
/// not share the host's memory, a copy between two devices goes through page-locked host memory in
/// chunks, read on the source's queue and written on the target's, pipelined through a few slots
/// and ordered by events only (the host never waits): NVIDIA's OpenCL moves a buffer that another
/// device of its context wrote at about 0.5 GB/s (H200 pair, 64 MiB: 146 ms directly, 10 ms
/// staged). Everything else is copy_after. The slots are made on first need and live as long as
/// the copier: the caller keeps it until every queue it used is synchronized.
class DeviceCopier {
public:
    DeviceCopier();
    void copy(const Queue& queue, const Buffer& target, const Queue& source_queue, const Buffer& source);

private:
    struct Slot {
        HostMemory memory;
        std::optional<Event> last_write;  // the write out of the slot, on the target's queue
    };
    static constexpr std::size_t slot_count = 4;
    Slot& next_slot(const Context& context);

    bool stage_always_;
    std::size_t slot_bytes_;
    std::vector<Slot> slots_;
    std::size_t next_ = 0;
};

/// For tests (CI's devices share the host's memory, so nothing would be staged): copiers made
/// from now on stage every copy between two devices, through slots of `slot_bytes`; 0 restores
/// DeviceCopier's rules.
void stage_every_device_copy_for_testing(std::size_t slot_bytes);

}  // namespace kjarni::detail
