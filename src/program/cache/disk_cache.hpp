#pragma once
// The on-disk compilation cache: one file per key, written atomically, verified when read, bounded
// in size by least-recently-used eviction. Shared by the threads of a process and by processes.
//
// A cache never makes a compile fail: load() and store() throw nothing; what goes wrong (a bad
// entry, a full disk, a read-only directory) is a miss or a skipped store, and is counted.
//
// Trust: entries are code that gets loaded and run, so only what the effective user wrote is read.
// A cache directory (or a symlink to one) owned by another user is not used at all; an entry that
// is a symlink, belongs to another user or is writable by the group or others is a miss, never
// read. Directories are made with mode 0755 and entries with 0644 (less what the umask takes).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "program/cache/bytes.hpp"
#include "program/cache/cache_key.hpp"

namespace kjarni::detail {

/// A snapshot of a DiskCache's counters (since it was made).
struct DiskCacheStatistics {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;           ///< every load that returned nothing, bad entries included
    std::uint64_t stores = 0;           ///< entries written
    std::uint64_t corrupt_entries = 0;  ///< entries found bad when read, and removed
    std::uint64_t evictions = 0;        ///< entries removed to keep under the size bound
    std::uint64_t io_errors = 0;        ///< failed reads, writes, renames, directory creations
};

/// One entry as a scan of the directory finds it.
struct DiskCacheEntryInfo {
    std::filesystem::path path;
    std::string key_hex;            ///< the 32 hex digits of the file's name
    std::uint64_t size = 0;         ///< of the file, header included
    std::int64_t last_used_ns = 0;  ///< modification time (stores set it, hits refresh it hourly), since the epoch
};

struct DiskCacheSettings {
    static constexpr std::uint64_t default_max_bytes = std::uint64_t{1} << 30;

    std::filesystem::path directory;
    std::uint64_t max_bytes = default_max_bytes;
    bool enabled = true;

    /// From the environment:
    /// - directory: $KJARNI_CACHE_DIR, else $XDG_CACHE_HOME/kjarni (if absolute, as the XDG
    ///   specification asks), else $HOME/.cache/kjarni; if none is set the cache is disabled;
    /// - enabled: unless $KJARNI_CACHE is 0, off, false or no (any case);
    /// - max_bytes: $KJARNI_CACHE_MAX_BYTES, a number of bytes with an optional K, M or G suffix
    ///   (powers of 1024); 1 GiB if unset or unreadable.
    /// Empty variables count as unset.
    static DiskCacheSettings from_environment();
};

class DiskCache {
public:
    explicit DiskCache(DiskCacheSettings settings);
    DiskCache(std::filesystem::path directory, std::uint64_t max_bytes, bool enabled = true);
    DiskCache(const DiskCache&) = delete;
    DiskCache& operator=(const DiskCache&) = delete;

    /// The process-wide cache, configured from the environment when first used.
    static DiskCache& instance();
    /// The cache of another directory and / or size bound than the environment's (the rest as
    /// instance()'s); instance() itself when neither is given. A directory given here is used even
    /// where the environment turns the cache off. One object per directory and bound, for the
    /// process's life. Thread-safe.
    static DiskCache& shared(const std::optional<std::filesystem::path>& directory,
                             std::optional<std::uint64_t> max_bytes);

    bool enabled() const noexcept { return settings_.enabled; }
    const std::filesystem::path& directory() const noexcept { return settings_.directory; }
    std::uint64_t max_bytes() const noexcept { return settings_.max_bytes; }

    /// The payload stored under `key`, or nothing: no entry, the cache disabled, or an entry found
    /// bad (wrong magic or version, another key, wrong size, wrong checksum, truncated), which is
    /// removed. A hit makes the entry the most recently used if it was last marked so over an hour
    /// ago (recency is kept to the hour: see kTouchIntervalSeconds).
    std::optional<Bytes> load(const CacheKey& key) noexcept;

    /// Stores `payload` under `key` (replacing any entry), then evicts least recently used entries
    /// if the cache may have grown past its bound. Does nothing if disabled, or if the entry alone
    /// would take more than 90% of the bound.
    void store(const CacheKey& key, std::span<const std::byte> payload) noexcept;

    DiskCacheStatistics statistics() const noexcept;

    /// Where the entry of `key` lives: <directory>/<first 2 hex digits>/<32 hex digits>.bin.
    std::filesystem::path entry_path(const CacheKey& key) const;

    /// Scans the whole directory now and evicts down to 90% of the bound if it is over it (store()
    /// does this when needed; this is for tests and tools). Returns the entries' total size after.
    std::uint64_t enforce_size_bound() noexcept;

    /// Every entry in the directory now, most recently used first (for tools).
    std::vector<DiskCacheEntryInfo> entries() const;
    /// Removes every entry (and stale temporary file); returns how many entries went. Entries that
    /// other processes store meanwhile may survive.
    std::size_t clear() noexcept;

private:
    void maybe_enforce_size_bound() noexcept;
    std::uint64_t scan_and_evict();
    void drop_corrupt(const std::filesystem::path& path, int fd) noexcept;

    DiskCacheSettings settings_;

    std::atomic<std::uint64_t> hits_{0};
    std::atomic<std::uint64_t> misses_{0};
    std::atomic<std::uint64_t> stores_{0};
    std::atomic<std::uint64_t> corrupt_entries_{0};
    std::atomic<std::uint64_t> evictions_{0};
    std::atomic<std::uint64_t> io_errors_{0};

    // Eviction bookkeeping (see maybe_enforce_size_bound()).
    std::mutex scan_mutex_;             // one scan at a time in this process
    std::atomic<bool> scanned_{false};  // approximate_total_ comes from a scan
    std::atomic<std::uint64_t> approximate_total_{0};
    std::atomic<std::uint64_t> stores_since_scan_{0};
};

}  // namespace kjarni::detail
