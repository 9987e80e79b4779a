// The bootstrap of a TcpRendezvous: every rank joins rank 0, which hands out a table of endpoints
// and the job's nonce; then each rank connects to every lower rank (but 0, already connected) and
// admits every higher one. Connecting first and admitting second cannot deadlock: a connection
// completes in the listener's backlog before anyone accepts it, and the handshake is small enough
// to wait in the socket's buffer.

#include <poll.h>
#include <sys/socket.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>

#include "kjarni/error.hpp"
#include "rendezvous/tcp_state.hpp"
#include "rendezvous/transfer.hpp"
#include "rendezvous/wire.hpp"

namespace kjarni::rendezvous {

namespace {

constexpr std::size_t hello_bytes = 10;  // rank u32, count u32, listening port u16
constexpr std::size_t mesh_bytes = 8;    // from u32, to u32
constexpr std::size_t endpoint_bytes = 20;
constexpr std::uint32_t refusal_argument = 1;
constexpr std::uint32_t refusal_peer = 2;

// A connection accepted but not yet known: its handshake is read as it comes.
struct Candidate {
    Socket socket;
    std::array<std::byte, Header::bytes> header{};
    std::vector<std::byte> payload;
    std::size_t got = 0;
};

enum class Verdict { drop, wait, done };

// Accepts connections on `listener` until `on_handshake` says done (true) or `deadline` (false).
// A connection whose header is no rendezvous' of `kind`, whose payload is not `payload_bytes` long,
// or that closes or says nothing, is dropped: such is a stray, not a rank.
bool admit(const Socket& listener, Kind kind, std::size_t payload_bytes, Clock::time_point deadline,
           const std::function<Verdict(Socket&, const Header&, std::span<const std::byte>)>& on_handshake) {
    std::vector<Candidate> candidates;
    for (;;) {
        std::vector<pollfd> polls{{listener.fd(), POLLIN, 0}};
        for (const auto& candidate : candidates) polls.push_back({candidate.socket.fd(), POLLIN, 0});
        const int ready = ::poll(polls.data(), polls.size(), poll_milliseconds(deadline));
        if (ready == 0 && Clock::now() >= deadline) return false;
        if (ready <= 0) continue;
        // Read what the known candidates sent (before the new ones join the list).
        for (std::size_t i = candidates.size(); i-- > 0;) {
            if (polls[i + 1].revents == 0) continue;
            Candidate& candidate = candidates[i];
            const std::size_t total = Header::bytes + payload_bytes;
            bool keep = true;
            try {
                while (keep && candidate.got < total) {
                    std::span<std::byte> into =
                        candidate.got < Header::bytes
                            ? std::span(candidate.header).subspan(candidate.got)
                            : std::span(candidate.payload).subspan(candidate.got - Header::bytes);
                    const std::size_t got = receive_step(candidate.socket, into, -1);
                    if (got == 0) break;
                    candidate.got += got;
                    if (candidate.got == Header::bytes) {
                        const Header header = Header::decode(candidate.header);
                        keep = header.magic == wire_magic && header.version == wire_version && header.kind == kind &&
                               header.size == payload_bytes;
                        candidate.payload.resize(payload_bytes);
                    }
                }
            } catch (const PeerError&) {
                keep = false;  // closed before saying who it is
            }
            if (keep && candidate.got == total) {
                Socket socket = std::move(candidate.socket);
                const Header header = Header::decode(candidate.header);
                std::vector<std::byte> payload = std::move(candidate.payload);
                candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(i));
                const Verdict verdict = on_handshake(socket, header, payload);
                if (verdict == Verdict::done) return true;
                continue;
            }
            if (!keep) candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(i));
        }
        if (polls[0].revents != 0) {
            for (;;) {
                Socket accepted(::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC));
                if (!accepted) break;
                configure(accepted);
                candidates.push_back(Candidate{std::move(accepted), {}, {}, 0});
            }
        }
    }
}

std::uint64_t fresh_nonce() {
    std::random_device device;
    std::uint64_t nonce = 0;
    while (nonce == 0) {
        nonce = (static_cast<std::uint64_t>(device()) << 32) ^ device() ^
                static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
    }
    return nonce;
}

std::vector<std::byte> refusal(std::uint32_t code, int peer, const std::string& argument, const std::string& reason) {
    Writer writer;
    writer.u32(code);
    writer.u32(static_cast<std::uint32_t>(peer));
    writer.text(argument);
    writer.text(reason);
    return std::move(writer.bytes());
}

// Tells every socket given why the job cannot start; best effort, briefly (they may be gone).
void refuse(std::vector<const Socket*> sockets, const std::vector<std::byte>& why) {
    std::vector<Outgoing> outgoing;
    for (const Socket* socket : sockets) {
        outgoing.emplace_back(*socket, -1, Header{.kind = Kind::refusal, .size = why.size()}, why);
    }
    for (auto& out : outgoing) {
        try {
            transfer(std::span(&out, 1), {}, std::chrono::milliseconds(500));
        } catch (const Error&) {
        }
    }
}

[[noreturn]] void throw_refusal(std::span<const std::byte> payload) {
    Reader reader(payload);
    const std::uint32_t code = reader.u32();
    const int peer = static_cast<int>(reader.u32());
    const std::string argument = reader.text();
    const std::string reason = reader.text();
    if (!reader.ok()) throw PeerError(0, "refused this rank with a message that does not parse");
    if (code == refusal_argument) throw ArgumentError(argument, fmt::format("rank 0 refused the job: {}", reason));
    throw PeerError(peer, fmt::format("rank 0 could not start the job: {}", reason));
}

}  // namespace

void bootstrap_root(TcpRendezvous::State& state, const std::string& address, std::uint16_t port) {
    const Socket listener = listen_at(resolve_family(address), port);
    const auto deadline = Clock::now() + state.timeout;
    std::vector<Socket> joined(static_cast<std::size_t>(state.count));
    std::vector<Endpoint> endpoints(static_cast<std::size_t>(state.count));
    int missing = state.count - 1;

    auto fail = [&](Socket* offender, const std::string& argument, const std::string& reason) {
        std::vector<const Socket*> sockets;
        for (const auto& socket : joined) {
            if (socket) sockets.push_back(&socket);
        }
        if (offender != nullptr) sockets.push_back(offender);
        refuse(sockets, refusal(refusal_argument, -1, argument, reason));
        throw ArgumentError(argument, reason);
    };
    const bool complete = missing == 0 ||
        admit(listener, Kind::hello, hello_bytes, deadline, [&](Socket& socket, const Header&, auto payload) {
            Reader reader(payload);
            const int rank = static_cast<int>(reader.u32());
            const int count = static_cast<int>(reader.u32());
            const std::uint16_t listening = reader.u16();
            const Endpoint seen = peer_endpoint(socket);
            if (count != state.count) {
                fail(&socket, "count",
                     fmt::format("the process at {} joined as rank {} of {}, but rank 0 has a count of {}",
                                 seen.to_string(), rank, count, state.count));
            }
            if (rank < 1 || rank >= state.count) {
                fail(&socket, "rank",
                     fmt::format("the process at {} joined as rank {}, outside 1..{}", seen.to_string(), rank,
                                 state.count - 1));
            }
            auto& slot = joined[static_cast<std::size_t>(rank)];
            if (slot) {
                fail(&socket, "rank",
                     fmt::format("rank {} is claimed by two processes: at {} and at {}", rank,
                                 peer_endpoint(slot).to_string(), seen.to_string()));
            }
            slot = std::move(socket);
            endpoints[static_cast<std::size_t>(rank)] = seen;
            endpoints[static_cast<std::size_t>(rank)].port = listening;
            return --missing == 0 ? Verdict::done : Verdict::wait;
        });
    if (!complete) {
        std::vector<int> absent;
        for (int r = 1; r < state.count; ++r) {
            if (!joined[static_cast<std::size_t>(r)]) absent.push_back(r);
        }
        const std::string reason = fmt::format("did not join within {} ms (ranks {} are missing)",
                                               state.timeout.count(), fmt::join(absent, ", "));
        std::vector<const Socket*> sockets;
        for (const auto& socket : joined) {
            if (socket) sockets.push_back(&socket);
        }
        refuse(sockets, refusal(refusal_peer, absent.front(), "", fmt::format("rank {} {}", absent.front(), reason)));
        throw PeerError(absent.front(), reason);
    }

    state.nonce = fresh_nonce();
    Writer table;
    for (const Endpoint& endpoint : endpoints) {
        table.u16(endpoint.family);
        table.u16(endpoint.port);
        table.raw(std::span<const std::byte>(endpoint.address, 16));
    }
    std::vector<Outgoing> outgoing;
    for (int r = 1; r < state.count; ++r) {
        outgoing.emplace_back(joined[static_cast<std::size_t>(r)], r,
                              Header{.kind = Kind::table, .nonce = state.nonce, .size = table.bytes().size()},
                              table.bytes());
    }
    try {
        transfer(outgoing, {}, state.timeout);
    } catch (const PeerError& error) {
        // A rank that joined and left: the others learn which, rather than that rank 0 left.
        std::vector<const Socket*> sockets;
        for (int r = 1; r < state.count; ++r) {
            if (r != error.peer()) sockets.push_back(&joined[static_cast<std::size_t>(r)]);
        }
        refuse(sockets, refusal(refusal_peer, error.peer(), "", fmt::format("rank {} left while the job started",
                                                                             error.peer())));
        throw;
    }
    state.peers = std::move(joined);
}

void bootstrap_rank(TcpRendezvous::State& state, const std::string& address, std::uint16_t port) {
    const int family = resolve_family(address);
    const Socket listener = listen_at(family, 0);
    std::vector<Socket> peers(static_cast<std::size_t>(state.count));
    Socket& root = peers[0];
    root = connect_until(address, port, 0, Clock::now() + state.timeout);

    Writer hello;
    hello.u32(static_cast<std::uint32_t>(state.rank));
    hello.u32(static_cast<std::uint32_t>(state.count));
    hello.u16(local_port(listener));
    Outgoing say_hello(root, 0, Header{.kind = Kind::hello, .size = hello.bytes().size()}, hello.bytes());
    // Rank 0 answers once every rank has joined, or refuses the job at its own deadline, which
    // this rank (having joined after rank 0 started listening) should see before its own.
    std::vector<std::byte> answer;
    Incoming get_answer = Incoming::any(root, 0, answer);
    transfer(std::span(&say_hello, 1), {}, state.timeout);
    transfer({}, std::span(&get_answer, 1), state.timeout + state.timeout / 4 + std::chrono::milliseconds(200));
    if (get_answer.header.kind == Kind::refusal) throw_refusal(answer);
    if (get_answer.header.kind != Kind::table || answer.size() != endpoint_bytes * static_cast<std::size_t>(state.count)) {
        throw PeerError(0, fmt::format("answered the join with a {} message of {} bytes instead of the table",
                                       kind_name(get_answer.header.kind), answer.size()));
    }
    state.nonce = get_answer.header.nonce;
    std::vector<Endpoint> endpoints;
    Reader reader(answer);
    for (int r = 0; r < state.count; ++r) {
        Endpoint endpoint;
        endpoint.family = reader.u16();
        endpoint.port = reader.u16();
        auto address_bytes = reader.raw(16);
        std::copy(address_bytes.begin(), address_bytes.end(), endpoint.address);
        endpoints.push_back(endpoint);
    }

    const auto deadline = Clock::now() + state.timeout;
    for (int r = 1; r < state.rank; ++r) {
        Socket& socket = peers[static_cast<std::size_t>(r)];
        socket = connect_until(endpoints[static_cast<std::size_t>(r)], r, deadline);
        Writer mesh;
        mesh.u32(static_cast<std::uint32_t>(state.rank));
        mesh.u32(static_cast<std::uint32_t>(r));
        Outgoing out(socket, r, Header{.kind = Kind::mesh, .nonce = state.nonce, .size = mesh.bytes().size()},
                     mesh.bytes());
        transfer(std::span(&out, 1), {}, state.timeout);
    }
    int missing = state.count - 1 - state.rank;
    const bool complete =
        missing == 0 ||
        admit(listener, Kind::mesh, mesh_bytes, deadline, [&](Socket& socket, const Header& header, auto payload) {
            Reader mesh(payload);
            const int from = static_cast<int>(mesh.u32());
            const int to = static_cast<int>(mesh.u32());
            // Another job's rank, or a rank that is not ours to admit: a stray.
            if (header.nonce != state.nonce || to != state.rank || from <= state.rank || from >= state.count ||
                peers[static_cast<std::size_t>(from)]) {
                return Verdict::wait;
            }
            peers[static_cast<std::size_t>(from)] = std::move(socket);
            return --missing == 0 ? Verdict::done : Verdict::wait;
        });
    if (!complete) {
        for (int r = state.rank + 1; r < state.count; ++r) {
            if (!peers[static_cast<std::size_t>(r)]) {
                throw PeerError(r, fmt::format("did not connect to rank {} within {} ms", state.rank,
                                               state.timeout.count()));
            }
        }
    }
    state.peers = std::move(peers);
}

}  // namespace kjarni::rendezvous
