// number_text (see number_text.hpp): CPython's _PyUnicode_TransformDecimalAndSpaceToASCII, then
// the strip of PyLong_FromString and float's parser.

#include "number_text.hpp"

#include "utf8.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace kjarni::tmpl {

namespace {

// The digit zeros of Unicode 14.0 (the Unicode of Python 3.11, the peer kjarni is tested against)
// beyond ASCII: each starts ten consecutive decimal digits, 0 to 9 (checked when this table was
// made from Python's unicodedata: every code point with a decimal value is in one of them).
constexpr std::uint32_t digit_zeros[] = {
    0x660,   0x6F0,   0x7C0,   0x966,   0x9E6,   0xA66,   0xAE6,   0xB66,   0xBE6,   0xC66,   0xCE6,   0xD66,   0xDE6,
    0xE50,   0xED0,   0xF20,   0x1040,  0x1090,  0x17E0,  0x1810,  0x1946,  0x19D0,  0x1A80,  0x1A90,  0x1B50,  0x1BB0,
    0x1C40,  0x1C50,  0xA620,  0xA8D0,  0xA900,  0xA9D0,  0xA9F0,  0xAA50,  0xABF0,  0xFF10,  0x104A0, 0x10D30, 0x11066,
    0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50,
    0x11DA0, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
};

// White space beyond ASCII, as str.isspace() sees it.
bool is_unicode_space(std::uint32_t cp) {
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// The ASCII digit of `cp`, or 0 when it is not a decimal digit.
char ascii_digit(std::uint32_t cp) {
    const auto* after = std::upper_bound(std::begin(digit_zeros), std::end(digit_zeros), cp);
    if (after == std::begin(digit_zeros)) return 0;
    const std::uint32_t zero = *(after - 1);
    return cp - zero < 10 ? static_cast<char>('0' + (cp - zero)) : 0;
}

}  // namespace

std::string number_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::uint32_t cp = decode_utf8(text, i);
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (is_unicode_space(cp)) {
            out += ' ';
        } else if (const char digit = ascii_digit(cp); digit != 0) {
            out += digit;
        } else {
            out += '?';
        }
    }
    const char* blanks = " \t\n\v\f\r";
    const std::size_t first = out.find_first_not_of(blanks);
    if (first == std::string::npos) return {};
    return out.substr(first, out.find_last_not_of(blanks) - first + 1);
}

}  // namespace kjarni::tmpl
