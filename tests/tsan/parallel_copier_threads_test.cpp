// The staging's parallel host copy (src/staging/parallel_copier.hpp) from several callers at once,
// built with -fsanitize=thread: workers hand pieces over through atomics and a job that lives on
// its caller's stack, so a worker touching a job after its copy() returned is a race here.

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <thread>
#include <vector>

#include "staging/parallel_copier.hpp"

namespace kjarni::test {
namespace {

TEST(ParallelCopierThreads, ManyCallersManyShortJobs) {
    detail::ParallelCopier copier(6);
    constexpr int callers = 4;
    std::vector<int> failures(callers, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < callers; ++t) {
        threads.emplace_back([&copier, &failures, t] {
            std::mt19937 random(static_cast<unsigned>(t) + 1);
            // A few pieces of at least 256 KiB each, ragged, so workers join in and leave; many
            // short jobs back to back, so a new job soon lies where the last one did.
            std::vector<std::vector<unsigned char>> sources;
            for (int i = 0; i < 3; ++i) {
                sources.emplace_back((std::size_t{520} << 10) + random() % 100000);
                for (auto& byte : sources.back()) byte = static_cast<unsigned char>(random());
            }
            std::vector<unsigned char> destination;
            for (int round = 0; round < 150; ++round) {
                const auto& source = sources[static_cast<std::size_t>(round) % sources.size()];
                destination.assign(source.size(), 0);
                copier.copy(destination.data(), source.data(), source.size(), round % 2 == 0);
                if (destination != source) ++failures[static_cast<std::size_t>(t)];
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failures, std::vector<int>(callers, 0));
}

}  // namespace
}  // namespace kjarni::test
