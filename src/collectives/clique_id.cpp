#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "collectives/comm_engine.hpp"
#include "kjarni/collectives.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace {

// The first bytes of a fallback id. An ncclUniqueId starting with them by chance is not a concern:
// NCCL's ids begin with a random 64-bit magic and a socket address.
constexpr char fallback_magic[] = "kjarni:fallback";  // 15 characters and the terminating zero

bool use_nccl(const Queue& queue, CollectiveEngine engine) {
    switch (engine) {
    case CollectiveEngine::nccl: return true;
    case CollectiveEngine::fallback: return false;
    case CollectiveEngine::automatic: return detail::nccl_available(queue);
    }
    return false;
}

}  // namespace

CliqueId CliqueId::create(const Queue& queue, CollectiveEngine engine) {
    if (engine == CollectiveEngine::nccl) detail::require_nccl(queue);
    if (use_nccl(queue, engine)) return detail::new_nccl_clique_id();
    CliqueId id;
    std::memcpy(id.bytes_.data(), fallback_magic, sizeof fallback_magic);
    std::random_device entropy;
    std::uniform_int_distribution<int> byte(0, 255);
    for (std::size_t i = sizeof fallback_magic; i < size; ++i) id.bytes_[i] = static_cast<std::byte>(byte(entropy));
    return id;
}

CliqueId CliqueId::from_bytes(std::span<const std::byte> bytes) {
    if (bytes.size() != size)
        throw ArgumentError("bytes", fmt::format("has {} bytes; a clique id has {}", bytes.size(), size));
    CliqueId id;
    std::copy(bytes.begin(), bytes.end(), id.bytes_.begin());
    return id;
}

CollectiveEngine CliqueId::engine() const noexcept {
    return std::memcmp(bytes_.data(), fallback_magic, sizeof fallback_magic) == 0 ? CollectiveEngine::fallback
                                                                                  : CollectiveEngine::nccl;
}

}  // namespace kjarni
