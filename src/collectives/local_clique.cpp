#include "collectives/local_clique.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "kjarni/error.hpp"

namespace kjarni::detail {

std::vector<std::shared_ptr<Rendezvous>> local_group(int count) {
    if (count < 1) throw ArgumentError("count", fmt::format("is {}; a clique has at least one rank", count));
    std::vector<std::shared_ptr<Rendezvous>> group;
    for (auto& member : LocalRendezvous::create_group(count)) group.push_back(std::move(member));
    return group;
}

std::shared_ptr<Rendezvous> join_local_clique(const CliqueId& id, int count, int rank) {
    if (count < 1) throw ArgumentError("count", fmt::format("is {}; a clique has at least one rank", count));
    if (rank < 0 || rank >= count) throw ArgumentError("rank", fmt::format("is {}, outside [0, {})", rank, count));
    // Cliques still being joined: the members not yet taken. An entry goes when its last rank joins.
    static std::mutex mutex;
    static std::map<std::vector<std::byte>, std::vector<std::shared_ptr<Rendezvous>>> open;
    const std::lock_guard lock(mutex);
    const std::vector<std::byte> key(id.bytes().begin(), id.bytes().end());
    auto found = open.find(key);
    if (found == open.end()) found = open.emplace(key, local_group(count)).first;
    auto& members = found->second;
    if (static_cast<int>(members.size()) != count)
        throw ArgumentError("count", fmt::format("is {}, but the clique's first rank gave {}", count, members.size()));
    auto& member = members[static_cast<std::size_t>(rank)];
    if (member == nullptr) throw ArgumentError("rank", fmt::format("{} of this clique was taken already", rank));
    std::shared_ptr<Rendezvous> taken = std::move(member);
    if (std::all_of(members.begin(), members.end(), [](const auto& m) { return m == nullptr; })) open.erase(found);
    return taken;
}

}  // namespace kjarni::detail
