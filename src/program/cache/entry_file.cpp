// The disk cache's entries on disk (entry_file.hpp): header encoding, names, and the POSIX calls.

#include "program/cache/entry_file.hpp"

#include <fcntl.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <random>
#include <system_error>

#include <fmt/format.h>

namespace kjarni::detail::disk_entry {

namespace fs = std::filesystem;

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

ReadResult read_exact(int fd, void* data, std::size_t size, std::uint64_t offset) noexcept {
    auto* out = static_cast<unsigned char*>(data);
    while (size > 0) {
        const ssize_t n =
            ::pread(fd, out, std::min<std::size_t>(size, std::size_t{1} << 30), static_cast<off_t>(offset));
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
        std::uint64_t seed = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
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
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_entry_name(std::string_view name) noexcept {
    return name.size() == 32 + kEntrySuffix.size() && name.ends_with(kEntrySuffix) && is_hex(name.substr(0, 32));
}

bool is_temporary_name(std::string_view name) noexcept {
    return name.size() > 32 + kTemporaryMarker.size() && is_hex(name.substr(0, 32)) &&
           name.substr(32, kTemporaryMarker.size()) == kTemporaryMarker;
}

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

}  // namespace kjarni::detail::disk_entry
