// The state every engine shares: whether it was aborted, and why.

#include "collectives/comm_engine.hpp"

#include "kjarni/rendezvous.hpp"

namespace kjarni::detail {

void CommEngine::abort(const std::string& why) {
    {
        const std::lock_guard lock(why_mutex_);
        if (aborted_.load()) return;
        why_ = why;
        aborted_.store(true);
    }
    on_abort();
}

void CommEngine::require_alive() const {
    if (!aborted_.load()) return;
    const std::lock_guard lock(why_mutex_);
    throw PeerError(-1, "the communicator was aborted and takes no more calls: " + why_);
}

}  // namespace kjarni::detail
