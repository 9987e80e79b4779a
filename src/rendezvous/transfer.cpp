#include "rendezvous/transfer.hpp"

#include <poll.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "kjarni/error.hpp"
#include "kjarni/rendezvous.hpp"

namespace kjarni::rendezvous {

Outgoing::Outgoing(const Socket& socket_, int peer_, Header header_, std::span<const std::byte> payload_)
    : socket(&socket_), peer(peer_), kind(header_.kind), header(header_.encode()), payload(payload_) {}

Incoming::Incoming(const Socket& socket_, int peer_, Kind kind_, std::uint64_t nonce_, std::span<std::byte> into)
    : socket(&socket_), peer(peer_), kind(kind_), nonce(nonce_), fixed(into) {}

Incoming::Incoming(const Socket& socket_, int peer_, Kind kind_, std::uint64_t nonce_, std::vector<std::byte>& grown_,
                   std::size_t limit_)
    : socket(&socket_), peer(peer_), kind(kind_), nonce(nonce_), grown(&grown_), limit(limit_) {}

Incoming Incoming::any(const Socket& socket, int peer, std::vector<std::byte>& grown, std::size_t limit) {
    Incoming incoming(socket, peer, Kind::message, 0, grown, limit);
    incoming.check = false;
    return incoming;
}

namespace {

// Reads the header once it is complete and points the message at its destination.
void take_header(Incoming& in) {
    in.header = Header::decode(in.raw_header);
    if (in.header.magic != wire_magic || in.header.version != wire_version) {
        throw PeerError(in.peer, "sent bytes that are no kjarni rendezvous message (of this version)");
    }
    if (in.check) {
        if (in.header.nonce != in.nonce) throw PeerError(in.peer, "sent a message of another job (its nonce differs)");
        if (in.header.kind != in.kind) {
            throw PeerError(in.peer, fmt::format("sent a {} message while this rank waits for a {} message: the "
                                                 "ranks call different operations",
                                                 kind_name(in.header.kind), kind_name(in.kind)));
        }
    }
    if (in.grown != nullptr) {
        // The peer's size is checked before anything is allocated for it.
        if (in.header.size > in.limit) {
            const bool capped = in.kind == Kind::broadcast || in.kind == Kind::all_gather;
            throw PeerError(in.peer, fmt::format("announced a {} message of {} bytes, more than the {} this rank "
                                                 "accepts{}",
                                                 kind_name(in.header.kind), in.header.size, in.limit,
                                                 capped ? " (TcpRendezvousOptions::max_message_bytes, "
                                                          "KJARNI_RENDEZVOUS_MAX_MESSAGE_BYTES)"
                                                        : ""));
        }
        in.grown->resize(static_cast<std::size_t>(in.header.size));
        in.target = std::span(*in.grown);
    } else {
        if (in.header.size != in.fixed.size()) {
            throw ArgumentError("data", fmt::format("rank {} sent {} bytes but this rank receives {}", in.peer,
                                                    in.header.size, in.fixed.size()));
        }
        in.target = in.fixed;
    }
}

// One non-blocking step on a message; whether bytes moved.
bool step(Outgoing& out) {
    const std::size_t header_left = out.done < out.header.size() ? out.header.size() - out.done : 0;
    std::span<const std::byte> first(out.header.data() + (out.header.size() - header_left), header_left);
    std::span<const std::byte> second = out.payload.subspan(out.done - (out.header.size() - header_left));
    const std::size_t sent = send_step(*out.socket, first, second, out.peer);
    out.done += sent;
    return sent > 0;
}

bool step(Incoming& in) {
    bool moved = false;
    if (!in.has_header()) {
        const std::size_t got = receive_step(*in.socket, std::span(in.raw_header).subspan(in.header_done), in.peer);
        if (got == 0) return false;
        in.header_done += got;
        moved = true;
        if (!in.has_header()) return true;
        take_header(in);
    }
    if (in.done < in.target.size()) {
        const std::size_t got = receive_step(*in.socket, in.target.subspan(in.done), in.peer);
        in.done += got;
        moved = moved || got > 0;
    }
    return moved;
}

void add_poll(std::vector<pollfd>& polls, const Socket& socket, short events) {
    for (auto& entry : polls) {
        if (entry.fd == socket.fd()) {
            entry.events = static_cast<short>(entry.events | events);
            return;
        }
    }
    polls.push_back(pollfd{socket.fd(), events, 0});
}

[[noreturn]] void throw_timeout(std::span<Outgoing> outgoing, std::span<Incoming> incoming,
                                std::chrono::milliseconds timeout) {
    for (const auto& in : incoming) {
        if (!in.complete()) {
            throw PeerError(in.peer, fmt::format("sent nothing for {} ms while this rank waits for its {} message",
                                                 timeout.count(), kind_name(in.kind)));
        }
    }
    for (const auto& out : outgoing) {
        if (!out.complete()) {
            throw PeerError(out.peer, fmt::format("took nothing for {} ms of the {} message this rank sends it",
                                                  timeout.count(), kind_name(out.kind)));
        }
    }
    throw PeerError(-1, "timed out");
}

}  // namespace

void transfer(std::span<Outgoing> outgoing, std::span<Incoming> incoming, std::chrono::milliseconds timeout) {
    std::vector<pollfd> polls;
    auto deadline = Clock::now() + timeout;
    for (;;) {
        bool moved = false;
        bool pending = false;
        // Try every message first: most steps complete without waiting, and poll is only for waits.
        for (auto& out : outgoing) {
            if (out.complete()) continue;
            moved = step(out) || moved;
            pending = pending || !out.complete();
        }
        for (auto& in : incoming) {
            if (in.complete()) continue;
            moved = step(in) || moved;
            pending = pending || !in.complete();
        }
        if (!pending) return;
        if (moved) {
            deadline = Clock::now() + timeout;
            continue;
        }
        polls.clear();
        for (const auto& out : outgoing) {
            if (!out.complete()) add_poll(polls, *out.socket, POLLOUT);
        }
        for (const auto& in : incoming) {
            if (!in.complete()) add_poll(polls, *in.socket, POLLIN);
        }
        const int ready = ::poll(polls.data(), polls.size(), poll_milliseconds(deadline));
        if (ready < 0 && errno != EINTR) {
            throw Error(fmt::format("rendezvous: poll failed: {}", std::strerror(errno)));
        }
        if (ready == 0 && Clock::now() >= deadline) throw_timeout(outgoing, incoming, timeout);
    }
}

}  // namespace kjarni::rendezvous
