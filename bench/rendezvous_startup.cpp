// How long a job of N processes on one host takes to start through TcpRendezvous, with and without
// the job's secret: the difference is what the authentication handshake adds at job start (every
// connection of the full mesh runs an HMAC-SHA256 challenge-response). Plain processes (fork), no
// Google Benchmark: each repetition starts N fresh processes, as a launcher would.
//
//   kjarni_bench_rendezvous_startup [ranks=8] [repetitions=31]
//
// For each repetition, with and without a secret interleaved: the parent takes a time T, forks N
// ranks, each calls TcpRendezvous::create on a fresh loopback port and reports (its return - T)
// through a pipe; the job's start is the latest rank's. Printed: medians and quartiles of both, and
// the median of the paired differences (the handshake's added time).
#include <fmt/core.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kjarni/rendezvous.hpp"

namespace {

using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC: one clock for every process of the host

// A port nobody listens at now (the kernel's choice for port 0), so that a repetition never meets
// the previous one's sockets in TIME_WAIT.
std::uint16_t free_loopback_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        fmt::print(stderr, "cannot find a free loopback port\n");
        std::exit(1);
    }
    ::close(fd);
    return ntohs(address.sin_port);
}

// Starts `ranks` processes that join one job; returns the microseconds from before the first fork
// until the last rank's create() returned, or a negative value when a rank failed.
double start_job(int ranks, bool with_secret) {
    const std::uint16_t port = free_loopback_port();
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return -1;
    const Clock::time_point start = Clock::now();
    for (int rank = 0; rank < ranks; ++rank) {
        const pid_t pid = ::fork();
        if (pid < 0) return -1;
        if (pid == 0) {
            ::close(pipe_fds[0]);
            double elapsed_us = -1;
            try {
                kjarni::TcpRendezvousOptions options;
                options.timeout = std::chrono::seconds(20);
                options.secret = with_secret ? std::string(64, 'k') : std::string();
                const auto job = kjarni::TcpRendezvous::create("127.0.0.1", port, rank, ranks, options);
                elapsed_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
                job->barrier();  // nobody leaves (closing sockets) before every rank has joined
            } catch (const std::exception& error) {
                fmt::print(stderr, "rank {}: {}\n", rank, error.what());
            }
            const ssize_t written = ::write(pipe_fds[1], &elapsed_us, sizeof elapsed_us);
            ::_exit(written == sizeof elapsed_us && elapsed_us >= 0 ? 0 : 1);
        }
    }
    ::close(pipe_fds[1]);
    double latest = 0;
    bool failed = false;
    for (int rank = 0; rank < ranks; ++rank) {
        double elapsed_us = -1;
        if (::read(pipe_fds[0], &elapsed_us, sizeof elapsed_us) != sizeof elapsed_us || elapsed_us < 0) failed = true;
        latest = std::max(latest, elapsed_us);
    }
    ::close(pipe_fds[0]);
    for (int rank = 0; rank < ranks; ++rank) {
        int status = 0;
        ::wait(&status);
        failed = failed || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    return failed ? -1 : latest;
}

double quantile(std::vector<double> values, double q) {
    std::sort(values.begin(), values.end());
    return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 8;
    const int repetitions = argc > 2 ? std::atoi(argv[2]) : 31;
    if (ranks < 1 || repetitions < 1) {
        fmt::print(stderr, "usage: {} [ranks >= 1] [repetitions >= 1]\n", argv[0]);
        return 2;
    }
    start_job(ranks, true);  // warm-up: libcrypto and the page cache
    std::vector<double> plain, secret, added;
    for (int repetition = 0; repetition < repetitions; ++repetition) {
        // Alternate which goes first, so that neither always follows the other.
        const bool secret_first = repetition % 2 == 0;
        const double first = start_job(ranks, secret_first);
        const double second = start_job(ranks, !secret_first);
        if (first < 0 || second < 0) {
            fmt::print(stderr, "a job failed to start (repetition {})\n", repetition);
            return 1;
        }
        secret.push_back(secret_first ? first : second);
        plain.push_back(secret_first ? second : first);
        added.push_back(secret.back() - plain.back());
    }
    fmt::print("TcpRendezvous start of {} processes on one host, {} interleaved repetitions (us, from the "
               "first fork to the last rank's return):\n",
               ranks, repetitions);
    fmt::print("  without secret: median {:8.0f}  quartiles {:8.0f} {:8.0f}\n", quantile(plain, 0.5),
               quantile(plain, 0.25), quantile(plain, 0.75));
    fmt::print("  with secret:    median {:8.0f}  quartiles {:8.0f} {:8.0f}\n", quantile(secret, 0.5),
               quantile(secret, 0.25), quantile(secret, 0.75));
    fmt::print("  handshake added (median of paired differences): {:.0f} us = {:.2f} ms\n", quantile(added, 0.5),
               quantile(added, 0.5) / 1000.0);
    return 0;
}
