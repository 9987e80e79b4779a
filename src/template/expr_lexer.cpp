// Python expression tokenizer: names, numbers, strings (with the usual escapes) and operators.

#include "expr_lexer.hpp"

#include "errors.hpp"

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
constexpr std::string_view operators[] = {"**=", "//=", ">>=", "<<=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
                                          ";", "**", "//", "==", "!=", "<=", ">=", "<<", ">>", "+", "-", "*", "/",
                                          "%",  "<",  ">",  "(",  ")",  "[",  "]",  "{",  "}", ",", ".", ":",
                                          "=",  "|",  "&",  "^",  "~"};

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Decodes a string literal starting at source[i] (the quote); returns the offset after it.
std::size_t lex_string(std::string_view source, std::size_t i, std::size_t end, std::string& out) {
    const char quote = source[i];
    const std::size_t start = i;
    ++i;
    while (true) {
        if (i >= end || source[i] == '\n') throw PositionedError("unterminated string literal", offset(start));
        char c = source[i];
        if (c == quote) return i + 1;
        if (c != '\\') {
            out += c;
            ++i;
            continue;
        }
        if (i + 1 >= end) throw PositionedError("unterminated string literal", offset(start));
        char e = source[i + 1];
        i += 2;
        switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '0': out += '\0'; break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case '\n': break;  // an escaped newline continues the literal
        case 'x': {
            int hi = i < end ? hex_value(source[i]) : -1;
            int lo = i + 1 < end ? hex_value(source[i + 1]) : -1;
            if (hi < 0 || lo < 0) throw PositionedError("bad \\x escape in string literal", offset(i - 2));
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
            break;
        }
        default:  // Python keeps unknown escapes as written
            out += '\\';
            out += e;
        }
    }
}

}  // namespace

std::vector<Token> tokenize(std::string_view source, std::size_t begin, std::size_t end) {
    std::vector<Token> tokens;
    std::size_t i = begin;
    while (true) {
        while (i < end && (source[i] == ' ' || source[i] == '\t' || source[i] == '\n' || source[i] == '\r' ||
                           (source[i] == '\\' && i + 1 < end && source[i + 1] == '\n')))
            i += source[i] == '\\' ? 2u : 1u;
        if (i >= end) break;
        const char c = source[i];
        Token t{Token::Kind::Op, offset(i), {}};
        if (is_name_start(c)) {
            std::size_t j = i;
            while (j < end && is_name_char(source[j])) ++j;
            t.kind = Token::Kind::Name;
            t.text = std::string(source.substr(i, j - i));
            i = j;
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
                if (!is_float && spelling.size() > 1 && spelling[0] == '0' && spelling.find_first_not_of('0') != std::string::npos)
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
                            throw PositionedError("Exceeds the limit (4300 digits) for integer string conversion", offset(i));
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

std::size_t find_expression_end(std::string_view source, std::size_t begin) {
    int depth = 0;
    for (std::size_t i = begin; i < source.size(); ++i) {
        char c = source[i];
        if (c == '\'' || c == '"') {
            // Skip the literal; an unterminated one is reported by the tokenizer later.
            ++i;
            while (i < source.size() && source[i] != c && source[i] != '\n') {
                if (source[i] == '\\') ++i;
                ++i;
            }
            if (i >= source.size()) return std::string_view::npos;
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

std::size_t find_filter_bar(std::string_view source, std::size_t begin, std::size_t end) {
    int depth = 0;
    for (std::size_t i = begin; i < end; ++i) {
        char c = source[i];
        if (c == '\'' || c == '"') {
            ++i;
            while (i < end && source[i] != c) {
                if (source[i] == '\\') ++i;
                ++i;
            }
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
