#pragma once
/// Recorded launch sequences: work enqueued on a queue captured once and replayed many times, at
/// the cost of one driver call per replay where the driver has a mechanism for it (CUDA graphs,
/// PyTorch's torch.cuda.graphs; OpenCL command buffers).
///
/// \code
/// kjarni::Recorder recorder(queue);             // from here on, the queue records
/// step.enqueue(queue, y, x, 0.5f);              // recorded, not run
/// kjarni::RecordedArgument scale = recorder.argument(2);
/// kjarni::Array z = kjarni::evaluate(queue, y * y + x);   // recorded too (z is allocated now)
/// kjarni::Recording recording = recorder.finish();
/// for (int i = 0; i < 1000; ++i) recording.replay();      // runs both launches, in order
/// recording.set(scale, 0.25f);                  // later replays pass 0.25f
/// \endcode
///
/// **What is recorded.** While a Recorder lives, every kernel launch on its queue that returns no
/// Event (PreparedKernel::enqueue, BoundKernel::enqueue, StaticKernel launches, launches from
/// Python, and the kernels of kjarni's own algorithms: expressions, reductions, scans, ...), every
/// copy between buffers
/// (Buffer::set from a Buffer) and every fill (Buffer::fill) is recorded instead of run. Nothing of
/// it runs until the first replay; each replay runs all of it in recording order on the queue, as
/// eager calls would have (the same kernels, sizes and arguments). Argument checks and packing
/// happen once, while recording.
///
/// **What cannot be recorded** (RecordingError naming the call, thrown while recording): host
/// transfers (Buffer::set from the host, Buffer::get, an array's to_host, and hence anything whose
/// result the host reads: a reduction to a host scalar, counts of compaction), launches that return
/// an Event (use enqueue), Queue::synchronize, record_event, is_done and native_handle (a vendor
/// library, cuBLAS or CLBlast, enqueues through the native queue). Queue::wait_for of an event
/// waits for it at once (so the dependency holds for every replay) and records nothing. Other work
/// enqueued on the queue by other means (images, pitched copies, managed memory prefetches) is not
/// seen by the recording: on CUDA the stream capture takes it into the graph, elsewhere it runs at
/// once; do not enqueue it while recording.
///
/// **Memory.** A recording refers to memory by address: every buffer its work uses must live as
/// long as it may replay. Buffers made on the recording's thread while it records (the outputs of
/// recorded algorithms, their temporaries, pool blocks) are kept by the Recording and live as long
/// as it does. Buffers that existed before are the caller's to keep, as with CUDA graphs.
///
/// **What can change between replays.** One argument of one recorded launch at a time
/// (Recording::set): a scalar for a scalar of the same size, a buffer (or an array) for a buffer
/// of the same context and device. Anything else (sizes, the kernel, copies) needs a new
/// recording. A changed buffer is kept by the Recording.
///
/// **Mechanisms.** CUDA: a graph captured from the stream (cuStreamBeginCapture in relaxed mode),
/// instantiated once, launched with cuGraphLaunch; a changed argument is
/// cuGraphExecKernelNodeSetParams. OpenCL with cl_khr_command_buffer 0.9.x (queues needing no
/// properties besides profiling): a command buffer enqueued with clEnqueueCommandBufferKHR; a
/// changed argument re-records it before the next replay (mutable dispatch is not used). Elsewhere
/// (and with RecordingOptions::native false) a list replayed by calling the driver's launch for
/// each step with its arguments as checked while recording. What a replay saves depends on the
/// driver: PoCL 3.1 runs a command buffer command by command, no faster than eager launches.
///
/// **Errors.** RecordingError (kjarni/recording_error.hpp), naming the culprit: a second Recorder
/// on a queue that records; a call that cannot be recorded; a replay on another queue than the
/// one recorded (or of another context); a changed argument of another kind or size than the
/// recorded one, or naming a launch or argument that does not exist. Driver failures are
/// BackendError as usual. \file

#include <cstddef>
#include <memory>

#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/program.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/recording_error.hpp"

namespace kjarni {

/// How a Recorder records.
struct RecordingOptions {
    /// The driver's mechanism where it has one (CUDA graph, OpenCL command buffer); false: the
    /// launch list every backend replays (slower per launch, for comparison and as a fallback).
    bool native = true;
};

/// One argument of one recorded launch: launch counts the launches recorded before it (kjarni's
/// algorithms launch kernels too), argument its position among the launch's arguments.
struct RecordedArgument {
    std::size_t launch = 0;
    std::size_t argument = 0;
};

namespace detail {
class RecordingState;
}

class Recording;

/// Records the work enqueued on a queue (see the top of the file) from its construction to
/// finish(). Dropped unfinished (an exception while recording), it abandons the recording and the
/// queue runs work eagerly again.
class Recorder {
public:
    /// RecordingError naming "queue" when the queue records already.
    explicit Recorder(const Queue& queue, const RecordingOptions& options = {});
    ~Recorder();
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    /// The launches recorded so far (the next launch's number).
    std::size_t launches() const;
    /// Argument `argument` of the launch recorded last, for Recording::set. RecordingError naming
    /// "argument" when nothing was launched yet or the launch has fewer arguments.
    RecordedArgument argument(std::size_t argument) const;
    /// Ends the recording; the queue runs work eagerly again. RecordingError when called twice.
    Recording finish();

private:
    std::shared_ptr<detail::RecordingState> state_;
    bool finished_ = false;
};

/// A finished recording: replays its work on the queue it was recorded on. Copies share it; it
/// keeps the queue, the kernels and the memory it made while recording alive. Replays and set()
/// may be called from several threads (they take turns).
class Recording {
public:
    /// Enqueues the recorded work on `queue`, which must be the recorded one (RecordingError
    /// naming "queue" otherwise, or when the queue is recording now). Does not wait.
    void replay(const Queue& queue) const;
    /// The same on the recorded queue.
    void replay() const;
    const Queue& queue() const;
    std::size_t launches() const;
    /// "CUDA graph", "OpenCL command buffer" or "launch list".
    const char* mechanism() const;

    /// The recorded argument becomes `value` for the replays from now on (a scalar of the same
    /// size, or a Buffer / Array of the queue's context and device where a buffer was recorded;
    /// RecordingError naming the argument otherwise). A copy of `value` is kept (so a Buffer's
    /// memory lives as long as the recording).
    template <detail::KernelArgument T>
    void set(RecordedArgument slot, const T& value) const {
        static_assert(!detail::HostArgumentType<T>, "host arguments (In, Out, InOut) cannot be recorded");
        // Packed from `value`: a copy shares its memory (what the packed argument points to), and
        // a struct's bytes are copied by set_packed.
        const detail::LaunchTarget target{0, queue().device().index()};
        const detail::KernelArg packed = detail::pack(value, target);
        set_packed(slot, packed, std::make_shared<const T>(value));
    }
    /// set() with an argument packed at run time (language bindings); `owner` keeps what it points to.
    void set_packed(RecordedArgument slot, const detail::KernelArg& value, std::shared_ptr<const void> owner) const;

private:
    friend class Recorder;
    explicit Recording(std::shared_ptr<detail::RecordingState> state) : state_(std::move(state)) {}
    std::shared_ptr<detail::RecordingState> state_;
};

}  // namespace kjarni
