#pragma once
// Which queues are recording (kjarni/recording.hpp), for the layers whose calls a recording takes
// or refuses: a kernel launch, a device copy or a fill on a recording queue goes to its recording
// instead of the driver; a host transfer, a synchronize or an event there is a RecordingError.
// Buffers made on the thread that began a recording are kept by it, so that memory the recorded
// work uses (outputs, the algorithms' temporaries) cannot be handed out again while it may replay.
//
// The check on the launch path is one relaxed atomic load while nothing records anywhere.

#include <atomic>
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "kjarni/detail/kernel_arg.hpp"

namespace kjarni {
class Buffer;
namespace backend {
class Queue;
class Kernel;
class Buffer;
}  // namespace backend
}  // namespace kjarni

namespace kjarni::detail {

/// A recording in progress (the program layer's Recorder implements it).
class ActiveRecording {
public:
    virtual ~ActiveRecording() = default;
    /// A buffer made while recording, on the recording's thread.
    virtual void keep(const Buffer& buffer) = 0;
    /// A launch of `kernel` (kept alive by `owner`), its arguments checked; `name` for messages.
    virtual void launch(backend::Kernel& kernel, std::shared_ptr<const void> owner, std::string_view name,
                        unsigned dims, const std::size_t* global_size, const std::size_t* local_size,
                        std::size_t dynamic_local_mem, std::span<const KernelArg> args) = 0;
    /// A copy between buffers, or a fill (pattern of `pattern_size` bytes), checked.
    virtual void copy(const Buffer& dst, const Buffer& src) = 0;
    virtual void fill(const Buffer& dst, std::span<const std::byte> pattern) = 0;
};

extern std::atomic<int> recordings_in_progress;

ActiveRecording* find_recording(const backend::Queue* queue);

/// The recording of `queue`, or null when it records nothing.
inline ActiveRecording* recording_on(const backend::Queue* queue) {
    if (recordings_in_progress.load(std::memory_order_relaxed) == 0) return nullptr;
    return find_recording(queue);
}

/// Starts `recording` on `queue` and on this thread; RecordingError naming "queue" when the queue
/// records already.
void begin_recording(const backend::Queue* queue, ActiveRecording* recording);
/// Ends it (the thread's previous recording, if any, is current again).
void end_recording(const backend::Queue* queue, ActiveRecording* recording) noexcept;

[[noreturn]] void refuse_recording_call(const char* call);

/// RecordingError naming `call` when `queue` is recording: for work a recording cannot take.
inline void refuse_while_recording(const backend::Queue* queue, const char* call) {
    if (recording_on(queue) != nullptr) refuse_recording_call(call);
}

/// Buffer's constructor: kept by the recording begun on this thread, if any.
void note_new_buffer(const Buffer& buffer);

}  // namespace kjarni::detail
