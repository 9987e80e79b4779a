#pragma once
// The ranks of a fallback clique made from a CliqueId inside this process (Communicator's
// constructor with a fallback id, create_all): they meet through one kjarni::LocalRendezvous group,
// made when the first rank arrives and handed out rank by rank.

#include <memory>
#include <vector>

#include "kjarni/collectives.hpp"
#include "kjarni/rendezvous.hpp"

namespace kjarni::detail {

/// `count` connected in-process ranks (LocalRendezvous::create_group), shared with the engines.
std::vector<std::shared_ptr<Rendezvous>> local_group(int count);

/// Rank `rank` of the in-process clique `id` of `count` ranks: the first rank of a clique to arrive
/// makes the group, the others take their member of it. ArgumentError for a rank out of range or
/// taken twice, or a count that differs from the first rank's.
std::shared_ptr<Rendezvous> join_local_clique(const CliqueId& id, int count, int rank);

}  // namespace kjarni::detail
