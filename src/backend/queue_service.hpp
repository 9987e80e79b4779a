#pragma once
// The queues of a backend context and waiting for all of its work. The defaults (queue_service.cpp)
// accept default flags only, anything else is UnsupportedError naming the backend.

#include <cstddef>
#include <memory>
#include <utility>

#include "backend/context_service.hpp"
#include "backend/queue_objects.hpp"

namespace kjarni::backend {

class ContextQueues : public virtual ContextService {
public:
    virtual std::shared_ptr<Queue> create_queue(std::size_t device_index) = 0;
    /// A queue with flags; the default calls create_queue for default flags.
    virtual std::shared_ptr<Queue> create_queue_with(std::size_t device_index, const QueueFlags& flags);
    /// The queue priorities the device offers, {least, greatest} urgency ({0, 0}: none).
    virtual std::pair<int, int> queue_priority_range(std::size_t /*device_index*/) const { return {0, 0}; }
    /// Waits for all work on every device of the context, the queues of others sharing the native
    /// context included where the API can (CUDA cuCtxSynchronize). The default does nothing (the
    /// public layer synchronizes kjarni's queues itself).
    virtual void synchronize_devices() {}
};

}  // namespace kjarni::backend
