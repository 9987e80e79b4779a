// Line ends as Mako renders them (issue 43, item 4): random templates with CRLF, LF and lone CR
// line ends (line_ends/cases.txt, made and rendered by Mako itself: peer/mako_line_ends.py; the
// ctest `template_peers` re-makes the file in CI and fails when it differs), rendered by kjarni and
// compared byte for byte; a template Mako refuses must be refused too. Then a few crafted cases
// that name each rule.

#include "test_util.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kjarni::test {
namespace {

// The globals of peer/mako_line_ends.py.
Globals line_end_globals() {
    Globals g;
    g["n"] = 3;
    g["flag"] = true;
    g["names"] = Value{"x", "y"};
    return g;
}

std::string from_hex(const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

std::string shown(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '\r' ? std::string("\\r") : c == '\n' ? std::string("\\n\n") : std::string(1, c);
    return out;
}

TEST(LineEnds, RandomTemplatesRenderAsMako) {
    const auto path = std::filesystem::path(KJARNI_TEST_DATA_DIR).parent_path() / "line_ends" / "cases.txt";
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    const Globals globals = line_end_globals();
    std::size_t rendered = 0, refused = 0, with_crlf = 0;
    std::size_t index = 0;
    for (std::string line; std::getline(in, line); ++index) {
        const auto tab = line.find('\t');
        ASSERT_NE(tab, std::string::npos);
        const std::string source = from_hex(line.substr(0, tab));
        const std::string expected = line.substr(tab + 1);
        if (source.find("\r\n") != std::string::npos) ++with_crlf;
        if (expected.starts_with("MAKO-ERROR")) {
            EXPECT_THROW(render(source, globals), RenderError) << "case " << index << " (" << expected << "):\n"
                                                               << shown(source);
            ++refused;
            continue;
        }
        try {
            const std::string got = render(source, globals);
            EXPECT_EQ(got, from_hex(expected)) << "case " << index << ":\n"
                                               << shown(source) << "\n--- kjarni:\n"
                                               << shown(got) << "\n--- Mako:\n"
                                               << shown(from_hex(expected));
        } catch (const RenderError& e) {
            ADD_FAILURE() << "case " << index << " refused: " << e.what() << "\n" << shown(source);
        }
        ++rendered;
    }
    EXPECT_EQ(index, 400u);
    EXPECT_GT(rendered, 300u);
    EXPECT_GT(refused, 0u);
    EXPECT_GE(with_crlf, 340u);
}

TEST(LineEnds, CraftedCases) {
    // Text keeps its CRLF; control lines, comments and blocks take theirs with them.
    EXPECT_EQ(render("a\r\nb\r\n"), "a\r\nb\r\n");
    EXPECT_EQ(render("x = ${1}\r\n% if True:\r\nyes\r\n% endif\r\nend\r\n"), "x = 1\r\nyes\r\nend\r\n");
    EXPECT_EQ(render("## c\r\nz\r\n"), "z\r\n");
    // A backslash before CRLF joins the lines.
    EXPECT_EQ(render("a\\\r\nb\r\n"), "ab\r\n");
    // A lone CR is text, and not a line end: it does not end a control line or a comment.
    EXPECT_EQ(render("a\rb\r\n"), "a\rb\r\n");
    EXPECT_EQ(render("## c\rX\nY\n"), "## c\rX\nY\n");
    EXPECT_THROW(render("% if True:\ry\n% endif\n"), RenderError);
    // Defs' bodies keep theirs.
    EXPECT_EQ(render("<%def name=\"f()\">\r\nq\r\n</%def>\r\n${f()}\r\n"), "\r\n\r\nq\r\n\r\n");
    // Python code reads a CRLF (or a lone CR) inside a string literal as "\n" (Python's universal
    // newlines), so the value has "\n".
    EXPECT_EQ(render("<% x = \"\"\"a\r\nb\"\"\" %>${repr(x)}\r\n"), "'a\\nb'\r\n");
    EXPECT_EQ(render("<% x = \"\"\"a\rb\"\"\" %>${repr(x)}"), "'a\\nb'");
    EXPECT_EQ(render("<%\r\nx = 1\r\ny = 2\r\n%>${x + y}\r\n"), "3\r\n");
}

}  // namespace
}  // namespace kjarni::test
