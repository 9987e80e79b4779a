#include "core/masks.hpp"

#include <algorithm>
#include <regex>
#include <string>

#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

/// Longer masks are refused: the regex compiler recurses per nesting level, and a mask is a name
/// pattern, never this long in earnest.
constexpr std::size_t max_mask_length = 1024;

/// libstdc++'s regex compiler reads a repetition count or a back-reference number into a `long`
/// without an overflow check (undefined behaviour, found by fuzz/selector_fuzzer.cpp), and expands a
/// count into that many copies of its automaton, so "(a{999}){999}" alone costs a million states.
/// The product of every count in a mask bounds the states any nesting could make.
constexpr long max_repetition_product = 4096;

/// The number of decimal digits starting at `pos`.
std::size_t digit_run(const std::string& text, std::size_t pos) {
    std::size_t end = pos;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    return end - pos;
}

void check_numbers(const std::string& mask, const char* which) {
    const auto refuse = [&](const std::string& why) { throw ArgumentError(which, "'" + mask + "' " + why); };
    long product = 1;
    for (std::size_t i = 0; i < mask.size(); ++i) {
        if (mask[i] == '\\') {
            if (digit_run(mask, i + 1) > 2) refuse("has a back-reference number of more than two digits");
            ++i;  // the escaped character is literal
        } else if (mask[i] == '{') {
            std::size_t pos = i + 1;
            for (int bound = 0; bound < 2; ++bound) {
                const std::size_t digits = digit_run(mask, pos);
                if (digits > 4) refuse("has a repetition count of more than four digits");
                if (digits > 0) {
                    const long count = std::stol(mask.substr(pos, digits));
                    product *= std::max(count, 1L);
                    if (product > max_repetition_product) {
                        refuse("repeats more than " + std::to_string(max_repetition_product) +
                               " times in all (the product of its repetition counts)");
                    }
                }
                pos += digits;
                if (pos >= mask.size() || mask[pos] != ',') break;
                ++pos;
            }
        }
    }
}

bool any_matches(const std::string& name, const std::vector<std::string>& masks, const char* which) {
    for (const std::string& mask : masks) {
        if (mask.size() > max_mask_length) {
            throw ArgumentError(which, "a mask of " + std::to_string(mask.size()) + " characters is longer than " +
                                           std::to_string(max_mask_length));
        }
        check_numbers(mask, which);
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
