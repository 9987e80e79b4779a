#include "core/masks.hpp"

#include <regex>

#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

bool any_matches(const std::string& name, const std::vector<std::string>& masks, const char* which) {
    for (const std::string& mask : masks) {
        try {
            if (std::regex_search(name, std::regex(mask))) return true;
        } catch (const std::regex_error& e) {
            throw ArgumentError(which, "'" + mask + "' is not a valid regular expression: " + e.what());
        }
    }
    return false;
}

}  // namespace

bool passes_masks(const std::string& name, const std::vector<std::string>& include_masks,
                  const std::vector<std::string>& exclude_masks) {
    if (!include_masks.empty() && !any_matches(name, include_masks, "include_masks")) return false;
    return !any_matches(name, exclude_masks, "exclude_masks");
}

}  // namespace kjarni::detail
