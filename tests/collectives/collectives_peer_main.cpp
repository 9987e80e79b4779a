// kjarni_collectives_peer: one rank of a collectives job, one process per rank, meeting through
// rendezvous_from_environment (started by collectives_processes_test.sh, or by mpirun). Exit status 0
// when every check passed.
//
//   kjarni_collectives_peer check       every collective on every rank's random data, checked on the
//                                       host against the reduction of every rank's data
//   kjarni_collectives_peer exit_early  the last rank leaves after the first collective; every other
//                                       rank's next collective (and its wait) must give PeerError,
//                                       well within the timeout, never hang
//
// Each rank takes device rank % n of the devices KJARNI_TEST names (every device when unset), so
// that ranks get GPUs of their own where there are enough (and NCCL, on CUDA). KJARNI_TEST_SEED fixes
// the data (rank 0 draws it otherwise); KJARNI_TEST_TIMEOUT_MS (default 30000) is the rendezvous' and
// the communicator's timeout; KJARNI_TEST_ENGINE=fallback asks for the fallback engine.

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"

namespace {

using namespace kjarni;

long long from_environment(const char* name, long long fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::stoll(value) : fallback;
}

struct Failure : std::exception {
    explicit Failure(std::string what) : message(std::move(what)) {}
    const char* what() const noexcept override { return message.c_str(); }
    std::string message;
};

std::uint64_t shared_seed(Rendezvous& rendezvous) {
    std::uint64_t seed = 0;
    if (rendezvous.rank() == 0) {
        const char* fixed = std::getenv("KJARNI_TEST_SEED");
        seed = fixed != nullptr ? std::stoull(fixed)
                                : (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    }
    const auto bytes = rendezvous.broadcast(std::as_bytes(std::span(&seed, 1)), 0);
    std::memcpy(&seed, bytes.data(), sizeof(seed));
    return seed;
}

/// Rank `rank`'s data: the same on every rank, so each can compute every expected result.
std::vector<float> rank_floats(std::uint64_t seed, std::size_t rank, std::size_t size) {
    std::mt19937_64 engine(seed + rank * 7919);
    std::uniform_real_distribution<float> values(-1.0F, 1.0F);
    std::vector<float> data(size);
    for (float& value : data) value = values(engine);
    return data;
}

std::vector<std::int32_t> rank_ints(std::uint64_t seed, std::size_t rank, std::size_t size) {
    std::mt19937_64 engine(seed ^ (std::uint64_t{0x9e3779b97f4a7c15} * (rank + 1)));
    std::uniform_int_distribution<std::int32_t> values(-1000000, 1000000);
    std::vector<std::int32_t> data(size);
    for (auto& value : data) value = values(engine);
    return data;
}

template <class T>
Array upload(const Queue& queue, const std::vector<T>& values) {
    return Array::from_host(queue, HostArray::from(values, {values.size()}));
}

template <class T>
std::vector<T> download(const Array& array, const Queue& queue) {
    return array.get(queue).template to_vector<T>();
}

/// A float sum of n terms in any order differs from the exact one by at most (n - 1) eps sum|x|.
void expect_close(const std::vector<float>& got, const std::vector<double>& exact, const std::vector<double>& magnitude,
                  int terms, const std::string& what) {
    if (got.size() != exact.size())
        throw Failure(fmt::format("{}: {} elements, expected {}", what, got.size(), exact.size()));
    const double eps = std::ldexp(1.0, -24);
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double bound = std::max(terms - 1, 1) * eps * magnitude[i] + 1e-30;
        if (std::abs(static_cast<double>(got[i]) - exact[i]) > bound)
            throw Failure(
                fmt::format("{}: element {} is {}, expected {} (bound {})", what, i, got[i], exact[i], bound));
    }
}

template <class T>
void expect_equal(const std::vector<T>& got, const std::vector<T>& expected, const std::string& what) {
    if (got.size() != expected.size())
        throw Failure(fmt::format("{}: {} elements, expected {}", what, got.size(), expected.size()));
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
            throw Failure(fmt::format("{}: element {} differs", what, i));
}

void check(const Communicator& comm, const Queue& queue, std::uint64_t seed) {
    const auto n = static_cast<std::size_t>(comm.count()), me = static_cast<std::size_t>(comm.rank());
    const std::size_t size = 3 * n * 1009;  // divisible by n, odd blocks
    std::vector<std::vector<float>> floats;
    std::vector<std::vector<std::int32_t>> ints;
    for (std::size_t rank = 0; rank < n; ++rank) {
        floats.push_back(rank_floats(seed, rank, size));
        ints.push_back(rank_ints(seed, rank, size));
    }
    std::vector<double> sum(size, 0.0), magnitude(size, 0.0);
    std::vector<std::int32_t> int_sum(size, 0), int_max(size, INT32_MIN);
    for (std::size_t rank = 0; rank < n; ++rank) {
        for (std::size_t i = 0; i < size; ++i) {
            sum[i] += floats[rank][i];
            magnitude[i] += std::abs(floats[rank][i]);
            int_sum[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(int_sum[i]) +
                                                   static_cast<std::uint32_t>(ints[rank][i]));
            int_max[i] = std::max(int_max[i], ints[rank][i]);
        }
    }
    const Array mine = upload(queue, floats[me]);
    const Array mine_int = upload(queue, ints[me]);

    expect_close(download<float>(comm.all_reduce(mine, ReduceOp::sum), queue), sum, magnitude, comm.count(),
                 "all_reduce sum");
    expect_equal(download<std::int32_t>(comm.all_reduce(mine_int, ReduceOp::sum), queue), int_sum,
                 "all_reduce int32 sum");
    expect_equal(download<std::int32_t>(comm.all_reduce(mine_int, ReduceOp::max), queue), int_max,
                 "all_reduce int32 max");

    const int root = comm.count() - 1;
    const auto reduced = comm.reduce(mine_int, ReduceOp::sum, root);
    if (comm.rank() == root) expect_equal(download<std::int32_t>(*reduced, queue), int_sum, "reduce to the last rank");

    const Array broadcast = upload(queue, ints[me]);
    comm.broadcast(broadcast, 0);
    expect_equal(download<std::int32_t>(broadcast, queue), ints[0], "broadcast from rank 0");

    std::vector<std::int32_t> gathered;
    for (std::size_t rank = 0; rank < n; ++rank) gathered.insert(gathered.end(), ints[rank].begin(), ints[rank].end());
    expect_equal(download<std::int32_t>(comm.all_gather(mine_int), queue), gathered, "all_gather");

    const std::size_t block = size / n;
    const std::vector<std::int32_t> own_block(int_sum.begin() + static_cast<std::ptrdiff_t>(block * me),
                                              int_sum.begin() + static_cast<std::ptrdiff_t>(block * (me + 1)));
    expect_equal(download<std::int32_t>(comm.reduce_scatter(mine_int, ReduceOp::sum), queue), own_block,
                 "reduce_scatter");

    std::vector<std::int32_t> exchanged;
    for (std::size_t rank = 0; rank < n; ++rank)
        exchanged.insert(exchanged.end(), ints[rank].begin() + static_cast<std::ptrdiff_t>(block * me),
                         ints[rank].begin() + static_cast<std::ptrdiff_t>(block * (me + 1)));
    expect_equal(download<std::int32_t>(comm.all_to_all(mine_int), queue), exchanged, "all_to_all");

    if (n > 1) {  // a ring of sends: even ranks send first, so that blocking engines pair up
        const int right = (comm.rank() + 1) % comm.count(), left = (comm.rank() + comm.count() - 1) % comm.count();
        const Array incoming = Array::empty(queue.device(), {size}, DType(dtypes::int32));
        if (me % 2 == 0) {
            comm.send(mine_int, right);
            comm.recv(incoming, left);
        } else {
            comm.recv(incoming, left);
            comm.send(mine_int, right);
        }
        expect_equal(download<std::int32_t>(incoming, queue), ints[static_cast<std::size_t>(left)],
                     "send and recv around the ring");
    }
    comm.wait();
}

int exit_early(const Communicator& comm, const Queue& queue, std::chrono::milliseconds timeout) {
    const Array data = upload(queue, std::vector<float>(4096, 1.0F));
    comm.all_reduce(data, data);
    comm.wait(timeout);
    if (comm.rank() == comm.count() - 1) {
        fmt::print("rank {} of {}: leaving early\n", comm.rank(), comm.count());
        std::fflush(stdout);
        std::_Exit(0);  // as a crash would: no communicator destroyed, no connection closed politely
    }
    const auto start = std::chrono::steady_clock::now();
    try {
        comm.all_reduce(data, data);
        comm.wait(timeout);
    } catch (const PeerError& error) {
        const auto took =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
        fmt::print("rank {}: PeerError after {} ms: {}\n", comm.rank(), took.count(), error.what());
        if (!comm.aborted() && comm.engine() == "NCCL") throw Failure("the NCCL communicator was not aborted");
        try {
            comm.all_reduce(data, data);
            throw Failure("a call after the failure was accepted");
        } catch (const PeerError&) {
        }
        return 0;
    }
    throw Failure("the collective with a dead rank completed");
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "check";
    try {
        const std::chrono::milliseconds timeout(from_environment("KJARNI_TEST_TIMEOUT_MS", 30000));
        const auto rendezvous = rendezvous_from_environment(timeout);
        const std::uint64_t seed = shared_seed(*rendezvous);
        const char* selection = std::getenv("KJARNI_TEST");
        const std::vector<Device> devices = devices_from_specifiers(selection != nullptr ? selection : "");
        if (devices.empty()) throw Failure("no device");
        const Device& device = devices[static_cast<std::size_t>(rendezvous->rank()) % devices.size()];
        const Context context = Context::from_devices(device);
        const Queue queue(context.devices()[0]);
        const char* engine_name = std::getenv("KJARNI_TEST_ENGINE");
        const CollectiveEngine engine = engine_name != nullptr && std::string(engine_name) == "fallback"
                                            ? CollectiveEngine::fallback
                                            : CollectiveEngine::automatic;
        const Communicator comm = Communicator::from_rendezvous(queue, *rendezvous, engine, timeout);
        fmt::print("rank {} of {}: {} on {}\n", comm.rank(), comm.count(), comm.engine(), device.name());
        if (mode == "check") {
            check(comm, queue, seed);
            rendezvous->barrier();
        } else if (mode == "exit_early") {
            return exit_early(comm, queue, timeout);
        } else {
            throw Failure("unknown mode " + mode);
        }
        fmt::print("rank {}: every check passed\n", comm.rank());
        return 0;
    } catch (const std::exception& error) {
        fmt::print(stderr, "{}: {}\n", mode, error.what());
        return 1;
    }
}
