#pragma once
// Helpers shared by the template tests.

#include <kjarni/template.hpp>

#include <gtest/gtest.h>

#include <string>

namespace kjarni::test {

inline std::string render(const std::string& source, const Globals& globals = {}) {
    return Template::from_string(source, "test").render(globals);
}

/// Collapses every run of whitespace to one space and trims the ends: the reference prints its
/// examples with indentation that depends on how the Python strings were written.
inline std::string normalize(const std::string& s) {
    std::string out;
    bool space = false;
    for (char c : s) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
    }
    return out;
}

/// Runs `f`, expecting a RenderError at (line, column; 0 for any) whose message contains `fragment`.
template <class F>
void expect_render_error(F&& f, std::size_t line, std::size_t column, const std::string& fragment) {
    try {
        f();
        ADD_FAILURE() << "no RenderError thrown (expected: " << fragment << ")";
    } catch (const RenderError& e) {
        EXPECT_EQ(e.line(), line) << e.what();
        if (column != 0) {  // 0: any column
            EXPECT_EQ(e.column(), column) << e.what();
        }
        EXPECT_NE(e.message().find(fragment), std::string::npos) << "message: " << e.message();
    }
}

}  // namespace kjarni::test
