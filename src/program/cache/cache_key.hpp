#pragma once
// Keys of the compilation cache: a 128-bit digest (XXH3-128) of named fields that together fix the
// compiled binary (kjarni version, API, device, driver and compiler versions, options, source).

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kjarni::detail {

/// A 128-bit cache key. `high` holds the first 8 bytes of the canonical (big-endian) form, so that
/// hex() reads high then low.
struct CacheKey {
    std::uint64_t high = 0;
    std::uint64_t low = 0;

    /// 32 lowercase hex digits, the canonical form (also the entry's file name on disk).
    std::string hex() const;
    /// The 16 bytes of the canonical form (big-endian high, then low).
    std::array<std::byte, 16> bytes() const noexcept;
    static CacheKey from_bytes(std::span<const std::byte, 16> bytes) noexcept;
    /// Parses 32 hex digits (either case); nothing if the text is anything else.
    static std::optional<CacheKey> from_hex(std::string_view text) noexcept;

    friend bool operator==(const CacheKey&, const CacheKey&) = default;
};

/// Builds a CacheKey from named fields. Every field is encoded unambiguously: a type tag, then the
/// name and each value prefixed by its length (64-bit little-endian), so ("ab", "c") and
/// ("a", "bc") differ, as do a string "1" and an integer 1, and a list {"a", "b"} and {"ab"}.
/// The order of the fields matters. The digest is stable across runs, processes and hosts (it is
/// written to disk): change kFormat in cache_key.cpp if the encoding ever changes.
class CacheKeyBuilder {
public:
    CacheKeyBuilder();
    ~CacheKeyBuilder();
    CacheKeyBuilder(CacheKeyBuilder&&) noexcept;
    CacheKeyBuilder& operator=(CacheKeyBuilder&&) noexcept;
    CacheKeyBuilder(const CacheKeyBuilder&) = delete;
    CacheKeyBuilder& operator=(const CacheKeyBuilder&) = delete;

    CacheKeyBuilder& add(std::string_view name, std::string_view value);
    /// Without it a string literal would convert to bool rather than to std::string_view.
    CacheKeyBuilder& add(std::string_view name, const char* value) { return add(name, std::string_view(value)); }
    CacheKeyBuilder& add(std::string_view name, const std::string& value) { return add(name, std::string_view(value)); }
    CacheKeyBuilder& add(std::string_view name, bool value);
    template <std::integral T>
        requires(!std::same_as<std::remove_cv_t<T>, bool>)
    CacheKeyBuilder& add(std::string_view name, T value) {
        if constexpr (std::is_signed_v<T>) {
            return add_signed(name, static_cast<std::int64_t>(value));
        } else {
            return add_unsigned(name, static_cast<std::uint64_t>(value));
        }
    }
    CacheKeyBuilder& add(std::string_view name, std::span<const std::string> values);
    CacheKeyBuilder& add(std::string_view name, std::span<const std::string_view> values);
    CacheKeyBuilder& add(std::string_view name, const std::vector<std::string>& values) {
        return add(name, std::span<const std::string>(values));
    }
    CacheKeyBuilder& add(std::string_view name, std::initializer_list<std::string_view> values) {
        return add(name, std::span<const std::string_view>(values.begin(), values.size()));
    }

    /// The key of the fields added so far; more fields may still be added afterwards.
    CacheKey key() const;

private:
    CacheKeyBuilder& add_signed(std::string_view name, std::int64_t value);
    CacheKeyBuilder& add_unsigned(std::string_view name, std::uint64_t value);
    void begin_field(char tag, std::string_view name);
    void update(const void* data, std::size_t size);
    void update_u64(std::uint64_t value);
    void update_string(std::string_view text);

    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace kjarni::detail

template <>
struct std::hash<kjarni::detail::CacheKey> {
    std::size_t operator()(const kjarni::detail::CacheKey& key) const noexcept {
        // Already a uniform hash: either half will do.
        return static_cast<std::size_t>(key.low ^ (key.high * 0x9e3779b97f4a7c15ULL));
    }
};
