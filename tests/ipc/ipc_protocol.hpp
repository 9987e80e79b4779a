#pragma once
// What the two processes of the IPC test share: the producer's kernel and its CPU reference, the
// consumer's kernel, and handles as hexadecimal text on a command line.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kjarni::test::ipc {

// Slow on purpose (many rounds per element): a consumer that did not wait for the producer's event
// would read the buffer before the kernel wrote it.
inline constexpr const char* producer_source = R"(
KERNEL void produce(GLOBAL_MEM uint32_t* y, uint32_t seed, uint32_t rounds, uint32_t n)
{
    const SIZE_T i = get_global_id(0);
    if (i >= n) return;
    uint32_t v = (uint32_t)i * 2654435761u + seed;
    for (uint32_t r = 0; r < rounds; ++r) { v ^= v << 13; v ^= v >> 17; v ^= v << 5; }
    y[i] = v;
}
)";

inline constexpr const char* consumer_source = R"(
KERNEL void consume(GLOBAL_MEM uint32_t* z, GLOBAL_MEM const uint32_t* y, uint32_t n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) z[i] = y[i] * 3u + 1u;
}
)";

/// What the producer's kernel writes at index i (exact: integer arithmetic modulo 2^32).
inline std::uint32_t produced(std::uint32_t i, std::uint32_t seed, std::uint32_t rounds) {
    std::uint32_t v = i * 2654435761u + seed;
    for (std::uint32_t r = 0; r < rounds; ++r) {
        v ^= v << 13;
        v ^= v >> 17;
        v ^= v << 5;
    }
    return v;
}

inline std::string to_hex(const std::vector<std::byte>& bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string text;
    for (const std::byte b : bytes) {
        text += digits[static_cast<unsigned>(b) >> 4];
        text += digits[static_cast<unsigned>(b) & 15];
    }
    return text;
}

inline std::vector<std::byte> from_hex(std::string_view text) {
    if (text.size() % 2 != 0) throw std::runtime_error("odd hexadecimal length");
    auto digit = [](char c) -> unsigned {
        if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
        if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
        throw std::runtime_error("not a hexadecimal digit");
    };
    std::vector<std::byte> bytes;
    for (std::size_t i = 0; i < text.size(); i += 2) {
        bytes.push_back(static_cast<std::byte>(digit(text[i]) * 16 + digit(text[i + 1])));
    }
    return bytes;
}

}  // namespace kjarni::test::ipc
