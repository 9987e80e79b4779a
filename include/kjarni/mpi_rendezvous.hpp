#pragma once
/// A Rendezvous over an MPI communicator, for jobs that mpirun (or srun) launches across hosts.
///
/// This header includes `<mpi.h>`: include it only where MPI's headers are on the include path, and
/// link the kjarni_mpi target (built when CMake's find_package(MPI) finds MPI; Debian:
/// libopenmpi-dev). The rest of kjarni never needs MPI: rendezvous_from_environment reads the rank
/// and count that mpirun sets, without linking it. \file

#include <mpi.h>

#include <chrono>
#include <deque>

#include "kjarni/rendezvous.hpp"

namespace kjarni {

/// The ranks and count of an MPI communicator. The constructor is collective over `communicator`:
/// it duplicates it (MPI_Comm_dup), so that kjarni's messages never match the caller's, and sets
/// MPI_ERRORS_RETURN on the duplicate so that a failed call becomes an exception. MPI must be
/// initialized (ArgumentError otherwise) and outlive the object; the object must be destroyed
/// before MPI_Finalize (destroying it later leaks the duplicate, which MPI_Finalize frees anyway).
///
/// Every operation uses MPI's non-blocking calls and polls them: one that does not complete within
/// `timeout` gives a PeerError naming the awaited rank (-1 for a collective: MPI cannot tell which
/// rank is late) and breaks the object. A dead process is MPI's to report; Open MPI usually
/// ends the whole job. Messages to oneself are kept in memory, as with TcpRendezvous.
/// One thread at a time per object (MPI_THREAD_SERIALIZED or better where threads share it).
///
/// The sizes of a broadcast and of an all_gather come from the other ranks: one over
/// `max_message_bytes` (as TcpRendezvousOptions::max_message_bytes) is refused on every rank before
/// anything is allocated for it: ArgumentError naming "data" on the rank that sends it, PeerError
/// naming that rank on the others.
class MpiRendezvous final : public Rendezvous {
public:
    explicit MpiRendezvous(MPI_Comm communicator, std::chrono::milliseconds timeout = TcpRendezvous::default_timeout,
                           std::size_t max_message_bytes = TcpRendezvousOptions{}.max_message_bytes);
    ~MpiRendezvous() override;
    MpiRendezvous(const MpiRendezvous&) = delete;
    MpiRendezvous& operator=(const MpiRendezvous&) = delete;

    int rank() const noexcept override { return rank_; }
    int count() const noexcept override { return count_; }
    /// The duplicate this object sends on.
    MPI_Comm communicator() const noexcept { return communicator_; }

    std::vector<std::byte> broadcast(std::span<const std::byte> data, int root) override;
    std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> data) override;
    void barrier() override;
    void send(int peer, std::span<const std::byte> data) override;
    void recv(int peer, std::span<std::byte> data) override;
    void exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                  std::span<std::byte> recv_data) override;

private:
    std::vector<MPI_Status> wait(std::vector<MPI_Request>& requests, int peer, const char* what);
    void check_received(const std::vector<MPI_Status>& statuses, int peer, std::size_t size) const;
    void post_send(std::vector<MPI_Request>& requests, int peer, std::span<const std::byte> data);
    void post_recv(std::vector<MPI_Request>& requests, int peer, std::span<std::byte> data);
    void post_broadcast(std::vector<MPI_Request>& requests, int root, std::span<std::byte> data);
    void check_usable() const;
    void check_announced(std::uint64_t size, int sender) const;

    MPI_Comm communicator_ = MPI_COMM_NULL;
    int rank_ = 0;
    int count_ = 1;
    std::chrono::milliseconds timeout_;
    std::size_t max_message_bytes_;
    std::deque<std::vector<std::byte>> to_self_;
    bool broken_ = false;
};

}  // namespace kjarni
