#include "kjarni/peer_access.hpp"

#include <fmt/format.h>

#include <vector>

#include "backend/backend.hpp"
#include "core/context_state.hpp"
#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/error.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

namespace {

std::string describe_peer(const BoundDevice& device) {
    return fmt::format("device {} ('{}', {})", device.index(), device.name(), device.context().api().shortcut());
}

bool same_api_peers(const BoundDevice& from, const BoundDevice& to) {
    return from.context().api().id() == to.context().api().id();
}

// The pair as enable/disable take it: distinct devices of one API whose driver allows access.
void check_peer_pair(const BoundDevice& from, const BoundDevice& to) {
    if (!same_api_peers(from, to)) {
        throw ArgumentError("to", fmt::format("{} is of another API than {}", describe_peer(to), describe_peer(from)));
    }
    if (from == to) throw ArgumentError("to", fmt::format("{} is `from` itself", describe_peer(to)));
    if (!can_access_peer(from, to)) {
        throw UnsupportedError(
            fmt::format("the driver does not let {} access the memory of {}", describe_peer(from), describe_peer(to)));
    }
}

}  // namespace

bool can_access_peer(const BoundDevice& from, const BoundDevice& to) {
    if (!same_api_peers(from, to)) return false;
    if (from == to) return true;
    return detail::backend_of(from.context())
        ->peer_access_possible(from.index(), *detail::backend_of(to.context()), to.index());
}

bool peer_access_enabled(const BoundDevice& from, const BoundDevice& to) {
    if (!same_api_peers(from, to)) return false;
    if (from == to) return true;
    return detail::backend_of(from.context())
        ->peer_access_enabled(from.index(), *detail::backend_of(to.context()), to.index());
}

void enable_peer_access(const BoundDevice& from, const BoundDevice& to) {
    check_peer_pair(from, to);
    detail::backend_of(from.context())
        ->set_peer_access(from.index(), *detail::backend_of(to.context()), to.index(), true);
}

void disable_peer_access(const BoundDevice& from, const BoundDevice& to) {
    check_peer_pair(from, to);
    detail::backend_of(from.context())
        ->set_peer_access(from.index(), *detail::backend_of(to.context()), to.index(), false);
}

bool copy_between_contexts(const Queue& queue, const Buffer& destination, const Buffer& source, bool async) {
    if (!(destination.device().context() == queue.device().context())) {
        throw ArgumentError("destination", "is not a buffer of the queue's context");
    }
    if (destination.size() < source.size()) {
        throw ArgumentError("destination",
                            fmt::format("holds {} bytes; the source has {}", destination.size(), source.size()));
    }
    if (!same_api_peers(source.device(), queue.device())) {
        throw ArgumentError("source", fmt::format("is a buffer of {}, another API than the queue's {}",
                                                  describe_peer(source.device()), describe_peer(queue.device())));
    }
    if (source.size() == 0) return true;
    if (source.device().context() == queue.device().context()) {
        destination.set(queue, source, async);
        return true;
    }
    if (detail::backend_of(queue)->copy_from_context(*detail::backend_of(destination), destination.offset(),
                                                     *detail::backend_of(source.device().context()),
                                                     *detail::backend_of(source), source.offset(), source.size(),
                                                     !async)) {
        return true;
    }
    // No device-to-device copy between contexts in this API: through the page-locked slots of the
    // source's device, read on a queue of it and written from the slots on `queue`, the two
    // directions overlapping (TransferStager::relay). Only where those slots cannot be had, through
    // pageable memory, which a synchronous read of the source makes safe to write from
    // asynchronously.
    const Queue source_queue(source.device());
    const Context& source_context = source.device().context();
    if (detail::state_of(source_context)
            .staging.relay(*detail::backend_of(source_context), *detail::backend_of(source_queue),
                           *detail::backend_of(source), source.offset(), *detail::backend_of(queue),
                           *detail::backend_of(destination), destination.offset(), source.size(), async)) {
        return false;
    }
    std::vector<std::byte> staged(source.size());
    source.get(source_queue, std::span<std::byte>(staged));
    destination.set(queue, std::span<const std::byte>(staged));
    return false;
}

}  // namespace kjarni
