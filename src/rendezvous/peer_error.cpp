// PeerError, declared with the rendezvous interface it belongs to.

#include <fmt/format.h>

#include "kjarni/rendezvous.hpp"

namespace kjarni {

PeerError::PeerError(int peer, const std::string& reason)
    : Error(peer >= 0 ? fmt::format("rendezvous peer rank {}: {}", peer, reason)
                      : fmt::format("rendezvous: {}", reason)),
      peer_(peer) {}

}  // namespace kjarni
