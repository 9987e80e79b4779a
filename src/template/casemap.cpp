// Case mapping beyond ASCII (see casemap.hpp). The mappings follow Unicode's UnicodeData.txt and
// SpecialCasing.txt for the ranges handled, as CPython applies them.

#include "casemap.hpp"

#include "errors.hpp"
#include "utf8.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace kjarni::tmpl {

namespace {

// In a range of alternating pairs, capitals at even (`even_upper`) or odd code points.
bool pair_range(std::uint32_t cp, std::uint32_t first, std::uint32_t last, bool even_upper, bool upper,
                std::uint32_t& out) {
    if (cp < first || cp > last) return false;
    const bool is_upper = ((cp & 1u) == 0) == even_upper;
    out = is_upper == upper ? cp : (upper ? cp - 1 : cp + 1);
    return true;
}

[[noreturn]] void unsupported(std::uint32_t cp, bool upper) {
    throw EvalError(fmt::format("{}() of the character U+{:04X} is not supported (kjarni maps the case of Latin, "
                                "basic Greek and Cyrillic letters only)",
                                upper ? "upper" : "lower", cp));
}

// The mapping of one code point into `out`.
void map_one(std::uint32_t cp, bool upper, std::string& out) {
    std::uint32_t r = cp;
    if (cp < 0x80) {
        if (upper && cp >= 'a' && cp <= 'z') r = cp - 0x20;
        if (!upper && cp >= 'A' && cp <= 'Z') r = cp + 0x20;
    } else if (cp < 0xC0) {
        if (cp == 0xB5 && upper) r = 0x39C;  // micro sign -> Greek capital mu
    } else if (cp <= 0xFF) {
        if (cp == 0xD7 || cp == 0xF7) {
            // multiplication and division signs: no case
        } else if (cp == 0xDF) {
            if (upper) {
                out += "SS";
                return;
            }
        } else if (cp == 0xFF) {
            if (upper) r = 0x178;
        } else if (cp < 0xE0) {
            if (!upper) r = cp + 0x20;
        } else if (upper) {
            r = cp - 0x20;
        }
    } else if (cp <= 0x17F) {
        if (cp == 0x130) {
            if (!upper) {
                out += "i\xcc\x87";  // i and a combining dot above (SpecialCasing)
                return;
            }
        } else if (cp == 0x131) {
            if (upper) r = 'I';
        } else if (cp == 0x138) {
            // kra: no case
        } else if (cp == 0x149) {
            if (upper) {
                out += "\xca\xbcN";  // modifier apostrophe and N
                return;
            }
        } else if (cp == 0x178) {
            if (!upper) r = 0xFF;
        } else if (cp == 0x17F) {
            if (upper) r = 'S';
        } else if (!pair_range(cp, 0x100, 0x137, true, upper, r) && !pair_range(cp, 0x139, 0x148, false, upper, r) &&
                   !pair_range(cp, 0x14A, 0x177, true, upper, r) && !pair_range(cp, 0x179, 0x17E, false, upper, r)) {
            unsupported(cp, upper);
        }
    } else if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) {
        if (cp == 0x3A3 && !upper) unsupported(cp, upper);  // final or not: depends on the context
        if (!upper) r = cp + 0x20;
    } else if (cp >= 0x3B1 && cp <= 0x3C9) {
        if (upper) r = cp == 0x3C2 ? 0x3A3 : cp - 0x20;
    } else if (cp >= 0x410 && cp <= 0x42F) {
        if (!upper) r = cp + 0x20;
    } else if (cp >= 0x430 && cp <= 0x44F) {
        if (upper) r = cp - 0x20;
    } else if (cp >= 0x400 && cp <= 0x40F) {
        if (!upper) r = cp + 0x50;
    } else if (cp >= 0x450 && cp <= 0x45F) {
        if (upper) r = cp - 0x50;
    } else if ((cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x3000 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7A3)) {
        // punctuation, CJK, Hangul: no case
    } else {
        unsupported(cp, upper);
    }
    append_utf8(out, r);
}

}  // namespace

std::string change_case(std::string_view s, bool upper) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) map_one(decode_utf8(s, i), upper, out);
    return out;
}

}  // namespace kjarni::tmpl
