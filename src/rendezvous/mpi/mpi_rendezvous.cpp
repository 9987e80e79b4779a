// MpiRendezvous: each operation as MPI non-blocking calls, polled against the timeout. Messages are
// cut into chunks of at most 1 GiB, since MPI counts are ints.

#include "kjarni/mpi_rendezvous.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "kjarni/error.hpp"
#include "rendezvous/rank_checks.hpp"

namespace kjarni {

namespace {

constexpr std::size_t chunk_bytes = std::size_t{1} << 30;
constexpr int message_tag = 0x6b6a;

std::string mpi_error_text(int code) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(code, text, &length);
    return std::string(text, static_cast<std::size_t>(std::max(length, 0)));
}

void check(int code, const char* call) {
    if (code == MPI_SUCCESS) return;
    int error_class = 0;
    MPI_Error_class(code, &error_class);
    if (error_class == MPI_ERR_TRUNCATE) {
        throw ArgumentError("data", fmt::format("a peer sent more bytes than this rank receives ({})", call));
    }
    throw BackendError("MPI", call, code, mpi_error_text(code));
}

int chunk_count(std::size_t bytes, std::size_t at) { return static_cast<int>(std::min(chunk_bytes, bytes - at)); }

}  // namespace

MpiRendezvous::MpiRendezvous(MPI_Comm communicator, std::chrono::milliseconds timeout, std::size_t max_message_bytes)
    : timeout_(timeout), max_message_bytes_(max_message_bytes) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) throw ArgumentError("communicator", "MPI is not initialized (call MPI_Init first)");
    if (communicator == MPI_COMM_NULL) throw ArgumentError("communicator", "is MPI_COMM_NULL");
    if (timeout.count() <= 0)
        throw ArgumentError("timeout", fmt::format("must be positive, got {} ms", timeout.count()));
    check(MPI_Comm_dup(communicator, &communicator_), "MPI_Comm_dup");
    check(MPI_Comm_set_errhandler(communicator_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(communicator_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(communicator_, &count_), "MPI_Comm_size");
}

MpiRendezvous::~MpiRendezvous() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && communicator_ != MPI_COMM_NULL) MPI_Comm_free(&communicator_);
}

// Every rank sees the same sizes, so every rank refuses the same one: no operation is left half done.
void MpiRendezvous::check_announced(std::uint64_t size, int sender) const {
    if (size <= max_message_bytes_) return;
    const std::string reason =
        fmt::format("a message of {} bytes, more than the {} of max_message_bytes", size, max_message_bytes_);
    if (sender == rank_) throw ArgumentError("data", "has " + reason);
    throw PeerError(sender, "announced " + reason);
}

void MpiRendezvous::check_usable() const {
    if (broken_) throw Error("rendezvous: unusable after an earlier error in an operation");
}

std::vector<MPI_Status> MpiRendezvous::wait(std::vector<MPI_Request>& requests, int peer, const char* what) {
    std::vector<MPI_Status> statuses(requests.size());
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    for (int polls = 0;; ++polls) {
        int done = 0;
        const int code = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, statuses.data());
        if (code == MPI_ERR_IN_STATUS) {
            broken_ = true;
            for (const auto& status : statuses) check(status.MPI_ERROR, what);
        }
        if (code != MPI_SUCCESS) broken_ = true;
        check(code, what);
        if (done) return statuses;
        if (std::chrono::steady_clock::now() >= deadline) {
            broken_ = true;
            throw PeerError(peer, fmt::format("{} did not complete within {} ms", what, timeout_.count()));
        }
        // Spin briefly (small messages complete at once), then poll without taking a core.
        if (polls > 1000) {
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        } else {
            std::this_thread::yield();
        }
    }
}

// The receives are the first requests waited for: each chunk must have been filled entirely.
void MpiRendezvous::check_received(const std::vector<MPI_Status>& statuses, int peer, std::size_t size) const {
    std::size_t at = 0;
    std::size_t index = 0;
    do {
        int got = 0;
        MPI_Get_count(&statuses[index++], MPI_BYTE, &got);
        if (got != chunk_count(size, at)) {
            throw ArgumentError("data",
                                fmt::format("rank {} sent fewer bytes than the {} this rank receives", peer, size));
        }
        at += chunk_bytes;
    } while (at < size);
}

void MpiRendezvous::post_send(std::vector<MPI_Request>& requests, int peer, std::span<const std::byte> data) {
    std::size_t at = 0;
    do {
        MPI_Request request = MPI_REQUEST_NULL;
        check(MPI_Isend(data.data() + at, chunk_count(data.size(), at), MPI_BYTE, peer, message_tag, communicator_,
                        &request),
              "MPI_Isend");
        requests.push_back(request);
        at += chunk_bytes;
    } while (at < data.size());
}

void MpiRendezvous::post_recv(std::vector<MPI_Request>& requests, int peer, std::span<std::byte> data) {
    std::size_t at = 0;
    do {
        MPI_Request request = MPI_REQUEST_NULL;
        check(MPI_Irecv(data.data() + at, chunk_count(data.size(), at), MPI_BYTE, peer, message_tag, communicator_,
                        &request),
              "MPI_Irecv");
        requests.push_back(request);
        at += chunk_bytes;
    } while (at < data.size());
}

void MpiRendezvous::post_broadcast(std::vector<MPI_Request>& requests, int root, std::span<std::byte> data) {
    for (std::size_t at = 0; at < data.size(); at += chunk_bytes) {
        MPI_Request request = MPI_REQUEST_NULL;
        check(MPI_Ibcast(data.data() + at, chunk_count(data.size(), at), MPI_BYTE, root, communicator_, &request),
              "MPI_Ibcast");
        requests.push_back(request);
    }
}

std::vector<std::byte> MpiRendezvous::broadcast(std::span<const std::byte> data, int root) {
    rendezvous::check_peer("root", root, count_);
    check_usable();
    std::uint64_t size = rank_ == root ? data.size() : 0;
    std::vector<MPI_Request> requests(1);
    check(MPI_Ibcast(&size, 1, MPI_UINT64_T, root, communicator_, requests.data()), "MPI_Ibcast");
    wait(requests, -1, "a broadcast's size");
    check_announced(size, root);
    std::vector<std::byte> result(static_cast<std::size_t>(size));
    if (rank_ == root && !data.empty()) std::memcpy(result.data(), data.data(), data.size());
    requests.clear();
    post_broadcast(requests, root, result);
    wait(requests, -1, "a broadcast");
    return result;
}

std::vector<std::vector<std::byte>> MpiRendezvous::all_gather(std::span<const std::byte> data) {
    check_usable();
    std::uint64_t size = data.size();
    std::vector<std::uint64_t> sizes(static_cast<std::size_t>(count_));
    std::vector<MPI_Request> requests(1);
    check(MPI_Iallgather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, communicator_, requests.data()),
          "MPI_Iallgather");
    wait(requests, -1, "an all_gather's sizes");
    for (int r = 0; r < count_; ++r) check_announced(sizes[static_cast<std::size_t>(r)], r);
    std::vector<std::vector<std::byte>> result(static_cast<std::size_t>(count_));
    requests.clear();
    // One broadcast per rank, all in flight at once (every rank posts them in the same order).
    for (int r = 0; r < count_; ++r) {
        auto& part = result[static_cast<std::size_t>(r)];
        part.resize(static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]));
        if (r == rank_ && !data.empty()) std::memcpy(part.data(), data.data(), data.size());
        post_broadcast(requests, r, part);
    }
    wait(requests, -1, "an all_gather");
    return result;
}

void MpiRendezvous::barrier() {
    check_usable();
    std::vector<MPI_Request> requests(1);
    check(MPI_Ibarrier(communicator_, requests.data()), "MPI_Ibarrier");
    wait(requests, -1, "a barrier");
}

void MpiRendezvous::send(int peer, std::span<const std::byte> data) {
    rendezvous::check_peer("peer", peer, count_);
    check_usable();
    if (peer == rank_) {
        to_self_.emplace_back(data.begin(), data.end());
        return;
    }
    std::vector<MPI_Request> requests;
    post_send(requests, peer, data);
    wait(requests, peer, "a send");
}

void MpiRendezvous::recv(int peer, std::span<std::byte> data) {
    rendezvous::check_peer("peer", peer, count_);
    check_usable();
    if (peer == rank_) {
        if (to_self_.empty()) {
            throw ArgumentError("peer", fmt::format("rank {} receives from itself but has sent itself nothing", rank_));
        }
        if (to_self_.front().size() != data.size()) {
            throw ArgumentError("data", fmt::format("rank {} sent itself {} bytes but receives {}", rank_,
                                                    to_self_.front().size(), data.size()));
        }
        if (!data.empty()) std::memcpy(data.data(), to_self_.front().data(), data.size());
        to_self_.pop_front();
        return;
    }
    std::vector<MPI_Request> requests;
    post_recv(requests, peer, data);
    check_received(wait(requests, peer, "a recv"), peer, data.size());
}

void MpiRendezvous::exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                             std::span<std::byte> recv_data) {
    rendezvous::check_peer("send_peer", send_peer, count_);
    rendezvous::check_peer("recv_peer", recv_peer, count_);
    if (send_peer == rank_ || recv_peer == rank_) {
        // The message to oneself is queued first, so nothing waits on it.
        if (send_peer == rank_) {
            send(send_peer, send_data);
            recv(recv_peer, recv_data);
        } else {
            recv(recv_peer, recv_data);
            send(send_peer, send_data);
        }
        return;
    }
    check_usable();
    std::vector<MPI_Request> requests;
    post_recv(requests, recv_peer, recv_data);
    post_send(requests, send_peer, send_data);
    check_received(wait(requests, recv_peer, "an exchange"), recv_peer, recv_data.size());
}

}  // namespace kjarni
