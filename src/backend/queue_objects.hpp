#pragma once
// Queues and the events they record: ordered work on one device of a context (transfers,
// fills, rectangular copies; kernels are launched through module_objects.hpp's Kernel).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend/backend_fwd.hpp"
#include "kjarni/rect_layout.hpp"

namespace kjarni::backend {

/// How a queue is made (the public QueueOptions) and how an event is recorded (EventFlags).
struct QueueFlags {
    int priority = 0;  // CUDA stream priority: lower is more urgent; 0 the default
};
struct EventFlags {
    bool timing = true;          // CUDA: without it CU_EVENT_DISABLE_TIMING
    bool blocking_sync = false;  // CUDA: CU_EVENT_BLOCKING_SYNC (the waiting thread sleeps)
};

class Event {
public:
    virtual ~Event() = default;
    virtual void wait() = 0;
    virtual bool is_complete() = 0;
    /// Milliseconds from `earlier` to this event; both of the same context and complete.
    virtual double time_since(Event& earlier) = 0;
    /// The driver's interprocess handle of an event made by Context::create_ipc_event (CUDA:
    /// cuIpcGetEventHandle's 64 bytes). The default throws UnsupportedError.
    virtual std::vector<std::byte> ipc_handle() const;
};

/// Every transfer takes offsets into whole allocations and a non-zero size (the public layer drops
/// empty transfers and checks bounds). `blocking` = false returns once the work is enqueued.
class Queue {
public:
    virtual ~Queue() = default;
    virtual std::size_t device_index() const = 0;
    virtual void synchronize() = 0;
    virtual std::shared_ptr<Event> record_event() = 0;
    /// Records an existing event (an interprocess one) at this point of the queue. The default
    /// throws UnsupportedError.
    virtual void record(Event& event);
    /// An event with flags; the default calls record_event() for the default flags and throws
    /// UnsupportedError for others.
    virtual std::shared_ptr<Event> record_event_with(const EventFlags& flags);
    /// Whether everything enqueued so far is done, without blocking. The default records an event
    /// and asks it.
    virtual bool is_done();
    virtual void wait_for(Event& event) = 0;
    virtual void write(Buffer& dst, std::size_t dst_offset, const void* src, std::size_t size, bool blocking) = 0;
    virtual void read(void* dst, Buffer& src, std::size_t src_offset, std::size_t size, bool blocking) = 0;
    /// Buffers may be on different devices of the context (peer copy, or staged by the driver).
    virtual void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size,
                      bool blocking) = 0;
    /// Copies from a buffer of another context of the same API, device to device, in this queue's
    /// order (CUDA cuMemcpyPeerAsync); `dst` is of this queue's context. Returns false where the
    /// API cannot (the default): the caller then stages through the host.
    virtual bool copy_from_context(Buffer& /*dst*/, std::size_t /*dst_offset*/, Context& /*src_context*/,
                                   Buffer& /*src*/, std::size_t /*src_offset*/, std::size_t /*size*/,
                                   bool /*blocking*/) {
        return false;
    }
    /// `pattern_size` is a power of two <= 128 dividing `size` and `offset`.
    virtual void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern, std::size_t pattern_size,
                      bool blocking) = 0;
    /// CUstream / cl_command_queue.
    virtual std::uintptr_t native_handle() const = 0;

    // Pitched transfers (defaults in src/backend/queue_service.cpp throw UnsupportedError).
    // Offsets in the layouts are into whole allocations (host: from the pointer); the public layer
    // has checked bounds, and that extents are not empty.

    /// Fills `height` rows of `width` bytes, `pitch` bytes apart, from `offset`, with a pattern of
    /// 1, 2 or 4 bytes that divides `width`, `pitch` and `offset`.
    virtual void fill_2d(Buffer& dst, std::size_t offset, std::size_t pitch, std::size_t width, std::size_t height,
                         const void* pattern, std::size_t pattern_size, bool blocking);
    virtual void write_rect(Buffer& dst, const RectLayout& dst_layout, const void* src, const RectLayout& src_layout,
                            const RectExtent& extent, bool blocking);
    virtual void read_rect(void* dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                           const RectExtent& extent, bool blocking);
    /// The buffers may be on different devices of the context.
    virtual void copy_rect(Buffer& dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                           const RectExtent& extent, bool blocking);
};

}  // namespace kjarni::backend
