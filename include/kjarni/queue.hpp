#pragma once
// Queues (reference: grunnur Queue / MultiQueue). A Queue is an in-order stream of work on one
// device: a CUDA stream, or an OpenCL command queue with profiling on (for Event timing).

#include <cstdint>
#include <memory>
#include <vector>

#include "kjarni/context.hpp"
#include "kjarni/event.hpp"

namespace kjarni {

namespace backend {
class Queue;
}

class Queue {
public:
    explicit Queue(const BoundDevice& device);

    const BoundDevice& device() const noexcept { return device_; }
    /// Blocks until all work enqueued so far is done.
    void synchronize() const;
    /// An event marking everything enqueued so far.
    Event record_event() const;
    /// Work enqueued after this call starts only after `event` (of any queue of the context).
    void wait_for(const Event& event) const;
    /// CUstream / cl_command_queue.
    std::uintptr_t native_handle() const;

    friend bool operator==(const Queue& a, const Queue& b) { return a.impl_ == b.impl_; }

    const std::shared_ptr<backend::Queue>& backend() const noexcept { return impl_; }

private:
    BoundDevice device_;
    std::shared_ptr<backend::Queue> impl_;
};

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
