// Line-oriented scanner: each line is first checked for the constructs that must start it (control
// lines, ## comments, %%), then scanned inline for ${...} and def tags.

#include "template_lexer.hpp"

#include "errors.hpp"
#include "expr_lexer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace kjarni::tmpl {

namespace {

std::uint32_t off(std::size_t i) { return static_cast<std::uint32_t>(i); }

bool starts_with(std::string_view s, std::size_t at, std::string_view prefix) {
    return s.size() >= at && s.substr(at, prefix.size()) == prefix;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The classes of Python's `re` on text, for the ASCII range: \s and \w. A byte past ASCII counts as
// \w (the bytes of a UTF-8 letter, which Python's \w matches once decoded).
bool is_python_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); }
bool is_encoding_name_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x80 || std::isalnum(u) != 0 || c == '_' || c == '-' || c == '.';
}

// Mako skips a "magic encoding comment" at the very start of a template: a match of the Python
// regex #.*coding[:=]\s*([-\w.]+).*\r?\n, where `.` is any character but '\n' and \s may cross
// lines. Returns where the match ends, 0 when the source does not start with one. `.*` is greedy,
// so the last "coding" of the first line is tried first.
std::size_t encoding_comment_end(std::string_view s) {
    if (s.empty() || s[0] != '#') return 0;
    const std::size_t first_line_end = std::min(s.find('\n'), s.size());
    for (std::size_t at = first_line_end; at-- > 1;) {
        if (at + 7 > first_line_end || s.compare(at, 6, "coding") != 0) continue;
        if (s[at + 6] != ':' && s[at + 6] != '=') continue;
        std::size_t k = at + 7;
        while (k < s.size() && is_python_space(s[k])) ++k;
        if (k == s.size() || !is_encoding_name_char(s[k])) continue;
        const std::size_t newline = s.find('\n', k);
        if (newline != std::string_view::npos) return newline + 1;
    }
    return 0;
}

class Lexer {
public:
    explicit Lexer(std::string_view s) : src_(s) {}

    std::vector<Chunk> run() {
        std::size_t i = encoding_comment_end(src_);
        while (i < src_.size()) i = line(i);
        flush();
        return std::move(chunks_);
    }

private:
    // Handles the line starting at i; returns where the next line starts.
    std::size_t line(std::size_t i) {
        // Mako's line constructs start after [ \t]* (a CR is no blank there).
        std::size_t j = i;
        while (j < src_.size() && (src_[j] == ' ' || src_[j] == '\t')) ++j;
        if (starts_with(src_, j, "%%")) {
            append(src_.substr(i, j - i), i);
            append("%", j);
            return inline_scan(j + 2);
        }
        // A control line or a comment ends at "\n" or "\r\n" (which it takes with it) or at the
        // end of the text; a line with any other CR is no control line or comment in Mako (its
        // regex allows no CR inside), but text.
        const bool line_construct = (j < src_.size() && src_[j] == '%') || starts_with(src_, j, "##");
        if (line_construct && i > 0 && has_lone_cr(j)) {
            // Mako's lexer steps over the line's first character here (an empty match of its
            // text rule, which stops before a would-be control line after a newline, advances
            // one character), and the rest of the line is text.
            return inline_scan(i + 1);
        }
        if (j < src_.size() && src_[j] == '%' && !has_lone_cr(j)) {
            std::size_t e = construct_end(j);
            flush();
            Chunk c{Chunk::Kind::Control, off(j), {}};
            c.begin = off(j + 1);
            c.end = off(e > j && src_[e - 1] == '\r' ? e - 1 : e);
            chunks_.push_back(std::move(c));
            return after_newline(e);
        }
        if (starts_with(src_, j, "##") && !has_lone_cr(j)) {
            return after_newline(construct_end(j));
        }
        return inline_scan(i);
    }

    // Whether the line from i holds a CR that is not the CR of its "\r\n" line end.
    bool has_lone_cr(std::size_t i) const {
        const std::size_t e = line_end(i);
        const std::size_t cr = src_.find('\r', i);
        return cr < e && !(cr + 1 == e && e < src_.size());
    }

    // Scans text from i to the end of the line (a joined line continues it); returns the next line.
    std::size_t inline_scan(std::size_t i) {
        while (i < src_.size()) {
            // A run of characters that cannot start anything goes to the text at once: checking
            // every tag at every character made rendering plain kernel code cost tens of µs.
            const std::size_t special = std::min(src_.find_first_of("\n\\$<\r", i), src_.size());
            if (special > i) {
                append(src_.substr(i, special - i), i);
                i = special;
                continue;
            }
            char c = src_[i];
            if (c == '\n') {
                append("\n", i);
                return i + 1;
            }
            // A joined line: its text continues this one, but control and comment lines are
            // still recognized at its start.
            if (c == '\\' && i + 1 < src_.size() && src_[i + 1] == '\n') return i + 2;
            if (c == '\\' && i + 2 < src_.size() && src_[i + 1] == '\r' && src_[i + 2] == '\n') return i + 3;
            if (c == '$' && i + 1 < src_.size() && src_[i + 1] == '{') {
                std::size_t e = find_expression_end(src_, i + 2);
                if (e == std::string_view::npos) throw PositionedError("unterminated '${' (no closing '}')", off(i));
                flush();
                Chunk ch{Chunk::Kind::Expr, off(i), {}};
                ch.begin = off(i + 2);
                ch.end = off(e);
                chunks_.push_back(std::move(ch));
                i = e + 1;
                continue;
            }
            if (starts_with(src_, i, "<%!")) {
                // A module-level block: its code runs before the template (once per render in
                // kjarni, once per loaded module in Mako); the text after "%>" stays.
                const std::size_t close = find_block_end(i + 3);
                flush();
                Chunk ch{Chunk::Kind::Module, off(i), {}};
                ch.begin = off(i + 3);
                ch.end = off(close);
                chunks_.push_back(std::move(ch));
                i = close + 2;
                continue;
            }
            if (starts_with(src_, i, "<%") && i + 2 < src_.size() &&
                (src_[i + 2] == ' ' || src_[i + 2] == '\t' || src_[i + 2] == '\n' || src_[i + 2] == '\r')) {
                // A Python block: its code runs where it stands; the text after "%>" stays (Mako).
                const std::size_t close = find_block_end(i + 2);
                flush();
                Chunk ch{Chunk::Kind::Code, off(i), {}};
                ch.begin = off(i + 2);
                ch.end = off(close);
                chunks_.push_back(std::move(ch));
                i = close + 2;
                continue;
            }
            if (starts_with(src_, i, "<%call") || starts_with(src_, i, "</%call")) {
                flush();
                i = scan_call_tag(i);
                continue;
            }
            if (starts_with(src_, i, "<%self:") || starts_with(src_, i, "</%self:") ||
                starts_with(src_, i, "<%local:") || starts_with(src_, i, "</%local:")) {
                flush();
                i = scan_call_tag(i);
                continue;
            }
            if (starts_with(src_, i, "<%doc>")) {
                // Mako's documentation comment: everything up to </%doc> goes, lines and tags too.
                const std::size_t close = src_.find("</%doc>", i + 6);
                if (close == std::string_view::npos)
                    throw PositionedError("'<%doc>' is not closed by '</%doc>'", off(i));
                i = close + 7;
                continue;
            }
            if (starts_with(src_, i, "<%text>")) {
                // Mako's literal text: up to </%text>, nothing in it is read (${...}, % lines, tags).
                const std::size_t close = src_.find("</%text>", i + 7);
                if (close == std::string_view::npos)
                    throw PositionedError("'<%text>' is not closed by '</%text>'", off(i));
                // Mako's scan for the end needs one character of text first (an empty one is its
                // "Unclosed tag").
                if (close == i + 7) throw PositionedError("an empty '<%text></%text>' (Mako refuses it)", off(i));
                append(src_.substr(i + 7, close - i - 7), i + 7);
                i = close + 8;
                continue;
            }
            if (starts_with(src_, i, "<%text") && i + 6 < src_.size() && is_python_space(src_[i + 6])) {
                flush();
                i = scan_filtered_text(i);
                continue;
            }
            if (const std::size_t name_end = loader_tag_end(i); name_end != 0) {
                // As a def tag, these take no whitespace with them.
                flush();
                i = scan_loader_tag(i, name_end);
                continue;
            }
            if (is_tag(i, "<%block") || is_tag(i, "</%block")) {
                // As a def tag, a block tag takes no whitespace with it.
                flush();
                i = scan_block_tag(i);
                continue;
            }
            if ((starts_with(src_, i, "<%") || starts_with(src_, i, "</%")) && !starts_with(src_, i, "<%def") &&
                !starts_with(src_, i, "</%def"))
                unsupported_tag(i);
            if (starts_with(src_, i, "<%def") || starts_with(src_, i, "</%def")) {
                // As in Mako, a def tag takes no whitespace with it: the newline after an opening
                // tag starts the def's body, the one after a closing tag stays in the text.
                flush();
                i = scan_tag(i, /*emit=*/true);
                continue;
            }
            // Text is copied as it is, CRs included (Mako keeps "\r\n" line ends).
            append(std::string_view(&src_[i], 1), i);
            ++i;
        }
        return i;
    }

    // The "%>" closing the block whose code starts at i (strings skipped, as Mako does).
    std::size_t find_block_end(std::size_t i) const {
        const std::size_t open = i - 2;
        std::size_t lone_cr = std::string_view::npos;
        while (i < src_.size()) {
            const char c = src_[i];
            if (c == '\'' || c == '"') {
                const bool triple = i + 2 < src_.size() && src_[i + 1] == c && src_[i + 2] == c;
                const std::string_view quote = triple ? src_.substr(i, 3) : src_.substr(i, 1);
                i += quote.size();
                while (i < src_.size() && src_.substr(i, quote.size()) != quote) i += src_[i] == '\\' ? 2u : 1u;
                i += quote.size();
                continue;
            }
            // A comment runs to the end of its line, as Mako's scan for "%>" reads one (`#.*\n`):
            // a '#' on the template's last line (no line end after it) starts none there.
            if (c == '#' && src_.find('\n', i) != std::string_view::npos) {
                while (src_[i] != '\n') ++i;
                continue;
            }
            if (c == '\r' && lone_cr == std::string_view::npos && (i + 1 == src_.size() || src_[i + 1] != '\n'))
                lone_cr = i;
            if (starts_with(src_, i, "%>")) {
                refuse_lone_cr(lone_cr, i);
                return i;
            }
            ++i;
        }
        throw PositionedError("'<%' block is not closed by '%>'", off(open));
    }

    // Mako splits a block's code into lines at "\n" and "\r\n" only and re-indents them, while
    // Python reads a lone CR (outside string literals, where it is a "\n") as a line end too: what
    // Mako then makes of the code is its own (mostly an IndentationError or a SyntaxError). kjarni
    // refuses the first lone CR of a block's code rather than guess, unless nothing but blanks
    // follow it up to the block's end (harmless in both).
    void refuse_lone_cr(std::size_t lone_cr, std::size_t close) const {
        if (lone_cr == std::string_view::npos || src_.find_first_not_of(" \t\r", lone_cr + 1) >= close) return;
        throw PositionedError("a carriage return that ends no line (a lone CR) inside a '<% %>' block", off(lone_cr));
    }

    // Mako's other tags and code blocks: refused by name rather than passed through as text.
    [[noreturn]] void unsupported_tag(std::size_t i) const {
        std::size_t k = i + (src_[i + 1] == '/' ? 3 : 2);
        std::size_t e = k;
        while (e < src_.size() &&
               (std::isalnum(static_cast<unsigned char>(src_[e])) || src_[e] == '_' || src_[e] == ':'))
            ++e;
        if (e == k) throw PositionedError("'<% %>' Python blocks are not supported", off(i));
        throw PositionedError(fmt::format("the '<%{}>' tag is not supported", src_.substr(k, e - k)), off(i));
    }

    // The end of the tag name when a tag that needs the template loader starts at i, else 0.
    std::size_t loader_tag_end(std::size_t i) const {
        for (std::string_view name : {"include", "inherit", "namespace", "page"}) {
            const std::size_t e = i + 2 + name.size();
            if (starts_with(src_, i, "<%") && src_.substr(i + 2, name.size()) == name && e < src_.size() &&
                (is_space(src_[e]) || src_[e] == '\n' || src_[e] == '/' || src_[e] == '>'))
                return e;
        }
        return 0;
    }

    // One attribute="value" (or 'value') of the tag `<%tag`, at k: its name, where it starts, and
    // the range of its value; k moves past the closing quote.
    struct Attribute {
        std::string_view name;
        std::size_t at;
        std::size_t value;
        std::size_t value_end;
    };
    Attribute scan_attribute(std::size_t& k, std::string_view tag) const {
        const std::size_t a = k;
        while (k < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[k])) || src_[k] == '_')) ++k;
        if (k == a || k + 1 >= src_.size() || src_[k] != '=' || (src_[k + 1] != '"' && src_[k + 1] != '\''))
            throw PositionedError(fmt::format("malformed '<%{}' tag: expected attribute=\"value\"", tag), off(a));
        const char quote = src_[k + 1];
        const std::size_t v = k + 2;
        const std::size_t ve = src_.find(quote, v);
        if (ve == std::string_view::npos) throw PositionedError("unterminated attribute value", off(k + 1));
        const std::string_view name = src_.substr(a, k - a);
        k = ve + 1;
        return {name, a, v, ve};
    }

    // Skips the blanks before the next attribute of the tag `<%tag` opened at i. At the tag's end
    // ('>', or '/>', which makes `c` self-closing) moves k past it and returns true.
    bool at_tag_end(std::size_t& k, std::size_t i, std::string_view tag, Chunk& c) const {
        while (k < src_.size() && (is_space(src_[k]) || src_[k] == '\n')) ++k;
        if (k >= src_.size())
            throw PositionedError(fmt::format("unterminated '<%{}' tag (no closing '>')", tag), off(i));
        if (src_[k] == '>') {
            ++k;
            return true;
        }
        if (starts_with(src_, k, "/>")) {
            c.self_closing = true;
            k += 2;
            return true;
        }
        return false;
    }

    // `<%include file="..." args="..."/>` and its kin: attributes only, and no body (Mako's
    // namespace tag may hold defs, which kjarni refuses by name).
    std::size_t scan_loader_tag(std::size_t i, std::size_t name_end) {
        Chunk c{Chunk::Kind::Tag, off(i), {}};
        c.tag_def = std::string(src_.substr(i + 2, name_end - i - 2));
        std::size_t k = name_end;
        while (true) {
            while (k < src_.size() && (is_space(src_[k]) || src_[k] == '\n')) ++k;
            if (k >= src_.size())
                throw PositionedError(fmt::format("unterminated '<%{}' tag (no closing '/>')", c.tag_def), off(i));
            if (starts_with(src_, k, "/>")) {
                k += 2;
                break;
            }
            if (src_[k] == '>')
                throw PositionedError(fmt::format("'<%{}>' with a body is not supported (write '<%{} .../>')",
                                                  c.tag_def, c.tag_def),
                                      off(i));
            const Attribute attr = scan_attribute(k, c.tag_def);
            for (const auto& seen : c.tag_attrs)
                if (seen.first == attr.name)
                    throw PositionedError(fmt::format("attribute '{}' given twice", seen.first), off(attr.at));
            c.tag_attrs.push_back({std::string(attr.name), {off(attr.value), off(attr.value_end)}});
        }
        chunks_.push_back(std::move(c));
        return k;
    }

    // `<%call expr="..." args="...">` or `</%call>` at i; returns the offset after its '>'.
    // Also a custom tag, `<%self:name attr="..." args="...">`: a <%call> of the def `name` of the
    // namespace with the attributes as keyword arguments.
    std::size_t scan_call_tag(std::size_t i) {
        const bool closing = src_[i + 1] == '/';
        const std::size_t name_at = i + (closing ? 3 : 2);
        std::size_t colon = name_at;
        while (colon < src_.size() && std::isalnum(static_cast<unsigned char>(src_[colon]))) ++colon;
        const bool custom = colon < src_.size() && src_[colon] == ':';
        std::size_t k = custom ? colon + 1 : name_at + 4;
        std::size_t def_end = k;
        if (custom) {
            while (def_end < src_.size() &&
                   (std::isalnum(static_cast<unsigned char>(src_[def_end])) || src_[def_end] == '_'))
                ++def_end;
            if (def_end == k) throw PositionedError("malformed custom tag: expected '<%namespace:def'", off(i));
        }
        if (closing) {
            k = custom ? def_end : k;
            while (k < src_.size() && is_space(src_[k])) ++k;
            if (k >= src_.size() || src_[k] != '>')
                throw PositionedError(custom ? "malformed closing custom tag" : "malformed '</%call>' tag", off(i));
            chunks_.push_back(Chunk{Chunk::Kind::CallClose, off(i), {}});
            return k + 1;
        }
        Chunk c{Chunk::Kind::CallOpen, off(i), {}};
        bool have_expr = custom;
        if (custom) {
            c.tag_ns = std::string(src_.substr(name_at, colon - name_at));
            c.tag_def = std::string(src_.substr(colon + 1, def_end - colon - 1));
            c.tag_pos = off(colon + 1);
            k = def_end;
        }
        while (!at_tag_end(k, i, "call", c)) {
            const Attribute a = scan_attribute(k, "call");
            const std::string_view attr = a.name;
            const std::size_t v = a.value, ve = a.value_end;
            if (attr == "expr" && !custom) {
                have_expr = true;
                c.begin = off(v);
                c.end = off(ve);
            } else if (attr == "args") {
                c.args_begin = off(v);
                c.args_end = off(ve);
            } else if (custom) {
                c.tag_attrs.push_back({std::string(attr), {off(v), off(ve)}});
            } else {
                throw PositionedError(fmt::format("the attribute '{}' of '<%call>' is not supported", attr), off(a.at));
            }
        }
        if (!have_expr) throw PositionedError("'<%call' tag without an expr attribute", off(i));
        chunks_.push_back(std::move(c));
        return k;
    }

    // Parses the def tag at i; returns the offset after its '>'.
    std::size_t scan_tag(std::size_t i, bool emit) {
        if (starts_with(src_, i, "</%def")) {
            std::size_t k = i + 6;
            while (k < src_.size() && is_space(src_[k])) ++k;
            if (k >= src_.size() || src_[k] != '>') throw PositionedError("malformed '</%def>' tag", off(i));
            if (emit) chunks_.push_back(Chunk{Chunk::Kind::DefClose, off(i), {}});
            return k + 1;
        }
        Chunk c{Chunk::Kind::DefOpen, off(i), {}};
        bool have_name = false;
        std::size_t k = i + 5;
        while (!at_tag_end(k, i, "def", c)) {
            const Attribute a = scan_attribute(k, "def");
            const std::string_view attr = a.name;
            const std::size_t v = a.value, ve = a.value_end;
            if (attr == "name") {
                have_name = true;
                c.begin = off(v);
                c.end = off(ve);
            } else if (attr == "filter") {
                c.args_begin = off(v);
                c.args_end = off(ve);
            } else {
                throw PositionedError(fmt::format("the attribute '{}' of '<%def>' is not supported", attr), off(a.at));
            }
        }
        if (!have_name) throw PositionedError("'<%def' tag without a name attribute", off(i));
        if (emit) chunks_.push_back(std::move(c));
        return k;
    }

    // `<%text filter="h, f">...</%text>` at i: its literal text as a FilteredText chunk (the filter
    // in args_*); returns the offset after the closing tag.
    std::size_t scan_filtered_text(std::size_t i) {
        Chunk c{Chunk::Kind::FilteredText, off(i), {}};
        std::size_t k = i + 6;
        while (!at_tag_end(k, i, "text", c)) {
            const Attribute a = scan_attribute(k, "text");
            if (a.name != "filter")
                throw PositionedError(fmt::format("invalid attribute '{}' for '<%text>' (Mako's CompileException)",
                                                  a.name),
                                      off(a.at));
            c.args_begin = off(a.value);
            c.args_end = off(a.value_end);
        }
        if (c.self_closing) throw PositionedError("'<%text/>' without a body (Mako refuses it)", off(i));
        const std::size_t close = src_.find("</%text>", k);
        if (close == std::string_view::npos) throw PositionedError("'<%text>' is not closed by '</%text>'", off(i));
        // As for <%text>: Mako's scan for the end needs one character of text first.
        if (close == k) throw PositionedError("an empty '<%text></%text>' (Mako refuses it)", off(i));
        c.text = std::string(src_.substr(k, close - k));
        c.begin = off(k);
        chunks_.push_back(std::move(c));
        return close + 8;
    }

    // Whether the tag `tag` starts at i (its name ends there: `<%blockx` is another tag).
    bool is_tag(std::size_t i, std::string_view tag) const {
        const std::size_t e = i + tag.size();
        return starts_with(src_, i, tag) && e < src_.size() &&
               (is_space(src_[e]) || src_[e] == '\n' || src_[e] == '/' || src_[e] == '>');
    }

    // `<%block name="x" filter="f">` (name optional: an anonymous block) or `</%block>` at i;
    // returns the offset after its '>'.
    std::size_t scan_block_tag(std::size_t i) {
        if (src_[i + 1] == '/') {
            std::size_t k = i + 8;
            while (k < src_.size() && is_space(src_[k])) ++k;
            if (k >= src_.size() || src_[k] != '>') throw PositionedError("malformed '</%block>' tag", off(i));
            chunks_.push_back(Chunk{Chunk::Kind::BlockClose, off(i), {}});
            return k + 1;
        }
        Chunk c{Chunk::Kind::BlockOpen, off(i), {}};
        std::size_t k = i + 7;
        while (!at_tag_end(k, i, "block", c)) {
            const Attribute a = scan_attribute(k, "block");
            if (a.name == "name") {
                c.begin = off(a.value);
                c.end = off(a.value_end);
            } else if (a.name == "filter") {
                c.args_begin = off(a.value);
                c.args_end = off(a.value_end);
            } else {
                // args= (Mako passes the enclosing function's variables of those names), buffered=,
                // cached=, decorator=...
                throw PositionedError(fmt::format("the attribute '{}' of '<%block>' is not supported", a.name),
                                      off(a.at));
            }
        }
        chunks_.push_back(std::move(c));
        return k;
    }

    std::size_t line_end(std::size_t i) const {
        std::size_t e = src_.find('\n', i);
        return e == std::string_view::npos ? src_.size() : e;
    }
    // The end of the control line or ## comment at i: as Mako's regex, a backslash right before
    // a line end joins the next line to it (`% if a and \` continues on the next line, and so
    // does a comment).
    std::size_t construct_end(std::size_t i) const {
        std::size_t e = line_end(i);
        while (e < src_.size()) {
            const std::size_t before = e > i && src_[e - 1] == '\r' ? e - 1 : e;
            if (before == i || src_[before - 1] != '\\') break;
            e = line_end(e + 1);
        }
        return e;
    }
    std::size_t after_newline(std::size_t e) const { return e >= src_.size() ? e : e + 1; }

    void append(std::string_view text, std::size_t pos) {
        if (text_.empty()) text_pos_ = pos;
        text_ += text;
    }
    void flush() {
        if (text_.empty()) return;
        Chunk c{Chunk::Kind::Text, off(text_pos_), std::move(text_)};
        chunks_.push_back(std::move(c));
        text_.clear();
    }

    std::string_view src_;
    std::vector<Chunk> chunks_;
    std::string text_;
    std::size_t text_pos_ = 0;
};

}  // namespace

std::vector<Chunk> lex_template(std::string_view source) { return Lexer(source).run(); }

}  // namespace kjarni::tmpl
