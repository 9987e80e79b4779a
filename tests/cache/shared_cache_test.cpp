// DiskCache::shared: the caches of a context's or a program's own directory and size bound
// (issue 43, items 6 and 14): one object per directory and bound, used whatever the environment
// says of the process-wide cache, and the process-wide cache itself when nothing is asked.

#include <gtest/gtest.h>

#include "cache_test_support.hpp"
#include "program/cache/disk_cache.hpp"

namespace kjarni::detail {
namespace {

using test::random_key;
using test::random_payload;
using test::TemporaryDirectory;

TEST(SharedDiskCache, OneObjectPerDirectoryAndBound) {
    EXPECT_EQ(&DiskCache::shared(std::nullopt, std::nullopt), &DiskCache::instance());
    const TemporaryDirectory directory;
    DiskCache& a = DiskCache::shared(directory.path(), 1 << 20);
    EXPECT_EQ(&DiskCache::shared(directory.path(), 1 << 20), &a);
    EXPECT_NE(&DiskCache::shared(directory.path(), 2 << 20), &a);
    EXPECT_EQ(a.directory(), directory.path());
    EXPECT_EQ(a.max_bytes(), 1u << 20);
    EXPECT_TRUE(a.enabled()) << "a directory asked for is used whatever KJARNI_CACHE says";
    // A bound alone keeps the environment's directory and switch.
    DiskCache& bounded = DiskCache::shared(std::nullopt, 3 << 20);
    EXPECT_EQ(bounded.directory(), DiskCache::instance().directory());
    EXPECT_EQ(bounded.enabled(), DiskCache::instance().enabled());
    EXPECT_EQ(bounded.max_bytes(), 3u << 20);
}

TEST(SharedDiskCache, StoresAndLoadsInItsDirectory) {
    const TemporaryDirectory directory;
    DiskCache& cache = DiskCache::shared(directory.path(), 1 << 20);
    const CacheKey key = random_key();
    const auto payload = random_payload(1000);
    cache.store(key, payload);
    EXPECT_TRUE(std::filesystem::exists(cache.entry_path(key)));
    EXPECT_EQ(cache.entry_path(key).parent_path().parent_path(), directory.path());
    const auto loaded = cache.load(key);
    ASSERT_TRUE(loaded.has_value());
    EXPECT_TRUE(std::equal(loaded->begin(), loaded->end(), payload.begin(), payload.end()));
}

}  // namespace
}  // namespace kjarni::detail
