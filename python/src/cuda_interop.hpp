#pragma once
// What DLPack's stream semantics need from the CUDA driver beyond kjarni's API: ordering a foreign
// stream after a kjarni queue (an event recorded on the queue that the stream waits for). The
// driver is loaded at run time (libcuda.so.1), as kjarni itself does: nothing of CUDA is linked.
#include <cstdint>

#include <kjarni/queue.hpp>

namespace kjarni::python::cuda {

/// Work enqueued on `stream` (a CUstream; 0 is the legacy default stream, 1 CU_STREAM_LEGACY, 2
/// CU_STREAM_PER_THREAD) after this call starts only after everything enqueued on `queue` so far.
/// Nothing is done when `stream` is the queue's own stream.
void order_stream_after(const Queue& queue, std::uintptr_t stream);

/// `queue` waits for everything enqueued on the foreign `stream` so far.
void order_queue_after(const Queue& queue, std::uintptr_t stream);

}  // namespace kjarni::python::cuda
