// TcpRendezvous: the operations, each a set of messages handed to the transfer engine at once.

#include <fmt/format.h>

#include <cstring>

#include "kjarni/error.hpp"
#include "kjarni/rendezvous.hpp"
#include "rendezvous/job_secret.hpp"
#include "rendezvous/rank_checks.hpp"
#include "rendezvous/tcp_state.hpp"
#include "rendezvous/transfer.hpp"

namespace kjarni {

using rendezvous::Header;
using rendezvous::Incoming;
using rendezvous::Kind;
using rendezvous::Outgoing;

namespace {

// Runs one operation; an error in its middle leaves the streams half read, so the object is
// marked broken and refuses every later operation.
template <class F>
auto guarded(TcpRendezvous::State& state, F&& operation) {
    if (state.broken) throw Error("rendezvous: unusable after an earlier error in an operation");
    try {
        return operation();
    } catch (...) {
        state.broken = true;
        throw;
    }
}

std::vector<std::byte> pop_to_self(TcpRendezvous::State& state, std::size_t size) {
    if (state.to_self.empty()) {
        throw ArgumentError("peer",
                            fmt::format("rank {} receives from itself but has sent itself nothing", state.rank));
    }
    if (state.to_self.front().size() != size) {
        throw ArgumentError("data", fmt::format("rank {} sent itself {} bytes but receives {}", state.rank,
                                                state.to_self.front().size(), size));
    }
    std::vector<std::byte> message = std::move(state.to_self.front());
    state.to_self.pop_front();
    return message;
}

}  // namespace

TcpRendezvous::TcpRendezvous(std::unique_ptr<State> state) : state_(std::move(state)) {}
TcpRendezvous::~TcpRendezvous() = default;

std::unique_ptr<TcpRendezvous> TcpRendezvous::create(const std::string& address, std::uint16_t port, int rank,
                                                     int count, std::chrono::milliseconds timeout) {
    TcpRendezvousOptions options;
    options.timeout = timeout;
    return create(address, port, rank, count, options);
}

std::unique_ptr<TcpRendezvous> TcpRendezvous::create(const std::string& address, std::uint16_t port, int rank,
                                                     int count, const TcpRendezvousOptions& options) {
    rendezvous::check_group(rank, count);
    const auto timeout = options.timeout;
    if (timeout.count() <= 0)
        throw ArgumentError("timeout", fmt::format("must be positive, got {} ms", timeout.count()));
    if (address.empty()) throw ArgumentError("address", "is empty");
    if (options.max_message_bytes == 0) throw ArgumentError("max_message_bytes", "must be positive");
    const rendezvous::JobSecret secret = rendezvous::find_job_secret(options.secret);
    rendezvous::require_secret_off_loopback(secret, address, options.listen_address);
    auto state = std::make_unique<State>();
    state->rank = rank;
    state->count = count;
    state->timeout = timeout;
    state->secret = secret.key;
    state->secret_source = secret.source;
    state->listen_address = options.listen_address;
    state->max_message_bytes = options.max_message_bytes;
    if (rank == 0) {
        rendezvous::bootstrap_root(*state, address, port);
    } else {
        rendezvous::bootstrap_rank(*state, address, port);
    }
    std::unique_ptr<TcpRendezvous> result(new TcpRendezvous(std::move(state)));
    // Every rank returns only once every rank is connected to every other.
    result->barrier();
    return result;
}

int TcpRendezvous::rank() const noexcept { return state_->rank; }
int TcpRendezvous::count() const noexcept { return state_->count; }
std::chrono::milliseconds TcpRendezvous::timeout() const noexcept { return state_->timeout; }
bool TcpRendezvous::authenticated() const noexcept { return !state_->secret.empty(); }
std::uint64_t TcpRendezvous::job_nonce() const noexcept { return state_->nonce; }

std::vector<std::byte> TcpRendezvous::broadcast(std::span<const std::byte> data, int root) {
    rendezvous::check_peer("root", root, state_->count);
    return guarded(*state_, [&] {
        State& s = *state_;
        std::vector<std::byte> result;
        if (s.rank == root) {
            std::vector<Outgoing> outgoing;
            for (int r = 0; r < s.count; ++r) {
                if (r == s.rank) continue;
                outgoing.emplace_back(s.peer(r), r,
                                      Header{.kind = Kind::broadcast, .nonce = s.nonce, .size = data.size()}, data);
            }
            rendezvous::transfer(outgoing, {}, s.timeout);
            result.assign(data.begin(), data.end());
        } else {
            Incoming incoming(s.peer(root), root, Kind::broadcast, s.nonce, result, s.max_message_bytes);
            rendezvous::transfer({}, std::span(&incoming, 1), s.timeout);
        }
        return result;
    });
}

namespace {

// Every rank's bytes; a peer's may have up to `limit` bytes (0 for a barrier).
std::vector<std::vector<std::byte>> gather(TcpRendezvous::State& s, std::span<const std::byte> data, Kind kind,
                                           std::size_t limit) {
    std::vector<std::vector<std::byte>> result(static_cast<std::size_t>(s.count));
    result[static_cast<std::size_t>(s.rank)].assign(data.begin(), data.end());
    std::vector<Outgoing> outgoing;
    std::vector<Incoming> incoming;
    for (int r = 0; r < s.count; ++r) {
        if (r == s.rank) continue;
        outgoing.emplace_back(s.peer(r), r, Header{.kind = kind, .nonce = s.nonce, .size = data.size()}, data);
        incoming.emplace_back(s.peer(r), r, kind, s.nonce, result[static_cast<std::size_t>(r)], limit);
    }
    rendezvous::transfer(outgoing, incoming, s.timeout);
    return result;
}

}  // namespace

std::vector<std::vector<std::byte>> TcpRendezvous::all_gather(std::span<const std::byte> data) {
    return guarded(*state_, [&] { return gather(*state_, data, Kind::all_gather, state_->max_message_bytes); });
}

void TcpRendezvous::barrier() {
    guarded(*state_, [&] { gather(*state_, {}, Kind::barrier, 0); });
}

void TcpRendezvous::send(int peer, std::span<const std::byte> data) {
    rendezvous::check_peer("peer", peer, state_->count);
    guarded(*state_, [&] {
        State& s = *state_;
        if (peer == s.rank) {
            s.to_self.emplace_back(data.begin(), data.end());
            return;
        }
        Outgoing out(s.peer(peer), peer, Header{.kind = Kind::message, .nonce = s.nonce, .size = data.size()}, data);
        rendezvous::transfer(std::span(&out, 1), {}, s.timeout);
    });
}

void TcpRendezvous::recv(int peer, std::span<std::byte> data) {
    rendezvous::check_peer("peer", peer, state_->count);
    if (peer == state_->rank) {
        const auto message = pop_to_self(*state_, data.size());
        if (!message.empty()) std::memcpy(data.data(), message.data(), message.size());
        return;
    }
    guarded(*state_, [&] {
        State& s = *state_;
        Incoming in(s.peer(peer), peer, Kind::message, s.nonce, data);
        rendezvous::transfer({}, std::span(&in, 1), s.timeout);
    });
}

void TcpRendezvous::exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                             std::span<std::byte> recv_data) {
    rendezvous::check_peer("send_peer", send_peer, state_->count);
    rendezvous::check_peer("recv_peer", recv_peer, state_->count);
    State& s = *state_;
    // With oneself on either side, the message to oneself is queued first: nothing can block on it.
    if (send_peer == s.rank) {
        send(send_peer, send_data);
        recv(recv_peer, recv_data);
        return;
    }
    if (recv_peer == s.rank) {
        recv(recv_peer, recv_data);
        send(send_peer, send_data);
        return;
    }
    guarded(s, [&] {
        Outgoing out(s.peer(send_peer), send_peer,
                     Header{.kind = Kind::message, .nonce = s.nonce, .size = send_data.size()}, send_data);
        Incoming in(s.peer(recv_peer), recv_peer, Kind::message, s.nonce, recv_data);
        rendezvous::transfer(std::span(&out, 1), std::span(&in, 1), s.timeout);
    });
}

}  // namespace kjarni
