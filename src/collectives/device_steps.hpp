#pragma once
// The device-side steps of the fallback engine: combining two arrays by a reduction operation with
// kjarni's elementwise kernels, the division of avg, and byte copies between contiguous arrays of
// any devices of one context.
//
// Kernels run only on whole allocations that the fallback made itself (temporaries at offset 0), never
// on a user's view, so that OpenCL's sub-buffer alignment rule never refuses an operand; a user's
// arrays are read and written by buffer copies, which take any offset.

#include <cstddef>

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
/// device, may be `queue`).
void copy_after(const Queue& queue, const Buffer& target, const Queue& source_queue, const Buffer& source);

}  // namespace kjarni::detail
