#include "rendezvous/rank_checks.hpp"

#include <fmt/format.h>

#include "kjarni/error.hpp"

namespace kjarni::rendezvous {

void check_group(int rank, int count) {
    if (count < 1) throw ArgumentError("count", fmt::format("must be at least 1, got {}", count));
    if (rank < 0 || rank >= count) {
        throw ArgumentError("rank", fmt::format("{} is outside 0..{} for a count of {}", rank, count - 1, count));
    }
}

void check_peer(const char* argument, int peer, int count) {
    if (peer < 0 || peer >= count) {
        throw ArgumentError(argument,
                            fmt::format("rank {} is outside 0..{} for a count of {}", peer, count - 1, count));
    }
}

}  // namespace kjarni::rendezvous
