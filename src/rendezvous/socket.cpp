#include "rendezvous/socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <thread>

#include "kjarni/error.hpp"
#include "kjarni/rendezvous.hpp"

namespace kjarni::rendezvous {

namespace {

std::string error_text(int error) { return std::strerror(error); }

struct AddressList {
    addrinfo* head = nullptr;
    ~AddressList() {
        if (head != nullptr) freeaddrinfo(head);
    }
};

void resolve(const std::string& address, std::uint16_t port, AddressList& out) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    const std::string service = std::to_string(port);
    const int status = getaddrinfo(address.c_str(), service.c_str(), &hints, &out.head);
    if (status != 0 || out.head == nullptr) {
        throw ArgumentError("address", fmt::format("'{}' does not resolve: {}", address, gai_strerror(status)));
    }
}

void set_nonblocking(int fd) {
    const int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        throw Error(fmt::format("rendezvous: fcntl(O_NONBLOCK) failed: {}", error_text(errno)));
    }
}

// One non-blocking connect attempt to `address`, waited for until `deadline`; returns the error
// (0 on success).
int try_connect(Socket& out, const sockaddr* address, socklen_t length, Clock::time_point deadline) {
    Socket socket(::socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!socket) return errno;
    set_nonblocking(socket.fd());
    if (::connect(socket.fd(), address, length) != 0) {
        if (errno != EINPROGRESS) return errno;
        if (!wait_for(socket, POLLOUT, deadline)) return ETIMEDOUT;
        int error = 0;
        socklen_t size = sizeof(error);
        if (getsockopt(socket.fd(), SOL_SOCKET, SO_ERROR, &error, &size) != 0) return errno;
        if (error != 0) return error;
    }
    configure(socket);
    out = std::move(socket);
    return 0;
}

[[noreturn]] void throw_closed(int peer, int error) {
    if (error == 0) throw PeerError(peer, "closed its connection (the process exited or failed)");
    throw PeerError(peer, fmt::format("connection lost: {}", error_text(error)));
}

}  // namespace

Socket& Socket::operator=(Socket&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.release();
    }
    return *this;
}

Socket::~Socket() {
    if (fd_ >= 0) ::close(fd_);
}

Endpoint Endpoint::from(const sockaddr_storage& address) {
    Endpoint endpoint;
    endpoint.family = address.ss_family;
    if (address.ss_family == AF_INET) {
        const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
        endpoint.port = ntohs(v4.sin_port);
        std::memcpy(endpoint.address, &v4.sin_addr, 4);
    } else {
        const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
        endpoint.port = ntohs(v6.sin6_port);
        std::memcpy(endpoint.address, &v6.sin6_addr, 16);
    }
    return endpoint;
}

socklen_t Endpoint::to(sockaddr_storage& out) const {
    out = {};
    if (family == AF_INET) {
        auto& v4 = reinterpret_cast<sockaddr_in&>(out);
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        std::memcpy(&v4.sin_addr, address, 4);
        return sizeof(sockaddr_in);
    }
    auto& v6 = reinterpret_cast<sockaddr_in6&>(out);
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    std::memcpy(&v6.sin6_addr, address, 16);
    return sizeof(sockaddr_in6);
}

std::string Endpoint::to_string() const {
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(family == AF_INET ? AF_INET : AF_INET6, address, text, sizeof(text));
    return family == AF_INET ? fmt::format("{}:{}", text, port) : fmt::format("[{}]:{}", text, port);
}

int resolve_family(const std::string& address) {
    AddressList list;
    resolve(address, 0, list);
    return list.head->ai_family;
}

namespace {

// Binds and listens; the errno of the failing call, 0 on success.
int bind_and_listen(const Socket& socket, const sockaddr* address, socklen_t length) {
    // A rendezvous run again at once must not wait for the last run's connections in TIME_WAIT.
    const int one = 1;
    setsockopt(socket.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(socket.fd(), address, length) != 0 || ::listen(socket.fd(), SOMAXCONN) != 0) return errno;
    set_nonblocking(socket.fd());
    return 0;
}

Socket new_socket(int family) {
    Socket socket(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!socket) throw Error(fmt::format("rendezvous: socket() failed: {}", error_text(errno)));
    return socket;
}

[[noreturn]] void throw_cannot_listen(const std::string& where, std::uint16_t port, int error) {
    if (error == EADDRNOTAVAIL) {
        throw ArgumentError("address", fmt::format("{} is no address of this host, so rank 0 cannot listen there "
                                                   "(behind a NAT or a container's port mapping, set "
                                                   "KJARNI_LISTEN_ADDR to this host's address, or to 'any' for "
                                                   "every interface)",
                                                   where));
    }
    throw ArgumentError("port", fmt::format("cannot listen at {} port {}: {}", where, port, error_text(error)));
}

bool loopback(const sockaddr* address) {
    if (address->sa_family == AF_INET) {
        const auto& v4 = *reinterpret_cast<const sockaddr_in*>(address);
        return (ntohl(v4.sin_addr.s_addr) >> 24) == 127;
    }
    if (address->sa_family == AF_INET6) {
        const auto& v6 = *reinterpret_cast<const sockaddr_in6*>(address);
        if (IN6_IS_ADDR_LOOPBACK(&v6.sin6_addr)) return true;
        return IN6_IS_ADDR_V4MAPPED(&v6.sin6_addr) && v6.sin6_addr.s6_addr[12] == 127;
    }
    return false;
}

}  // namespace

bool is_loopback(const std::string& address) {
    AddressList list;
    resolve(address, 0, list);
    for (const addrinfo* entry = list.head; entry != nullptr; entry = entry->ai_next) {
        if (!loopback(entry->ai_addr)) return false;
    }
    return true;
}

Socket listen_at(const std::string& address, std::uint16_t port) {
    AddressList list;
    resolve(address, port, list);
    int error = 0;
    for (const addrinfo* entry = list.head; entry != nullptr; entry = entry->ai_next) {
        Socket socket = new_socket(entry->ai_family);
        error = bind_and_listen(socket, entry->ai_addr, entry->ai_addrlen);
        if (error == 0) return socket;
        if (error != EADDRNOTAVAIL) break;  // the address is ours, the port is not to be had
    }
    throw_cannot_listen(fmt::format("'{}'", address), port, error);
}

Socket listen_at(const Endpoint& endpoint, std::uint16_t port) {
    Endpoint at = endpoint;
    at.port = port;
    sockaddr_storage address{};
    const socklen_t length = at.to(address);
    Socket socket = new_socket(address.ss_family);
    if (const int error = bind_and_listen(socket, reinterpret_cast<const sockaddr*>(&address), length)) {
        throw_cannot_listen(at.to_string(), port, error);
    }
    return socket;
}

Socket listen_everywhere(int family, std::uint16_t port) {
    Socket socket = new_socket(family);
    sockaddr_storage address{};
    socklen_t length = 0;
    if (family == AF_INET6) {
        const int zero = 0;  // both families where the host allows it
        setsockopt(socket.fd(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
        auto& v6 = reinterpret_cast<sockaddr_in6&>(address);
        v6.sin6_family = AF_INET6;
        v6.sin6_addr = in6addr_any;
        v6.sin6_port = htons(port);
        length = sizeof(v6);
    } else {
        auto& v4 = reinterpret_cast<sockaddr_in&>(address);
        v4.sin_family = AF_INET;
        v4.sin_addr.s_addr = htonl(INADDR_ANY);
        v4.sin_port = htons(port);
        length = sizeof(v4);
    }
    if (const int error = bind_and_listen(socket, reinterpret_cast<const sockaddr*>(&address), length)) {
        throw_cannot_listen("every interface", port, error);
    }
    return socket;
}

std::uint16_t local_port(const Socket& socket) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        throw Error(fmt::format("rendezvous: getsockname failed: {}", error_text(errno)));
    }
    return Endpoint::from(address).port;
}

Endpoint peer_endpoint(const Socket& socket) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (getpeername(socket.fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        throw Error(fmt::format("rendezvous: getpeername failed: {}", error_text(errno)));
    }
    return Endpoint::from(address);
}

Endpoint local_endpoint(const Socket& socket) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        throw Error(fmt::format("rendezvous: getsockname failed: {}", error_text(errno)));
    }
    return Endpoint::from(address);
}

Socket connect_until(const std::string& address, std::uint16_t port, int peer, Clock::time_point deadline) {
    AddressList list;
    resolve(address, port, list);
    int last_error = 0;
    for (;;) {
        for (const addrinfo* entry = list.head; entry != nullptr; entry = entry->ai_next) {
            Socket socket;
            last_error = try_connect(socket, entry->ai_addr, entry->ai_addrlen, deadline);
            if (last_error == 0) return socket;
        }
        if (Clock::now() >= deadline) break;
        // Nothing listens there yet (the peer has not started): try again shortly.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw PeerError(peer, fmt::format("could not connect to {}:{} in time: {}", address, port, error_text(last_error)));
}

Socket connect_until(const Endpoint& endpoint, int peer, Clock::time_point deadline) {
    sockaddr_storage address{};
    const socklen_t length = endpoint.to(address);
    int last_error = 0;
    for (;;) {
        Socket socket;
        last_error = try_connect(socket, reinterpret_cast<const sockaddr*>(&address), length, deadline);
        if (last_error == 0) return socket;
        if (Clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw PeerError(peer,
                    fmt::format("could not connect to {} in time: {}", endpoint.to_string(), error_text(last_error)));
}

void configure(const Socket& socket) {
    set_nonblocking(socket.fd());
    // Small messages (headers, barriers) go out at once instead of waiting for more to send.
    const int one = 1;
    setsockopt(socket.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

std::size_t send_step(const Socket& socket, std::span<const std::byte> first, std::span<const std::byte> second,
                      int peer) {
    iovec parts[2] = {{const_cast<std::byte*>(first.data()), first.size()},
                      {const_cast<std::byte*>(second.data()), second.size()}};
    msghdr message{};
    message.msg_iov = first.empty() ? parts + 1 : parts;
    message.msg_iovlen = first.empty() ? 1 : (second.empty() ? 1 : 2);
    for (;;) {
        const ssize_t sent = ::sendmsg(socket.fd(), &message, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent >= 0) return static_cast<std::size_t>(sent);
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        throw_closed(peer, errno);
    }
}

std::size_t receive_step(const Socket& socket, std::span<std::byte> into, int peer) {
    for (;;) {
        const ssize_t got = ::recv(socket.fd(), into.data(), into.size(), MSG_DONTWAIT);
        if (got > 0) return static_cast<std::size_t>(got);
        if (got == 0) throw_closed(peer, 0);
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        throw_closed(peer, errno);
    }
}

int poll_milliseconds(Clock::time_point deadline) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return 0;
    return left > INT_MAX ? INT_MAX : static_cast<int>(left);
}

bool wait_for(const Socket& socket, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd entry{socket.fd(), events, 0};
        const int ready = ::poll(&entry, 1, poll_milliseconds(deadline));
        if (ready > 0) return true;
        if (ready == 0) return false;
        if (errno != EINTR) throw Error(fmt::format("rendezvous: poll failed: {}", error_text(errno)));
    }
}

}  // namespace kjarni::rendezvous
