// LocalRendezvous: the ranks are threads of one process, and each pair's byte stream is a mailbox
// of copied messages under one lock of the group.

#include <fmt/format.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>

#include "kjarni/error.hpp"
#include "kjarni/rendezvous.hpp"
#include "rendezvous/rank_checks.hpp"
#include "rendezvous/wire.hpp"

namespace kjarni {

using rendezvous::Kind;

struct LocalRendezvous::Group {
    struct Message {
        Kind kind;
        std::vector<std::byte> bytes;
    };

    Group(int count_, std::chrono::milliseconds timeout_)
        : count(count_), timeout(timeout_), alive(static_cast<std::size_t>(count_), true),
          mailboxes(static_cast<std::size_t>(count_) * static_cast<std::size_t>(count_)) {}

    std::deque<Message>& mailbox(int to, int from) {
        return mailboxes[static_cast<std::size_t>(to) * static_cast<std::size_t>(count) +
                         static_cast<std::size_t>(from)];
    }

    void post(int from, int to, Kind kind, std::span<const std::byte> bytes) {
        std::lock_guard lock(mutex);
        if (!alive[static_cast<std::size_t>(to)]) {
            throw PeerError(to, "has left the group (its LocalRendezvous was destroyed)");
        }
        mailbox(to, from).push_back(Message{kind, std::vector<std::byte>(bytes.begin(), bytes.end())});
        arrived.notify_all();
    }

    std::vector<std::byte> take(int to, int from, Kind kind) {
        std::unique_lock lock(mutex);
        auto& box = mailbox(to, from);
        const bool ready =
            arrived.wait_for(lock, timeout, [&] { return !box.empty() || !alive[static_cast<std::size_t>(from)]; });
        if (box.empty()) {
            if (!ready) {
                throw PeerError(from, fmt::format("sent nothing for {} ms while rank {} waits for its {} message",
                                                  timeout.count(), to, rendezvous::kind_name(kind)));
            }
            throw PeerError(from, "has left the group (its LocalRendezvous was destroyed)");
        }
        if (box.front().kind != kind) {
            throw PeerError(from,
                            fmt::format("sent a {} message while rank {} waits for a {} message: the ranks "
                                        "call different operations",
                                        rendezvous::kind_name(box.front().kind), to, rendezvous::kind_name(kind)));
        }
        std::vector<std::byte> bytes = std::move(box.front().bytes);
        box.pop_front();
        return bytes;
    }

    void leave(int rank) {
        std::lock_guard lock(mutex);
        alive[static_cast<std::size_t>(rank)] = false;
        arrived.notify_all();
    }

    const int count;
    const std::chrono::milliseconds timeout;
    std::mutex mutex;
    std::condition_variable arrived;
    std::vector<bool> alive;
    std::vector<std::deque<Message>> mailboxes;  // [to * count + from]
};

std::vector<std::unique_ptr<LocalRendezvous>> LocalRendezvous::create_group(int count,
                                                                            std::chrono::milliseconds timeout) {
    rendezvous::check_group(0, count);
    if (timeout.count() <= 0)
        throw ArgumentError("timeout", fmt::format("must be positive, got {} ms", timeout.count()));
    auto group = std::make_shared<Group>(count, timeout);
    std::vector<std::unique_ptr<LocalRendezvous>> ranks;
    for (int r = 0; r < count; ++r) ranks.emplace_back(new LocalRendezvous(group, r));
    return ranks;
}

LocalRendezvous::LocalRendezvous(std::shared_ptr<Group> group, int rank) : group_(std::move(group)), rank_(rank) {}

LocalRendezvous::~LocalRendezvous() { group_->leave(rank_); }

int LocalRendezvous::count() const noexcept { return group_->count; }

std::vector<std::byte> LocalRendezvous::broadcast(std::span<const std::byte> data, int root) {
    rendezvous::check_peer("root", root, group_->count);
    if (rank_ != root) return group_->take(rank_, root, Kind::broadcast);
    for (int r = 0; r < group_->count; ++r) {
        if (r != rank_) group_->post(rank_, r, Kind::broadcast, data);
    }
    return std::vector<std::byte>(data.begin(), data.end());
}

std::vector<std::vector<std::byte>> LocalRendezvous::all_gather(std::span<const std::byte> data) {
    for (int r = 0; r < group_->count; ++r) {
        if (r != rank_) group_->post(rank_, r, Kind::all_gather, data);
    }
    std::vector<std::vector<std::byte>> result(static_cast<std::size_t>(group_->count));
    for (int r = 0; r < group_->count; ++r) {
        result[static_cast<std::size_t>(r)] =
            r == rank_ ? std::vector<std::byte>(data.begin(), data.end()) : group_->take(rank_, r, Kind::all_gather);
    }
    return result;
}

void LocalRendezvous::barrier() {
    for (int r = 0; r < group_->count; ++r) {
        if (r != rank_) group_->post(rank_, r, Kind::barrier, {});
    }
    for (int r = 0; r < group_->count; ++r) {
        if (r != rank_) group_->take(rank_, r, Kind::barrier);
    }
}

void LocalRendezvous::send(int peer, std::span<const std::byte> data) {
    rendezvous::check_peer("peer", peer, group_->count);
    group_->post(rank_, peer, Kind::message, data);
}

void LocalRendezvous::recv(int peer, std::span<std::byte> data) {
    rendezvous::check_peer("peer", peer, group_->count);
    if (peer == rank_) {
        std::lock_guard lock(group_->mutex);
        if (group_->mailbox(rank_, rank_).empty()) {
            throw ArgumentError("peer", fmt::format("rank {} receives from itself but has sent itself nothing", rank_));
        }
    }
    const std::vector<std::byte> message = group_->take(rank_, peer, Kind::message);
    if (message.size() != data.size()) {
        throw ArgumentError("data", fmt::format("rank {} sent {} bytes but this rank receives {}", peer, message.size(),
                                                data.size()));
    }
    if (!message.empty()) std::memcpy(data.data(), message.data(), message.size());
}

void LocalRendezvous::exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                               std::span<std::byte> recv_data) {
    rendezvous::check_peer("send_peer", send_peer, group_->count);
    rendezvous::check_peer("recv_peer", recv_peer, group_->count);
    // Sending never blocks here (it is a copy into the peer's mailbox).
    send(send_peer, send_data);
    recv(recv_peer, recv_data);
}

}  // namespace kjarni
