#pragma once
/// The on-disk cache of compiled programs seen from outside: where it is, what it holds, and
/// emptying it (the `kjarni cache` command). Programs use the cache on their own; the environment
/// configures it (KJARNI_CACHE, KJARNI_CACHE_DIR, KJARNI_CACHE_MAX_BYTES: see the README). \file

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kjarni {

/// One compiled binary in the on-disk cache: its key, file, size and last use.
struct DiskCacheEntry {
    /// 32 hex digits: the hash of everything that changes the binary.
    std::string key;
    std::filesystem::path path;
    /// Bytes on disk (the binary and a small header).
    std::uint64_t size = 0;
    /// When last stored or loaded (to the hour: a load within an hour of the last one does not
    /// change it): the least recently used entries are evicted first.
    std::chrono::system_clock::time_point last_used;
};

/// What the on-disk cache of compiled programs holds: its directory, settings and entries.
struct DiskCacheContents {
    /// Empty when no directory could be found (neither KJARNI_CACHE_DIR, XDG_CACHE_HOME nor HOME).
    std::filesystem::path directory;
    /// False when KJARNI_CACHE turns the cache off or there is no directory.
    bool enabled = false;
    /// The bound on the entries' total size.
    std::uint64_t max_bytes = 0;
    /// Most recently used first.
    std::vector<DiskCacheEntry> entries;

    std::uint64_t total_bytes() const noexcept;
};

/// The cache that programs of this process use, scanned now.
DiskCacheContents disk_cache_contents();

/// Removes every entry of that cache (programs compile again when next built) and returns how many
/// went. Entries that other processes store meanwhile may survive.
std::size_t clear_disk_cache();

}  // namespace kjarni
