#pragma once
// The argument checks every rendezvous shares: a rank and count that make a group, a peer in it.

namespace kjarni::rendezvous {

/// ArgumentError naming "count" for count < 1, "rank" for a rank outside [0, count).
void check_group(int rank, int count);
/// ArgumentError naming `argument` for a peer outside [0, count).
void check_peer(const char* argument, int peer, int count);

}  // namespace kjarni::rendezvous
