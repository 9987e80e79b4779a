#pragma once
// The recording service: a sequence of launches, copies and fills captured once and replayed on
// a queue (kjarni/recording.hpp is its public face). Kept apart from backend.hpp's big interface:
// a backend offers it through make_recorded_sequence, which picks the mechanism the queue's driver
// has, and nothing else in the backend interface changes.
//
// Mechanisms, best first:
//  - CUDA: a graph captured from the queue's stream (cuStreamBeginCapture .. cuStreamEndCapture),
//    instantiated once and launched with cuGraphLaunch; arguments change with
//    cuGraphExecKernelNodeSetParams (cuda/cuda_graph.cpp).
//  - OpenCL with cl_khr_command_buffer: a command buffer recorded with clCommand*KHR, finalized,
//    enqueued with clEnqueueCommandBufferKHR; a changed argument re-records it before the next
//    replay (no mutable dispatch is assumed) (opencl/opencl_command_buffer.cpp).
//  - Otherwise a list: each launch, copy and fill kept with its arguments packed and checked, and
//    replayed by calling the backend's own launch and copy (listed_sequence.cpp).
//
// The public layer checks every argument before it reaches a sequence, keeps the memory and
// kernels the sequence refers to alive, keeps the bytes of struct arguments (KernelArg::bytes)
// alive and serializes the calls; a sequence only reports driver failures.

#include <cstddef>
#include <memory>
#include <span>

#include "backend/backend.hpp"

namespace kjarni::backend {

class RecordedSequence {
public:
    virtual ~RecordedSequence() = default;
    /// What replays it: "CUDA graph", "OpenCL command buffer" or "launch list".
    virtual const char* mechanism() const noexcept = 0;

    // While recording (after make_recorded_sequence, before finish): each call adds one step after
    // the previous ones, in queue order. Nothing runs.
    virtual void launch(Kernel& kernel, unsigned dims, const std::size_t* global_size, const std::size_t* local_size,
                        std::size_t dynamic_local_mem, std::span<const KernelArg> args) = 0;
    virtual void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size) = 0;
    /// `pattern_size` as Queue::fill takes it; the pattern is copied.
    virtual void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern,
                      std::size_t pattern_size) = 0;
    /// Ends the recording; the sequence can be replayed from now on.
    virtual void finish() = 0;
    /// Ends a recording that will not be finished (an error while recording), leaving the queue
    /// usable as before. Never throws.
    virtual void abandon() noexcept = 0;

    // After finish:

    /// Argument `argument` (an index into the launch's args, whose param_count is 1) of launch
    /// number `launch` (0 for the first launch recorded) becomes `value` for the replays from now
    /// on. `value` is of the same kind (and, for a scalar, size) as the recorded one, checked.
    virtual void set_argument(std::size_t launch, std::size_t argument, const KernelArg& value) = 0;
    /// Enqueues the whole sequence on `queue` (the queue it was recorded on), without waiting.
    virtual void replay(Queue& queue) = 0;
};

/// A sequence recorded from `queue` (of `context`) by the best mechanism the driver offers; with
/// `native` false, always the list (for comparing, and where a caller wants no driver mechanism).
std::unique_ptr<RecordedSequence> make_recorded_sequence(Context& context, Queue& queue, bool native);

/// The list every backend can replay (listed_sequence.cpp).
std::unique_ptr<RecordedSequence> make_listed_sequence();

}  // namespace kjarni::backend
