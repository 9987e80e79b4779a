#pragma once
// Peer access of a backend context: which devices may use each other's memory, within the context
// and across contexts of the same API. The defaults (peer_service.cpp): within one context devices
// share memory, across contexts nothing is possible.

#include <cstddef>

#include "backend/context_service.hpp"

namespace kjarni::backend {

class ContextPeers : public virtual ContextService {
public:
    /// Whether device `from` can read and write memory of device `to` directly (peer access).
    virtual bool can_access_peer(std::size_t from, std::size_t to) const = 0;
    /// Whether the driver allows device `from` of this context to use memory of device `to` of
    /// `other` (which may be this context) once enabled.
    virtual bool peer_access_possible(std::size_t from, const Context& other, std::size_t to) const;
    /// Whether that access is enabled now.
    virtual bool peer_access_enabled(std::size_t from, const Context& other, std::size_t to) const;
    /// Enables or disables it (the public layer checked that it is possible and not from a device
    /// to itself). The default does nothing within one context when enabling and throws
    /// UnsupportedError naming the backend otherwise.
    virtual void set_peer_access(std::size_t from, Context& other, std::size_t to, bool enable);
};

}  // namespace kjarni::backend
