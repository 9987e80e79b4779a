// The disk cache under attack and under hostile conditions: a full disk, a read-only directory, a
// cache directory that is a symlink to another user's, entries planted by another user or as
// symlinks, a umask that would make files writable by others, every truncation and every bit flip
// of an entry, and several processes writing at once while the disk fills. Whatever happens: load()
// returns the bytes stored or nothing (a bad entry is recompiled, never trusted), nothing throws,
// nothing is written outside the cache's directory.
//
// Some cases need root (to act as another user: chown, setuid in a child); they skip without it.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cache_test_support.hpp"
#include "program/cache/disk_cache.hpp"

namespace kjarni::detail {
namespace {

namespace fs = std::filesystem;
using test::random_key;
using test::random_payload;
using test::read_file;
using test::TemporaryDirectory;
using test::write_file;

// A size limit no attack reaches (1 GiB; a name of its own beside the shared kLarge of 64 MiB, since
// the cache tests may compile as one unity batch).
constexpr std::uint64_t kAttackLimit = std::uint64_t{1} << 30;
/// The user a root test acts as to be "another user" (nobody, on Debian).
constexpr uid_t kOtherUser = 65534;
constexpr gid_t kOtherGroup = 65534;

/// Every path under `root`, files and directories, relative to it.
std::set<std::string> tree(const fs::path& root) {
    std::set<std::string> paths;
    for (const auto& entry : fs::recursive_directory_iterator(root))
        paths.insert(fs::relative(entry.path(), root).string());
    return paths;
}

/// Runs `body` in a child process and returns its exit status (-1 if it did not exit normally).
template <class Body>
int in_child(Body&& body) {
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int status = 0;
        try {
            status = body();
        } catch (...) {
            status = 99;
        }
        ::_exit(status);
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

TEST(DiskCacheAttack, EveryTruncationAndEveryBitFlipIsAMissThenRecompiled) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), kAttackLimit);
    const CacheKey key = random_key();
    const auto payload = random_payload(200);
    cache.store(key, payload);
    const fs::path path = cache.entry_path(key);
    const std::vector<char> good = read_file(path);
    std::size_t cases = 0;
    for (std::size_t length = 0; length < good.size(); ++length) {
        write_file(path, std::vector<char>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length)));
        ASSERT_FALSE(cache.load(key)) << "truncated to " << length;
        ++cases;
    }
    for (std::size_t bit = 0; bit < good.size() * 8; ++bit) {
        std::vector<char> bad = good;
        bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
        write_file(path, bad);
        const auto loaded = cache.load(key);
        // The header's padding may hold bits no check reads: a flip there still gives the payload.
        if (loaded) {
            ASSERT_EQ(*loaded, payload) << "bit " << bit;
        }
        ++cases;
    }
    // Recompiled and stored again, it is good.
    cache.store(key, payload);
    EXPECT_EQ(cache.load(key), payload);
    EXPECT_GT(cache.statistics().corrupt_entries, cases / 2);
    EXPECT_EQ(cache.statistics().io_errors, 0U);
}

TEST(DiskCacheAttack, AnEntryThatIsASymlinkIsNeverFollowed) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path() / "cache", kAttackLimit);
    const CacheKey key = random_key();
    const auto payload = random_payload(64);
    // A valid entry, stored under another key's name elsewhere, then pointed at from key's name.
    DiskCache elsewhere(dir.path() / "elsewhere", kAttackLimit);
    elsewhere.store(key, payload);
    ASSERT_TRUE(elsewhere.load(key));
    const fs::path path = cache.entry_path(key);
    fs::create_directories(path.parent_path());
    fs::create_symlink(elsewhere.entry_path(key), path);
    EXPECT_FALSE(cache.load(key));
    EXPECT_EQ(cache.statistics().corrupt_entries, 1U);
    EXPECT_TRUE(fs::exists(elsewhere.entry_path(key))) << "the symlink's target was touched";
}

TEST(DiskCacheAttack, AnEntryWritableByOthersIsNotTrusted) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), kAttackLimit);
    const CacheKey key = random_key();
    cache.store(key, random_payload(64));
    ASSERT_EQ(::chmod(cache.entry_path(key).c_str(), 0666), 0);
    EXPECT_FALSE(cache.load(key));
    ASSERT_EQ(::chmod(cache.entry_path(key).c_str(), 0664), 0);
    EXPECT_FALSE(cache.load(key));
    ASSERT_EQ(::chmod(cache.entry_path(key).c_str(), 0644), 0);
    EXPECT_TRUE(cache.load(key));
}

TEST(DiskCacheAttack, AnEntryOfAnotherUserIsNeverRead) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a file of another user";
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), kAttackLimit);
    const CacheKey key = random_key();
    cache.store(key, random_payload(64));
    // A perfectly valid entry, planted by someone else.
    ASSERT_EQ(::chown(cache.entry_path(key).c_str(), kOtherUser, kOtherGroup), 0);
    EXPECT_FALSE(cache.load(key));
    EXPECT_TRUE(fs::exists(cache.entry_path(key))) << "another user's file is not ours to remove";
}

TEST(DiskCacheAttack, ACacheDirectoryThatIsASymlinkToAnotherUsersIsNotUsed) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a directory of another user";
    TemporaryDirectory dir;
    const fs::path theirs = dir.path() / "theirs";
    fs::create_directories(theirs);
    // They plant a valid entry for a key we will ask for, then give us a symlink to their directory.
    const CacheKey key = random_key();
    {
        DiskCache planting(theirs, kAttackLimit);
        planting.store(key, random_payload(64));
        ASSERT_TRUE(planting.load(key));
    }
    for (const auto& entry : fs::recursive_directory_iterator(theirs)) {
        ASSERT_EQ(::lchown(entry.path().c_str(), kOtherUser, kOtherGroup), 0);
    }
    ASSERT_EQ(::chown(theirs.c_str(), kOtherUser, kOtherGroup), 0);
    fs::create_directory_symlink(theirs, dir.path() / "cache");
    const std::set<std::string> before = tree(theirs);

    DiskCache cache(dir.path() / "cache", kAttackLimit);
    EXPECT_FALSE(cache.load(key)) << "read an entry from another user's directory";
    cache.store(random_key(), random_payload(64));
    EXPECT_EQ(cache.enforce_size_bound(), 0U);
    EXPECT_TRUE(cache.entries().empty());
    EXPECT_EQ(cache.clear(), 0U);
    EXPECT_EQ(tree(theirs), before) << "wrote into or removed from another user's directory";
    EXPECT_EQ(cache.statistics().stores, 0U);
    EXPECT_GE(cache.statistics().io_errors, 1U);
}

TEST(DiskCacheAttack, FilesAndDirectoriesAreNotWritableByOthersWhateverTheUmask) {
    TemporaryDirectory dir;
    const mode_t old_umask = ::umask(0);
    DiskCache cache(dir.path() / "a" / "b" / "cache", kAttackLimit);
    const CacheKey key = random_key();
    cache.store(key, random_payload(64));
    ::umask(old_umask);
    ASSERT_TRUE(cache.load(key));
    for (const auto& entry : fs::recursive_directory_iterator(dir.path() / "a")) {
        struct stat info {};
        ASSERT_EQ(::lstat(entry.path().c_str(), &info), 0);
        EXPECT_EQ(info.st_mode & (S_IWGRP | S_IWOTH), 0U) << entry.path() << " mode " << std::oct << info.st_mode;
    }
}

TEST(DiskCacheAttack, NothingIsWrittenOutsideTheCacheDirectory) {
    TemporaryDirectory dir;
    const fs::path cache_dir = dir.path() / "cache";
    fs::create_directories(cache_dir);
    std::ofstream(dir.path() / "neighbour") << "not the cache's";
    DiskCache cache(cache_dir, 64 * 1024);
    // Stores, hits, corrupt entries, evictions, a clear.
    std::vector<CacheKey> keys;
    for (int i = 0; i < 40; ++i) {
        keys.push_back(random_key());
        cache.store(keys.back(), random_payload(4096));
    }
    for (const CacheKey& key : keys) cache.load(key);
    cache.enforce_size_bound();
    cache.clear();
    std::set<std::string> outside;
    for (const auto& entry : fs::directory_iterator(dir.path())) outside.insert(entry.path().filename().string());
    EXPECT_EQ(outside, (std::set<std::string>{"cache", "neighbour"}));
    for (const std::string& path : tree(cache_dir)) {
        // Only two-hex-digit buckets (their files were cleared).
        EXPECT_EQ(path.size(), 2U) << path;
    }
}

TEST(DiskCacheAttack, AReadOnlyDirectoryIsAMissNeverAnError) {
    TemporaryDirectory dir;
    const fs::path cache_dir = dir.path() / "cache";
    const CacheKey stored = random_key();
    const auto payload = random_payload(64);
    DiskCache(cache_dir, kAttackLimit).store(stored, payload);
    ASSERT_EQ(::chmod(cache_dir.c_str(), 0555), 0);
    for (const auto& bucket : fs::directory_iterator(cache_dir)) ASSERT_EQ(::chmod(bucket.path().c_str(), 0555), 0);
    // Root writes anywhere: the child gives up root (to the owner's view it is another process of
    // the same, unprivileged, user) by taking over the directory as nobody.
    const bool root = ::geteuid() == 0;
    if (root) {
        for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
            ASSERT_EQ(::lchown(entry.path().c_str(), kOtherUser, kOtherGroup), 0);
        }
        ASSERT_EQ(::chown(dir.path().c_str(), kOtherUser, kOtherGroup), 0);
    }
    const std::set<std::string> before = tree(cache_dir);
    const int status = in_child([&] {
        if (root && (::setgid(kOtherGroup) != 0 || ::setuid(kOtherUser) != 0)) return 10;
        DiskCache cache(cache_dir, kAttackLimit);
        if (cache.load(stored) != payload) return 1;  // what is there is still read
        const CacheKey other = random_key();
        cache.store(other, random_payload(64));  // cannot be written: skipped, counted
        if (cache.load(other)) return 2;
        const auto stats = cache.statistics();
        if (stats.stores != 0 || stats.io_errors == 0) return 3;
        return 0;
    });
    EXPECT_EQ(status, 0);
    EXPECT_EQ(tree(cache_dir), before);
    ::chmod(cache_dir.c_str(), 0755);
    for (const auto& bucket : fs::directory_iterator(cache_dir)) ::chmod(bucket.path().c_str(), 0755);
}

TEST(DiskCacheAttack, AFullDiskLeavesNoPartialEntryAndNoTemporaryFile) {
    TemporaryDirectory dir;
    const fs::path cache_dir = dir.path() / "cache";
    // RLIMIT_FSIZE stands for a full disk: a write past it fails with EFBIG (SIGXFSZ ignored), as
    // on a full file system, without needing a file system of our own.
    const int status = in_child([&] {
        ::signal(SIGXFSZ, SIG_IGN);
        DiskCache cache(cache_dir, kAttackLimit);
        const CacheKey small = random_key();
        const auto small_payload = random_payload(100);
        const struct rlimit limit = {4096, 4096};
        if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
        cache.store(small, small_payload);  // fits
        const CacheKey big = random_key();
        cache.store(big, random_payload(64 * 1024));  // does not
        if (cache.load(big)) return 1;
        if (cache.load(small) != small_payload) return 2;
        const auto stats = cache.statistics();
        if (stats.stores != 1 || stats.io_errors == 0 || stats.corrupt_entries != 0) return 3;
        return 0;
    });
    EXPECT_EQ(status, 0);
    // No temporary file left behind, one entry only.
    std::size_t files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(cache_dir)) {
        if (entry.is_regular_file()) {
            ++files;
            EXPECT_EQ(entry.path().extension(), ".bin") << entry.path();
        }
    }
    EXPECT_EQ(files, 1U);
}

TEST(DiskCacheAttack, ProcessesWritingWhileTheDiskFillsNeverSeeABadEntry) {
    TemporaryDirectory dir;
    const fs::path cache_dir = dir.path() / "cache";
    const std::uint64_t seed = test::cache_random_engine()();
    std::vector<pid_t> children;
    constexpr int processes = 4;
    for (int p = 0; p < processes; ++p) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::signal(SIGXFSZ, SIG_IGN);
            // Each process may write files of up to a random few KiB: larger entries fail as on a
            // full disk, the others succeed; all use the same 16 keys.
            const rlim_t cap = 2048 + 1024 * static_cast<rlim_t>(p);
            const struct rlimit limit = {cap, cap};
            int status = ::setrlimit(RLIMIT_FSIZE, &limit) == 0 ? 0 : 10;
            std::mt19937_64 engine(seed + static_cast<std::uint64_t>(p));
            DiskCache cache(cache_dir, kAttackLimit);
            for (int round = 0; round < 300 && status == 0; ++round) {
                const std::uint64_t n = engine() % 16;
                const CacheKey key = CacheKeyBuilder().add("n", n).key();
                if (engine() % 2 == 0) {
                    // The payload says which key it belongs to and how long it is.
                    std::vector<std::byte> payload(16 + engine() % 6000);
                    std::memcpy(payload.data(), &n, sizeof n);
                    const std::uint64_t size = payload.size();
                    std::memcpy(payload.data() + 8, &size, sizeof size);
                    cache.store(key, payload);
                } else if (const auto loaded = cache.load(key)) {
                    std::uint64_t got_n = 0;
                    std::uint64_t got_size = 0;
                    if (loaded->size() < 16) status = 1;
                    else {
                        std::memcpy(&got_n, loaded->data(), sizeof got_n);
                        std::memcpy(&got_size, loaded->data() + 8, sizeof got_size);
                        if (got_n != n || got_size != loaded->size()) status = 2;
                    }
                }
            }
            if (status == 0 && cache.statistics().corrupt_entries != 0) status = 3;
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
}

}  // namespace
}  // namespace kjarni::detail
