// LocalRendezvous: every method with ranks on threads, and its timeouts and departed ranks.

#include <gtest/gtest.h>

#include <chrono>

#include "kjarni/rendezvous.hpp"
#include "rendezvous/exercise.hpp"
#include "rendezvous/rank_threads.hpp"
#include "support/random_data.hpp"

namespace kjarni::test {
namespace {

using namespace std::chrono_literals;

TEST(LocalRendezvous, EveryMethodOnThreeThreads) {
    auto group = LocalRendezvous::create_group(3, 20s);
    ASSERT_EQ(group.size(), 3u);
    const std::uint64_t seed = random_engine()();
    rethrow_any(on_rank_threads(3, [&](int rank) {
        Rendezvous& r = *group[static_cast<std::size_t>(rank)];
        EXPECT_EQ(r.rank(), rank);
        EXPECT_EQ(r.count(), 3);
        exercise(r, seed, 1 << 20);
    }));
}

TEST(LocalRendezvous, EveryMethodAlone) {
    auto group = LocalRendezvous::create_group(1);
    exercise(*group[0], random_engine()(), 1000);
}

TEST(LocalRendezvous, WaitingTooLongNamesThePeer) {
    auto group = LocalRendezvous::create_group(2, 200ms);
    std::vector<std::byte> data(8);
    const auto start = std::chrono::steady_clock::now();
    try {
        group[0]->recv(1, data);
        FAIL() << "recv returned without a message";
    } catch (const PeerError& error) {
        EXPECT_EQ(error.peer(), 1);
        EXPECT_NE(std::string(error.what()).find("rank 1"), std::string::npos) << error.what();
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, 200ms);
    EXPECT_LT(waited, 2s);
}

TEST(LocalRendezvous, ADepartedRankIsNamedAtOnce) {
    auto group = LocalRendezvous::create_group(3, 20s);
    group[2].reset();
    const auto start = std::chrono::steady_clock::now();
    auto errors = on_rank_threads(2, [&](int rank) { group[static_cast<std::size_t>(rank)]->barrier(); });
    for (const auto& error : errors) {
        ASSERT_TRUE(error);
        try {
            std::rethrow_exception(error);
        } catch (const PeerError& peer_error) {
            EXPECT_EQ(peer_error.peer(), 2) << peer_error.what();
        }
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(LocalRendezvous, MismatchesAreTypedErrors) {
    auto group = LocalRendezvous::create_group(2, 2s);
    const auto sent = random_bytes(16);
    group[0]->send(1, sent);
    std::vector<std::byte> wrong(8);
    try {
        group[1]->recv(0, wrong);
        FAIL();
    } catch (const ArgumentError& error) {
        EXPECT_EQ(error.argument(), "data");
    }
    // Different operations on the two ranks.
    group[0]->broadcast(sent, 0);
    EXPECT_THROW(group[1]->barrier(), PeerError);
    EXPECT_THROW(LocalRendezvous::create_group(0), ArgumentError);
    EXPECT_THROW(group[0]->send(2, sent), ArgumentError);
    EXPECT_THROW(group[0]->broadcast(sent, -1), ArgumentError);
    EXPECT_THROW(group[0]->recv(0, wrong), ArgumentError);  // nothing sent to itself
}

}  // namespace
}  // namespace kjarni::test
