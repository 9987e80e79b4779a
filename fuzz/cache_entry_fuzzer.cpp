// libFuzzer entry point: the disk cache's entry reader. Each input is written as the entry file of
// a fixed key (in a directory of the fuzzer's own, on tmpfs when /dev/shm exists) and loaded; half
// the time the input is placed after a valid header of that key, so that the fuzzer also explores
// payloads behind a header that passes the first checks. load() must return exactly the payload
// stored under the key or nothing, and throw nothing (it is noexcept: an exception would
// terminate); a crash, a hang or a sanitizer report is a finding. A hit is only possible with a
// matching checksum: the fuzzer then checks the bytes against the entry's own payload.

#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "program/cache/disk_cache.hpp"

namespace {

namespace fs = std::filesystem;
using kjarni::detail::CacheKey;
using kjarni::detail::CacheKeyBuilder;
using kjarni::detail::DiskCache;

struct Setup {
    fs::path directory;
    CacheKey key = CacheKeyBuilder().add("fuzz", 1).key();
    std::unique_ptr<DiskCache> cache;
    std::vector<char> valid_header;  // the first 64 bytes of a valid entry of `key`

    Setup() {
        const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
        directory = base / ("kjarni-cache-fuzz-" + std::to_string(::getpid()));
        fs::remove_all(directory);
        cache = std::make_unique<DiskCache>(directory, std::uint64_t{1} << 30);
        const std::vector<std::byte> payload(100, std::byte{0x5a});
        cache->store(key, payload);
        std::ifstream in(cache->entry_path(key), std::ios::binary);
        valid_header.resize(64);
        in.read(valid_header.data(), static_cast<std::streamsize>(valid_header.size()));
        std::atexit([] {
            std::error_code ignored;
            fs::remove_all(setup().directory, ignored);
        });
    }
    static Setup& setup();
};

Setup& Setup::setup() {
    static Setup* const instance = new Setup();
    return *instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Setup& s = Setup::setup();
    const bool behind_header = size > 0 && (data[0] & 1) != 0;
    {
        std::ofstream out(s.cache->entry_path(s.key), std::ios::binary | std::ios::trunc);
        if (behind_header) out.write(s.valid_header.data(), static_cast<std::streamsize>(s.valid_header.size()));
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    ::chmod(s.cache->entry_path(s.key).c_str(), 0644);
    const auto loaded = s.cache->load(s.key);
    if (loaded) {
        // A hit: the file must be exactly a header and the payload returned.
        std::ifstream in(s.cache->entry_path(s.key), std::ios::binary);
        std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (file.size() < loaded->size() ||
            !std::equal(loaded->begin(), loaded->end(), file.end() - static_cast<std::ptrdiff_t>(loaded->size()),
                        [](std::byte a, char b) { return a == static_cast<std::byte>(b); })) {
            __builtin_trap();
        }
    }
    return 0;
}
