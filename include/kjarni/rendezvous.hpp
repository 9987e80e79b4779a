#pragma once
// How the ranks of a job (processes, or threads of one process) find each other and exchange bytes:
// the bootstrap of collectives and of anything else that needs a few bytes from every rank. One
// rank is the root; every other rank connects to it, and every pair of ranks gets its own ordered
// byte stream. Every blocking call honours the rendezvous' timeout and a dead or unreachable peer
// gives a PeerError naming the peer, never a hang.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kjarni/error.hpp"

namespace kjarni {

/// A peer of a rendezvous did not answer in time, closed its connection or could not be reached.
class PeerError : public Error {
public:
    PeerError(int peer, const std::string& reason);
    /// The rank of the peer at fault (-1 when it is not known, e.g. the root could not be reached).
    int peer() const noexcept { return peer_; }

private:
    int peer_;
};

class Rendezvous {
public:
    virtual ~Rendezvous() = default;

    virtual int rank() const noexcept = 0;
    virtual int count() const noexcept = 0;

    /// Collective: every rank calls it; returns the root's bytes on every rank.
    virtual std::vector<std::byte> broadcast(std::span<const std::byte> data, int root) = 0;
    /// Collective: every rank's bytes (of any length), in rank order, on every rank.
    virtual std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> data) = 0;
    /// Collective: returns once every rank has called it.
    virtual void barrier() = 0;

    /// Point to point, blocking, ordered per pair of ranks: `recv` on `peer` must ask for exactly
    /// the bytes that `send` gives.
    virtual void send(int peer, std::span<const std::byte> data) = 0;
    virtual void recv(int peer, std::span<std::byte> data) = 0;
    /// Sends to one peer while receiving from another (or the same) peer, without the deadlock
    /// that a send followed by a recv risks when both sides send large messages at once.
    virtual void exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                          std::span<std::byte> recv_data) = 0;
};

}  // namespace kjarni
