// The disk cache's entries read and written: the shared caches by directory, load (a trusted, whole,
// matching entry or nothing) and store (written aside, then renamed into place).

#include "program/cache/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <system_error>

#include "program/cache/entry_file.hpp"

namespace kjarni::detail {

namespace fs = std::filesystem;
using disk_entry::checksum;
using disk_entry::directory_is_ours;
using disk_entry::due_for_touch;
using disk_entry::entry_is_ours;
using disk_entry::FileDescriptor;
using disk_entry::get_u32;
using disk_entry::get_u64;
using disk_entry::Header;
using disk_entry::kEntrySuffix;
using disk_entry::kFormatVersion;
using disk_entry::kHeaderSize;
using disk_entry::kMagic;
using disk_entry::make_directories;
using disk_entry::make_header;
using disk_entry::read_entry;
using disk_entry::ReadResult;
using disk_entry::target_bytes;
using disk_entry::temporary_name;
using disk_entry::touch;
using disk_entry::write_all;

// ---- DiskCache -----------------------------------------------------------------------------------

DiskCache::DiskCache(DiskCacheSettings settings) : settings_(std::move(settings)) {
    if (settings_.directory.empty()) settings_.enabled = false;
}

DiskCache::DiskCache(std::filesystem::path directory, std::uint64_t max_bytes, bool enabled)
    : DiskCache(DiskCacheSettings{std::move(directory), max_bytes, enabled}) {}

DiskCache& DiskCache::instance() {
    static DiskCache cache(DiskCacheSettings::from_environment());
    return cache;
}

DiskCache& DiskCache::shared(const std::optional<fs::path>& directory, std::optional<std::uint64_t> max_bytes) {
    if (!directory && !max_bytes) return instance();
    DiskCacheSettings settings = instance().settings_;
    if (directory) {
        settings.directory = *directory;
        // Asked for by the program itself: used whatever KJARNI_CACHE says.
        settings.enabled = true;
    }
    if (max_bytes) settings.max_bytes = *max_bytes;
    // One object per directory and bound, so that its statistics and eviction bookkeeping are
    // shared by every program using it. Never destroyed: programs may store while static objects
    // are destroyed at exit.
    static std::mutex mutex;
    static auto& caches = *new std::map<std::pair<fs::path, std::uint64_t>, std::unique_ptr<DiskCache>>();
    const std::lock_guard lock(mutex);
    auto& slot = caches[{settings.directory, settings.max_bytes}];
    if (!slot) slot = std::make_unique<DiskCache>(settings);
    return *slot;
}

fs::path DiskCache::entry_path(const CacheKey& key) const {
    const std::string hex = key.hex();
    return settings_.directory / hex.substr(0, 2) / (hex + std::string(kEntrySuffix));
}

DiskCacheStatistics DiskCache::statistics() const noexcept {
    DiskCacheStatistics s;
    s.hits = hits_.load();
    s.misses = misses_.load();
    s.stores = stores_.load();
    s.corrupt_entries = corrupt_entries_.load();
    s.evictions = evictions_.load();
    s.io_errors = io_errors_.load();
    return s;
}

void DiskCache::drop_corrupt(const fs::path& path, int fd) noexcept {
    ++corrupt_entries_;
    // Entries are only ever replaced by a rename, never changed in place: remove the file only if
    // the name still holds the one read, not a good entry another writer has just put there.
    struct stat opened {};
    struct stat named {};
    if (::fstat(fd, &opened) == 0 && ::lstat(path.c_str(), &named) == 0 && opened.st_dev == named.st_dev &&
        opened.st_ino == named.st_ino) {
        ::unlink(path.c_str());
    }
}

std::optional<Bytes> DiskCache::load(const CacheKey& key) noexcept {
    if (!settings_.enabled) {
        ++misses_;
        return std::nullopt;
    }
    try {
        if (!directory_is_ours(settings_.directory)) {
            ++io_errors_;
            ++misses_;
            return std::nullopt;
        }
        const fs::path path = entry_path(key);
        // O_NOFOLLOW: an entry's name that is a symlink is not an entry (it fails with ELOOP).
        FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        const int fd = file.get();
        if (fd < 0) {
            if (errno == ELOOP) {
                ++corrupt_entries_;
            } else if (errno != ENOENT && errno != ENOTDIR) {
                ++io_errors_;
            }
            ++misses_;
            return std::nullopt;
        }
        const auto miss = [&](bool corrupt) -> std::optional<Bytes> {
            if (corrupt) {
                drop_corrupt(path, fd);
            } else {
                ++io_errors_;
            }
            ++misses_;
            return std::nullopt;
        };

        struct stat info {};
        if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return miss(false);
        if (!entry_is_ours(info)) {
            // Someone else's file: never read, and not ours to remove.
            ++corrupt_entries_;
            ++misses_;
            return std::nullopt;
        }
        const auto file_size = static_cast<std::uint64_t>(info.st_size);

        if (file_size < kHeaderSize) return miss(true);  // truncated
        if (file_size - kHeaderSize > settings_.max_bytes) {
            // Larger than the cache holds now (the bound was lowered): not read, left to eviction.
            ++misses_;
            return std::nullopt;
        }
        Header header{};
        Bytes payload(static_cast<std::size_t>(file_size - kHeaderSize));  // not zeroed: read over at once
        switch (read_entry(fd, header, payload)) {
        case ReadResult::ok: break;
        case ReadResult::short_read: return miss(true);  // truncated
        case ReadResult::error: return miss(false);
        }
        if (!std::equal(kMagic.begin(), kMagic.end(), header.begin())) return miss(true);
        if (get_u32(header.data() + 8) != kFormatVersion) return miss(true);
        if (get_u32(header.data() + 12) != kHeaderSize) return miss(true);
        std::array<std::byte, 16> key_bytes{};
        for (std::size_t i = 0; i < key_bytes.size(); ++i) key_bytes[i] = static_cast<std::byte>(header[16 + i]);
        if (CacheKey::from_bytes(key_bytes) != key) return miss(true);
        const std::uint64_t payload_size = get_u64(header.data() + 32);
        if (file_size - kHeaderSize != payload_size) return miss(true);
        if (checksum(payload) != get_u64(header.data() + 40)) return miss(true);

        if (due_for_touch(info.st_mtim)) touch(fd);
        ++hits_;
        return payload;
    } catch (...) {  // out of memory, most likely
        ++io_errors_;
        ++misses_;
        return std::nullopt;
    }
}

void DiskCache::store(const CacheKey& key, std::span<const std::byte> payload) noexcept {
    if (!settings_.enabled) return;
    std::string temporary;  // removed unless renamed into place
    try {
        const std::uint64_t entry_size = kHeaderSize + std::uint64_t{payload.size()};
        if (entry_size > target_bytes(settings_.max_bytes)) return;

        const fs::path final_path = entry_path(key);
        if (!make_directories(settings_.directory) || !directory_is_ours(settings_.directory) ||
            !make_directories(final_path.parent_path())) {
            ++io_errors_;
            return;
        }
        const std::string hex = key.hex();
        const fs::path temporary_path = final_path.parent_path() / temporary_name(hex);

        // Write the whole entry under a name nobody else uses, then rename it over the entry's
        // name: rename() is atomic, so a reader (or a concurrent writer of the same key) sees the
        // old file or the new one, never a part of either. No fsync: after a crash a torn or empty
        // entry fails verification when read, and is recompiled.
        FileDescriptor file(::open(temporary_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
        if (file.get() < 0) {
            ++io_errors_;
            return;
        }
        temporary = temporary_path.string();
        const Header header = make_header(key, payload);
        bool ok = write_all(file.get(), header.data(), header.size()) &&
                  write_all(file.get(), payload.data(), payload.size());
        if (ok) touch(file.get());
        ok = file.close() && ok;
        if (!ok || ::rename(temporary.c_str(), final_path.c_str()) != 0) {
            ++io_errors_;
            ::unlink(temporary.c_str());
            return;
        }
        temporary.clear();
        ++stores_;
        approximate_total_ += entry_size;
        ++stores_since_scan_;
    } catch (...) {
        ++io_errors_;
        if (!temporary.empty()) ::unlink(temporary.c_str());
        return;
    }
    maybe_enforce_size_bound();
}

}  // namespace kjarni::detail
