// A program's source is rendered as a template even when it has no template markup (as grunnur
// does); the template engine then costs tens of microseconds of cold code for every program,
// also on a cache hit. This check lets such a source skip the engine.
//
// Why it is sound: the engine (like Mako) copies text to the output unchanged except where one of
// these starts, and the check refuses every text that holds any of them:
//  - "${": an expression;
//  - "<%" or "</%": a tag or a Python block (def, call, include, "<%!", ...);
//  - a line whose first character after blanks is '%': a control line, or "%%" (which outputs '%');
//  - a line whose first characters after blanks are "##": a comment line, dropped;
//  - a backslash before a newline: the two are dropped (the lines are joined); a backslash that
//    ends the text counts, as the def that holds the text puts a newline after it;
//  - '\r' anywhere: text keeps it, but a CR decides whether a line is a control line or a
//    comment (Mako's rules for them allow no CR but that of a "\r\n" line end).
// It errs towards the engine: any '\r', and any blank (space, tab, form feed, vertical tab) before
// a line's '%' or "##", send the text to the engine, which then gives its result or its error. tests/template/plain_text_test.cpp
// checks the check against the engine on many texts made of exactly these characters.

#include "template/plain_text.hpp"

namespace kjarni::detail {

bool renders_as_itself(std::string_view text) noexcept {
    constexpr auto npos = std::string_view::npos;
    if (text.find('\r') != npos || text.find("${") != npos || text.find("<%") != npos || text.find("</%") != npos ||
        text.find("\\\n") != npos || text.ends_with('\\')) {
        return false;
    }
    // Each line's first character after blanks (lines start at 0 and after every '\n').
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t first = text.find_first_not_of(" \t\f\v", start);
        if (first == npos) break;
        if (text[first] == '%' || text.substr(first, 2) == "##") return false;
        const std::size_t newline = text.find('\n', first);
        if (newline == npos) break;
        start = newline + 1;
    }
    return true;
}

}  // namespace kjarni::detail
