#include "program/cache/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

namespace kjarni::detail {

namespace fs = std::filesystem;

namespace {

// ---- Entry format -------------------------------------------------------------------------------
// One file per key, <dir>/<hex[0:2]>/<hex>.bin: a 64-byte header, then the payload. All integers
// are little-endian whatever the host.
//   offset  size  field
//        0     8  magic "kjcache\n"
//        8     4  format version (kFormatVersion)
//       12     4  header size (64)
//       16    16  the key, canonical (big-endian) bytes
//       32     8  payload size in bytes
//       40     8  XXH3-64 of the payload
//       48    16  reserved, written as zeros
// An entry is trusted only if all of these agree with the key asked for and with the file's size.
constexpr std::array<unsigned char, 8> kMagic = {'k', 'j', 'c', 'a', 'c', 'h', 'e', '\n'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kHeaderSize = 64;
using Header = std::array<unsigned char, kHeaderSize>;

// Evict down to this fraction of the bound, so that the next few stores do not evict again.
constexpr std::uint64_t kTargetPercent = 90;
// A store rescans the directory at least every so many stores (see maybe_enforce_size_bound()).
constexpr std::uint64_t kRescanEvery = 64;
// Temporary files older than this were left by a writer that died: scans remove them.
constexpr auto kStaleTemporaryAge = std::chrono::hours(1);
// A hit marks its entry as used (its modification time, which eviction sorts by) only when it was
// last marked longer ago than this. Marking is a metadata write (an inode update, a journal entry:
// microseconds on every hit, more on network file systems), and LRU eviction needs only coarse
// recency: the bound is reached after many stores, and an entry in use is then marked at most this
// much too early, so it goes before entries stored or marked later within the interval, but never
// before one unused for longer. A stored entry is marked when written.
constexpr std::int64_t kTouchIntervalSeconds = 3600;

constexpr std::string_view kEntrySuffix = ".bin";
constexpr std::string_view kTemporaryMarker = ".tmp.";

void put_u32(unsigned char* out, std::uint32_t value) noexcept {
    for (std::size_t i = 0; i < 4; ++i) out[i] = static_cast<unsigned char>((value >> (8 * i)) & 0xffU);
}
void put_u64(unsigned char* out, std::uint64_t value) noexcept {
    for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>((value >> (8 * i)) & 0xffU);
}
std::uint32_t get_u32(const unsigned char* in) noexcept {
    std::uint32_t value = 0;
    for (std::size_t i = 4; i-- > 0;) value = (value << 8) | in[i];
    return value;
}
std::uint64_t get_u64(const unsigned char* in) noexcept {
    std::uint64_t value = 0;
    for (std::size_t i = 8; i-- > 0;) value = (value << 8) | in[i];
    return value;
}

std::uint64_t checksum(std::span<const std::byte> payload) noexcept {
    return XXH3_64bits(payload.data(), payload.size());
}

Header make_header(const CacheKey& key, std::span<const std::byte> payload) noexcept {
    Header header{};
    std::copy(kMagic.begin(), kMagic.end(), header.begin());
    put_u32(header.data() + 8, kFormatVersion);
    put_u32(header.data() + 12, static_cast<std::uint32_t>(kHeaderSize));
    const auto key_bytes = key.bytes();
    for (std::size_t i = 0; i < key_bytes.size(); ++i) header[16 + i] = std::to_integer<unsigned char>(key_bytes[i]);
    put_u64(header.data() + 32, payload.size());
    put_u64(header.data() + 40, checksum(payload));
    return header;
}

// Closes a file descriptor when it goes.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
    ~FileDescriptor() { close(); }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const noexcept { return fd_; }
    bool close() noexcept {
        if (fd_ < 0) return true;
        const int status = ::close(fd_);
        fd_ = -1;
        return status == 0;
    }

private:
    int fd_;
};

enum class ReadResult { ok, short_read, error };

ReadResult read_exact(int fd, void* data, std::size_t size, std::uint64_t offset) noexcept {
    auto* out = static_cast<unsigned char*>(data);
    while (size > 0) {
        const ssize_t n = ::pread(fd, out, std::min<std::size_t>(size, std::size_t{1} << 30),
                                  static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            return ReadResult::error;
        }
        if (n == 0) return ReadResult::short_read;
        const auto done = static_cast<std::size_t>(n);
        out += done;
        size -= done;
        offset += done;
    }
    return ReadResult::ok;
}

/// Reads `header` then `payload` from the start of the file in one system call where it can (a
/// cache hit costs a handful of system calls, slow on some file systems), reading on with pread
/// if the call returns less.
ReadResult read_entry(int fd, Header& header, Bytes& payload) noexcept {
    std::array<iovec, 2> parts{iovec{header.data(), header.size()}, iovec{payload.data(), payload.size()}};
    ssize_t n = 0;
    do {
        n = ::preadv(fd, parts.data(), static_cast<int>(parts.size()), 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return ReadResult::error;
    const auto done = static_cast<std::size_t>(n);
    if (done < header.size()) {
        const ReadResult rest = read_exact(fd, header.data() + done, header.size() - done, done);
        if (rest != ReadResult::ok) return rest;
        return read_exact(fd, payload.data(), payload.size(), header.size());
    }
    const std::size_t in_payload = done - header.size();
    return read_exact(fd, payload.data() + in_payload, payload.size() - in_payload, done);
}

bool write_all(int fd, const void* data, std::size_t size) noexcept {
    const auto* in = static_cast<const unsigned char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd, in, std::min<std::size_t>(size, std::size_t{1} << 30));
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) return false;
        const auto done = static_cast<std::size_t>(n);
        in += done;
        size -= done;
    }
    return true;
}

// Makes the file the most recently used. The kernel stamps files with a coarse clock (a few
// milliseconds), so use the precise one: entries used one after the other keep their order.
// Setting an explicit time needs ownership; in a cache shared by several users fall back to "now".
void touch(int fd) noexcept {
    timespec now{};
    if (::clock_gettime(CLOCK_REALTIME, &now) == 0) {
        const std::array<timespec, 2> times = {now, now};
        if (::futimens(fd, times.data()) == 0) return;
    }
    ::futimens(fd, nullptr);
}

// Whether a hit on an entry last marked used at `modified` marks it again (kTouchIntervalSeconds).
bool due_for_touch(const timespec& modified) noexcept {
    timespec now{};
    if (::clock_gettime(CLOCK_REALTIME, &now) != 0) return true;
    return std::int64_t{now.tv_sec} - std::int64_t{modified.tv_sec} > kTouchIntervalSeconds;
}

// A name no other writer (thread, process, or host sharing the directory) uses at the same time.
std::string temporary_name(const std::string& hex) {
    static std::atomic<std::uint64_t> counter{0};
    thread_local std::mt19937_64 engine = [] {
        std::uint64_t seed = static_cast<std::uint64_t>(
            std::chrono::steady_clock::now().time_since_epoch().count());
        try {
            std::random_device device;
            seed ^= (std::uint64_t{device()} << 32) ^ device();
        } catch (...) {
            // The clock and the thread's address below will do.
        }
        int anchor = 0;
        seed ^= reinterpret_cast<std::uintptr_t>(&anchor);
        return std::mt19937_64(seed);
    }();
    return fmt::format("{}{}{}.{}.{:016x}", hex, kTemporaryMarker, ::getpid(), counter.fetch_add(1), engine());
}

bool is_hex(std::string_view text) noexcept {
    return std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
}

bool is_entry_name(std::string_view name) noexcept {
    return name.size() == 32 + kEntrySuffix.size() && name.ends_with(kEntrySuffix) &&
           is_hex(name.substr(0, 32));
}

bool is_temporary_name(std::string_view name) noexcept {
    return name.size() > 32 + kTemporaryMarker.size() && is_hex(name.substr(0, 32)) &&
           name.substr(32, kTemporaryMarker.size()) == kTemporaryMarker;
}

std::uint64_t target_bytes(std::uint64_t max_bytes) noexcept {
    return max_bytes / 100 * kTargetPercent + max_bytes % 100 * kTargetPercent / 100;
}

// ---- Environment ---------------------------------------------------------------------------------

std::string_view environment(const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string_view{} : std::string_view{value};
}

bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
               return lower(x) == lower(y);
           });
}

std::optional<std::uint64_t> parse_size(std::string_view text) noexcept {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end == text.data()) return std::nullopt;
    std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
    unsigned shift = 0;
    if (!suffix.empty()) {
        switch (suffix.front()) {
            case 'k': case 'K': shift = 10; break;
            case 'm': case 'M': shift = 20; break;
            case 'g': case 'G': shift = 30; break;
            default: return std::nullopt;
        }
        suffix.remove_prefix(1);
        if (!suffix.empty() && !equals_ignoring_case(suffix, "b") && !equals_ignoring_case(suffix, "ib")) {
            return std::nullopt;
        }
    }
    if (shift != 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
    return value << shift;
}


// ---- Trust ----------------------------------------------------------------------------------------
// Entries are compiled code that kjarni loads and runs: one that someone else could have written is
// never read. The cache directory must belong to the effective user (a directory, or a symlink to
// one, owned by another user is not used at all: nothing read from it, nothing written into it),
// and an entry must be a regular file of that user's, not a symlink, writable by nobody else.

/// Whether the cache directory, following symlinks, may be used: it is missing (store makes it,
/// owned by us) or it is a directory the effective user owns.
bool directory_is_ours(const fs::path& directory) noexcept {
    struct stat info {};
    if (::stat(directory.c_str(), &info) != 0) return errno == ENOENT;
    return S_ISDIR(info.st_mode) && info.st_uid == ::geteuid();
}

/// Whether an opened entry may be trusted: a regular file of the effective user's that no one
/// else may write.
bool entry_is_ours(const struct stat& info) noexcept {
    return S_ISREG(info.st_mode) && info.st_uid == ::geteuid() && (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/// create_directories with mode 0755 (before the umask): the cache's directories are never
/// writable by the group or others, whatever the umask. False (errno set) on failure.
bool make_directories(const fs::path& path) noexcept {
    std::error_code error;
    if (fs::is_directory(path, error)) return true;
    if (path.has_parent_path() && path.parent_path() != path && !make_directories(path.parent_path())) return false;
    if (::mkdir(path.c_str(), S_IRWXU | S_IRGRP | S_IXGRP | S_IROTH | S_IXOTH) == 0 || errno == EEXIST) {
        return fs::is_directory(path, error);
    }
    return false;
}

}  // namespace

// ---- Settings ------------------------------------------------------------------------------------

DiskCacheSettings DiskCacheSettings::from_environment() {
    DiskCacheSettings settings;

    if (const auto dir = environment("KJARNI_CACHE_DIR"); !dir.empty()) {
        settings.directory = fs::path(dir);
    } else if (const auto xdg = environment("XDG_CACHE_HOME"); !xdg.empty() && fs::path(xdg).is_absolute()) {
        settings.directory = fs::path(xdg) / "kjarni";
    } else if (const auto home = environment("HOME"); !home.empty()) {
        settings.directory = fs::path(home) / ".cache" / "kjarni";
    } else {
        settings.enabled = false;  // nowhere to put it
    }

    const auto switch_value = environment("KJARNI_CACHE");
    for (const std::string_view off : {"0", "off", "false", "no"}) {
        if (equals_ignoring_case(switch_value, off)) settings.enabled = false;
    }

    if (const auto max = environment("KJARNI_CACHE_MAX_BYTES"); !max.empty()) {
        settings.max_bytes = parse_size(max).value_or(default_max_bytes);
    }
    return settings;
}

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
    const auto stale_seconds = std::chrono::duration_cast<std::chrono::seconds>(stale_before.time_since_epoch()).count();

    // Only <2 hex digits>/<32 hex digits>.bin (and our temporary files) are looked at, let alone
    // removed, even if the directory was pointed somewhere it shares with other files; and nothing
    // at all in a directory of another user's.
    if (!directory_is_ours(settings_.directory)) {
        ++io_errors_;
        return 0;
    }
    std::error_code error;
    for (fs::directory_iterator top(settings_.directory, error), end; !error && top != end; top.increment(error)) {
        const std::string bucket = top->path().filename().string();
        if (bucket.size() != 2 || !is_hex(bucket)) continue;
        std::error_code inner_error;
        for (fs::directory_iterator it(top->path(), inner_error); !inner_error && it != end; it.increment(inner_error)) {
            const fs::path& path = it->path();
            const std::string name = path.filename().string();
            const bool entry = is_entry_name(name);
            if (!entry && !is_temporary_name(name)) continue;
            struct stat info {};
            if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
            if (!entry) {
                if (info.st_mtim.tv_sec < stale_seconds) ::unlink(path.c_str());
                continue;
            }
            const auto size = static_cast<std::uint64_t>(info.st_size);
            entries.push_back(Entry{path, size, info.st_mtim});
            total += size;
        }
    }
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
    std::error_code error;
    for (fs::directory_iterator top(settings_.directory, error), end; !error && top != end; top.increment(error)) {
        const std::string bucket = top->path().filename().string();
        if (bucket.size() != 2 || !is_hex(bucket)) continue;
        std::error_code inner_error;
        for (fs::directory_iterator it(top->path(), inner_error); !inner_error && it != end; it.increment(inner_error)) {
            const std::string name = it->path().filename().string();
            struct stat info {};
            if (!is_entry_name(name) || ::lstat(it->path().c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
            found.push_back(DiskCacheEntryInfo{
                it->path(), name.substr(0, name.size() - kEntrySuffix.size()), static_cast<std::uint64_t>(info.st_size),
                std::int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec});
        }
    }
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
