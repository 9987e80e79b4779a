#include "collectives/local_rendezvous.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

#include "kjarni/error.hpp"

namespace kjarni::detail {

struct LocalHub {
    LocalHub(int ranks, std::chrono::milliseconds wait) : count(ranks), timeout(wait), queues(static_cast<std::size_t>(ranks * ranks)) {}

    int count;
    std::chrono::milliseconds timeout;
    std::mutex mutex;
    std::condition_variable arrived;
    // queues[from * count + to]: messages in the order sent.
    std::vector<std::deque<std::vector<std::byte>>> queues;
    std::vector<bool> joined;  // for join(): which ranks were handed out
};

std::vector<std::shared_ptr<LocalRendezvous>> LocalRendezvous::create(int count, std::chrono::milliseconds timeout) {
    if (count < 1) throw ArgumentError("count", fmt::format("is {}; a clique has at least one rank", count));
    const auto hub = std::make_shared<LocalHub>(count, timeout);
    std::vector<std::shared_ptr<LocalRendezvous>> ranks;
    for (int r = 0; r < count; ++r) ranks.push_back(std::make_shared<LocalRendezvous>(hub, r));
    return ranks;
}

std::shared_ptr<LocalRendezvous> LocalRendezvous::join(const CliqueId& id, int count, int rank) {
    if (count < 1) throw ArgumentError("count", fmt::format("is {}; a clique has at least one rank", count));
    if (rank < 0 || rank >= count) throw ArgumentError("rank", fmt::format("is {}, outside [0, {})", rank, count));
    // Cliques still being joined; an entry goes when its last rank has joined.
    static std::mutex mutex;
    static std::map<std::vector<std::byte>, std::shared_ptr<LocalHub>> open;
    const std::lock_guard lock(mutex);
    const std::vector<std::byte> key(id.bytes().begin(), id.bytes().end());
    auto found = open.find(key);
    if (found == open.end()) {
        auto hub = std::make_shared<LocalHub>(count, std::chrono::minutes(2));
        hub->joined.assign(static_cast<std::size_t>(count), false);
        found = open.emplace(key, std::move(hub)).first;
    }
    LocalHub& hub = *found->second;
    if (hub.count != count)
        throw ArgumentError("count", fmt::format("is {}, but the clique's first rank gave {}", count, hub.count));
    if (hub.joined[static_cast<std::size_t>(rank)])
        throw ArgumentError("rank", fmt::format("{} of this clique was taken already", rank));
    hub.joined[static_cast<std::size_t>(rank)] = true;
    auto result = std::make_shared<LocalRendezvous>(found->second, rank);
    if (std::find(hub.joined.begin(), hub.joined.end(), false) == hub.joined.end()) open.erase(found);
    return result;
}

int LocalRendezvous::count() const noexcept { return hub_->count; }

void LocalRendezvous::check_peer(int peer, const char* argument) const {
    if (peer < 0 || peer >= hub_->count)
        throw ArgumentError(argument, fmt::format("is {}, outside [0, {})", peer, hub_->count));
}

void LocalRendezvous::send(int peer, std::span<const std::byte> data) {
    check_peer(peer, "peer");
    {
        const std::lock_guard lock(hub_->mutex);
        hub_->queues[static_cast<std::size_t>(rank_ * hub_->count + peer)].emplace_back(data.begin(), data.end());
    }
    hub_->arrived.notify_all();
}

std::vector<std::byte> LocalRendezvous::receive_message(int peer) {
    check_peer(peer, "peer");
    std::unique_lock lock(hub_->mutex);
    auto& queue = hub_->queues[static_cast<std::size_t>(peer * hub_->count + rank_)];
    if (!hub_->arrived.wait_for(lock, hub_->timeout, [&] { return !queue.empty(); }))
        throw Error(fmt::format("rendezvous: rank {} waited {} ms for rank {}, which sent nothing", rank_,
                                hub_->timeout.count(), peer));
    std::vector<std::byte> message = std::move(queue.front());
    queue.pop_front();
    return message;
}

void LocalRendezvous::recv(int peer, std::span<std::byte> data) {
    const std::vector<std::byte> message = receive_message(peer);
    if (message.size() != data.size())
        throw Error(fmt::format("rendezvous: rank {} expected {} bytes from rank {}, which sent {}", rank_,
                                data.size(), peer, message.size()));
    std::copy(message.begin(), message.end(), data.begin());
}

void LocalRendezvous::exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                               std::span<std::byte> recv_data) {
    send(send_peer, send_data);  // never blocks: no deadlock with a peer doing the same
    recv(recv_peer, recv_data);
}

std::vector<std::byte> LocalRendezvous::broadcast(std::span<const std::byte> data, int root) {
    check_peer(root, "root");
    if (rank_ == root) {
        for (int peer = 0; peer < hub_->count; ++peer)
            if (peer != root) send(peer, data);
        return {data.begin(), data.end()};
    }
    return receive_message(root);
}

std::vector<std::vector<std::byte>> LocalRendezvous::all_gather(std::span<const std::byte> data) {
    for (int peer = 0; peer < hub_->count; ++peer)
        if (peer != rank_) send(peer, data);
    std::vector<std::vector<std::byte>> all(static_cast<std::size_t>(hub_->count));
    for (int peer = 0; peer < hub_->count; ++peer)
        all[static_cast<std::size_t>(peer)] = peer == rank_ ? std::vector<std::byte>(data.begin(), data.end())
                                                            : receive_message(peer);
    return all;
}

void LocalRendezvous::barrier() { static_cast<void>(all_gather({})); }

}  // namespace kjarni::detail
