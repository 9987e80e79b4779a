#pragma once
/// Sharing device memory and ordering work between processes on one machine (CUDA IPC; every call
/// gives UnsupportedError on OpenCL, which has no interprocess handles).
///
/// Memory: Buffer::ipc_handle() in the process that allocated it, bytes sent over any channel (a
/// Rendezvous, a pipe, a file), Buffer::open_ipc(device, bytes) in the other. An Array goes the same
/// way through its base buffer: send `array.base().ipc_handle()` with the dtype and layout, and
/// rebuild it with `Array::from_buffer(Buffer::open_ipc(device, bytes), dtype, layout)`.
///
/// Order: the producer records an IpcEvent on its queue after the work that writes the memory and
/// sends the event's handle (once; the event can be recorded again and again); the consumer opens
/// it and makes its queue wait for it (`queue.wait_for(event.event())`). As with CUDA's own
/// interprocess events, a wait sees the latest record() that the producer issued before the
/// consumer enqueued the wait: the two processes agree on the order by messages (e.g. the
/// producer's record, then a message, then the consumer's wait). \file

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/event.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

namespace backend {
class Event;
}

/// The length of Buffer::ipc_handle()'s bytes and of IpcEvent::handle()'s.
inline constexpr std::size_t ipc_memory_handle_bytes = 96;
inline constexpr std::size_t ipc_event_handle_bytes = 72;

/// An event other processes on the machine can open and wait for (CUDA: CU_EVENT_INTERPROCESS |
/// CU_EVENT_DISABLE_TIMING, so it cannot time: Event::time_since on it throws BackendError).
/// Copies share the event, which is destroyed when the last copy goes.
class IpcEvent {
public:
    /// A new event of `device`, not yet recorded. UnsupportedError on OpenCL.
    static IpcEvent create(const BoundDevice& device);
    /// Opens on `device` an event that another process made; ArgumentError naming "handle" for
    /// bytes that are no kjarni event handle, UnsupportedError on OpenCL.
    static IpcEvent open(const BoundDevice& device, std::span<const std::byte> handle);

    /// The bytes another process passes to open().
    std::vector<std::byte> handle() const;
    /// Records the event at this point of `queue` (a queue of the event's device).
    void record(const Queue& queue) const;
    /// The event as a plain Event: wait() and is_complete() on the host, Queue::wait_for.
    Event event() const;
    const BoundDevice& device() const noexcept { return device_; }

private:
    IpcEvent(BoundDevice device, std::shared_ptr<backend::Event> impl);
    BoundDevice device_;
    std::shared_ptr<backend::Event> impl_;
};

}  // namespace kjarni
