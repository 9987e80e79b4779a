#pragma once
/// Events recorded on a queue (reference: PyCUDA Event): wait, query and timing. \file

#include <memory>

#include "kjarni/detail/handle.hpp"

namespace kjarni {

namespace backend {
class Event;
}

/// A point in a queue's work: wait for it, ask whether it is reached, time between two events, or
/// make another queue wait for it. Copies share the event.
class Event : public detail::Handle<backend::Event> {
public:
    /// Blocks until everything enqueued before the event is done.
    void wait() const;
    /// True when everything enqueued before the event is done; never blocks.
    bool is_complete() const;
    /// Milliseconds from `earlier` to this event (both must be complete; wait() first).
    double time_since(const Event& earlier) const;
    /// Milliseconds from this event to `later`.
    double time_till(const Event& later) const { return later.time_since(*this); }

private:
    friend struct detail::BackendAccess;
    explicit Event(std::shared_ptr<backend::Event> impl);
};

}  // namespace kjarni

template <>
struct std::hash<kjarni::Event> : kjarni::detail::HandleHash<kjarni::Event> {};
