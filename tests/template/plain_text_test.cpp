// The plain-text fast path (src/template/plain_text.cpp): render_with_modules() returns a source
// without template markup as it is, without the engine. Here, for many texts built from exactly
// the characters that make the engine (and Mako) change text, the fast path's result must be the
// engine's result, and a text the check lets through must render to itself.

#include "test_util.hpp"

#include "template/plain_text.hpp"

#include <kjarni/template/module.hpp>

#include <array>
#include <random>
#include <string_view>

namespace {

using kjarni::render_with_modules;

// An error's first line (the rest lists the globals, which differ below), marked so that it
// cannot equal a rendered text.
std::string error_text(const kjarni::Error& e) {
    const std::string_view what = e.what();
    return "\x01error: " + std::string(what.substr(0, what.find('\n')));
}

// What the engine gives (an unused global keeps render_with_modules off the fast path), or the
// error it throws.
std::string engine(const std::string& text) {
    try {
        return render_with_modules(text, {}, {{"kjarni_test_unused_global", kjarni::Value(0)}});
    } catch (const kjarni::Error& e) {
        return error_text(e);
    }
}

std::string fast(const std::string& text) {
    try {
        return render_with_modules(text);
    } catch (const kjarni::Error& e) {
        return error_text(e);
    }
}

struct Tally {
    int plain = 0;
    int rendered = 0;
};

void check(const std::string& text, Tally& tally) {
    const bool plain = kjarni::detail::renders_as_itself(text);
    const std::string expected = engine(text);
    if (plain) {
        ++tally.plain;
        ASSERT_EQ(expected, "\n\n" + text + "\n")
            << "the check let through a text the engine changes:\n[" << text << "]";
    } else {
        ++tally.rendered;
    }
    ASSERT_EQ(fast(text), expected) << "[" << text << "]";
}

// Pieces of C code, chosen for the characters the engine acts on: '%' in printf formats and in
// `a % b`, "##" token pasting, macros continued with a backslash, '$', '{', '<', digraphs.
constexpr std::array<std::string_view, 40> kCodePieces = {
    "KERNEL void f(GLOBAL_MEM float* y) {",
    "}",
    "    y[i] = a % b;",
    "int r = a %b;",
    "% 2",
    "%% literal",
    "printf(\"%d %5.2f%%\\n\", i, x);",
    "printf(\"%s\", s);  // 100%",
    "#define CAT(a, b) a ## b",
    "#define CAT2(a, b) a##b",
    "## not pasting at a line start",
    "#define MAX(a, b) \\",
    "    ((a) > (b) ? (a) : (b))",
    "#define LONG(x) do { \\",
    "    x += 1; \\",
    "} while (0)",
    "const char* p = \"\\\\\";",
    "int $dollar = 1;",
    "/* ${not a comment} */",
    "$ {x}",
    "x <% y %>",
    "a <%b",
    "if (a < b && c % d) {}",
    "</%def>",
    "<%def name='g()'>g</%def>",
    "<% x = 1 %>",
    "<%! import os %>",
    "${x}",
    "${ 1 + 2 }",
    "${",
    "a <& b",
    "\\",
    "#include <stdio.h>",
    "# define X 1",
    "#if X % 2",
    "#pragma unroll",
    "// coding: utf-8",
    "x = y</z;",
    "\xc3\xa9\xe2\x82\xac",
    "",
};

constexpr std::array<std::string_view, 7> kIndents = {"", "", " ", "  ", "\t", " \t", "\f"};
constexpr std::array<std::string_view, 5> kNewlines = {"\n", "\n", "\n", "\r\n", "\\\n"};

TEST(TemplatePlainText, FastPathEqualsTheEngineOnCode) {
    std::mt19937 rng(20261126);
    Tally tally;
    for (int n = 0; n < 4000; ++n) {
        std::string text;
        const int lines = std::uniform_int_distribution<int>(0, 8)(rng);
        // Mostly lines the engine leaves alone, so that both paths are taken often.
        const bool mostly_plain = n % 2 == 0;
        for (int l = 0; l < lines; ++l) {
            std::string_view piece =
                kCodePieces[std::uniform_int_distribution<std::size_t>(0, kCodePieces.size() - 1)(rng)];
            if (mostly_plain && (piece.find_first_of("$<%\\\r") != std::string_view::npos || piece.starts_with("##"))) {
                piece = kCodePieces[std::uniform_int_distribution<std::size_t>(0, 2)(rng) == 0 ? 0 : 2];
            }
            text += kIndents[std::uniform_int_distribution<std::size_t>(0, kIndents.size() - 1)(rng)];
            text += piece;
            if (l + 1 < lines || rng() % 2 == 0) {
                text += kNewlines[std::uniform_int_distribution<std::size_t>(0, kNewlines.size() - 1)(rng)];
            }
        }
        check(text, tally);
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(tally.plain, 800);
    EXPECT_GT(tally.rendered, 800);
}

TEST(TemplatePlainText, FastPathEqualsTheEngineOnRandomCharacters) {
    // Short random strings over the engine's special characters and a few others: every
    // combination of adjacent specials turns up.
    constexpr std::string_view alphabet = "$${{}<</%%%##\\\\\n\n\n\r  \tax!>:=\"'\x80\0";
    std::mt19937 rng(7);
    Tally tally;
    for (int n = 0; n < 60000; ++n) {
        std::string text;
        const int length = std::uniform_int_distribution<int>(0, 12)(rng);
        for (int i = 0; i < length; ++i) {
            text += alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
        }
        check(text, tally);
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(tally.plain, 5000);
    EXPECT_GT(tally.rendered, 5000);
}

TEST(TemplatePlainText, ExamplesTakeThePathExpected) {
    using kjarni::detail::renders_as_itself;
    EXPECT_TRUE(renders_as_itself(""));
    EXPECT_TRUE(renders_as_itself("KERNEL void f() { int r = a % b; printf(\"%d%%\", r); }\n"));
    EXPECT_TRUE(renders_as_itself("#define CAT(a, b) a ## b\n$x {y} < % # \\ \\n\n"));
    EXPECT_FALSE(renders_as_itself("a\n  % if x:\n"));
    EXPECT_FALSE(renders_as_itself("%% a"));
    EXPECT_FALSE(renders_as_itself("a\n\t## comment\n"));
    EXPECT_FALSE(renders_as_itself("#define M \\\n 1\n"));
    EXPECT_FALSE(renders_as_itself("a\r\n"));
    EXPECT_FALSE(renders_as_itself("${x}"));
    EXPECT_FALSE(renders_as_itself("<%def name='f()'></%def>"));
    EXPECT_FALSE(renders_as_itself("a</%def>"));
    EXPECT_FALSE(renders_as_itself("a\\"));  // the def's newline after the body joins the lines
    // As render_with_modules() always returns: the (no) modules' sources, a newline, the def
    // (a newline, the code, a newline).
    EXPECT_EQ(render_with_modules(std::string("int x;")), "\n\nint x;\n");
}

}  // namespace
