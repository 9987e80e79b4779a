// Listing and clearing the on-disk cache (DiskCache::entries and clear, behind `kjarni cache`).

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <fstream>

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

void set_time(const fs::path& path, long seconds) {
    const timespec times[2] = {{seconds, 0}, {seconds, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

// Files where the cache looks that are not its entries: never listed, never removed.
void write_foreign_files(const fs::path& dir) {
    std::ofstream(dir / "notes.txt") << "n";
    fs::create_directories(dir / "ab");
    std::ofstream(dir / "ab" / "readme") << "r";
    std::ofstream(dir / "ab" / "0123.bin") << "b";
}

TEST(DiskCacheListing, ListsEveryEntryMostRecentlyUsedFirst) {
    TemporaryDirectory dir;
    write_foreign_files(dir.path());
    DiskCache cache(dir.path(), kLarge);
    const std::vector<CacheKey> keys = {random_key(), random_key(), random_key()};
    const std::vector<std::size_t> sizes = {10, 2000, 345};
    for (std::size_t i = 0; i < keys.size(); ++i) {
        cache.store(keys[i], random_payload(sizes[i]));
        set_time(cache.entry_path(keys[i]), 1000000000 + static_cast<long>(i));  // keys[2] the newest
    }
    ASSERT_TRUE(cache.load(keys[0]));  // now keys[0] is the most recently used

    const std::vector<DiskCacheEntryInfo> entries = cache.entries();
    ASSERT_EQ(entries.size(), 3U);
    const std::vector<std::size_t> expected_order = {0, 2, 1};
    for (std::size_t position = 0; position < entries.size(); ++position) {
        const std::size_t i = expected_order[position];
        SCOPED_TRACE(position);
        EXPECT_EQ(entries[position].path, cache.entry_path(keys[i]));
        EXPECT_EQ(entries[position].key_hex, cache.entry_path(keys[i]).stem().string());
        EXPECT_EQ(entries[position].size, kHeaderSize + sizes[i]);
    }
    EXPECT_GT(entries[0].last_used_ns, entries[1].last_used_ns);
    EXPECT_EQ(entries[1].last_used_ns, std::int64_t{1000000002} * 1000000000);
}

TEST(DiskCacheListing, AMissingDirectoryListsNothing) {
    TemporaryDirectory dir;
    DiskCache cache(dir.path() / "never-made", kLarge);
    EXPECT_TRUE(cache.entries().empty());
    EXPECT_EQ(cache.clear(), 0U);
}

TEST(DiskCacheListing, ClearRemovesTheEntriesOnly) {
    TemporaryDirectory dir;
    write_foreign_files(dir.path());
    DiskCache cache(dir.path(), kLarge);
    std::vector<CacheKey> keys;
    for (int i = 0; i < 4; ++i) {
        keys.push_back(random_key());
        cache.store(keys.back(), random_payload(100));
    }
    EXPECT_EQ(cache.clear(), 4U);
    EXPECT_TRUE(cache.entries().empty());
    for (const CacheKey& key : keys) EXPECT_FALSE(cache.load(key));
    EXPECT_TRUE(fs::exists(dir.path() / "notes.txt"));
    EXPECT_TRUE(fs::exists(dir.path() / "ab" / "readme"));
    EXPECT_TRUE(fs::exists(dir.path() / "ab" / "0123.bin"));
    // The cache works on after a clear.
    const auto payload = random_payload(77);
    cache.store(keys[0], payload);
    EXPECT_EQ(cache.load(keys[0]), payload);
    EXPECT_EQ(cache.entries().size(), 1U);
}

}  // namespace
}  // namespace kjarni::detail
