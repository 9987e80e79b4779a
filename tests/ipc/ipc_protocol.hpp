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

// Slow on purpose (an affine recurrence of `rounds` steps per element, about 2 s on an H100 for the
// test's sizes): a consumer that did not wait for the producer's event would read the buffer before
// the kernel wrote it. The compiler cannot shorten the loop (a multiplicative recurrence has no
// closed form it derives); the CPU reference can, by composing the step with itself (produced()).
inline constexpr const char* producer_source = R"(
KERNEL void produce(GLOBAL_MEM uint32_t* y, uint32_t seed, uint32_t rounds, uint32_t n)
{
    const SIZE_T i = get_global_id(0);
    if (i >= n) return;
    uint32_t v = (uint32_t)i * 2654435761u + seed;
    for (uint32_t r = 0; r < rounds; ++r) v = v * 1664525u + 1013904223u;
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

/// What the producer's kernel writes at index i (exact: integer arithmetic modulo 2^32). The step
/// v -> a v + c applied `rounds` times is the affine map (a^rounds, c (a^rounds - 1)/(a - 1)),
/// found by squaring in log2(rounds) compositions.
inline std::uint32_t produced(std::uint32_t i, std::uint32_t seed, std::uint32_t rounds) {
    std::uint32_t total_a = 1, total_c = 0;                 // the map applied so far (identity)
    std::uint32_t step_a = 1664525u, step_c = 1013904223u;  // the map of 2^k steps
    for (std::uint32_t left = rounds; left != 0; left >>= 1) {
        if (left & 1u) {
            total_c = step_a * total_c + step_c;  // the step after the total
            total_a = step_a * total_a;
        }
        step_c = step_a * step_c + step_c;
        step_a = step_a * step_a;
    }
    return total_a * (i * 2654435761u + seed) + total_c;
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
