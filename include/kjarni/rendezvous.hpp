#pragma once
/// How the ranks of a job (processes, or threads of one process) find each other and exchange bytes:
/// the bootstrap of collectives and of anything else that needs a few bytes from every rank. One
/// rank is the root; every other rank connects to it, and every pair of ranks gets its own ordered
/// byte stream. Every blocking call honours the rendezvous' timeout and a dead or unreachable peer
/// gives a PeerError naming the peer, never a hang. \file

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kjarni/error.hpp"

namespace kjarni {

/// A peer of a rendezvous did not answer in time, closed its connection or could not be reached; or
/// the collectives of a communicator failed on some rank or did not finish in time (the
/// communicator is then aborted).
class PeerError : public Error {
public:
    PeerError(int peer, const std::string& reason);
    /// The rank of the peer at fault (-1 when no one rank is known to be at fault, e.g. an MPI
    /// collective that did not finish in time; an unreachable root is rank 0).
    int peer() const noexcept { return peer_; }

private:
    int peer_;
};

/// The interface of a rendezvous: this rank, the number of ranks, and byte exchanges with the other
/// ranks that honour the timeout (TcpRendezvous implements it; so may a user's MPI or launcher).
class Rendezvous {
public:
    virtual ~Rendezvous() = default;

    virtual int rank() const noexcept = 0;
    virtual int count() const noexcept = 0;

    /// Collective: every rank calls it; returns the root's bytes on every rank.
    virtual std::vector<std::byte> broadcast(std::span<const std::byte> data, int root) = 0;
    /// Collective: every rank's bytes (of any length), in rank order, on every rank.
    virtual std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> data) = 0;
    /// Collective: returns once every rank has called it.
    virtual void barrier() = 0;

    /// Point to point, blocking, ordered per pair of ranks: `recv` on `peer` must ask for exactly
    /// the bytes that `send` gives.
    virtual void send(int peer, std::span<const std::byte> data) = 0;
    virtual void recv(int peer, std::span<std::byte> data) = 0;
    /// Sends to one peer while receiving from another (or the same) peer, without the deadlock
    /// that a send followed by a recv risks when both sides send large messages at once.
    virtual void exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                          std::span<std::byte> recv_data) = 0;
};

/// How a TcpRendezvous authenticates, listens and bounds what it receives (docs/security.md).
struct TcpRendezvousOptions {
    /// Bounds every wait without progress (the same as TcpRendezvous::default_timeout).
    std::chrono::milliseconds timeout{std::chrono::seconds(60)};
    /// The job's shared secret, the same on every rank (at least 16 bytes: e.g. the output of
    /// `openssl rand -hex 32`). Unset: from the environment: KJARNI_JOB_SECRET, else the file that
    /// KJARNI_JOB_SECRET_FILE names (a regular file of this user that neither group nor others may
    /// read or write; a final newline is dropped). Set but empty: no secret. Without a secret the
    /// rendezvous runs only where the master address is a loopback one (all ranks on one host),
    /// and refuses, saying how to set one, otherwise.
    std::optional<std::string> secret;
    /// Where rank 0 listens. Empty: at the master address (so only on its interface; loopback when
    /// it is local), and every other rank at the address it reaches rank 0 from. "any": on every
    /// interface (rank 0 and the others). Any other address: rank 0 listens there (the others as
    /// with empty), e.g. this host's own address behind a NAT.
    std::string listen_address;
    /// The largest message of a size the receiver does not know (broadcast, all_gather) this rank
    /// accepts from a peer; a larger announcement is a PeerError naming the peer, before anything is
    /// allocated. Messages of a known size (recv, exchange) are checked against that size instead.
    std::size_t max_message_bytes = std::size_t{1} << 30;
};

/// The ranks of a job as processes on one or several hosts, over TCP (POSIX sockets, IPv4 or IPv6).
///
/// Rank 0 listens at `port` on the interface of `address` (TcpRendezvousOptions::listen_address
/// says otherwise); every other rank connects to `address:port`, retrying until `timeout` while rank
/// 0 is not up yet, and says its rank, the count and the port it listens at itself. Once every rank
/// has joined, rank 0 hands out the table of addresses and a random job nonce, every pair of ranks
/// connects (a full mesh), and create() returns on every rank together.
///
/// Every connection opens with a mutual challenge-response (HMAC-SHA256 of the job's secret over
/// fresh random challenges, from OpenSSL's libcrypto, loaded at run time): both sides prove that they
/// know the secret before any job data flows, so a process that does not know it cannot join the
/// job nor pose as a rank, and a recorded handshake does not pass again. A connection that fails the
/// handshake (another program, a rank of another job, a wrong secret, silence) is dropped, never
/// taken for a rank; a rank whose secret differs from rank 0's gets an ArgumentError naming
/// "secret". The bytes after the handshake are neither encrypted nor authenticated: the rendezvous
/// keeps out those who can reach its ports, not those who can read or rewrite the network's
/// traffic (docs/security.md). Every size, count and rank read from the wire is checked before
/// anything is allocated; a message of unknown size is bounded by max_message_bytes.
///
/// `timeout` bounds every wait without progress, in create() and in every later call: a peer that
/// does not answer in time, closes its connection (exits, crashes), cannot be reached, or sends
/// bytes that are no message of the operation gives a PeerError naming it. A rank out of range, a
/// count that differs from rank 0's, or two processes claiming one rank give an ArgumentError on
/// every rank that rank 0 reaches. After any error the object is broken: every later call throws
/// Error (a stream may be half read).
///
/// Messages to oneself are allowed (kept in memory). Large messages go straight from and into the
/// caller's memory; `exchange`, `all_gather` and `broadcast` progress all their sockets at once, so
/// ranks sending to each other never deadlock however large the messages are.
/// Not thread-safe: one thread at a time per object (as with any communicator).
class TcpRendezvous final : public Rendezvous {
public:
    static constexpr std::chrono::milliseconds default_timeout{std::chrono::seconds(60)};

    /// Joins the job as `rank` of `count`; blocks until every rank has joined (see the class).
    /// ArgumentError for a rank outside [0, count), count < 1, an unknown address or a port rank 0
    /// cannot listen at; PeerError when a rank does not join within `timeout`.
    /// ArgumentError naming "secret" when no secret is set and `address` is not a loopback one, or
    /// the secret is too short or its file not private; UnsupportedError when libcrypto cannot be
    /// loaded.
    static std::unique_ptr<TcpRendezvous> create(const std::string& address, std::uint16_t port, int rank, int count,
                                                 std::chrono::milliseconds timeout = default_timeout);
    /// The same with every option (the secret from the environment unless `options.secret` is set).
    static std::unique_ptr<TcpRendezvous> create(const std::string& address, std::uint16_t port, int rank, int count,
                                                 const TcpRendezvousOptions& options);
    ~TcpRendezvous() override;
    TcpRendezvous(const TcpRendezvous&) = delete;
    TcpRendezvous& operator=(const TcpRendezvous&) = delete;

    int rank() const noexcept override;
    int count() const noexcept override;
    std::chrono::milliseconds timeout() const noexcept;
    /// Whether the job runs with a secret (false: loopback only, without one).
    bool authenticated() const noexcept;
    /// The job's nonce (rank 0's random number, the same on every rank).
    std::uint64_t job_nonce() const noexcept;

    std::vector<std::byte> broadcast(std::span<const std::byte> data, int root) override;
    std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> data) override;
    void barrier() override;
    void send(int peer, std::span<const std::byte> data) override;
    void recv(int peer, std::span<std::byte> data) override;
    void exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                  std::span<std::byte> recv_data) override;

    struct State;

private:
    explicit TcpRendezvous(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

/// The port rendezvous_from_environment uses when neither KJARNI_MASTER_PORT nor MASTER_PORT is set.
inline constexpr std::uint16_t default_rendezvous_port = 29571;

/// A TcpRendezvous configured from the environment, as torch.distributed's env:// is:
/// - the rank: KJARNI_RANK, else RANK, else OMPI_COMM_WORLD_RANK (Open MPI's mpirun), else PMI_RANK
///   (MPICH, Intel MPI), else SLURM_PROCID (srun);
/// - the count: KJARNI_WORLD_SIZE, else WORLD_SIZE, else OMPI_COMM_WORLD_SIZE, else PMI_SIZE, else
///   SLURM_NTASKS;
/// - rank 0's address: KJARNI_MASTER_ADDR, else MASTER_ADDR, else 127.0.0.1 (one host: set it for
///   several);
/// - its port: KJARNI_MASTER_PORT, else MASTER_PORT, else default_rendezvous_port;
/// - the job's secret: KJARNI_JOB_SECRET, else the file KJARNI_JOB_SECRET_FILE (see
///   TcpRendezvousOptions::secret; needed unless rank 0's address is a loopback one);
/// - where rank 0 listens: KJARNI_LISTEN_ADDR (TcpRendezvousOptions::listen_address);
/// - the cap of a message of unknown size: KJARNI_RENDEZVOUS_MAX_MESSAGE_BYTES.
/// So `mpirun -np 4 program` works on one host without linking MPI. ArgumentError naming the
/// variable when no rank or count is set, or one is not a number in range.
std::unique_ptr<TcpRendezvous> rendezvous_from_environment(
    std::chrono::milliseconds timeout = TcpRendezvous::default_timeout);

/// The ranks of a job as threads of one process: create_group(count) makes the count ranks at once,
/// one object per thread. Messages are copied into the receiver's mailbox, so send never blocks.
/// A wait longer than `timeout` gives PeerError naming the awaited rank, and so does waiting for a
/// rank whose object has been destroyed. Each object is used by one thread at a time; different
/// objects of a group by different threads at once.
class LocalRendezvous final : public Rendezvous {
public:
    static std::vector<std::unique_ptr<LocalRendezvous>> create_group(
        int count, std::chrono::milliseconds timeout = TcpRendezvous::default_timeout);
    ~LocalRendezvous() override;
    LocalRendezvous(const LocalRendezvous&) = delete;
    LocalRendezvous& operator=(const LocalRendezvous&) = delete;

    int rank() const noexcept override { return rank_; }
    int count() const noexcept override;

    std::vector<std::byte> broadcast(std::span<const std::byte> data, int root) override;
    std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> data) override;
    void barrier() override;
    void send(int peer, std::span<const std::byte> data) override;
    void recv(int peer, std::span<std::byte> data) override;
    void exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                  std::span<std::byte> recv_data) override;

    struct Group;

private:
    LocalRendezvous(std::shared_ptr<Group> group, int rank);
    std::shared_ptr<Group> group_;
    int rank_;
};

}  // namespace kjarni
