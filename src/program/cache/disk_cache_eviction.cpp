// Keeping the disk cache within its bound: when a store scans the directory, the scan that evicts the
// least recently used entries (and temporary files writers left), and the listing and clearing of entries.

#include "program/cache/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <system_error>
#include <vector>

#include "program/cache/entry_file.hpp"

namespace kjarni::detail {

namespace fs = std::filesystem;
using disk_entry::directory_is_ours;
using disk_entry::is_entry_name;
using disk_entry::is_hex;
using disk_entry::is_temporary_name;
using disk_entry::kEntrySuffix;
using disk_entry::target_bytes;

namespace {

// A store rescans the directory at least every so many stores (see maybe_enforce_size_bound()).
constexpr std::uint64_t kRescanEvery = 64;
// Temporary files older than this were left by a writer that died: scans remove them.
constexpr auto kStaleTemporaryAge = std::chrono::hours(1);

/// Calls visit(path, file name) for each file of the cache's buckets, <directory>/<2 hex digits>/*
/// (nothing else is looked at); gives the error of reading `directory` itself, if any.
template <class Visit>
std::error_code for_each_bucket_file(const fs::path& directory, Visit visit) {
    std::error_code error;
    for (fs::directory_iterator top(directory, error), end; !error && top != end; top.increment(error)) {
        const std::string bucket = top->path().filename().string();
        if (bucket.size() != 2 || !is_hex(bucket)) continue;
        std::error_code inner_error;
        for (fs::directory_iterator it(top->path(), inner_error); !inner_error && it != end; it.increment(inner_error))
            visit(it->path(), it->path().filename().string());
    }
    return error;
}

}  // namespace

// When to scan. Summing the sizes of all entries means a stat() per file, which is too much for
// every store, and only this process's stores are seen as they happen. So each process keeps an
// approximate running total: it is set by a full scan, then every store adds its entry's size (a
// replaced entry is counted twice, which errs towards scanning early). A store scans when
//  - this process has not scanned yet (its first store), so that even short-lived processes that
//    store a few entries each keep the directory bounded;
//  - the running total exceeds the bound;
//  - kRescanEvery stores went by since the last scan, to catch what other processes added: the
//    directory overshoots its bound by at most what the processes sharing it store in that time.
// A scan that finds the total over the bound evicts the least recently used entries (oldest
// modification time; a hit refreshes it) until the total is under 90% of the bound, so that a
// bounded cache in steady state scans and evicts once every tenth of its size, not at every store.
void DiskCache::maybe_enforce_size_bound() noexcept {
    const bool due = !scanned_.load() || approximate_total_.load() > settings_.max_bytes ||
                     stores_since_scan_.load() >= kRescanEvery;
    if (due) enforce_size_bound();
}

std::uint64_t DiskCache::enforce_size_bound() noexcept {
    if (!settings_.enabled) return 0;
    // One scan at a time in this process: a thread that finds one under way leaves it to that one.
    std::unique_lock lock(scan_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return approximate_total_.load();
    try {
        return scan_and_evict();
    } catch (...) {
        ++io_errors_;
        return approximate_total_.load();
    }
}

std::uint64_t DiskCache::scan_and_evict() {
    struct Entry {
        fs::path path;
        std::uint64_t size;
        timespec modified;
    };
    std::vector<Entry> entries;
    std::uint64_t total = 0;
    const auto stale_before = std::chrono::system_clock::now() - kStaleTemporaryAge;
    const auto stale_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(stale_before.time_since_epoch()).count();

    // Only <2 hex digits>/<32 hex digits>.bin (and our temporary files) are looked at, let alone
    // removed, even if the directory was pointed somewhere it shares with other files; and nothing
    // at all in a directory of another user's.
    if (!directory_is_ours(settings_.directory)) {
        ++io_errors_;
        return 0;
    }
    const std::error_code error =
        for_each_bucket_file(settings_.directory, [&](const fs::path& path, const std::string& name) {
            const bool entry = is_entry_name(name);
            if (!entry && !is_temporary_name(name)) return;
            struct stat info {};
            if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
            if (!entry) {
                if (info.st_mtim.tv_sec < stale_seconds) ::unlink(path.c_str());
                return;
            }
            const auto size = static_cast<std::uint64_t>(info.st_size);
            entries.push_back(Entry{path, size, info.st_mtim});
            total += size;
        });
    if (error && error != std::errc::no_such_file_or_directory) ++io_errors_;

    if (total > settings_.max_bytes) {
        std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
            if (a.modified.tv_sec != b.modified.tv_sec) return a.modified.tv_sec < b.modified.tv_sec;
            if (a.modified.tv_nsec != b.modified.tv_nsec) return a.modified.tv_nsec < b.modified.tv_nsec;
            return a.path < b.path;
        });
        const std::uint64_t target = target_bytes(settings_.max_bytes);
        for (const Entry& victim : entries) {
            if (total <= target) break;
            if (::unlink(victim.path.c_str()) == 0) {
                ++evictions_;
                total -= victim.size;
            } else if (errno == ENOENT) {
                total -= victim.size;  // another process evicted it first
            } else {
                ++io_errors_;
            }
        }
    }

    approximate_total_.store(total);
    stores_since_scan_.store(0);
    scanned_.store(true);
    return total;
}

std::vector<DiskCacheEntryInfo> DiskCache::entries() const {
    std::vector<DiskCacheEntryInfo> found;
    if (!directory_is_ours(settings_.directory)) return found;  // not the cache's: nothing of ours there
    // A directory that cannot be read lists nothing.
    static_cast<void>(for_each_bucket_file(settings_.directory, [&](const fs::path& path, const std::string& name) {
        struct stat info {};
        if (!is_entry_name(name) || ::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
        found.push_back(DiskCacheEntryInfo{path, name.substr(0, name.size() - kEntrySuffix.size()),
                                           static_cast<std::uint64_t>(info.st_size),
                                           std::int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec});
    }));
    std::sort(found.begin(), found.end(), [](const DiskCacheEntryInfo& a, const DiskCacheEntryInfo& b) {
        return a.last_used_ns != b.last_used_ns ? a.last_used_ns > b.last_used_ns : a.path < b.path;
    });
    return found;
}

std::size_t DiskCache::clear() noexcept {
    std::size_t removed = 0;
    try {
        for (const DiskCacheEntryInfo& entry : entries()) {
            if (::unlink(entry.path.c_str()) == 0) ++removed;
        }
    } catch (...) {
        ++io_errors_;  // out of memory while listing: what was removed stays removed
    }
    approximate_total_.store(0);
    scanned_.store(false);
    return removed;
}

}  // namespace kjarni::detail
