#pragma once
// A hostile peer for the rendezvous tests: a raw loopback connection that speaks as much of the wire
// as a test wants (a handshake with a secret it knows or not, then any bytes), with every wait
// bounded so that a test fails instead of hanging.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "rendezvous/handshake.hpp"
#include "rendezvous/wire.hpp"

namespace kjarni::test {

class RawConnection {
public:
    /// Connects to 127.0.0.1:`port`, retrying for up to 5 s while nothing listens there yet.
    explicit RawConnection(std::uint16_t port) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        for (;;) {
            fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in address{};
            address.sin_family = AF_INET;
            address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            address.sin_port = htons(port);
            if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) return;
            ::close(fd_);
            if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("nothing listens");
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    explicit RawConnection(int fd) : fd_(fd) {}
    ~RawConnection() { close(); }
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;

    void close() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    void send(std::span<const std::byte> bytes) {
        if (::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size())) {
            throw std::runtime_error("send failed");
        }
    }
    /// Exactly `size` bytes, or fewer when the other side closes; throws after 5 s without them.
    std::vector<std::byte> receive(std::size_t size) {
        std::vector<std::byte> out(size);
        std::size_t got = 0;
        while (got < size) {
            pollfd entry{fd_, POLLIN, 0};
            if (::poll(&entry, 1, 5000) <= 0) throw std::runtime_error("nothing received for 5 s");
            const ssize_t n = ::recv(fd_, out.data() + got, size - got, 0);
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
        }
        out.resize(got);
        return out;
    }
    /// One whole message (header and payload of up to 64 KiB); its header's kind is refusal and its
    /// payload empty when the other side closed first.
    std::pair<rendezvous::Header, std::vector<std::byte>> receive_message() {
        const auto raw = receive(rendezvous::Header::bytes);
        if (raw.size() < rendezvous::Header::bytes) return {rendezvous::Header{.kind = rendezvous::Kind::refusal}, {}};
        const auto header = rendezvous::Header::decode(std::span<const std::byte, rendezvous::Header::bytes>(raw));
        if (header.size > 65536) throw std::runtime_error("a message too large for a test");
        return {header, receive(static_cast<std::size_t>(header.size))};
    }
    /// Whether the other side has closed (reads nothing more for up to 5 s: an error).
    bool closed_by_peer() {
        std::byte byte{};
        pollfd entry{fd_, POLLIN, 0};
        if (::poll(&entry, 1, 5000) <= 0) return false;
        return ::recv(fd_, &byte, 1, 0) <= 0;
    }

    /// Runs the connecting side of a handshake (all of it, with the real implementation).
    void handshake(rendezvous::ConnectorHandshake& handshake) {
        for (;;) {
            const auto output = handshake.take_output();
            if (!output.empty()) send(output);
            if (handshake.done()) return;
            const auto bytes = receive(handshake.wanted());
            if (bytes.empty()) throw std::runtime_error("closed during the handshake");
            handshake.feed(bytes);
        }
    }

    int fd() const { return fd_; }

private:
    int fd_ = -1;
};

inline std::vector<std::byte> header_bytes(rendezvous::Kind kind, std::uint64_t nonce, std::uint64_t size) {
    const auto raw = rendezvous::Header{.kind = kind, .nonce = nonce, .size = size}.encode();
    return {raw.begin(), raw.end()};
}

/// Joins rank 0 at `port` as rank 1 of 2 with `secret` (through the whole bootstrap, and the
/// barrier of create()); returns the job's nonce.
inline std::uint64_t join_as_rank_one(RawConnection& connection, const std::string& secret) {
    rendezvous::Writer hello;
    hello.u32(1);
    hello.u32(2);
    hello.u16(9);  // rank 0 never connects to rank 1
    rendezvous::ConnectorHandshake handshake(secret, rendezvous::Purpose::join, 0, rendezvous::Kind::hello,
                                             hello.bytes(), rendezvous::fresh_challenge(), 0);
    connection.handshake(handshake);
    const auto [table, payload] = connection.receive_message();
    if (table.kind != rendezvous::Kind::table) throw std::runtime_error("no table");
    connection.send(header_bytes(rendezvous::Kind::barrier, table.nonce, 0));
    const auto [barrier, nothing] = connection.receive_message();
    if (barrier.kind != rendezvous::Kind::barrier) throw std::runtime_error("no barrier");
    return table.nonce;
}

}  // namespace kjarni::test
