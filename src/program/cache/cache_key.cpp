#include "program/cache/cache_key.hpp"

#include <xxhash.h>

#include <new>

namespace kjarni::detail {

namespace {

// Hashed first: names the encoding, so that a change of it cannot collide with old keys.
constexpr std::string_view kFormat = "kjarni-cache-key-v1";

constexpr char kHexDigits[] = "0123456789abcdef";

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

std::array<std::byte, 16> CacheKey::bytes() const noexcept {
    std::array<std::byte, 16> out{};
    for (std::size_t i = 0; i < 8; ++i) {
        out[i] = static_cast<std::byte>((high >> (56 - 8 * i)) & 0xffU);
        out[8 + i] = static_cast<std::byte>((low >> (56 - 8 * i)) & 0xffU);
    }
    return out;
}

CacheKey CacheKey::from_bytes(std::span<const std::byte, 16> bytes) noexcept {
    CacheKey key;
    for (std::size_t i = 0; i < 8; ++i) {
        key.high = (key.high << 8) | std::to_integer<std::uint64_t>(bytes[i]);
        key.low = (key.low << 8) | std::to_integer<std::uint64_t>(bytes[8 + i]);
    }
    return key;
}

std::string CacheKey::hex() const {
    std::string out(32, '0');
    const auto raw = bytes();
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const auto b = std::to_integer<unsigned>(raw[i]);
        out[2 * i] = kHexDigits[b >> 4];
        out[2 * i + 1] = kHexDigits[b & 0xfU];
    }
    return out;
}

std::optional<CacheKey> CacheKey::from_hex(std::string_view text) noexcept {
    if (text.size() != 32) return std::nullopt;
    std::array<std::byte, 16> raw{};
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const int hi = hex_value(text[2 * i]);
        const int lo = hex_value(text[2 * i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        raw[i] = static_cast<std::byte>((hi << 4) | lo);
    }
    return from_bytes(raw);
}

struct CacheKeyBuilder::State {
    XXH3_state_t* xxh = nullptr;
    State() : xxh(XXH3_createState()) {
        if (xxh == nullptr || XXH3_128bits_reset(xxh) != XXH_OK) {
            XXH3_freeState(xxh);
            throw std::bad_alloc();
        }
    }
    ~State() { XXH3_freeState(xxh); }
    State(const State&) = delete;
    State& operator=(const State&) = delete;
};

CacheKeyBuilder::CacheKeyBuilder() : state_(std::make_unique<State>()) { update_string(kFormat); }

CacheKeyBuilder::~CacheKeyBuilder() = default;
CacheKeyBuilder::CacheKeyBuilder(CacheKeyBuilder&&) noexcept = default;
CacheKeyBuilder& CacheKeyBuilder::operator=(CacheKeyBuilder&&) noexcept = default;

void CacheKeyBuilder::update(const void* data, std::size_t size) {
    // XXH3 takes a null pointer for an empty input, but keep clear of it anyway.
    if (size != 0) XXH3_128bits_update(state_->xxh, data, size);
}

void CacheKeyBuilder::update_u64(std::uint64_t value) {
    // Little-endian whatever the host, so that keys are the same everywhere.
    unsigned char raw[8];
    for (std::size_t i = 0; i < 8; ++i) raw[i] = static_cast<unsigned char>((value >> (8 * i)) & 0xffU);
    update(raw, sizeof raw);
}

void CacheKeyBuilder::update_string(std::string_view text) {
    update_u64(text.size());
    update(text.data(), text.size());
}

void CacheKeyBuilder::begin_field(char tag, std::string_view name) {
    update(&tag, 1);
    update_string(name);
}

CacheKeyBuilder& CacheKeyBuilder::add(std::string_view name, std::string_view value) {
    begin_field('s', name);
    update_string(value);
    return *this;
}

CacheKeyBuilder& CacheKeyBuilder::add(std::string_view name, bool value) {
    begin_field('b', name);
    const unsigned char raw = value ? 1 : 0;
    update(&raw, 1);
    return *this;
}

CacheKeyBuilder& CacheKeyBuilder::add_signed(std::string_view name, std::int64_t value) {
    begin_field('i', name);
    update_u64(static_cast<std::uint64_t>(value));
    return *this;
}

CacheKeyBuilder& CacheKeyBuilder::add_unsigned(std::string_view name, std::uint64_t value) {
    begin_field('u', name);
    update_u64(value);
    return *this;
}

CacheKeyBuilder& CacheKeyBuilder::add(std::string_view name, std::span<const std::string> values) {
    begin_field('l', name);
    update_u64(values.size());
    for (const auto& value : values) update_string(value);
    return *this;
}

CacheKeyBuilder& CacheKeyBuilder::add(std::string_view name, std::span<const std::string_view> values) {
    begin_field('l', name);
    update_u64(values.size());
    for (const auto value : values) update_string(value);
    return *this;
}

CacheKey CacheKeyBuilder::key() const {
    // The digest leaves the state as it is: more fields can follow.
    const XXH128_hash_t digest = XXH3_128bits_digest(state_->xxh);
    return CacheKey{digest.high64, digest.low64};
}

}  // namespace kjarni::detail
