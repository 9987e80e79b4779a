// PeerError, declared with the rendezvous interface it belongs to.

#include <fmt/format.h>

#include "kjarni/rendezvous.hpp"

namespace kjarni {

PeerError::PeerError(int peer, const std::string& reason)
    : Error(peer >= 0 ? fmt::format("peer rank {}: {}", peer, reason) : reason), peer_(peer) {}

}  // namespace kjarni
