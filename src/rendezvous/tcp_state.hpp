#pragma once
// What a TcpRendezvous holds, and the bootstrap that fills it (tcp_bootstrap.cpp): the sockets to
// every other rank, the job's nonce, and the messages a rank sent to itself.

#include <chrono>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "kjarni/rendezvous.hpp"
#include "rendezvous/socket.hpp"

namespace kjarni {

struct TcpRendezvous::State {
    int rank = 0;
    int count = 1;
    std::chrono::milliseconds timeout{0};
    std::uint64_t nonce = 0;
    /// The job's secret (empty: none, loopback only) and where it came from.
    std::string secret;
    std::string secret_source;
    /// TcpRendezvousOptions::listen_address and max_message_bytes.
    std::string listen_address;
    std::size_t max_message_bytes = 0;
    /// The connection to each other rank (empty at this rank's own index).
    std::vector<rendezvous::Socket> peers;
    const rendezvous::Socket& peer(int rank_) const { return peers[static_cast<std::size_t>(rank_)]; }
    std::deque<std::vector<std::byte>> to_self;
    /// Set by an error in the middle of an operation: the streams may be half read.
    bool broken = false;
};

}  // namespace kjarni

namespace kjarni::rendezvous {

/// Rank 0's part of TcpRendezvous::create: listens, admits the other ranks, hands out the table.
void bootstrap_root(TcpRendezvous::State& state, const std::string& address, std::uint16_t port);
/// Every other rank's part: joins rank 0, then connects to and admits the other ranks.
void bootstrap_rank(TcpRendezvous::State& state, const std::string& address, std::uint16_t port);
/// The endpoints of rank 0's table for `count` ranks; PeerError naming rank 0 when the table has
/// another size or an entry of another rank is no address.
std::vector<Endpoint> parse_table(std::span<const std::byte> table, int count);

}  // namespace kjarni::rendezvous
