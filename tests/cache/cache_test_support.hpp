#pragma once
// What the cache tests share: a fresh temporary directory per test, random bytes, whole files read
// and written, and environment variables set for a test and restored afterwards.

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "program/cache/cache_key.hpp"

namespace kjarni::test {

/// The suite's generator, seeded from KJARNI_TEST_SEED or std::random_device (printed once, so that
/// a failure can be replayed).
inline std::mt19937_64& cache_random_engine() {
    static std::mt19937_64 engine = [] {
        std::uint64_t seed = 0;
        if (const char* fixed = std::getenv("KJARNI_TEST_SEED"); fixed != nullptr && *fixed != '\0') {
            seed = std::strtoull(fixed, nullptr, 10);
        } else {
            std::random_device device;
            seed = (std::uint64_t{device()} << 32) ^ device();
        }
        fmt::print("cache tests: KJARNI_TEST_SEED={}\n", seed);
        return std::mt19937_64(seed);
    }();
    return engine;
}

/// Random bytes, never all zeros (for count > 0).
inline std::vector<std::byte> random_payload(std::size_t count) {
    std::vector<std::byte> out(count);
    std::uniform_int_distribution<unsigned> byte(0, 255);
    for (auto& b : out) b = static_cast<std::byte>(byte(cache_random_engine()));
    if (count > 0) out[0] = static_cast<std::byte>(byte(cache_random_engine()) | 1U);
    return out;
}

inline detail::CacheKey random_key() {
    return detail::CacheKeyBuilder().add("random", cache_random_engine()()).add("salt", cache_random_engine()()).key();
}

/// A size limit for a DiskCache that the tests' payloads never reach.
inline constexpr std::uint64_t kLarge = std::uint64_t{64} << 20;
/// The bytes of an entry file before its payload (the entry format of disk_cache.cpp).
inline constexpr std::uint64_t kHeaderSize = 64;

/// The whole file's bytes (none where it cannot be read).
inline std::vector<char> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Replaces the file's contents with `bytes`.
inline void write_file(const std::filesystem::path& path, const std::vector<char>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A directory of its own under the system's temporary directory, removed with everything in it.
class TemporaryDirectory {
public:
    TemporaryDirectory() {
        const auto base = std::filesystem::temp_directory_path();
        for (int attempt = 0;; ++attempt) {
            path_ = base / fmt::format("kjarni-cache-test-{}-{:016x}", ::getpid(), cache_random_engine()());
            if (std::filesystem::create_directory(path_)) break;
            if (attempt > 100) throw std::runtime_error("cannot make a temporary directory");
        }
    }
    ~TemporaryDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

/// Sets (or, with nullopt, unsets) an environment variable, and restores it when it goes.
class ScopedEnvironment {
public:
    ScopedEnvironment(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
        if (const char* old = std::getenv(name_.c_str()); old != nullptr) old_ = old;
        set(value);
    }
    ~ScopedEnvironment() { set(old_); }
    ScopedEnvironment(const ScopedEnvironment&) = delete;
    ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

private:
    void set(const std::optional<std::string>& value) {
        if (value) {
            ::setenv(name_.c_str(), value->c_str(), 1);
        } else {
            ::unsetenv(name_.c_str());
        }
    }
    std::string name_;
    std::optional<std::string> old_;
};

}  // namespace kjarni::test
