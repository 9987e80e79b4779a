// The on-disk cache: round trips, misses, bad entries, eviction, disabling.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "cache_test_support.hpp"
#include "program/cache/disk_cache.hpp"

namespace kjarni::detail {
namespace {

namespace fs = std::filesystem;
using test::random_key;
using test::random_payload;
using test::TemporaryDirectory;

using test::kHeaderSize;
using test::kLarge;
using test::read_file;
using test::write_file;

timespec modification_time(const fs::path& path) {
    struct stat info {};
    EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
    return info.st_mtim;
}

bool later(const timespec& a, const timespec& b) {
    return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec;
}

void set_modification_time(const fs::path& path, std::int64_t seconds, long nanoseconds = 0) {
    const timespec times[2] = {{static_cast<time_t>(seconds), nanoseconds},
                               {static_cast<time_t>(seconds), nanoseconds}};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

TEST(DiskCache, StoreThenLoadGivesTheSameBytes) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), kLarge);
    ASSERT_TRUE(cache.enabled());
    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{1} << 20, std::size_t{12345}}) {
        SCOPED_TRACE(size);
        const CacheKey key = random_key();
        const auto payload = random_payload(size);
        cache.store(key, payload);
        EXPECT_TRUE(fs::is_regular_file(cache.entry_path(key)));
        EXPECT_EQ(fs::file_size(cache.entry_path(key)), kHeaderSize + size);
        const auto loaded = cache.load(key);
        ASSERT_TRUE(loaded);
        EXPECT_EQ(*loaded, payload);
    }
    const auto stats = cache.statistics();
    EXPECT_EQ(stats.stores, 4U);
    EXPECT_EQ(stats.hits, 4U);
    EXPECT_EQ(stats.misses, 0U);
    EXPECT_EQ(stats.corrupt_entries, 0U);
    EXPECT_EQ(stats.io_errors, 0U);
}

TEST(DiskCache, EntryLayoutIsOneFilePerKeyInAHexBucket) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), kLarge);
    const CacheKey key = random_key();
    const std::string hex = key.hex();
    EXPECT_EQ(cache.entry_path(key), dir.path() / hex.substr(0, 2) / (hex + ".bin"));
    cache.store(key, random_payload(100));
    // Nothing else is left behind (no temporary files).
    std::size_t files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir.path())) files += entry.is_regular_file() ? 1U : 0U;
    EXPECT_EQ(files, 1U);
}

TEST(DiskCache, StoreReplacesAnEntry) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), kLarge);
    const CacheKey key = random_key();
    cache.store(key, random_payload(1000));
    const auto second = random_payload(10);
    cache.store(key, second);
    EXPECT_EQ(cache.load(key), second);
}

TEST(DiskCache, EntriesOutliveTheCacheObject) {
    TemporaryDirectory dir;
    const CacheKey key = random_key();
    const auto payload = random_payload(4096);
    DiskCache(dir.path(), kLarge).store(key, payload);
    DiskCache other(dir.path(), kLarge);
    EXPECT_EQ(other.load(key), payload);
}

TEST(DiskCache, UnknownKeyMisses) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), kLarge);
    EXPECT_FALSE(cache.load(random_key()));
    cache.store(random_key(), random_payload(10));
    EXPECT_FALSE(cache.load(random_key()));
    const auto stats = cache.statistics();
    EXPECT_EQ(stats.misses, 2U);
    EXPECT_EQ(stats.hits, 0U);
    EXPECT_EQ(stats.io_errors, 0U);
    EXPECT_EQ(stats.corrupt_entries, 0U);
}

TEST(DiskCache, MissingDirectoryIsAMissNotAnError) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path() / "not" / "yet", kLarge);
    EXPECT_FALSE(cache.load(random_key()));
    EXPECT_EQ(cache.statistics().io_errors, 0U);
    // store() makes it.
    const CacheKey key = random_key();
    const auto payload = random_payload(33);
    cache.store(key, payload);
    EXPECT_EQ(cache.load(key), payload);
}

TEST(DiskCache, HitMakesTheEntryMostRecentlyUsed) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), kLarge);
    const CacheKey key = random_key();
    cache.store(key, random_payload(10));
    const fs::path path = cache.entry_path(key);
    // Make it look old, then use it.
    set_modification_time(path, 1000000000);
    const timespec before = modification_time(path);
    ASSERT_TRUE(cache.load(key));
    EXPECT_TRUE(later(modification_time(path), before));
}

std::int64_t seconds_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

TEST(DiskCache, HitOnAnEntryMarkedWithinTheHourWritesNothing) {
    // Recency is kept coarsely: a hit marks the entry only when it was marked over an hour ago.
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), kLarge);
    const CacheKey key = random_key();
    cache.store(key, random_payload(10));
    const fs::path path = cache.entry_path(key);
    set_modification_time(path, seconds_now() - 50 * 60, 123);
    const timespec before = modification_time(path);
    ASSERT_TRUE(cache.load(key));
    const timespec after = modification_time(path);
    EXPECT_EQ(after.tv_sec, before.tv_sec);
    EXPECT_EQ(after.tv_nsec, before.tv_nsec);

    set_modification_time(path, seconds_now() - 70 * 60);
    ASSERT_TRUE(cache.load(key));
    EXPECT_GE(modification_time(path).tv_sec, seconds_now() - 60);
}

// ---- Bad entries: each is a miss, is removed, is counted; a new store works again. -------------

class BadEntry : public ::testing::Test {
protected:
    TemporaryDirectory dir;
    DiskCache cache{dir.path(), kLarge};
    CacheKey key = random_key();
    std::vector<std::byte> payload = random_payload(5000);

    fs::path stored() {
        cache.store(key, payload);
        return cache.entry_path(key);
    }

    void expect_dropped() {
        const fs::path path = cache.entry_path(key);
        EXPECT_FALSE(cache.load(key));
        EXPECT_FALSE(fs::exists(path)) << "the bad entry was left in place";
        const auto stats = cache.statistics();
        EXPECT_EQ(stats.corrupt_entries, 1U);
        EXPECT_EQ(stats.misses, 1U);
        EXPECT_EQ(stats.hits, 0U);
        // Recompiled and stored again, it is good.
        cache.store(key, payload);
        EXPECT_EQ(cache.load(key), payload);
    }

    void modify(const fs::path& path, std::size_t offset, char flip = 0x01) {
        auto bytes = read_file(path);
        ASSERT_LT(offset, bytes.size());
        bytes[offset] = static_cast<char>(bytes[offset] ^ flip);
        write_file(path, bytes);
    }
};

TEST_F(BadEntry, FlippedPayloadByte) {
    const fs::path path = stored();
    modify(path, kHeaderSize + 2500);
    expect_dropped();
}

TEST_F(BadEntry, FlippedLastPayloadByte) {
    const fs::path path = stored();
    modify(path, kHeaderSize + payload.size() - 1, static_cast<char>(0x80));
    expect_dropped();
}

TEST_F(BadEntry, TruncatedPayload) {
    const fs::path path = stored();
    fs::resize_file(path, kHeaderSize + payload.size() - 1);
    expect_dropped();
}

TEST_F(BadEntry, TruncatedHeader) {
    const fs::path path = stored();
    fs::resize_file(path, 20);
    expect_dropped();
}

TEST_F(BadEntry, EmptyFile) {
    const fs::path path = stored();
    fs::resize_file(path, 0);
    expect_dropped();
}

TEST_F(BadEntry, TrailingBytes) {
    const fs::path path = stored();
    auto bytes = read_file(path);
    bytes.push_back('x');
    write_file(path, bytes);
    expect_dropped();
}

TEST_F(BadEntry, WrongMagic) {
    const fs::path path = stored();
    modify(path, 0);
    expect_dropped();
}

TEST_F(BadEntry, WrongFormatVersion) {
    const fs::path path = stored();
    modify(path, 8, 0x7f);
    expect_dropped();
}

TEST_F(BadEntry, WrongPayloadSizeInHeader) {
    const fs::path path = stored();
    modify(path, 32);
    expect_dropped();
}

TEST_F(BadEntry, WrongChecksumInHeader) {
    const fs::path path = stored();
    modify(path, 40);
    expect_dropped();
}

TEST_F(BadEntry, FlippedKeyByteInHeader) {
    const fs::path path = stored();
    modify(path, 16 + 15);
    expect_dropped();
}

TEST_F(BadEntry, AnotherEntryUnderThisName) {
    // A good entry, but of another key (same size, valid checksum): only the key in the header
    // tells them apart.
    const CacheKey other = random_key();
    cache.store(other, random_payload(payload.size()));
    const fs::path path = cache.entry_path(key);
    fs::create_directories(path.parent_path());
    fs::rename(cache.entry_path(other), path);
    expect_dropped();
}

TEST_F(BadEntry, GarbageFile) {
    const fs::path path = cache.entry_path(key);
    fs::create_directories(path.parent_path());
    auto garbage = random_payload(300);
    write_file(path, std::vector<char>(reinterpret_cast<const char*>(garbage.data()),
                                       reinterpret_cast<const char*>(garbage.data()) + garbage.size()));
    expect_dropped();
}

// ---- Size bound ----------------------------------------------------------------------------------

TEST(DiskCacheEviction, LeastRecentlyUsedEntriesGoFirst) {
    TemporaryDirectory dir;
    constexpr std::size_t payload_size = 1000;
    constexpr std::uint64_t entry_size = kHeaderSize + payload_size;
    // Room for 10 entries; eviction goes down to 90%, i.e. 9 entries.
    DiskCache cache(dir.path(), 10 * entry_size);
    std::vector<CacheKey> keys;
    std::vector<std::vector<std::byte>> payloads;
    const auto add = [&] {
        keys.push_back(random_key());
        payloads.push_back(random_payload(payload_size));
        cache.store(keys.back(), payloads.back());
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    };
    for (int i = 0; i < 10; ++i) add();
    EXPECT_EQ(cache.statistics().evictions, 0U);
    for (std::size_t i = 0; i < 10; ++i) EXPECT_TRUE(fs::exists(cache.entry_path(keys[i]))) << i;
    // Stored two hours ago, in this order: a hit marks an entry used only when it was marked over
    // an hour ago (recency is kept coarsely).
    const std::int64_t long_ago = seconds_now() - 2 * 3600;
    for (std::size_t i = 0; i < 10; ++i)
        set_modification_time(cache.entry_path(keys[i]), long_ago + static_cast<std::int64_t>(i));

    // Use the three oldest: now 3 and 4 are the least recently used.
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(cache.load(keys[i]), payloads[i]);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    add();  // 11 entries: over the bound, down to 9

    EXPECT_EQ(cache.statistics().evictions, 2U);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const bool evicted = i == 3 || i == 4;
        EXPECT_EQ(fs::exists(cache.entry_path(keys[i])), !evicted) << i;
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto loaded = cache.load(keys[i]);
        if (i == 3 || i == 4) {
            EXPECT_FALSE(loaded) << i;
        } else {
            EXPECT_EQ(loaded, payloads[i]) << i;
        }
    }
    EXPECT_LE(cache.enforce_size_bound(), 10 * entry_size);
}

TEST(DiskCacheEviction, StaysBoundedUnderManyStores) {
    TemporaryDirectory dir;
    const std::uint64_t bound = 64 * 1024;
    DiskCache cache(dir.path(), bound);
    for (int i = 0; i < 300; ++i)
        cache.store(random_key(), random_payload(100 + static_cast<std::size_t>(i) * 7 % 3000));
    std::uint64_t total = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
        if (entry.is_regular_file()) total += entry.file_size();
    }
    EXPECT_LE(total, bound);
    EXPECT_GT(cache.statistics().evictions, 0U);
    EXPECT_EQ(cache.statistics().io_errors, 0U);
}

TEST(DiskCacheEviction, EntriesOfOtherProcessesCount) {
    // What another process stored is invisible to this one's running total; the scan at the first
    // store finds it.
    TemporaryDirectory dir;
    const std::uint64_t bound = 20 * 1024;
    {
        DiskCache writer(dir.path(), std::uint64_t{1} << 30);
        for (int i = 0; i < 40; ++i) writer.store(random_key(), random_payload(1000));
    }
    DiskCache cache(dir.path(), bound);
    cache.store(random_key(), random_payload(1000));
    EXPECT_GT(cache.statistics().evictions, 0U);
    EXPECT_LE(cache.enforce_size_bound(), bound);
}

TEST(DiskCacheEviction, AnEntryTooLargeForTheBoundIsNotStored) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path(), 1000);
    const CacheKey key = random_key();
    cache.store(key, random_payload(2000));
    EXPECT_FALSE(cache.load(key));
    EXPECT_FALSE(fs::exists(cache.entry_path(key)));
    EXPECT_EQ(cache.statistics().stores, 0U);
}

TEST(DiskCacheEviction, ScansTouchOnlyCacheFiles) {
    TemporaryDirectory dir;
    const std::uint64_t bound = 4 * 1024;
    // Files that are not the cache's, even where the cache would look, in a directory shared with
    // other things by mistake.
    std::ofstream(dir.path() / "notes.txt") << std::string(10000, 'n');
    fs::create_directories(dir.path() / "ab");
    std::ofstream(dir.path() / "ab" / "readme") << std::string(10000, 'r');
    std::ofstream(dir.path() / "ab" / "0123.bin") << std::string(10000, 'b');
    // A temporary file of a writer that died long ago, and one of a writer still at work.
    const std::string hex(32, 'a');
    const fs::path stale = dir.path() / "aa" / (hex + ".tmp.1.0.0123456789abcdef");
    const fs::path fresh = dir.path() / "aa" / (hex + ".tmp.2.0.0123456789abcdef");
    fs::create_directories(stale.parent_path());
    std::ofstream(stale) << "partial";
    std::ofstream(fresh) << "partial";
    set_modification_time(stale, 1000000000);

    DiskCache cache(dir.path(), bound);
    for (int i = 0; i < 20; ++i) cache.store(random_key(), random_payload(500));
    cache.enforce_size_bound();
    EXPECT_TRUE(fs::exists(dir.path() / "notes.txt"));
    EXPECT_TRUE(fs::exists(dir.path() / "ab" / "readme"));
    EXPECT_TRUE(fs::exists(dir.path() / "ab" / "0123.bin"));
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(fresh));
}

// ---- Disabled --------------------------------------------------------------------------------

TEST(DiskCacheDisabled, ByConstructor) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path() / "cache", kLarge, false);
    EXPECT_FALSE(cache.enabled());
    const CacheKey key = random_key();
    cache.store(key, random_payload(100));
    EXPECT_FALSE(cache.load(key));
    EXPECT_FALSE(fs::exists(dir.path() / "cache"));
    EXPECT_EQ(cache.statistics().stores, 0U);
    EXPECT_EQ(cache.statistics().misses, 1U);
}

TEST(DiskCacheDisabled, ByEnvironment) {
    TemporaryDirectory dir;
    const test::ScopedEnvironment location("KJARNI_CACHE_DIR", dir.path().string());
    for (const char* off : {"0", "off", "OFF", "false", "False", "no"}) {
        SCOPED_TRACE(off);
        const test::ScopedEnvironment switch_off("KJARNI_CACHE", off);
        DiskCache cache(DiskCacheSettings::from_environment());
        EXPECT_FALSE(cache.enabled());
        const CacheKey key = random_key();
        cache.store(key, random_payload(100));
        EXPECT_FALSE(cache.load(key));
        EXPECT_TRUE(fs::is_empty(dir.path()));
    }
    for (const char* on : {"1", "on", "yes", ""}) {
        SCOPED_TRACE(on);
        const test::ScopedEnvironment switch_on("KJARNI_CACHE", on);
        EXPECT_TRUE(DiskCacheSettings::from_environment().enabled);
    }
}

TEST(DiskCacheDisabled, UnusableDirectoryCountsErrorsAndThrowsNothing) {
    // The cache's directory is a file: nothing can be stored (even by root), and nothing throws.
    TemporaryDirectory dir;
    std::ofstream(dir.path() / "file") << "not a directory";
    DiskCache cache(dir.path() / "file", kLarge);
    const CacheKey key = random_key();
    cache.store(key, random_payload(100));
    EXPECT_FALSE(cache.load(key));
    EXPECT_EQ(cache.enforce_size_bound(), 0U);
    const auto stats = cache.statistics();
    EXPECT_GE(stats.io_errors, 1U);
    EXPECT_EQ(stats.stores, 0U);
    EXPECT_EQ(stats.misses, 1U);
}

}  // namespace
}  // namespace kjarni::detail
