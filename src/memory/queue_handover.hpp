#pragma once
// A pooled block passing from the queue that used it last to another: the new user's work must
// come after the old user's.

#include <memory>

#include "backend/backend.hpp"
#include "core/recording_registry.hpp"

namespace kjarni::detail {

/// Orders what `queue` enqueues from now on after everything enqueued on `owner` so far: `queue`
/// waits for an event of `owner`'s. On the host instead where there is no queue, and where `queue`
/// is being recorded: a recording may not depend on work outside it (a CUDA stream capture refuses
/// a wait for an event recorded on another stream), and every replay starts after this wait anyway.
inline void wait_for_previous_owner(backend::Queue* queue, backend::Queue& owner) {
    const std::shared_ptr<backend::Event> done = owner.record_event();
    if (queue != nullptr && recording_on(queue) == nullptr) {
        queue->wait_for(*done);
    } else {
        done->wait();
    }
}

}  // namespace kjarni::detail
