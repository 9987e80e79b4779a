#pragma once
// Test helpers: running one function per rank on threads, and finding a free TCP port.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kjarni/error.hpp"
#include "kjarni/rendezvous.hpp"

namespace kjarni::test {

/// Runs `body(rank)` for every rank on its own thread; returns each rank's exception (or null).
inline std::vector<std::exception_ptr> on_rank_threads(int count, const std::function<void(int)>& body) {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(count));
    std::vector<std::thread> threads;
    for (int rank = 0; rank < count; ++rank) {
        threads.emplace_back([&, rank] {
            try {
                body(rank);
            } catch (...) {
                errors[static_cast<std::size_t>(rank)] = std::current_exception();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    return errors;
}

/// What a rank's call threw, as "ok", "PeerError <peer>", "ArgumentError <argument>" or "other: <what>".
inline std::string outcome(const std::exception_ptr& error) {
    if (!error) return "ok";
    try {
        std::rethrow_exception(error);
    } catch (const PeerError& e) {
        return "PeerError " + std::to_string(e.peer());
    } catch (const ArgumentError& e) {
        return "ArgumentError " + e.argument();
    } catch (const std::exception& e) {
        return std::string("other: ") + e.what();
    }
}

/// Rethrows the first rank's exception, if any.
inline void rethrow_any(const std::vector<std::exception_ptr>& errors) {
    for (const auto& error : errors) {
        if (error) std::rethrow_exception(error);
    }
}

/// A port that was free a moment ago on the loopback interface.
inline std::uint16_t free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        throw std::runtime_error("no free port");
    }
    ::close(fd);
    return ntohs(address.sin_port);
}

}  // namespace kjarni::test
