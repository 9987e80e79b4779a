#include "core/masks.hpp"

#include <regex>
#include <string>

#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

/// Longer masks are refused: the regex compiler recurses per nesting level, and a mask is a name
/// pattern, never this long in earnest.
constexpr std::size_t max_mask_length = 1024;

bool any_matches(const std::string& name, const std::vector<std::string>& masks, const char* which) {
    for (const std::string& mask : masks) {
        if (mask.size() > max_mask_length) {
            throw ArgumentError(which, "a mask of " + std::to_string(mask.size()) + " characters is longer than " +
                                           std::to_string(max_mask_length));
        }
        try {
            // __polynomial (libstdc++'s breadth-first matcher): time polynomial in the name's length
            // whatever the mask; the default backtracking matcher hangs on masks such as ".*?*" or
            // "(a*)*b" (found by fuzz/selector_fuzzer.cpp). It refuses back-references.
            const std::regex pattern(mask, std::regex_constants::ECMAScript | std::regex_constants::__polynomial);
            if (std::regex_search(name, pattern)) return true;
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
