#pragma once
// Python's str.upper() and str.lower() beyond ASCII, for the scripts kernel templates meet in names
// and comments: Latin-1 Supplement, Latin Extended-A, basic Greek and Cyrillic, and the blocks
// without case (CJK, Hangul, punctuation and symbols up to U+206F). Python's full tables (Unicode's
// SpecialCasing included) are not carried: text with a character outside these ranges, or one
// whose mapping depends on context (Greek capital sigma lowered: final or not), is refused with an
// error naming the character rather than mapped wrongly.

#include <string>
#include <string_view>

namespace kjarni::tmpl {

/// Python's s.upper() (`upper`) or s.lower(); throws EvalError on a character it does not map.
std::string change_case(std::string_view s, bool upper);

}  // namespace kjarni::tmpl
