// Recorded launch sequences (kjarni/recording.hpp): the public layer's side. A Recorder registers
// its state as the queue's recording (core/recording_registry.hpp); launches, copies and fills on
// the queue then come here, checked, and go to the backend's sequence (backend/recorded_sequence.hpp),
// which captures them. Here are kept what the sequence refers to (kernels, buffers made while
// recording, the bytes of struct arguments) and what set() checks a changed argument against.

#include "kjarni/recording.hpp"

#include <fmt/format.h>

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "backend/recorded_sequence.hpp"
#include "core/recording_registry.hpp"
#include "kjarni/buffer.hpp"

namespace kjarni {

namespace {

const char* recorded_kind_name(const detail::KernelArg& arg) {
    switch (arg.kind) {
    case detail::KernelArg::Kind::buffer: return "a buffer";
    case detail::KernelArg::Kind::shared_pointer: return "managed memory";
    case detail::KernelArg::Kind::image: return "an image";
    case detail::KernelArg::Kind::scalar: break;
    }
    return "a scalar";
}

std::string describe_recorded_value(const detail::KernelArg& arg) {
    if (arg.kind == detail::KernelArg::Kind::scalar) return fmt::format("a scalar of {} bytes", arg.size);
    return recorded_kind_name(arg);
}

}  // namespace

namespace detail {

class RecordingState final : public ActiveRecording {
public:
    RecordingState(const Queue& queue, const RecordingOptions& options) : queue_(queue), options_(options) {}
    RecordingState(const RecordingState&) = delete;
    RecordingState& operator=(const RecordingState&) = delete;

    void start() {
        begin_recording(backend_of(queue_).get(), this);
        try {
            sequence_ = backend::make_recorded_sequence(*backend_of(queue_.device().context()), *backend_of(queue_),
                                                        options_.native);
        } catch (...) {
            end_recording(backend_of(queue_).get(), this);
            throw;
        }
    }

    void stop() noexcept { end_recording(backend_of(queue_).get(), this); }

    void abandon() noexcept {
        stop();
        if (sequence_) sequence_->abandon();
    }

    void finish() {
        stop();
        try {
            sequence_->finish();
        } catch (...) {
            sequence_->abandon();
            throw;
        }
        finished_ = true;
    }

    // ActiveRecording

    void keep(const Buffer& buffer) override {
        const std::lock_guard lock(mutex_);
        kept_buffers_.push_back(buffer);
    }

    void launch(backend::Kernel& kernel, std::shared_ptr<const void> owner, std::string_view name, unsigned dims,
                const std::size_t* global_size, const std::size_t* local_size, std::size_t dynamic_local_mem,
                std::span<const KernelArg> args) override {
        const std::lock_guard lock(mutex_);
        RecordedLaunch recorded{std::string(name), std::vector<KernelArg>(args.begin(), args.end())};
        for (KernelArg& arg : recorded.args) stabilize(arg);
        sequence_->launch(kernel, dims, global_size, local_size, dynamic_local_mem, recorded.args);
        launches_.push_back(std::move(recorded));
        owners_.push_back(std::move(owner));
    }

    void copy(const Buffer& dst, const Buffer& src) override {
        const std::lock_guard lock(mutex_);
        sequence_->copy(*backend_of(dst), dst.offset(), *backend_of(src), src.offset(), src.size());
        kept_buffers_.push_back(dst);
        kept_buffers_.push_back(src);
    }

    void fill(const Buffer& dst, std::span<const std::byte> pattern) override {
        const std::lock_guard lock(mutex_);
        sequence_->fill(*backend_of(dst), dst.offset(), dst.size(), pattern.data(), pattern.size());
        kept_buffers_.push_back(dst);
    }

    // Recorder and Recording

    std::size_t launches() const {
        const std::lock_guard lock(mutex_);
        return launches_.size();
    }

    RecordedArgument last_argument(std::size_t argument) const {
        const std::lock_guard lock(mutex_);
        if (launches_.empty()) throw RecordingError("argument", "no launch has been recorded yet");
        const RecordedLaunch& last = launches_.back();
        if (argument >= last.args.size()) {
            throw RecordingError("argument", fmt::format("the last launch recorded ({}) has {} arguments, not {}",
                                                         last.name, last.args.size(), argument + 1));
        }
        return RecordedArgument{launches_.size() - 1, argument};
    }

    void replay(const Queue& queue) {
        if (!(queue == queue_)) {
            const bool same_context = queue.device().context() == queue_.device().context();
            throw RecordingError("queue", same_context ? "is not the queue the recording was made on: replay it there"
                                                       : "belongs to another context than the recording");
        }
        if (recording_on(backend_of(queue).get()) != nullptr) {
            throw RecordingError("queue", "is recording: a recording cannot be replayed into another");
        }
        const std::lock_guard lock(mutex_);
        sequence_->replay(*backend_of(queue_));
    }

    void set(RecordedArgument slot, const KernelArg& value, std::shared_ptr<const void> owner) {
        const std::lock_guard lock(mutex_);
        if (slot.launch >= launches_.size()) {
            throw RecordingError(fmt::format("launch {}", slot.launch),
                                 fmt::format("the recording has {} launches", launches_.size()));
        }
        RecordedLaunch& launch = launches_[slot.launch];
        const std::string culprit =
            fmt::format("argument {} of launch {} ({})", slot.argument, slot.launch, launch.name);
        if (slot.argument >= launch.args.size()) {
            throw RecordingError(culprit, fmt::format("the launch has {} arguments", launch.args.size()));
        }
        const KernelArg& recorded = launch.args[slot.argument];
        if (recorded.kind == KernelArg::Kind::image || value.kind == KernelArg::Kind::image || value.param_count != 1) {
            throw RecordingError(culprit, "images cannot be changed in a recording: record again");
        }
        if (value.kind != recorded.kind || (value.kind == KernelArg::Kind::scalar && value.size != recorded.size)) {
            throw RecordingError(culprit,
                                 fmt::format("was recorded as {}, {} was given", describe_recorded_value(recorded),
                                             describe_recorded_value(value)));
        }
        const void* context = backend_of(queue_.device().context()).get();
        if (value.kind != KernelArg::Kind::scalar && value.context != nullptr && value.context != context) {
            throw RecordingError(culprit, "the memory given belongs to another context than the recording's queue");
        }
        if (value.kind == KernelArg::Kind::buffer && value.device_index != queue_.device().index()) {
            throw RecordingError(culprit, fmt::format("the buffer given is on device {}, the recording on device {}",
                                                      value.device_index, queue_.device().index()));
        }
        KernelArg stable = value;
        stabilize(stable);
        sequence_->set_argument(slot.launch, slot.argument, stable);
        launch.args[slot.argument] = stable;
        owners_.push_back(std::move(owner));
    }

    const Queue& queue() const noexcept { return queue_; }
    const char* mechanism() const noexcept { return sequence_->mechanism(); }

private:
    struct RecordedLaunch {
        std::string name;
        std::vector<KernelArg> args;
    };

    /// A struct argument's bytes are the caller's only for the launch call: copied here.
    void stabilize(KernelArg& arg) {
        if (arg.bytes == nullptr) return;
        const auto* bytes = static_cast<const std::byte*>(arg.bytes);
        struct_bytes_.emplace_back(bytes, bytes + arg.size);
        arg.bytes = struct_bytes_.back().data();
    }

    Queue queue_;
    RecordingOptions options_;
    // Recursive: a buffer made while a recording call holds the lock is kept through keep().
    mutable std::recursive_mutex mutex_;
    std::vector<Buffer> kept_buffers_;
    std::vector<std::shared_ptr<const void>> owners_;
    std::deque<std::vector<std::byte>> struct_bytes_;
    std::vector<RecordedLaunch> launches_;
    bool finished_ = false;
    // Last: the sequence goes first, before what it refers to.
    std::unique_ptr<backend::RecordedSequence> sequence_;
};

}  // namespace detail

Recorder::Recorder(const Queue& queue, const RecordingOptions& options)
    : state_(std::make_shared<detail::RecordingState>(queue, options)) {
    state_->start();
}

Recorder::~Recorder() {
    if (!finished_) state_->abandon();
}

std::size_t Recorder::launches() const { return state_->launches(); }

RecordedArgument Recorder::argument(std::size_t argument) const { return state_->last_argument(argument); }

Recording Recorder::finish() {
    if (finished_) throw RecordingError("finish", "the recording was finished already");
    finished_ = true;
    state_->finish();
    return Recording(state_);
}

void Recording::replay(const Queue& queue) const { state_->replay(queue); }

void Recording::replay() const { state_->replay(state_->queue()); }

const Queue& Recording::queue() const { return state_->queue(); }

std::size_t Recording::launches() const { return state_->launches(); }

const char* Recording::mechanism() const { return state_->mechanism(); }

void Recording::set_packed(RecordedArgument slot, const detail::KernelArg& value,
                           std::shared_ptr<const void> owner) const {
    state_->set(slot, value, std::move(owner));
}

}  // namespace kjarni
