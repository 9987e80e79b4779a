// Many threads, and many processes, storing and loading the same and different keys at once never
// see a torn or a wrong payload.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <span>
#include <thread>
#include <vector>

#include "cache_test_support.hpp"
#include "program/cache/disk_cache.hpp"

namespace kjarni::detail {
namespace {

namespace fs = std::filesystem;

// A payload that says what it should be: its key's number, a seed and its length, then bytes that
// follow from the seed. Any mix of two payloads, or a part of one, fails check_payload().
std::vector<std::byte> make_payload(std::uint64_t key_number, std::uint64_t seed, std::size_t size) {
    const std::uint64_t fields[3] = {key_number, seed, size};
    // The fields' bytes copied as a range, not memcpy'd into out.data(): at -O1 (the tests' flags)
    // GCC's -Wnull-dereference cannot see that the vector's storage is not null.
    const auto head = std::as_bytes(std::span(fields));
    std::vector<std::byte> out(head.begin(), head.end());
    out.resize(24 + size);
    std::mt19937_64 engine(seed);
    for (std::size_t i = 24; i < out.size(); ++i) out[i] = static_cast<std::byte>(engine() & 0xffU);
    return out;
}

bool check_payload(const Bytes& payload, std::uint64_t key_number) {
    if (payload.size() < 24) return false;
    std::uint64_t fields[3];
    std::memcpy(fields, payload.data(), sizeof fields);
    return fields[0] == key_number && fields[2] == payload.size() - 24 &&
           payload == make_payload(fields[0], fields[1], static_cast<std::size_t>(fields[2]));
}

CacheKey numbered_key(std::uint64_t number) { return CacheKeyBuilder().add("n", number).key(); }

struct WorkResult {
    std::uint64_t wrong = 0;
    std::uint64_t hits = 0;
};

// Stores and loads a mix of shared keys (0..shared-1, written by everyone) and private ones.
WorkResult hammer(DiskCache& cache, std::uint64_t worker, std::uint64_t seed, int iterations, std::uint64_t shared) {
    WorkResult result;
    std::mt19937_64 engine(seed);
    for (int i = 0; i < iterations; ++i) {
        const bool is_shared = engine() % 4 != 0;
        const std::uint64_t number = is_shared ? engine() % shared : 1000 + worker * 1000 + engine() % 8;
        const CacheKey key = numbered_key(number);
        if (engine() % 2 == 0) {
            // Sizes differ from one writer to the next, so that a mix would show.
            cache.store(key, make_payload(number, engine(), 1 + engine() % 40000));
        } else if (const auto loaded = cache.load(key)) {
            ++result.hits;
            if (!check_payload(*loaded, number)) ++result.wrong;
        }
    }
    return result;
}

TEST(DiskCacheConcurrency, ThreadsNeverSeeATornOrWrongPayload) {
    test::TemporaryDirectory dir;
    DiskCache cache(dir.path(), std::uint64_t{256} << 20);
    constexpr int threads = 8;
    std::vector<WorkResult> results(threads);
    std::vector<std::thread> workers;
    const std::uint64_t base_seed = test::cache_random_engine()();
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            const auto worker = static_cast<std::uint64_t>(t);
            results[static_cast<std::size_t>(t)] = hammer(cache, worker, base_seed + worker, 400, 6);
        });
    }
    for (auto& w : workers) w.join();
    std::uint64_t hits = 0;
    for (const auto& r : results) {
        EXPECT_EQ(r.wrong, 0U);
        hits += r.hits;
    }
    EXPECT_GT(hits, 0U);
    const auto stats = cache.statistics();
    EXPECT_EQ(stats.corrupt_entries, 0U) << "a reader saw a torn entry";
    EXPECT_EQ(stats.io_errors, 0U);
    // No temporary file is left behind.
    for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
        if (entry.is_regular_file()) {
            EXPECT_EQ(entry.path().extension(), ".bin") << entry.path();
        }
    }
}

TEST(DiskCacheConcurrency, ThreadsUnderEvictionPressure) {
    // A bound far below what is written: eviction runs all the time, alongside loads and stores.
    test::TemporaryDirectory dir;
    DiskCache cache(dir.path(), 200 * 1024);
    constexpr int threads = 6;
    std::vector<WorkResult> results(threads);
    std::vector<std::thread> workers;
    const std::uint64_t base_seed = test::cache_random_engine()();
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            const auto worker = static_cast<std::uint64_t>(t);
            results[static_cast<std::size_t>(t)] = hammer(cache, worker, base_seed + worker, 300, 6);
        });
    }
    for (auto& w : workers) w.join();
    for (const auto& r : results) EXPECT_EQ(r.wrong, 0U);
    const auto stats = cache.statistics();
    EXPECT_EQ(stats.corrupt_entries, 0U);
    EXPECT_EQ(stats.io_errors, 0U);
    EXPECT_GT(stats.evictions, 0U);
    EXPECT_LE(cache.enforce_size_bound(), 200U * 1024);
}

TEST(DiskCacheConcurrency, ProcessesNeverSeeATornOrWrongPayload) {
    test::TemporaryDirectory dir;
    constexpr int processes = 6;
    const std::uint64_t base_seed = test::cache_random_engine()();
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0) << "fork failed";
        if (pid == 0) {
            // The child: no GoogleTest here, only an exit status. 1: a wrong payload, 2: a torn
            // entry seen, 3: an I/O error, 4: nothing was ever read back.
            int status = 0;
            try {
                DiskCache cache(dir.path(), std::uint64_t{256} << 20);
                const auto worker = static_cast<std::uint64_t>(p);
                const WorkResult r = hammer(cache, worker, base_seed + 100 + worker, 400, 4);
                const auto stats = cache.statistics();
                status = r.wrong != 0                 ? 1
                         : stats.corrupt_entries != 0 ? 2
                         : stats.io_errors != 0       ? 3
                         : r.hits == 0                ? 4
                                                      : 0;
            } catch (...) {
                status = 5;
            }
            ::_exit(status);
        }
        children.push_back(pid);
    }
    for (const pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << pid;
    }
    // What they left is sound.
    DiskCache cache(dir.path(), std::uint64_t{256} << 20);
    for (std::uint64_t n = 0; n < 4; ++n) {
        if (const auto loaded = cache.load(numbered_key(n))) {
            EXPECT_TRUE(check_payload(*loaded, n)) << n;
        }
    }
    EXPECT_EQ(cache.statistics().corrupt_entries, 0U);
}

}  // namespace
}  // namespace kjarni::detail
