#pragma once
// The engine under every TCP rendezvous operation: a set of messages to send and to receive, each on
// its own peer's socket, progressed together with poll until all are done. Sending and receiving at
// once is what keeps two ranks that send each other large messages from deadlocking (each would
// otherwise fill its socket buffers and wait for the other to read).

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "rendezvous/socket.hpp"
#include "rendezvous/wire.hpp"

namespace kjarni::rendezvous {

struct Outgoing {
    Outgoing(const Socket& socket, int peer, Header header, std::span<const std::byte> payload);

    const Socket* socket;
    int peer;
    Kind kind;
    std::array<std::byte, Header::bytes> header;
    std::span<const std::byte> payload;
    std::size_t done = 0;  // of header and payload together

    bool complete() const { return done == header.size() + payload.size(); }
};

struct Incoming {
    /// A message of exactly `into.size()` bytes into `into`.
    Incoming(const Socket& socket, int peer, Kind kind, std::uint64_t nonce, std::span<std::byte> into);
    /// A message of up to `limit` bytes into `grown` (resized to it once the header has announced a
    /// size within the limit).
    Incoming(const Socket& socket, int peer, Kind kind, std::uint64_t nonce, std::vector<std::byte>& grown,
             std::size_t limit);
    /// Any message of up to `limit` bytes (any kind, any nonce): the bootstrap, which checks the
    /// header itself.
    static Incoming any(const Socket& socket, int peer, std::vector<std::byte>& grown, std::size_t limit);

    const Socket* socket;
    int peer;
    Kind kind;
    std::uint64_t nonce;
    bool check = true;
    std::span<std::byte> fixed;
    std::vector<std::byte>* grown = nullptr;
    std::size_t limit = 0;

    std::array<std::byte, Header::bytes> raw_header{};
    std::size_t header_done = 0;
    Header header;
    std::span<std::byte> target;
    std::size_t done = 0;

    bool has_header() const { return header_done == raw_header.size(); }
    bool complete() const { return has_header() && done == target.size(); }
};

/// Progresses every message until all are complete. A wait of `timeout` without a byte moving
/// throws PeerError naming a peer still awaited; a closed connection, a stream that is no
/// rendezvous', another job's nonce, another operation's message or a message over its limit throws
/// PeerError naming the sender, before any of its payload is read; a fixed-size message of another
/// size throws ArgumentError naming "data".
void transfer(std::span<Outgoing> outgoing, std::span<Incoming> incoming, std::chrono::milliseconds timeout);

}  // namespace kjarni::rendezvous
