#include "core/recording_registry.hpp"

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "kjarni/recording_error.hpp"

namespace kjarni::detail {

std::atomic<int> recordings_in_progress{0};

namespace {

struct RecordingRegistry {
    std::mutex mutex;
    std::map<const backend::Queue*, ActiveRecording*> by_queue;
};

RecordingRegistry& recording_registry() {
    static RecordingRegistry registry;
    return registry;
}

// The recordings begun on this thread, innermost last (buffers made here go to that one).
thread_local std::vector<ActiveRecording*> thread_recordings;

}  // namespace

ActiveRecording* find_recording(const backend::Queue* queue) {
    RecordingRegistry& registry = recording_registry();
    const std::lock_guard lock(registry.mutex);
    auto found = registry.by_queue.find(queue);
    return found == registry.by_queue.end() ? nullptr : found->second;
}

void begin_recording(const backend::Queue* queue, ActiveRecording* recording) {
    RecordingRegistry& registry = recording_registry();
    {
        const std::lock_guard lock(registry.mutex);
        if (!registry.by_queue.emplace(queue, recording).second) {
            throw RecordingError("queue", "is recording already: finish (or drop) its Recorder first");
        }
        recordings_in_progress.fetch_add(1, std::memory_order_relaxed);
    }
    thread_recordings.push_back(recording);
}

void end_recording(const backend::Queue* queue, ActiveRecording* recording) noexcept {
    RecordingRegistry& registry = recording_registry();
    {
        const std::lock_guard lock(registry.mutex);
        auto found = registry.by_queue.find(queue);
        if (found == registry.by_queue.end() || found->second != recording) return;
        registry.by_queue.erase(found);
        recordings_in_progress.fetch_sub(1, std::memory_order_relaxed);
    }
    // Ended on another thread than it began on: that thread's list keeps a stale entry, which
    // note_new_buffer never reaches once the registry has dropped it.
    for (auto it = thread_recordings.begin(); it != thread_recordings.end(); ++it) {
        if (*it == recording) {
            thread_recordings.erase(it);
            break;
        }
    }
}

void refuse_recording_call(const char* call) {
    throw RecordingError(call, "cannot be recorded (it needs the host, or gives an event of work that has not "
                               "run): call it before the Recorder starts or after finish()");
}

void note_new_buffer(const Buffer& buffer) {
    if (thread_recordings.empty() || recordings_in_progress.load(std::memory_order_relaxed) == 0) return;
    ActiveRecording* current = thread_recordings.back();
    // Still registered? (a recording ended on another thread leaves its entry here)
    {
        RecordingRegistry& registry = recording_registry();
        const std::lock_guard lock(registry.mutex);
        bool live = false;
        for (const auto& [queue, recording] : registry.by_queue) live = live || recording == current;
        if (!live) return;
    }
    current->keep(buffer);
}

}  // namespace kjarni::detail
