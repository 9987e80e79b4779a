// The public view of the disk cache (include/kjarni/disk_cache.hpp) over program/cache.

#include "kjarni/disk_cache.hpp"

#include "program/cache/disk_cache.hpp"

namespace kjarni {

std::uint64_t DiskCacheContents::total_bytes() const noexcept {
    std::uint64_t total = 0;
    for (const DiskCacheEntry& entry : entries) total += entry.size;
    return total;
}

DiskCacheContents disk_cache_contents() {
    detail::DiskCache& cache = detail::DiskCache::instance();
    DiskCacheContents contents;
    contents.directory = cache.directory();
    contents.enabled = cache.enabled() && !cache.directory().empty();
    contents.max_bytes = cache.max_bytes();
    if (contents.directory.empty()) return contents;
    for (const detail::DiskCacheEntryInfo& entry : cache.entries()) {
        contents.entries.push_back(DiskCacheEntry{entry.key_hex, entry.path, entry.size,
                                                  std::chrono::system_clock::time_point(
                                                      std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                                          std::chrono::nanoseconds(entry.last_used_ns)))});
    }
    return contents;
}

std::size_t clear_disk_cache() {
    detail::DiskCache& cache = detail::DiskCache::instance();
    return cache.directory().empty() ? 0 : cache.clear();
}

}  // namespace kjarni
