// Python expression tokenizer: names, numbers, strings (with the usual escapes) and operators.

#include "expr_lexer.hpp"

#include "errors.hpp"
#include "utf8.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>

namespace kjarni::tmpl {

namespace {

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

std::uint32_t offset(std::size_t i) { return static_cast<std::uint32_t>(i); }

// Operators, longest first so that "**" wins over "*".
constexpr std::string_view operators[] = {"**=", "//=", ">>=", "<<=", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
                                          "^=",  ";",   "**",  "//",  "==", "!=", "<=", ">=", "<<", ">>", "+",
                                          "-",   "*",   "/",   "%",   "<",  ">",  "(",  ")",  "[",  "]",  "{",
                                          "}",   ",",   ".",   ":",   "=",  "|",  "&",  "^",  "~"};

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// A string literal's extent: its body [body_begin, body_end) and the offset after its closing quote.
struct Literal {
    std::size_t body_begin;
    std::size_t body_end;
    std::size_t after;
};

// Scans the literal whose opening quote is source[i], single ('...') or triple ("""...""", which
// may span lines). A backslash always takes the next character along (raw strings included, as in
// Python).
Literal scan_string(std::string_view source, std::size_t i, std::size_t end) {
    const char quote = source[i];
    const bool triple = i + 2 < end && source[i + 1] == quote && source[i + 2] == quote;
    const std::size_t start = i;
    const std::size_t q = triple ? 3 : 1;
    i += q;
    const std::size_t body = i;
    while (true) {
        if (i >= end || (!triple && (source[i] == '\n' || source[i] == '\r')))
            throw PositionedError("unterminated string literal", offset(start));
        if (source[i] == '\\') {
            // An escaped "\r\n" is one escaped line end.
            i += i + 2 < end && source[i + 1] == '\r' && source[i + 2] == '\n' ? 3u : 2u;
            continue;
        }
        if (source[i] == quote && (!triple || (i + 2 < end && source[i + 1] == quote && source[i + 2] == quote)))
            return Literal{body, i, i + q};
        ++i;
    }
}

// Appends source[b, e) to `out`, with its escapes decoded unless `raw`.
void decode_body(std::string_view source, std::size_t b, std::size_t e, bool raw, std::string& out) {
    std::size_t i = b;
    while (i < e) {
        const char c = source[i];
        if (c == '\r') {
            // Python reads "\r\n" and a lone "\r" in its source as "\n" (universal newlines), in
            // string literals too.
            out += '\n';
            i += i + 1 < e && source[i + 1] == '\n' ? 2u : 1u;
            continue;
        }
        if (c != '\\' || raw || i + 1 >= e) {
            out += c;
            ++i;
            continue;
        }
        const char esc = source[i + 1];
        i += 2;
        switch (esc) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case '\n': break;  // an escaped newline continues the literal
        case '\r':         // so does an escaped "\r\n" or lone "\r"
            if (i < e && source[i] == '\n') ++i;
            break;
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7': {
            // Python's octal escape: up to three digits, a code point up to 0o777 (so "\012" is a
            // newline, not NUL and "12").
            std::uint32_t cp = static_cast<std::uint32_t>(esc - '0');
            for (int k = 0; k < 2 && i < e && source[i] >= '0' && source[i] <= '7'; ++k, ++i)
                cp = cp * 8 + static_cast<std::uint32_t>(source[i] - '0');
            append_utf8(out, cp);
            break;
        }
        case 'x':
        case 'u':
        case 'U': {
            // \xhh, \uhhhh and \Uhhhhhhhh name a code point (the text is UTF-8: \xe9 is "é", two
            // bytes, as in Python 3's str), with exactly that many hex digits.
            const std::size_t digits = esc == 'x' ? 2 : esc == 'u' ? 4 : 8;
            std::uint32_t cp = 0;
            for (std::size_t k = 0; k < digits; ++k) {
                const int h = i + k < e ? hex_value(source[i + k]) : -1;
                if (h < 0)
                    throw PositionedError(fmt::format("truncated \\{} escape in string literal", esc), offset(i - 2));
                cp = cp * 16 + static_cast<std::uint32_t>(h);
            }
            // Python allows lone surrogates in a str, but no UTF-8 text can hold one (Mako's
            // output could not be encoded either).
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                throw PositionedError(fmt::format("\\{} escape names no character UTF-8 can hold", esc), offset(i - 2));
            append_utf8(out, cp);
            i += digits;
            break;
        }
        case 'N':
            // Python's \N{NAME} needs the Unicode name database, which kjarni does not carry.
            throw PositionedError("\\N{...} escapes (characters by name) are not supported; write the character "
                                  "or \\u escape instead",
                                  offset(i - 2));
        default:  // Python keeps unknown escapes as written
            out += '\\';
            out += esc;
        }
    }
}

// Decodes a string literal starting at source[i] (the quote); returns the offset after it.
std::size_t lex_string(std::string_view source, std::size_t i, std::size_t end, std::string& out, bool raw = false) {
    const Literal lit = scan_string(source, i, end);
    decode_body(source, lit.body_begin, lit.body_end, raw, out);
    return lit.after;
}

// The pieces of an f-string's body source[b, e): text, and `{expr!conv:spec}` fields whose
// expressions are tokenized in place (so that their errors point into the template).
std::vector<FStringPart> split_fstring(std::string_view source, std::size_t b, std::size_t e, bool raw) {
    std::vector<FStringPart> parts;
    std::size_t text_from = b;
    std::string text;
    auto flush = [&](std::size_t upto) { decode_body(source, text_from, upto, raw, text); };
    std::size_t k = b;
    while (k < e) {
        const char c = source[k];
        if ((c == '{' || c == '}') && k + 1 < e && source[k + 1] == c) {
            flush(k);
            text += c;
            k += 2;
            text_from = k;
            continue;
        }
        if (c == '}') throw PositionedError("f-string: single '}' is not allowed", offset(k));
        if (c != '{') {
            k += (c == '\\' && !raw) ? 2u : 1u;
            continue;
        }
        flush(k);
        if (!text.empty()) parts.push_back(FStringPart{std::move(text), {}, 0, {}});
        text.clear();
        // The field's expression ends at '!', ':' or '}' outside brackets and strings.
        std::size_t j = k + 1;
        int depth = 0;
        while (j < e) {
            const char d = source[j];
            if (d == '\'' || d == '"') {
                const char q = d;
                ++j;
                while (j < e && source[j] != q) ++j;
                ++j;
                continue;
            }
            if (d == '(' || d == '[' || d == '{') ++depth;
            else if ((d == ')' || d == ']' || d == '}') && depth > 0) --depth;
            else if (depth == 0 && (d == '}' || d == ':' || (d == '!' && j + 1 < e && source[j + 1] != '='))) break;
            ++j;
        }
        if (j >= e) throw PositionedError("f-string: expecting '}'", offset(k));
        FStringPart field;
        field.tokens = tokenize(source, k + 1, j);
        if (field.tokens.size() == 1) throw PositionedError("f-string: empty expression not allowed", offset(k));
        if (source[j] == '!') {
            if (j + 1 >= e || (source[j + 1] != 'r' && source[j + 1] != 's' && source[j + 1] != 'a'))
                throw PositionedError("f-string: invalid conversion character: expected 's', 'r', or 'a'", offset(j));
            field.conv = source[j + 1];
            j += 2;
        }
        if (j < e && source[j] == ':') {
            const std::size_t spec_from = ++j;
            while (j < e && source[j] != '}') {
                if (source[j] == '{')
                    throw PositionedError("f-string: nested replacement fields in a format spec are not supported",
                                          offset(j));
                ++j;
            }
            decode_body(source, spec_from, j, raw, field.spec);
        }
        if (j >= e || source[j] != '}') throw PositionedError("f-string: expecting '}'", offset(j));
        parts.push_back(std::move(field));
        k = j + 1;
        text_from = k;
    }
    flush(e);
    if (!text.empty()) parts.push_back(FStringPart{std::move(text), {}, 0, {}});
    return parts;
}

}  // namespace

std::vector<Token> tokenize(std::string_view source, std::size_t begin, std::size_t end) {
    std::vector<Token> tokens;
    std::size_t i = begin;
    while (true) {
        while (i < end && (source[i] == ' ' || source[i] == '\t' || source[i] == '\n' || source[i] == '\r' ||
                           (source[i] == '\\' && i + 1 < end && source[i + 1] == '\n') ||
                           (source[i] == '\\' && i + 2 < end && source[i + 1] == '\r' && source[i + 2] == '\n') ||
                           source[i] == '#')) {
            if (source[i] == '#') {
                // A comment runs to the end of its line (code lines may end in one: `x = 1  # why`).
                while (i < end && source[i] != '\n') ++i;
                continue;
            }
            // A backslash joins lines ("\\\n", "\\\r\n").
            i += source[i] != '\\' ? 1u : source[i + 1] == '\n' ? 2u : 3u;
        }
        if (i >= end) break;
        const char c = source[i];
        Token t{Token::Kind::Op, offset(i), {}};
        if (is_name_start(c)) {
            std::size_t j = i;
            while (j < end && is_name_char(source[j])) ++j;
            t.kind = Token::Kind::Name;
            t.text = std::string(source.substr(i, j - i));
            // A string prefix: f (formatted), r (raw) or both; b (bytes) is refused.
            std::string prefix = t.text;
            for (char& ch : prefix) ch = static_cast<char>(ch | 0x20);
            const bool quoted = j < end && (source[j] == '\'' || source[j] == '"');
            if (quoted && (prefix == "f" || prefix == "r" || prefix == "fr" || prefix == "rf")) {
                const bool raw = prefix.find('r') != std::string::npos;
                t.kind = Token::Kind::String;
                t.text.clear();
                if (prefix.find('f') != std::string::npos) {
                    const Literal lit = scan_string(source, j, end);
                    t.fstring = true;
                    t.fparts = split_fstring(source, lit.body_begin, lit.body_end, raw);
                    i = lit.after;
                } else {
                    i = lex_string(source, j, end, t.text, raw);
                }
            } else if (quoted && (prefix == "b" || prefix == "br" || prefix == "rb" || prefix == "u")) {
                if (prefix != "u") throw PositionedError("bytes literals are not supported", offset(i));
                t.kind = Token::Kind::String;
                t.text.clear();
                i = lex_string(source, j, end, t.text);
            } else {
                i = j;
            }
        } else if (is_digit(c) || (c == '.' && i + 1 < end && is_digit(source[i + 1]))) {
            std::size_t j = i;
            bool is_float = false;
            // Digits with single underscores between them, as Python allows.
            auto digits = [&](auto is_valid) {
                const std::size_t from = j;
                while (j < end && (is_valid(source[j]) ||
                                   (source[j] == '_' && j > from && j + 1 < end && is_valid(source[j + 1]))))
                    ++j;
            };
            auto without_underscores = [](std::string_view text) {
                std::string out;
                for (char ch : text)
                    if (ch != '_') out += ch;
                return out;
            };
            const char prefix = c == '0' && j + 1 < end ? static_cast<char>(source[j + 1] | 0x20) : 0;
            if (prefix == 'x' || prefix == 'o' || prefix == 'b') {
                const int base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
                j += 2;
                if (j < end && source[j] == '_') ++j;
                digits([base](char ch) { return hex_value(ch) >= 0 && hex_value(ch) < base; });
                const std::string text = without_underscores(source.substr(i + 2, j - i - 2));
                std::uint64_t v = 0;
                auto r = std::from_chars(text.data(), text.data() + text.size(), v, base);
                const bool big = r.ec == std::errc::result_out_of_range || v > static_cast<std::uint64_t>(INT64_MAX);
                if (text.empty() || (r.ec != std::errc() && !big) || r.ptr != text.data() + text.size())
                    throw PositionedError("bad number literal", offset(i));
                t.kind = Token::Kind::Int;
                t.int_value = static_cast<std::int64_t>(v);
                if (big) {
                    t.big_digits = text;
                    t.big_base = base;
                }
            } else {
                digits(is_digit);
                if (j < end && source[j] == '.') {
                    is_float = true;
                    ++j;
                    if (j < end && is_digit(source[j])) digits(is_digit);
                }
                if (j < end && (source[j] == 'e' || source[j] == 'E')) {
                    std::size_t k = j + 1;
                    if (k < end && (source[k] == '+' || source[k] == '-')) ++k;
                    if (k < end && is_digit(source[k])) {
                        is_float = true;
                        j = k;
                        digits(is_digit);
                    }
                }
                const std::string spelling = without_underscores(source.substr(i, j - i));
                // `2j`, `1.5e3J`, `07j`: an imaginary literal (its digits may start with zeros).
                if (j < end && (source[j] == 'j' || source[j] == 'J')) {
                    ++j;
                    is_float = true;
                    t.imaginary = true;
                }
                if (!t.imaginary && !is_float && spelling.size() > 1 && spelling[0] == '0' &&
                    spelling.find_first_not_of('0') != std::string::npos)
                    throw PositionedError("leading zeros in decimal integer literals are not permitted", offset(i));
                if (is_float) {
                    t.kind = Token::Kind::Float;
                    errno = 0;
                    t.float_value = std::strtod(spelling.c_str(), nullptr);
                } else {
                    t.kind = Token::Kind::Int;
                    auto r = std::from_chars(spelling.data(), spelling.data() + spelling.size(), t.int_value);
                    if (r.ec == std::errc::result_out_of_range) {
                        if (spelling.size() > 4300)
                            throw PositionedError("Exceeds the limit (4300 digits) for integer string conversion",
                                                  offset(i));
                        t.big_digits = spelling;
                        t.big_base = 10;
                    } else if (r.ec != std::errc()) {
                        throw PositionedError("bad number literal", offset(i));
                    }
                }
            }
            if (j < end && is_name_char(source[j])) throw PositionedError("bad number literal", offset(i));
            t.text = std::string(source.substr(i, j - i));
            i = j;
        } else if (c == '\'' || c == '"') {
            t.kind = Token::Kind::String;
            i = lex_string(source, i, end, t.text);
        } else {
            bool found = false;
            for (std::string_view op : operators) {
                if (source.substr(i, op.size()) == op && i + op.size() <= end) {
                    t.text = std::string(op);
                    i += op.size();
                    found = true;
                    break;
                }
            }
            if (!found) {
                unsigned char uc = static_cast<unsigned char>(c);
                throw PositionedError(uc >= 0x20 && uc < 0x7f ? fmt::format("unexpected character '{}'", c)
                                                              : fmt::format("unexpected character 0x{:02x}", uc),
                                      offset(i));
            }
        }
        tokens.push_back(std::move(t));
    }
    tokens.push_back(Token{Token::Kind::End, offset(end), {}});
    return tokens;
}

namespace {

// The offset of the closing quote of the string literal whose opening quote is at `i` (as Mako's
// lexer skips them: a triple-quoted one runs over lines, a single-quoted one stops at the line's
// end), or `end` (or the line end) when it is not closed.
std::size_t skip_string(std::string_view source, std::size_t i, std::size_t end) {
    const char quote = source[i];
    if (i + 2 < end && source[i + 1] == quote && source[i + 2] == quote) {
        for (i += 3; i < end; ++i) {
            if (source[i] == '\\') {
                ++i;
            } else if (source[i] == quote && i + 2 < end && source[i + 1] == quote && source[i + 2] == quote) {
                return i + 2;
            }
        }
        return end;
    }
    for (++i; i < end && source[i] != quote && source[i] != '\n'; ++i)
        if (source[i] == '\\') ++i;
    return i;
}

}  // namespace

std::size_t find_expression_end(std::string_view source, std::size_t begin) {
    int depth = 0;
    for (std::size_t i = begin; i < source.size(); ++i) {
        char c = source[i];
        if (c == '\'' || c == '"') {
            // Skip the literal; an unterminated one is reported by the tokenizer later.
            i = skip_string(source, i, source.size());
            if (i >= source.size()) return std::string_view::npos;
        } else if (c == '#') {
            // A comment, which Mako's scan skips with its line end: a '}' after it on its line
            // closes nothing. Without a line end, Mako's generated code would hold the comment
            // before its closing parenthesis (an error there): unterminated here.
            i = source.find('\n', i);
            if (i == std::string_view::npos) return i;
        } else if (c == '{' || c == '(' || c == '[') {
            ++depth;
        } else if (c == ')' || c == ']') {
            --depth;
        } else if (c == '}') {
            if (depth == 0) return i;
            --depth;
        }
    }
    return std::string_view::npos;
}

std::size_t find_line_break(std::string_view source, std::size_t begin, std::size_t end) {
    std::size_t i = begin;
    while (i < end && (source[i] == ' ' || source[i] == '\t' || source[i] == '\n' || source[i] == '\r')) ++i;
    int depth = 0;
    bool broken = false;  // a line end at bracket depth 0 was passed
    for (; i < end; ++i) {
        const char c = source[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f') continue;
        if (c == '#') {  // a comment, up to its line end
            while (i + 1 < end && source[i + 1] != '\n') ++i;
            continue;
        }
        if (c == '\\' && i + 1 < end && source[i + 1] == '\n') {  // a joined line
            ++i;
            continue;
        }
        if (c == '\\' && i + 2 < end && source[i + 1] == '\r' && source[i + 2] == '\n') {
            i += 2;
            continue;
        }
        if (c == '\n') {
            broken = broken || depth <= 0;
            continue;
        }
        if (broken) return i;
        if (c == '\'' || c == '"') {
            i = skip_string(source, i, end);
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            --depth;
        }
    }
    return std::string_view::npos;
}

std::size_t find_filter_bar(std::string_view source, std::size_t begin, std::size_t end) {
    int depth = 0;
    for (std::size_t i = begin; i < end; ++i) {
        char c = source[i];
        if (c == '\'' || c == '"') {
            i = skip_string(source, i, end);
        } else if (c == '#') {  // a comment: no '|' in it is a filter bar
            while (i < end && source[i] != '\n') ++i;
        } else if (c == '{' || c == '(' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ')' || c == ']') {
            --depth;
        } else if (c == '|' && depth == 0) {
            return i;
        }
    }
    return std::string_view::npos;
}

}  // namespace kjarni::tmpl
