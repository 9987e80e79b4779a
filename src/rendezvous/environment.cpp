// rendezvous_from_environment: the variables of torch's env://, kjarni's own, and those MPI
// launchers and Slurm set, read in a fixed order of preference (the job's secret: job_secret.cpp).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kjarni/error.hpp"
#include "kjarni/rendezvous.hpp"

namespace kjarni {

namespace {

struct Found {
    std::string name;
    std::string value;
};

std::optional<Found> first_set(const std::vector<const char*>& names) {
    for (const char* name : names) {
        const char* value = std::getenv(name);
        if (value != nullptr && *value != '\0') return Found{name, value};
    }
    return std::nullopt;
}

long long number(const Found& found, long long low, long long high) {
    long long value = 0;
    const char* end = found.value.data() + found.value.size();
    const auto [stop, error] = std::from_chars(found.value.data(), end, value);
    if (error != std::errc{} || stop != end || value < low || value > high) {
        throw ArgumentError(found.name, fmt::format("is '{}', not a number in {}..{}", found.value, low, high));
    }
    return value;
}

Found required(const std::vector<const char*>& names, const char* what) {
    auto found = first_set(names);
    if (!found) {
        throw ArgumentError(names.front(), fmt::format("is not set, and neither is {} ({}: launch with torchrun, "
                                                       "mpirun or srun, or set it)",
                                                       fmt::join(names.begin() + 1, names.end(), ", "), what));
    }
    return *found;
}

}  // namespace

std::unique_ptr<TcpRendezvous> rendezvous_from_environment(std::chrono::milliseconds timeout) {
    const Found size =
        required({"KJARNI_WORLD_SIZE", "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}, "the count");
    const int count = static_cast<int>(number(size, 1, 1 << 24));
    const Found rank_found =
        required({"KJARNI_RANK", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}, "the rank");
    const int rank = static_cast<int>(number(rank_found, 0, count - 1));
    const auto address = first_set({"KJARNI_MASTER_ADDR", "MASTER_ADDR"});
    const auto port_found = first_set({"KJARNI_MASTER_PORT", "MASTER_PORT"});
    const auto port = port_found ? static_cast<std::uint16_t>(number(*port_found, 1, 65535)) : default_rendezvous_port;
    TcpRendezvousOptions options;
    options.timeout = timeout;  // the secret: create() reads KJARNI_JOB_SECRET(_FILE)
    if (const auto listen = first_set({"KJARNI_LISTEN_ADDR"})) options.listen_address = listen->value;
    if (const auto cap = first_set({"KJARNI_RENDEZVOUS_MAX_MESSAGE_BYTES"})) {
        options.max_message_bytes = static_cast<std::size_t>(number(*cap, 1, std::numeric_limits<long long>::max()));
    }
    return TcpRendezvous::create(address ? address->value : "127.0.0.1", port, rank, count, options);
}

}  // namespace kjarni
