#pragma once
// One run through every method of a Rendezvous, checked on every rank: the same code runs on
// LocalRendezvous threads, TcpRendezvous threads and processes, and under mpirun. The data are
// random, drawn from a seed every rank knows, so that each rank can work out what every other rank
// sends and check what it receives.

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kjarni/rendezvous.hpp"

namespace kjarni::test {

/// Bytes that rank `rank` sends in step `step` of a run seeded with `seed`.
inline std::vector<std::byte> rank_bytes(std::uint64_t seed, int rank, int step, std::size_t size) {
    std::mt19937_64 engine(seed ^ (std::uint64_t{0x9e3779b97f4a7c15} * static_cast<std::uint64_t>(rank + 1)) ^
                           (static_cast<std::uint64_t>(step) << 48));
    std::vector<std::byte> bytes(size);
    for (std::size_t i = 0; i < size; i += 8) {
        const std::uint64_t word = engine();
        for (std::size_t j = 0; j < 8 && i + j < size; ++j) bytes[i + j] = static_cast<std::byte>(word >> (8 * j));
    }
    return bytes;
}

inline void expect(bool condition, const std::string& what) {
    if (!condition) throw std::runtime_error(what);
}

/// Calls every method of `r` (every rank of the group at once) and checks every result; throws
/// std::runtime_error naming the first wrong one. `large` is the size of the exchanged messages.
inline void exercise(Rendezvous& r, std::uint64_t seed, std::size_t large) {
    const int n = r.count();
    const int me = r.rank();
    const std::string who = "rank " + std::to_string(me) + ": ";
    // Sizes differ by rank (and one rank sends nothing) so that lengths are carried, not assumed.
    auto size_of = [](int rank, int step) { return static_cast<std::size_t>((rank * 977 + step * 131) % 4000); };

    for (int root = 0; root < n; ++root) {
        const auto sent = rank_bytes(seed, root, 1, size_of(root, 1) + 1);
        const auto got =
            r.broadcast(root == me ? std::span<const std::byte>(sent) : std::span<const std::byte>(), root);
        expect(got == sent, who + "broadcast from " + std::to_string(root) + " differs");
    }

    const auto gathered = r.all_gather(rank_bytes(seed, me, 2, size_of(me, 2)));
    expect(gathered.size() == static_cast<std::size_t>(n), who + "all_gather gave the wrong number of parts");
    for (int rank = 0; rank < n; ++rank) {
        expect(gathered[static_cast<std::size_t>(rank)] == rank_bytes(seed, rank, 2, size_of(rank, 2)),
               who + "all_gather's part of rank " + std::to_string(rank) + " differs");
    }

    r.barrier();

    // Every ordered pair, one pair at a time in the same order everywhere: blocking send and recv.
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            if (a == b) continue;
            const int step = 100 + a * n + b;
            if (me == a) r.send(b, rank_bytes(seed, a, step, size_of(a, step) + 8));
            if (me == b) {
                std::vector<std::byte> got(size_of(a, step) + 8);
                r.recv(a, got);
                expect(got == rank_bytes(seed, a, step, got.size()),
                       who + "recv from " + std::to_string(a) + " differs");
            }
        }
    }

    // A ring of large messages in both directions at once: exchange must not deadlock.
    const int next = (me + 1) % n;
    const int previous = (me + n - 1) % n;
    const auto outgoing = rank_bytes(seed, me, 3, large);
    std::vector<std::byte> incoming(large);
    r.exchange(next, outgoing, previous, incoming);
    expect(incoming == rank_bytes(seed, previous, 3, large),
           who + "exchange from " + std::to_string(previous) + " differs");
    r.exchange(previous, outgoing, next, incoming);
    expect(incoming == rank_bytes(seed, next, 3, large), who + "exchange from " + std::to_string(next) + " differs");

    // Messages to oneself.
    const auto mine = rank_bytes(seed, me, 4, 100);
    r.send(me, mine);
    std::vector<std::byte> back(mine.size());
    r.recv(me, back);
    expect(back == mine, who + "a message to itself differs");
    std::fill(back.begin(), back.end(), std::byte{0});
    r.exchange(me, mine, me, back);
    expect(back == mine, who + "an exchange with itself differs");

    r.barrier();
}

}  // namespace kjarni::test
