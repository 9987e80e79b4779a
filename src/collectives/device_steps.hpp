#pragma once
// The device-side steps of the fallback engine: combining two arrays by a reduction operation with
// kjarni's elementwise kernels, the division of avg, byte copies between contiguous arrays of any
// devices of one context, and when those copies go through the host instead.
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
/// device, may be `queue`). The driver's own copy (relays_between says where it is slow).
void copy_after(const Queue& queue, const Buffer& target, const Queue& source_queue, const Buffer& source);

/// Whether the in-process fallback should move bytes between the devices of `ranks` through the
/// host (local_engine.cpp's relay) rather than by the driver's copies between them: OpenCL devices
/// that do not share the host's memory. NVIDIA's OpenCL moves a buffer that another device of its
/// context wrote at about 0.5 GB/s (H200 pair, 64 MiB: 146 ms directly, 10 ms staged).
bool relays_between(const std::vector<BoundDevice>& devices);

/// The relay's sizes: bytes per chunk (the unit of the pipeline between a download and its upload)
/// and the most bytes of a rank's part handled at once (bounding the page-locked memory a call
/// holds).
struct RelaySizes {
    std::size_t chunk;
    std::size_t segment;
};
RelaySizes relay_sizes();
/// Whether a relay's uploads wait for their downloads on the host (enqueued once the chunk is in
/// host memory) instead of on the device (the upload's queue waits for the download's event, of
/// another device). Off by default; KJARNI_RELAY_HOST_WAITS=1 (read once) turns it on, to measure
/// what waits between the queues of two devices cost a driver (bench/collectives_bench.cpp).
bool relay_host_waits();

/// For tests (CI's devices share the host's memory, so nothing would be relayed): from now on the
/// in-process fallback relays every call through the host, in chunks of `chunk_bytes` and
/// segments of 7 chunks and 3 bytes; 0 restores the rules above.
void relay_through_the_host_for_testing(std::size_t chunk_bytes);

}  // namespace kjarni::detail
