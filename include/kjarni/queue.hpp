#pragma once
/// Queues (reference: grunnur Queue / MultiQueue). A Queue is an in-order stream of work on one
/// device: a CUDA stream, or an OpenCL command queue with profiling on (for Event timing). \file

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "kjarni/context.hpp"
#include "kjarni/detail/handle.hpp"
#include "kjarni/event.hpp"

namespace kjarni {

namespace backend {
class Queue;
}

/// How a queue is made (PyCUDA's Stream flags and priorities).
struct QueueOptions {
    /// CUDA stream priority: lower numbers are more urgent; queue_priority_range() gives the
    /// device's range, and values outside it are clamped by the driver. Non-zero on OpenCL:
    /// UnsupportedError.
    int priority = 0;
};

/// How an event is recorded (PyCUDA's event_flags).
struct EventFlags {
    /// False: the event cannot be timed (CUDA CU_EVENT_DISABLE_TIMING, cheaper to record and wait
    /// for); Event::time_since on it throws.
    bool timing = true;
    /// True: a thread waiting for the event sleeps instead of spinning (CUDA
    /// CU_EVENT_BLOCKING_SYNC). UnsupportedError on OpenCL, where how a wait waits is the driver's.
    bool blocking_sync = false;
};

/// An in-order queue of work (copies, kernels, events) on one device (a CUstream, a
/// cl_command_queue). Copies share the queue.
class Queue : public detail::Handle<backend::Queue> {
public:
    explicit Queue(const BoundDevice& device);
    Queue(const BoundDevice& device, const QueueOptions& options);

    const BoundDevice& device() const noexcept { return device_; }
    /// Blocks until all work enqueued so far is done.
    void synchronize() const;
    /// An event marking everything enqueued so far.
    Event record_event() const;
    Event record_event(const EventFlags& flags) const;
    /// Whether everything enqueued so far is done, without waiting for it (PyCUDA's Stream.is_done):
    /// CUDA asks the stream; OpenCL enqueues a marker and watches it for at most 2 ms.
    bool is_done() const;
    /// The priority the queue was made with.
    int priority() const noexcept { return priority_; }
    /// Work enqueued after this call starts only after `event` (of any queue of the context).
    void wait_for(const Event& event) const;
    /// CUstream / cl_command_queue.
    std::uintptr_t native_handle() const;

private:
    friend struct detail::BackendAccess;
    BoundDevice device_;
    int priority_ = 0;
};

/// The queue priorities a device offers, {least urgent, most urgent} (CUDA
/// cuCtxGetStreamPriorityRange: e.g. {0, -5}); {0, 0} where there are none (OpenCL).
std::pair<int, int> queue_priority_range(const BoundDevice& device);

/// One queue on each of several distinct devices of one context.
class MultiQueue {
public:
    /// Queues of distinct devices of one context.
    explicit MultiQueue(std::vector<Queue> queues);
    static MultiQueue on_devices(const BoundMultiDevice& devices);

    const BoundMultiDevice& devices() const noexcept { return devices_; }
    const std::vector<Queue>& queues() const noexcept { return queues_; }
    /// The queue of a member device; throws ArgumentError if the device is not a member.
    const Queue& operator[](const BoundDevice& device) const;
    void synchronize() const;

private:
    std::vector<Queue> queues_;
    BoundMultiDevice devices_;
};

}  // namespace kjarni

template <>
struct std::hash<kjarni::Queue> : kjarni::detail::HandleHash<kjarni::Queue> {};
