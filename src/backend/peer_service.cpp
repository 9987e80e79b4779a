// The defaults of ContextPeers, for backends without peer access: the devices of one context share
// its memory; nothing crosses contexts.

#include <fmt/format.h>

#include "backend/api.hpp"
#include "backend/context.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

bool ContextPeers::peer_access_possible(std::size_t, const Context& other, std::size_t) const { return &other == this; }

bool ContextPeers::peer_access_enabled(std::size_t, const Context& other, std::size_t) const { return &other == this; }

void ContextPeers::set_peer_access(std::size_t from, Context& other, std::size_t to, bool enable) {
    if (&other == this && enable) return;
    throw UnsupportedError(
        fmt::format("the {} backend cannot {} peer access from device {} to device {} of {}", api().id().shortcut(),
                    enable ? "enable" : "disable", from, to,
                    &other == this ? "the same context (its devices always share memory)" : "another context"));
}

}  // namespace kjarni::backend
