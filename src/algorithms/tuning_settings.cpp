#include "algorithms/tuning_settings.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <exception>

#include "kjarni/error.hpp"

namespace kjarni::detail {

std::string tuning_setting(const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::string(value) : std::string(fallback);
}

std::size_t tuning_count(const char* name, std::size_t most) {
    const std::string text = tuning_setting(name, "");
    if (text.empty()) return 0;
    std::size_t used = 0;
    unsigned long value = 0;
    try {
        value = std::stoul(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || value == 0 || value > most)
        throw ArgumentError(name, fmt::format("is '{}': a whole number from 1 to {}", text, most));
    return static_cast<std::size_t>(value);
}

}  // namespace kjarni::detail
