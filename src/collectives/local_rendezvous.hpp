#pragma once
// A Rendezvous between threads of this process: what the fallback engine uses when its ranks are
// made from a CliqueId (Communicator's constructor, create_all), and what the tests use to run ranks
// as threads. Every ordered pair of ranks has a queue of messages; sends never block, receives wait
// (at most `timeout`, then an Error naming the peer).

#include <chrono>
#include <memory>
#include <vector>

#include "kjarni/collectives.hpp"
#include "kjarni/rendezvous.hpp"

namespace kjarni::detail {

struct LocalHub;

class LocalRendezvous final : public Rendezvous {
public:
    /// `count` connected ranks, to be handed to one thread each.
    static std::vector<std::shared_ptr<LocalRendezvous>> create(int count,
                                                                std::chrono::milliseconds timeout = std::chrono::minutes(2));
    /// The rank `rank` of the in-process clique `id` of `count` ranks: the first rank of a clique to
    /// arrive makes it, the others join it (ArgumentError for a rank out of range, taken twice, or a
    /// count that differs from the first rank's).
    static std::shared_ptr<LocalRendezvous> join(const CliqueId& id, int count, int rank);

    LocalRendezvous(std::shared_ptr<LocalHub> hub, int rank) : hub_(std::move(hub)), rank_(rank) {}

    int rank() const noexcept override { return rank_; }
    int count() const noexcept override;
    std::vector<std::byte> broadcast(std::span<const std::byte> data, int root) override;
    std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> data) override;
    void barrier() override;
    void send(int peer, std::span<const std::byte> data) override;
    void recv(int peer, std::span<std::byte> data) override;
    void exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                  std::span<std::byte> recv_data) override;

private:
    std::vector<std::byte> receive_message(int peer);
    void check_peer(int peer, const char* argument) const;

    std::shared_ptr<LocalHub> hub_;
    int rank_;
};

}  // namespace kjarni::detail
