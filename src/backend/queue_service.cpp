// The defaults of ContextQueues::create_queue_with and of Queue's extras (events with flags, polling,
// 2-D fills and rectangular transfers), for backends that lack them: each throws UnsupportedError
// naming the backend (or, for queues, which do not know their API, what was asked for).

#include "backend/api.hpp"
#include "backend/queue_service.hpp"
#include "backend/service_defaults.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

std::shared_ptr<Queue> ContextQueues::create_queue_with(std::size_t device_index, const QueueFlags& flags) {
    if (flags.priority != 0) backend_cannot(api(), "give queues a priority");
    return create_queue(device_index);
}

std::shared_ptr<Event> Queue::record_event_with(const EventFlags& flags) {
    if (flags.blocking_sync) throw UnsupportedError("this backend cannot record blocking-sync events");
    // Timing off is a promise not to time: an event that can is as good.
    return record_event();
}

bool Queue::is_done() { return record_event()->is_complete(); }

// A queue does not know its API; its context's devices would, but the interface gives a queue no
// context. The message says what was asked for.
void Queue::fill_2d(Buffer&, std::size_t, std::size_t, std::size_t, std::size_t, const void*, std::size_t, bool) {
    throw UnsupportedError("this backend's queues cannot fill 2-D regions");
}

void Queue::write_rect(Buffer&, const RectLayout&, const void*, const RectLayout&, const RectExtent&, bool) {
    throw UnsupportedError("this backend's queues cannot copy rectangular regions from the host");
}

void Queue::read_rect(void*, const RectLayout&, Buffer&, const RectLayout&, const RectExtent&, bool) {
    throw UnsupportedError("this backend's queues cannot copy rectangular regions to the host");
}

void Queue::copy_rect(Buffer&, const RectLayout&, Buffer&, const RectLayout&, const RectExtent&, bool) {
    throw UnsupportedError("this backend's queues cannot copy rectangular regions between buffers");
}

}  // namespace kjarni::backend
