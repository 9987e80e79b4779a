// Where the cache lives, whether it is on and how large it may grow, as the environment says.

#include <gtest/gtest.h>

#include "cache_test_support.hpp"
#include "program/cache/disk_cache.hpp"

namespace kjarni::detail {
namespace {

using test::ScopedEnvironment;

// Every variable the settings read, unset for the test and restored afterwards.
class CacheEnvironment : public ::testing::Test {
protected:
    ScopedEnvironment dir{"KJARNI_CACHE_DIR", std::nullopt};
    ScopedEnvironment xdg{"XDG_CACHE_HOME", std::nullopt};
    ScopedEnvironment home{"HOME", std::nullopt};
    ScopedEnvironment on{"KJARNI_CACHE", std::nullopt};
    ScopedEnvironment max{"KJARNI_CACHE_MAX_BYTES", std::nullopt};
};

TEST_F(CacheEnvironment, ExplicitDirectoryComesFirst) {
    const ScopedEnvironment a("KJARNI_CACHE_DIR", "/somewhere/kc");
    const ScopedEnvironment b("XDG_CACHE_HOME", "/xdg");
    const ScopedEnvironment c("HOME", "/home/u");
    const auto settings = DiskCacheSettings::from_environment();
    EXPECT_EQ(settings.directory, "/somewhere/kc");
    EXPECT_TRUE(settings.enabled);
    EXPECT_EQ(settings.max_bytes, DiskCacheSettings::default_max_bytes);
    EXPECT_EQ(DiskCacheSettings::default_max_bytes, std::uint64_t{1} << 30);
}

TEST_F(CacheEnvironment, ThenXdgCacheHome) {
    const ScopedEnvironment b("XDG_CACHE_HOME", "/xdg");
    const ScopedEnvironment c("HOME", "/home/u");
    EXPECT_EQ(DiskCacheSettings::from_environment().directory, "/xdg/kjarni");
    const ScopedEnvironment empty("KJARNI_CACHE_DIR", "");  // empty counts as unset
    EXPECT_EQ(DiskCacheSettings::from_environment().directory, "/xdg/kjarni");
}

TEST_F(CacheEnvironment, ThenHome) {
    const ScopedEnvironment c("HOME", "/home/u");
    EXPECT_EQ(DiskCacheSettings::from_environment().directory, "/home/u/.cache/kjarni");
    // The XDG specification ignores a relative XDG_CACHE_HOME, and so do we.
    const ScopedEnvironment relative("XDG_CACHE_HOME", "relative/cache");
    EXPECT_EQ(DiskCacheSettings::from_environment().directory, "/home/u/.cache/kjarni");
    const ScopedEnvironment empty("XDG_CACHE_HOME", "");
    EXPECT_EQ(DiskCacheSettings::from_environment().directory, "/home/u/.cache/kjarni");
}

TEST_F(CacheEnvironment, NowhereMeansDisabled) {
    const auto settings = DiskCacheSettings::from_environment();
    EXPECT_FALSE(settings.enabled);
    EXPECT_FALSE(DiskCache(settings).enabled());
}

TEST_F(CacheEnvironment, EmptyDirectoryDisablesTheCache) {
    EXPECT_FALSE(DiskCache(DiskCacheSettings{"", 1000, true}).enabled());
}

TEST_F(CacheEnvironment, MaxBytes) {
    const ScopedEnvironment a("KJARNI_CACHE_DIR", "/c");
    const auto max_bytes = [](const char* value) {
        const ScopedEnvironment m("KJARNI_CACHE_MAX_BYTES", value);
        return DiskCacheSettings::from_environment().max_bytes;
    };
    EXPECT_EQ(max_bytes("12345"), 12345U);
    EXPECT_EQ(max_bytes("64K"), 64U << 10);
    EXPECT_EQ(max_bytes("64k"), 64U << 10);
    EXPECT_EQ(max_bytes("300M"), 300U << 20);
    EXPECT_EQ(max_bytes("300MiB"), 300U << 20);
    EXPECT_EQ(max_bytes("2G"), std::uint64_t{2} << 30);
    EXPECT_EQ(max_bytes("2GB"), std::uint64_t{2} << 30);
    // Unreadable values leave the default.
    for (const char* bad : {"", "lots", "-5", "12T", "5 M", "99999999999999999999", "17179869184G"}) {
        EXPECT_EQ(max_bytes(bad), DiskCacheSettings::default_max_bytes) << bad;
    }
}

TEST_F(CacheEnvironment, RestoresWhatItChanged) {
    // The fixture's guards: set, then gone again at the end of a scope.
    {
        const ScopedEnvironment a("KJARNI_CACHE_DIR", "/x");
        EXPECT_STREQ(std::getenv("KJARNI_CACHE_DIR"), "/x");
    }
    EXPECT_EQ(std::getenv("KJARNI_CACHE_DIR"), nullptr);
}

TEST_F(CacheEnvironment, InstanceUsesTheEnvironment) {
    // The process-wide instance is configured once, at its first use (this test, in this suite;
    // the same environment each time, so that the test may be repeated). Nothing is stored, so
    // the directory is never made.
    const auto location = std::filesystem::temp_directory_path() / "kjarni-cache-test-instance";
    const ScopedEnvironment a("KJARNI_CACHE_DIR", location.string());
    const ScopedEnvironment b("KJARNI_CACHE_MAX_BYTES", "5M");
    DiskCache& cache = DiskCache::instance();
    EXPECT_EQ(&cache, &DiskCache::instance());
    EXPECT_EQ(cache.directory(), location);
    EXPECT_EQ(cache.max_bytes(), 5U << 20);
    EXPECT_TRUE(cache.enabled());
}

}  // namespace
}  // namespace kjarni::detail
