#include "kjarni/queue.hpp"

#include <fmt/format.h>

#include "backend/backend.hpp"
#include "core/context_state.hpp"
#include "core/recording_registry.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace {

// A new driver queue, or the device's one in a single_stream context; noted for
// Context::synchronize either way.
std::shared_ptr<backend::Queue> make_queue(const BoundDevice& device) {
    auto& state = detail::state_of(device.context());
    if (state.options.single_stream) return state.single_stream_queue(device.index());
    auto queue = detail::backend_of(device.context())->create_queue(device.index());
    state.register_queue(queue);
    return queue;
}

}  // namespace

Queue::Queue(const BoundDevice& device) : Handle(make_queue(device)), device_(device) {}

void Queue::synchronize() const {
    detail::refuse_while_recording(impl_.get(), "Queue::synchronize");
    impl_->synchronize();
}

Queue::Queue(const BoundDevice& device, const QueueOptions& options) : device_(device), priority_(options.priority) {
    auto& state = detail::state_of(device.context());
    if (state.options.single_stream) {
        throw ArgumentError("options", "the context was made with ContextOptions::single_stream: its devices have "
                                       "one queue each, made with Queue(device), which takes no QueueOptions");
    }
    impl_ = detail::backend_of(device.context())->create_queue_with(device.index(), {.priority = options.priority});
    state.register_queue(impl_);
}

Event Queue::record_event() const {
    detail::refuse_while_recording(impl_.get(), "Queue::record_event");
    return detail::BackendAccess::make<Event>(impl_->record_event());
}

Event Queue::record_event(const EventFlags& flags) const {
    detail::refuse_while_recording(impl_.get(), "Queue::record_event");
    return detail::BackendAccess::make<Event>(
        impl_->record_event_with({.timing = flags.timing, .blocking_sync = flags.blocking_sync}));
}

bool Queue::is_done() const {
    detail::refuse_while_recording(impl_.get(), "Queue::is_done");
    return impl_->is_done();
}

std::pair<int, int> queue_priority_range(const BoundDevice& device) {
    return detail::backend_of(device.context())->queue_priority_range(device.index());
}

void Queue::wait_for(const Event& event) const {
    // While recording, the event's work is waited for now: it is then done before any replay
    // starts, which is what the dependency asks for.
    if (detail::recording_on(impl_.get()) != nullptr) {
        detail::backend_of(event)->wait();
        return;
    }
    impl_->wait_for(*detail::backend_of(event));
}

std::uintptr_t Queue::native_handle() const {
    // Work enqueued through the native queue would bypass the recording (or, on CUDA, be captured
    // unseen by it).
    detail::refuse_while_recording(impl_.get(), "Queue::native_handle");
    return impl_->native_handle();
}

namespace {

BoundMultiDevice devices_of(const std::vector<Queue>& queues) {
    if (queues.empty()) throw ArgumentError("queues", "a MultiQueue needs at least one queue");
    std::vector<BoundDevice> devices;
    for (const Queue& queue : queues) devices.push_back(queue.device());
    return BoundMultiDevice::from_bound_devices(devices);  // checks: one context, distinct devices
}

}  // namespace

MultiQueue::MultiQueue(std::vector<Queue> queues) : queues_(std::move(queues)), devices_(devices_of(queues_)) {}

MultiQueue MultiQueue::on_devices(const BoundMultiDevice& devices) {
    std::vector<Queue> queues;
    for (const BoundDevice& device : devices.to_vector()) queues.emplace_back(device);
    return MultiQueue(std::move(queues));
}

const Queue& MultiQueue::operator[](const BoundDevice& device) const {
    for (const Queue& queue : queues_) {
        if (queue.device() == device) return queue;
    }
    throw ArgumentError("device",
                        fmt::format("device {} ('{}') has no queue in this MultiQueue", device.index(), device.name()));
}

void MultiQueue::synchronize() const {
    for (const Queue& queue : queues_) queue.synchronize();
}

Event::Event(std::shared_ptr<backend::Event> impl) : Handle(std::move(impl)) {}

void Event::wait() const { impl_->wait(); }

bool Event::is_complete() const { return impl_->is_complete(); }

double Event::time_since(const Event& earlier) const { return impl_->time_since(*earlier.impl_); }

}  // namespace kjarni
