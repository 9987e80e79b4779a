#pragma once
// Tokens of Python expressions, as they appear inside ${...}, control lines and def signatures.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kjarni::tmpl {

struct Token;

/// A piece of an f-string: literal text, or (with tokens) a replacement field `{expr!conv:spec}`.
struct FStringPart {
    std::string text;           // the literal text (escapes decoded)
    std::vector<Token> tokens;  // the field's expression (ending with End); empty for text
    char conv = 0;              // 'r', 's', 'a' or 0
    std::string spec;           // the format spec (literal)
};

struct Token {
    enum class Kind { Name, Int, Float, String, Op, End };
    Kind kind;
    std::uint32_t pos;  // offset in the whole template source
    std::string text;   // Name: the name; String: the decoded value; Op: the operator; numbers: spelling
    std::int64_t int_value = 0;
    // An integer literal beyond 64 bits: its digits (no prefix, no underscores) and base.
    std::string big_digits = {};
    int big_base = 0;
    // A String token written as an f-string: its pieces (text holds nothing then).
    bool fstring = false;
    std::vector<FStringPart> fparts = {};
    double float_value = 0.0;
    bool imaginary = false;  // a Float written with a 'j' suffix (Python's imaginary literal)
};

/// Tokenizes source[begin, end). Throws PositionedError on a bad character, an unterminated string
/// or an out-of-range number. The last token is End (at `end`).
std::vector<Token> tokenize(std::string_view source, std::size_t begin, std::size_t end);

/// The end of the ${...} expression whose text starts at `begin` (just after "${"): the offset of
/// the closing '}' at bracket depth 0, skipping string literals. Returns npos when there is none.
std::size_t find_expression_end(std::string_view source, std::size_t begin);

/// Mako compiles the text of a ${...} expression and of its filters as Python statements (after
/// stripping its start), so a line end outside brackets (not joined with a backslash) ends the
/// expression there: `${1 +` newline `2}` is a syntax error, `${(1 +` newline `2)}` is not. Returns
/// where source[begin, end) goes on after such a line end (npos when it does not).
std::size_t find_line_break(std::string_view source, std::size_t begin, std::size_t end);

/// Where the filters of a ${...} expression start, as Mako splits them: the first '|' of
/// source[begin, end) outside strings and brackets. Returns npos when there is none.
std::size_t find_filter_bar(std::string_view source, std::size_t begin, std::size_t end);

}  // namespace kjarni::tmpl
