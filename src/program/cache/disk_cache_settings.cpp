// Where the disk cache lives and how large it may grow, from the environment (KJARNI_CACHE_DIR,
// XDG_CACHE_HOME, HOME, KJARNI_CACHE, KJARNI_CACHE_MAX_BYTES).

#include "program/cache/disk_cache.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <system_error>

namespace kjarni::detail {

namespace fs = std::filesystem;

namespace {

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
        case 'k':
        case 'K': shift = 10; break;
        case 'm':
        case 'M': shift = 20; break;
        case 'g':
        case 'G': shift = 30; break;
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

}  // namespace

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

}  // namespace kjarni::detail
