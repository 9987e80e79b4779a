// <%text filter="...">: the literal text, filtered as Mako filters it (the corpus's
// text_filter case shows the renders against Mako); here the errors and their positions.

#include "test_util.hpp"

namespace {

using kjarni::test::expect_render_error;
using kjarni::test::render;

TEST(TextFilter, FiltersTheLiteralText) {
    EXPECT_EQ(render("<%text filter=\"h, trim\">  <b>${x}</b>  </%text>|"), "&lt;b&gt;${x}&lt;/b&gt;|");
    // `n` only turns default filters off: skipped.
    EXPECT_EQ(render("<%text filter=\"n, h\">a<b</%text>"), "a&lt;b");
    // A filter is read as the enclosing function's name (a local of the top level here).
    EXPECT_EQ(render("<% up = str.upper %><%text filter=\"up\">ab</%text>"), "AB");
}

TEST(TextFilter, ErrorsAreMakos) {
    expect_render_error([] { render("a\n<%text filter=\"zz\">ab</%text>"); }, 2, 16, "name 'zz' is not defined");
    expect_render_error([] { render("<%text filter=\"len\">ab</%text>"); }, 1, 0, "must be a str, not int");
    expect_render_error([] { render("<%text x=\"h\">ab</%text>"); }, 1, 8, "invalid attribute 'x' for '<%text>'");
    expect_render_error([] { render("<%text filter=\"h\"></%text>"); }, 1, 1, "an empty '<%text></%text>'");
    expect_render_error([] { render("<%text filter=\"h\">ab"); }, 1, 1, "is not closed by '</%text>'");
}

}  // namespace
