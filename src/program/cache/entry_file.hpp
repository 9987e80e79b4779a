#pragma once
// One entry of the disk cache on disk: its file format, its names, and the POSIX calls that read,
// write and trust it. DiskCache (disk_cache.hpp) is written on these; nothing else uses them.

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "program/cache/bytes.hpp"
#include "program/cache/cache_key.hpp"

namespace kjarni::detail::disk_entry {

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

constexpr std::string_view kEntrySuffix = ".bin";
constexpr std::string_view kTemporaryMarker = ".tmp.";

void put_u32(unsigned char* out, std::uint32_t value) noexcept;
void put_u64(unsigned char* out, std::uint64_t value) noexcept;
std::uint32_t get_u32(const unsigned char* in) noexcept;
std::uint64_t get_u64(const unsigned char* in) noexcept;
/// XXH3-64 of the payload (the header's checksum field).
std::uint64_t checksum(std::span<const std::byte> payload) noexcept;
Header make_header(const CacheKey& key, std::span<const std::byte> payload) noexcept;

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

ReadResult read_exact(int fd, void* data, std::size_t size, std::uint64_t offset) noexcept;
/// Reads `header` then `payload` from the start of the file in one system call where it can (a
/// cache hit costs a handful of system calls, slow on some file systems), reading on with pread
/// if the call returns less.
ReadResult read_entry(int fd, Header& header, Bytes& payload) noexcept;
bool write_all(int fd, const void* data, std::size_t size) noexcept;
// Makes the file the most recently used. The kernel stamps files with a coarse clock (a few
// milliseconds), so use the precise one: entries used one after the other keep their order.
// Setting an explicit time needs ownership; in a cache shared by several users fall back to "now".
void touch(int fd) noexcept;
// A hit marks its entry as used (its modification time, which eviction sorts by) only when it was
// last marked longer ago than this. Marking is a metadata write (an inode update, a journal entry:
// microseconds on every hit, more on network file systems), and LRU eviction needs only coarse
// recency: the bound is reached after many stores, and an entry in use is then marked at most this
// much too early, so it goes before entries stored or marked later within the interval, but never
// before one unused for longer. A stored entry is marked when written.
constexpr std::int64_t kTouchIntervalSeconds = 3600;
// Whether a hit on an entry last marked used at `modified` marks it again (kTouchIntervalSeconds).
bool due_for_touch(const timespec& modified) noexcept;
// A name no other writer (thread, process, or host sharing the directory) uses at the same time.
std::string temporary_name(const std::string& hex);
bool is_hex(std::string_view text) noexcept;
/// <32 hex digits>.bin / <32 hex digits>.tmp.<writer>
bool is_entry_name(std::string_view name) noexcept;
bool is_temporary_name(std::string_view name) noexcept;

// ---- Trust ----------------------------------------------------------------------------------------
// Entries are compiled code that kjarni loads and runs: one that someone else could have written is
// never read. The cache directory must belong to the effective user (a directory, or a symlink to
// one, owned by another user is not used at all: nothing read from it, nothing written into it),
// and an entry must be a regular file of that user's, not a symlink, writable by nobody else.

/// Whether the cache directory, following symlinks, may be used: it is missing (store makes it,
/// owned by us) or it is a directory the effective user owns.
bool directory_is_ours(const std::filesystem::path& directory) noexcept;
/// Whether an opened entry may be trusted: a regular file of the effective user's that no one
/// else may write.
bool entry_is_ours(const struct stat& info) noexcept;
/// create_directories with mode 0755 (before the umask): the cache's directories are never
/// writable by the group or others, whatever the umask. False (errno set) on failure.
bool make_directories(const std::filesystem::path& path) noexcept;

// ---- Bounds ---------------------------------------------------------------------------------------

// Evict down to this fraction of the bound, so that the next few stores do not evict again.
constexpr std::uint64_t kTargetPercent = 90;
/// The total a cache bounded by `max_bytes` is brought down to when it is over (kTargetPercent).
inline std::uint64_t target_bytes(std::uint64_t max_bytes) noexcept {
    return max_bytes / 100 * kTargetPercent + max_bytes % 100 * kTargetPercent / 100;
}

}  // namespace kjarni::detail::disk_entry
