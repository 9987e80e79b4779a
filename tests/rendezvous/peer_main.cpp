// kjarni_rendezvous_peer: one rank of a test job, started by the rendezvous tests (as separate
// processes, with the rank and count in the environment) or by mpirun. Exit status 0 when every
// check passed.
//
//   kjarni_rendezvous_peer check       every method through rendezvous_from_environment
//   kjarni_rendezvous_peer exit_early  the last rank leaves at once; the others must get a
//                                      PeerError naming it, well within the timeout
//   kjarni_rendezvous_peer mpi         every method through MpiRendezvous(MPI_COMM_WORLD)
//                                      (built only where MPI is found)
//
// KJARNI_TEST_TIMEOUT_MS (default 30000) is the rendezvous' timeout; KJARNI_TEST_SEED fixes the
// data (rank 0 draws it otherwise and broadcasts it); KJARNI_TEST_LARGE sizes the exchanges.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kjarni/rendezvous.hpp"
#include "rendezvous/exercise.hpp"

#ifdef KJARNI_PEER_WITH_MPI
#include <mpi.h>

#include "kjarni/mpi_rendezvous.hpp"
#endif

namespace {

long long from_environment(const char* name, long long fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::stoll(value) : fallback;
}

std::uint64_t shared_seed(kjarni::Rendezvous& r) {
    std::uint64_t seed = 0;
    if (r.rank() == 0) {
        const char* fixed = std::getenv("KJARNI_TEST_SEED");
        seed = fixed != nullptr ? std::stoull(fixed)
                                : (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    }
    const auto bytes = r.broadcast(std::as_bytes(std::span(&seed, 1)), 0);
    std::memcpy(&seed, bytes.data(), sizeof(seed));
    return seed;
}

int run(const std::string& mode, kjarni::Rendezvous& r, std::chrono::milliseconds timeout) {
    const std::uint64_t seed = shared_seed(r);
    const int n = r.count();
    if (mode == "exit_early") {
        if (r.rank() == n - 1) {
            std::printf("rank %d of %d: leaving early\n", r.rank(), n);
            return 0;
        }
        const auto start = std::chrono::steady_clock::now();
        try {
            r.all_gather(kjarni::test::rank_bytes(seed, r.rank(), 1, 64));
        } catch (const kjarni::PeerError& error) {
            const auto waited = std::chrono::steady_clock::now() - start;
            std::printf("rank %d of %d: %s (after %lld ms)\n", r.rank(), n, error.what(),
                        static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()));
            // Let the other survivors see the leaver first, not this rank's own exit.
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            return error.peer() == n - 1 && waited < timeout / 2 ? 0 : 1;
        }
        std::printf("rank %d of %d: all_gather succeeded without the rank that left\n", r.rank(), n);
        return 1;
    }
    const auto large = static_cast<std::size_t>(from_environment("KJARNI_TEST_LARGE", 4 << 20));
    kjarni::test::exercise(r, seed, large);
    std::printf("rank %d of %d: every method checked (seed %llu)\n", r.rank(), n,
                static_cast<unsigned long long>(seed));
    return 0;
}

#ifdef KJARNI_PEER_WITH_MPI
// A broadcast and an all_gather over MpiRendezvous' cap are refused on every rank before anything
// is allocated (ArgumentError "data" on the sender, PeerError naming it elsewhere), and the object
// stays usable: every rank saw the same sizes.
int check_mpi_cap(std::chrono::milliseconds timeout) {
    kjarni::MpiRendezvous r(MPI_COMM_WORLD, timeout, 100);
    const std::vector<std::byte> large(101, std::byte{7});
    const auto expect_refusal = [&](auto&& call, int sender, const char* what) {
        try {
            call();
        } catch (const kjarni::ArgumentError& error) {
            if (r.rank() == sender && error.argument() == "data") return true;
        } catch (const kjarni::PeerError& error) {
            if (r.rank() != sender && error.peer() == sender) return true;
        }
        std::printf("rank %d: %s over the cap was not refused as expected\n", r.rank(), what);
        return false;
    };
    bool ok =
        expect_refusal([&] { r.broadcast(r.rank() == 0 ? large : std::vector<std::byte>{}, 0); }, 0, "a broadcast");
    const int last = r.count() - 1;
    ok = expect_refusal([&] { r.all_gather(r.rank() == last ? large : std::vector<std::byte>(3)); }, last,
                        "an all_gather") &&
         ok;
    const auto small = r.broadcast(std::vector<std::byte>(100, std::byte{5}), 0);
    ok = ok && small == std::vector<std::byte>(100, std::byte{5});
    if (ok) std::printf("rank %d: the cap of MpiRendezvous holds\n", r.rank());
    return ok ? 0 : 1;
}
#endif

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "check";
    const std::chrono::milliseconds timeout(from_environment("KJARNI_TEST_TIMEOUT_MS", 30000));
    try {
        if (mode == "mpi") {
#ifdef KJARNI_PEER_WITH_MPI
            MPI_Init(&argc, &argv);
            int status = 0;
            {
                kjarni::MpiRendezvous r(MPI_COMM_WORLD, timeout);
                status = run("check", r, timeout);
            }
            if (status == 0) status = check_mpi_cap(timeout);
            MPI_Finalize();
            return status;
#else
            std::printf("built without MPI\n");
            return 77;
#endif
        }
        auto r = kjarni::rendezvous_from_environment(timeout);
        // A secret in the environment must have been used: the ranks authenticated each other.
        const bool secret_set =
            std::getenv("KJARNI_JOB_SECRET") != nullptr || std::getenv("KJARNI_JOB_SECRET_FILE") != nullptr;
        if (secret_set && !r->authenticated()) {
            std::printf("failed: a job secret is set but the rendezvous is not authenticated\n");
            return 1;
        }
        if (r->rank() == 0) std::printf("rendezvous %s\n", r->authenticated() ? "authenticated" : "without a secret");
        return run(mode, *r, timeout);
    } catch (const std::exception& error) {
        std::printf("failed: %s\n", error.what());
        return 1;
    }
}
