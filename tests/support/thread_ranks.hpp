#pragma once
// Ranks as threads of the test process: each runs `body(rendezvous)` on a thread of its own, over an
// in-process Rendezvous (kjarni::LocalRendezvous, what a fallback CliqueId uses too), so that
// the per-rank collectives are tested without sockets or MPI. The first exception any rank threw is
// rethrown after every thread has ended; a rank that fails makes its peers fail too (PeerError, not
// a hang) at the latest after `timeout`.

#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "kjarni/rendezvous.hpp"

namespace kjarni::test {

inline void run_ranks(int count, const std::function<void(Rendezvous&)>& body,
                      std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    const auto rendezvous = LocalRendezvous::create_group(count, timeout);
    std::exception_ptr failure;
    std::mutex mutex;
    std::vector<std::thread> threads;
    for (int rank = 0; rank < count; ++rank) {
        threads.emplace_back([&, rank] {
            try {
                body(*rendezvous[static_cast<std::size_t>(rank)]);
            } catch (...) {
                const std::lock_guard lock(mutex);
                if (!failure) failure = std::current_exception();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace kjarni::test
