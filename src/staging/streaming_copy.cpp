#include "staging/streaming_copy.hpp"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define KJARNI_HAVE_SSE2_STREAM 1
#endif

namespace kjarni::detail {

void streaming_copy(void* destination, const void* source, std::size_t size) noexcept {
#if KJARNI_HAVE_SSE2_STREAM
    auto* out = static_cast<std::byte*>(destination);
    const auto* in = static_cast<const std::byte*>(source);
    // Below a few pages the fences and the unaligned head cost more than they save.
    if (size < 16384) {
        std::memcpy(out, in, size);
        return;
    }
    // Streaming stores need a 16-byte aligned destination: copy the head normally.
    const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(out) % 16) % 16;
    std::memcpy(out, in, head);
    out += head;
    in += head;
    size -= head;
    const std::size_t blocks = size / 64;
    // SSE2 is part of x86-64: no run-time check needed. Four 16-byte stores per cache line.
    for (std::size_t i = 0; i < blocks; ++i) {
        const auto* s = reinterpret_cast<const __m128i*>(in + i * 64);
        auto* d = reinterpret_cast<__m128i*>(out + i * 64);
        const __m128i a = _mm_loadu_si128(s);
        const __m128i b = _mm_loadu_si128(s + 1);
        const __m128i c = _mm_loadu_si128(s + 2);
        const __m128i e = _mm_loadu_si128(s + 3);
        _mm_stream_si128(d, a);
        _mm_stream_si128(d + 1, b);
        _mm_stream_si128(d + 2, c);
        _mm_stream_si128(d + 3, e);
    }
    // Streaming stores are weakly ordered: make them visible before anyone is told the copy is done.
    _mm_sfence();
    std::memcpy(out + blocks * 64, in + blocks * 64, size - blocks * 64);
#else
    std::memcpy(destination, source, size);
#endif
}

}  // namespace kjarni::detail
