// The bootstrap of a TcpRendezvous: every rank joins rank 0, which hands out a table of endpoints
// and the job's nonce; then each rank connects to every lower rank (but 0, already connected) and
// admits every higher one. Every connection opens with the handshake of handshake.hpp, in which
// both sides prove that they know the job's secret; what fails it is dropped as a stray.
//
// A rank connects to the lower ranks (their listeners take a connection before anyone accepts it),
// greets them, and then progresses those handshakes and the admission of the higher ranks in one
// poll loop: no rank waits for another to finish its own handshakes first. The admitting side
// reads its candidates' handshakes as they come, all at once, so a silent or slow connection delays
// no one; the candidates waiting at once are bounded (the oldest goes first), and so is all a
// candidate can make this side allocate: each handshake message has a fixed size, checked from its
// header.

#include <poll.h>
#include <sys/socket.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>

#include "kjarni/error.hpp"
#include "rendezvous/handshake.hpp"
#include "rendezvous/tcp_state.hpp"
#include "rendezvous/transfer.hpp"
#include "rendezvous/wire.hpp"

namespace kjarni::rendezvous {

namespace {

constexpr std::size_t hello_bytes = 10;  // rank u32, count u32, listening port u16
constexpr std::size_t mesh_bytes = 8;    // from u32, to u32
constexpr std::size_t endpoint_bytes = 20;
// Connections in their handshake at once; past this the oldest is dropped. A rank's handshake takes
// a round trip, so strays flooding the port push out only one another.
constexpr std::size_t max_candidates = 256;

// A connection accepted but not yet known: its handshake, progressed as its bytes come.
struct Candidate {
    Socket socket;
    AcceptorHandshake handshake;
};

enum class Verdict { wait, done };

// What admit needs to know of the handshakes it runs.
struct Admission {
    const std::string& secret;
    Purpose purpose;
    std::uint64_t job_nonce;
    Kind body_kind;
    std::size_t body_bytes;
};

// Sends `bytes` at once or not at all: a handshake's few bytes fit any fresh socket's buffer, so a
// connection that does not take them is no rank's.
bool send_now(const Socket& socket, std::span<const std::byte> bytes) {
    try {
        return send_step(socket, bytes, {}, -1) == bytes.size();
    } catch (const PeerError&) {
        return false;
    }
}

// Progresses a candidate with what it sent; true when it should stay (waiting or done).
bool progress(Candidate& candidate, std::string& rejection) {
    try {
        for (std::size_t wanted; (wanted = candidate.handshake.wanted()) > 0;) {
            std::byte buffer[256];
            const std::size_t got =
                receive_step(candidate.socket, std::span(buffer, std::min(wanted, sizeof buffer)), -1);
            if (got == 0) break;
            candidate.handshake.feed(std::span(buffer, got));
            const auto output = candidate.handshake.take_output();
            if (!output.empty() && !send_now(candidate.socket, output)) return false;
        }
        return true;
    } catch (const Error& error) {
        if (candidate.handshake.refused_proof()) {
            // Perhaps a rank given another secret: it learns why at once instead of timing out.
            std::string from = "a process";
            try {
                from = peer_endpoint(candidate.socket).to_string();
            } catch (const Error&) {
            }
            const std::string reason =
                fmt::format("the proof of the job's secret from {} is wrong: the ranks were not given the same secret",
                            from);
            rejection = reason;
            send_now(candidate.socket, frame(Kind::refusal, 0, encode_refusal(refusal_argument, -1, "secret", reason)));
        }
        return false;
    }
}

// A connection this rank opened to a lower rank, whose handshake admit() progresses beside the
// ones it accepts: every handshake of a rank runs at once, so no rank waits for another's.
struct Dialing {
    const Socket* socket;
    ConnectorHandshake handshake;
    int peer;
};

void progress(Dialing& dialing) {
    for (std::size_t wanted; (wanted = dialing.handshake.wanted()) > 0;) {
        std::byte buffer[256];
        const std::size_t got =
            receive_step(*dialing.socket, std::span(buffer, std::min(wanted, sizeof buffer)), dialing.peer);
        if (got == 0) break;
        dialing.handshake.feed(std::span(buffer, got));
        const auto output = dialing.handshake.take_output();
        if (!output.empty() && !send_now(*dialing.socket, output)) {
            throw PeerError(dialing.peer, "took nothing of this rank's handshake");
        }
    }
}

// Accepts connections on `listener` while `admitting` and until `on_handshake` says done, and
// progresses the `dialing` handshakes until all are done: true then, false at `deadline`. A
// connection that fails its handshake (bytes that are no handshake, a wrong proof, closing) is
// dropped, and the last wrong proof's story kept in `rejection` for the timeout's message; a
// dialing handshake that fails throws.
bool admit(const Socket& listener, const Admission& admission, bool admitting, Clock::time_point deadline,
           std::string& rejection,
           const std::function<Verdict(Socket&, const Header&, std::span<const std::byte>)>& on_handshake,
           std::span<Dialing> dialing = {}) {
    std::deque<Candidate> candidates;
    std::vector<pollfd> polls;
    for (;;) {
        const bool dialed =
            std::all_of(dialing.begin(), dialing.end(), [](const Dialing& d) { return d.handshake.done(); });
        if (!admitting && dialed) return true;
        // Entries: the listener, the candidates, the dialing connections (-1: not polled).
        polls.assign(1, pollfd{admitting ? listener.fd() : -1, POLLIN, 0});
        for (const auto& candidate : candidates) polls.push_back({admitting ? candidate.socket.fd() : -1, POLLIN, 0});
        for (const auto& d : dialing) polls.push_back({d.handshake.done() ? -1 : d.socket->fd(), POLLIN, 0});
        const int ready = ::poll(polls.data(), polls.size(), poll_milliseconds(deadline));
        if (ready == 0 && Clock::now() >= deadline) return false;
        if (ready <= 0) continue;
        for (std::size_t i = 0; i < dialing.size(); ++i) {
            if (polls[1 + candidates.size() + i].revents != 0) progress(dialing[i]);
        }
        // The known candidates first (the new ones join the list below).
        for (std::size_t i = candidates.size(); admitting && i-- > 0;) {
            if (polls[i + 1].revents == 0) continue;
            Candidate& candidate = candidates[i];
            const bool keep = progress(candidate, rejection);
            if (keep && !candidate.handshake.done()) continue;
            Candidate taken = std::move(candidate);
            candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(i));
            if (keep &&
                on_handshake(taken.socket, taken.handshake.body_header(), taken.handshake.body()) == Verdict::done) {
                admitting = false;
            }
        }
        if (admitting && polls[0].revents != 0) {
            for (;;) {
                Socket accepted(::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC));
                if (!accepted) break;
                configure(accepted);
                if (candidates.size() == max_candidates) candidates.pop_front();
                candidates.push_back(
                    Candidate{std::move(accepted),
                              AcceptorHandshake(admission.secret, admission.purpose, admission.job_nonce,
                                                admission.body_kind, admission.body_bytes, fresh_challenge())});
            }
        }
    }
}

// Runs the connecting side's handshake on `socket` until done or `deadline`.
void connect_handshake(const Socket& socket, ConnectorHandshake& handshake, int peer, Clock::time_point deadline,
                       std::chrono::milliseconds timeout) {
    for (;;) {
        const auto output = handshake.take_output();
        for (std::size_t sent = 0; sent < output.size();) {
            const std::size_t step = send_step(socket, std::span(output).subspan(sent), {}, peer);
            sent += step;
            if (step == 0 && !wait_for(socket, POLLOUT, deadline)) {
                throw PeerError(peer, fmt::format("took nothing of the handshake for {} ms", timeout.count()));
            }
        }
        if (handshake.done()) return;
        std::byte buffer[256];
        const std::size_t got =
            receive_step(socket, std::span(buffer, std::min(handshake.wanted(), sizeof buffer)), peer);
        if (got > 0) {
            handshake.feed(std::span(buffer, got));
        } else if (!wait_for(socket, POLLIN, deadline)) {
            throw PeerError(peer, fmt::format("did not answer the handshake within {} ms (is it a rank of this job?)",
                                              timeout.count()));
        }
    }
}

// Tells every socket given why the job cannot start; best effort, briefly (they may be gone).
void refuse(const std::vector<const Socket*>& sockets, const std::vector<std::byte>& why) {
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

std::uint64_t fresh_nonce() {
    std::uint64_t nonce = 0;
    while (nonce == 0) {
        std::array<std::byte, 8> bytes{};
        random_bytes(bytes);
        for (std::size_t i = 0; i < bytes.size(); ++i) nonce |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
    }
    return nonce;
}

std::string rejection_note(const std::string& rejection) {
    return rejection.empty() ? "" : fmt::format("; the last connection turned away: {}", rejection);
}

}  // namespace

void bootstrap_root(TcpRendezvous::State& state, const std::string& address, std::uint16_t port) {
    const Socket listener = state.listen_address.empty() ? listen_at(address, port)
                            : state.listen_address == "any" || state.listen_address == "*"
                                ? listen_everywhere(resolve_family(address), port)
                                : listen_at(state.listen_address, port);
    // libcrypto is loaded once rank 0 listens, not before: the others connect meanwhile instead of
    // finding no one there and retrying later.
    require_crypto();
    const auto deadline = Clock::now() + state.timeout;
    std::vector<Socket> joined(static_cast<std::size_t>(state.count));
    std::vector<Endpoint> endpoints(static_cast<std::size_t>(state.count));
    int missing = state.count - 1;
    std::string rejection;

    auto fail = [&](Socket* offender, const std::string& argument, const std::string& reason) {
        std::vector<const Socket*> sockets;
        for (const auto& socket : joined) {
            if (socket) sockets.push_back(&socket);
        }
        if (offender != nullptr) sockets.push_back(offender);
        refuse(sockets, encode_refusal(refusal_argument, -1, argument, reason));
        throw ArgumentError(argument, reason);
    };
    const Admission admission{state.secret, Purpose::join, 0, Kind::hello, hello_bytes};
    const bool complete =
        admit(listener, admission, missing > 0, deadline, rejection, [&](Socket& socket, const Header&, auto payload) {
            Reader reader(payload);
            const std::uint32_t rank = reader.u32();
            const std::uint32_t count = reader.u32();
            const std::uint16_t listening = reader.u16();
            const Endpoint seen = peer_endpoint(socket);
            if (count != static_cast<std::uint32_t>(state.count)) {
                fail(&socket, "count",
                     fmt::format("the process at {} joined as rank {} of {}, but rank 0 has a count of {}",
                                 seen.to_string(), rank, count, state.count));
            }
            if (rank < 1 || rank >= static_cast<std::uint32_t>(state.count)) {
                fail(&socket, "rank",
                     fmt::format("the process at {} joined as rank {}, outside 1..{}", seen.to_string(), rank,
                                 state.count - 1));
            }
            auto& slot = joined[rank];
            if (slot) {
                fail(&socket, "rank",
                     fmt::format("rank {} is claimed by two processes: at {} and at {}", rank,
                                 peer_endpoint(slot).to_string(), seen.to_string()));
            }
            slot = std::move(socket);
            endpoints[rank] = seen;
            endpoints[rank].port = listening;
            return --missing == 0 ? Verdict::done : Verdict::wait;
        });
    if (!complete) {
        std::vector<int> absent;
        for (int r = 1; r < state.count; ++r) {
            if (!joined[static_cast<std::size_t>(r)]) absent.push_back(r);
        }
        const std::string reason =
            fmt::format("did not join within {} ms (ranks {} are missing){}", state.timeout.count(),
                        fmt::join(absent, ", "), rejection_note(rejection));
        std::vector<const Socket*> sockets;
        for (const auto& socket : joined) {
            if (socket) sockets.push_back(&socket);
        }
        refuse(sockets,
               encode_refusal(refusal_peer, absent.front(), "", fmt::format("rank {} {}", absent.front(), reason)));
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
        refuse(sockets, encode_refusal(refusal_peer, error.peer(), "",
                                       fmt::format("rank {} left while the job started", error.peer())));
        throw;
    }
    state.peers = std::move(joined);
}

std::vector<Endpoint> parse_table(std::span<const std::byte> table, int count) {
    if (table.size() != endpoint_bytes * static_cast<std::size_t>(count)) {
        throw PeerError(0, fmt::format("sent a table of {} bytes for {} ranks", table.size(), count));
    }
    std::vector<Endpoint> endpoints;
    Reader reader(table);
    for (int r = 0; r < count; ++r) {
        Endpoint endpoint;
        endpoint.family = reader.u16();
        endpoint.port = reader.u16();
        auto address_bytes = reader.raw(16);
        std::copy(address_bytes.begin(), address_bytes.end(), endpoint.address);
        if (r > 0 && ((endpoint.family != AF_INET && endpoint.family != AF_INET6) || endpoint.port == 0)) {
            throw PeerError(0, fmt::format("sent a table whose entry for rank {} is no address", r));
        }
        endpoints.push_back(endpoint);
    }
    return endpoints;
}

void bootstrap_rank(TcpRendezvous::State& state, const std::string& address, std::uint16_t port) {
    require_crypto();
    std::vector<Socket> peers(static_cast<std::size_t>(state.count));
    Socket& root = peers[0];
    root = connect_until(address, port, 0, Clock::now() + state.timeout);
    // The other ranks will connect where this rank reaches rank 0 from (rank 0 hands out the
    // address it sees), so that is where it listens: not on every interface.
    const bool everywhere = state.listen_address == "any" || state.listen_address == "*";
    const Endpoint here = local_endpoint(root);
    const Socket listener = everywhere ? listen_everywhere(here.family, 0) : listen_at(here, 0);

    Writer hello;
    hello.u32(static_cast<std::uint32_t>(state.rank));
    hello.u32(static_cast<std::uint32_t>(state.count));
    hello.u16(local_port(listener));
    ConnectorHandshake join(state.secret, Purpose::join, 0, Kind::hello, hello.bytes(), fresh_challenge(), 0);
    connect_handshake(root, join, 0, Clock::now() + state.timeout, state.timeout);
    // Rank 0 answers once every rank has joined, or refuses the job at its own deadline, which
    // this rank (having joined after rank 0 started listening) should see before its own.
    std::vector<std::byte> answer;
    const std::size_t table_bytes = endpoint_bytes * static_cast<std::size_t>(state.count);
    Incoming get_answer = Incoming::any(root, 0, answer, std::max(table_bytes, max_refusal_bytes));
    transfer({}, std::span(&get_answer, 1), state.timeout + state.timeout / 4 + std::chrono::milliseconds(200));
    if (get_answer.header.kind == Kind::refusal) throw_refusal(answer, 0, state.count);
    if (get_answer.header.kind != Kind::table || get_answer.header.nonce == 0) {
        throw PeerError(0, fmt::format("answered the join with a {} message of {} bytes instead of the table",
                                       kind_name(get_answer.header.kind), answer.size()));
    }
    state.nonce = get_answer.header.nonce;
    const std::vector<Endpoint> endpoints = parse_table(answer, state.count);

    const auto deadline = Clock::now() + state.timeout;
    // Connect to every lower rank (their listeners take the connection at once) and greet it; the
    // handshakes then progress together with the admission of the higher ranks.
    std::vector<Dialing> dialing;
    dialing.reserve(static_cast<std::size_t>(state.rank));
    for (int r = 1; r < state.rank; ++r) {
        Socket& socket = peers[static_cast<std::size_t>(r)];
        socket = connect_until(endpoints[static_cast<std::size_t>(r)], r, deadline);
        Writer mesh;
        mesh.u32(static_cast<std::uint32_t>(state.rank));
        mesh.u32(static_cast<std::uint32_t>(r));
        dialing.push_back(Dialing{&socket,
                                  ConnectorHandshake(state.secret, Purpose::mesh, state.nonce, Kind::mesh, mesh.bytes(),
                                                     fresh_challenge(), r),
                                  r});
        if (!send_now(socket, dialing.back().handshake.take_output())) {
            throw PeerError(r, "took nothing of this rank's handshake");
        }
    }
    int missing = state.count - 1 - state.rank;
    std::string rejection;
    const Admission admission{state.secret, Purpose::mesh, state.nonce, Kind::mesh, mesh_bytes};
    const bool complete = admit(
        listener, admission, missing > 0, deadline, rejection,
        [&](Socket& socket, const Header&, auto payload) {
            Reader mesh(payload);
            const std::uint32_t from = mesh.u32();
            const std::uint32_t to = mesh.u32();
            // A proven rank of this job that says it is another, or one that is not ours to admit.
            if (to != static_cast<std::uint32_t>(state.rank) || from <= static_cast<std::uint32_t>(state.rank) ||
                from >= static_cast<std::uint32_t>(state.count) || peers[from]) {
                return Verdict::wait;
            }
            peers[from] = std::move(socket);
            return --missing == 0 ? Verdict::done : Verdict::wait;
        },
        dialing);
    if (!complete) {
        for (const Dialing& d : dialing) {
            if (!d.handshake.done()) {
                throw PeerError(d.peer, fmt::format("did not answer rank {}'s handshake within {} ms", state.rank,
                                                    state.timeout.count()));
            }
        }
        for (int r = state.rank + 1; r < state.count; ++r) {
            if (!peers[static_cast<std::size_t>(r)]) {
                throw PeerError(r, fmt::format("did not connect to rank {} within {} ms{}", state.rank,
                                               state.timeout.count(), rejection_note(rejection)));
            }
        }
    }
    state.peers = std::move(peers);
}

}  // namespace kjarni::rendezvous
