#pragma once
// The POSIX socket calls the TCP rendezvous needs, with every wait bounded: an owned descriptor,
// address resolution, listening, connecting with retries, and the non-blocking send and receive
// steps that the transfer engine (transfer.hpp) drives with poll.

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace kjarni::rendezvous {

using Clock = std::chrono::steady_clock;

/// A socket descriptor, closed when this goes.
class Socket {
public:
    Socket() = default;
    explicit Socket(int fd) noexcept : fd_(fd) {}
    Socket(Socket&& other) noexcept : fd_(other.release()) {}
    Socket& operator=(Socket&& other) noexcept;
    ~Socket();
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;

    int fd() const noexcept { return fd_; }
    explicit operator bool() const noexcept { return fd_ >= 0; }
    int release() noexcept {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_ = -1;
};

/// An IPv4 or IPv6 address with its port, as the wire carries it.
struct Endpoint {
    std::uint16_t family = 0;  // AF_INET / AF_INET6
    std::uint16_t port = 0;
    std::byte address[16]{};  // the first 4 bytes for IPv4, network order

    static Endpoint from(const sockaddr_storage& address);
    /// Fills `out`; returns its length.
    socklen_t to(sockaddr_storage& out) const;
    std::string to_string() const;
};

/// The address family `address` resolves to first (AF_INET / AF_INET6); ArgumentError naming
/// `address` when it does not resolve.
int resolve_family(const std::string& address);

/// Whether every address `address` resolves to is a loopback one (127.0.0.0/8, ::1, or an IPv4
/// loopback mapped into IPv6); ArgumentError naming `address` when it does not resolve.
bool is_loopback(const std::string& address);

/// A non-blocking socket listening at `port` (0: any free port) on the interface of `address`: the
/// first of its addresses this host can bind. Throws ArgumentError naming `address` when none is
/// an address of this host, `port` when the port cannot be had (in use, not allowed).
Socket listen_at(const std::string& address, std::uint16_t port);
/// The same on every interface of `family` (AF_INET; AF_INET6 takes IPv4 too where the host allows).
Socket listen_everywhere(int family, std::uint16_t port);
/// The same at `endpoint`'s address (its port ignored).
Socket listen_at(const Endpoint& endpoint, std::uint16_t port);
/// The port a listening socket was given.
std::uint16_t local_port(const Socket& socket);
/// The address the other side of a connected socket has.
Endpoint peer_endpoint(const Socket& socket);
/// The address this side of a connected socket has (the interface it leaves by).
Endpoint local_endpoint(const Socket& socket);

/// Connects to `address:port`, retrying while nothing listens there yet, until `deadline`. The
/// socket is non-blocking with TCP_NODELAY. PeerError naming `peer` when the deadline passes;
/// ArgumentError naming `address` when it does not resolve.
Socket connect_until(const std::string& address, std::uint16_t port, int peer, Clock::time_point deadline);
Socket connect_until(const Endpoint& endpoint, int peer, Clock::time_point deadline);

/// Makes an accepted socket non-blocking with TCP_NODELAY.
void configure(const Socket& socket);

/// One non-blocking step: bytes moved (0 when the socket would block). The peer having closed the
/// connection or reset it throws PeerError naming `peer`.
std::size_t send_step(const Socket& socket, std::span<const std::byte> first, std::span<const std::byte> second,
                      int peer);
std::size_t receive_step(const Socket& socket, std::span<std::byte> into, int peer);

/// Waits until `socket` is readable (or writable) or `deadline`; false on the deadline.
bool wait_for(const Socket& socket, short events, Clock::time_point deadline);
/// Milliseconds from now to `deadline` for poll (0 when it has passed, at most INT_MAX).
int poll_milliseconds(Clock::time_point deadline);

}  // namespace kjarni::rendezvous
