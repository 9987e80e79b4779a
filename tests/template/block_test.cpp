// <%block>: named blocks (defs of the template, rendered where they stand unless a template they
// inherit from has one of that name) and anonymous ones (closures rendered in place). The corpus's
// block_* cases show the renders against Mako (inheritance included); here, the errors and the
// scoping rules.

#include "test_util.hpp"

namespace {

using kjarni::test::expect_render_error;
using kjarni::test::render;

TEST(Blocks, NamedBlocksRenderInPlaceAndAreDefs) {
    EXPECT_EQ(render("<%block name=\"q\">a</%block>${self.q()}${q()}"), "aaa");
    // They read the render globals, not the top level's variables (Mako renders them through self).
    EXPECT_EQ(render("<% x = 1 %><%block name=\"q\">${x}</%block>", {{"x", 5}}), "5");
    expect_render_error([] { render("<% x = 1 %><%block name=\"q\">${x}</%block>"); }, 1, 0, "name 'x' is not defined");
    // What <% return x %> returns is dropped; with a filter, the text before it is lost too.
    EXPECT_EQ(render("<%block name=\"q\" filter=\"h\">a<% return 5 %></%block>b"), "b");
}

TEST(Blocks, AnonymousBlocksAreClosuresWithTheirOwnNames) {
    EXPECT_EQ(render("% for i in range(2):\n<%block>${i}${loop.index}</%block>\n% endfor"), "00\n11\n");
    EXPECT_EQ(render("<% x = 0 %><%block><% x = 2 %>${x}</%block>${x}"), "20");
    EXPECT_EQ(render("<%block filter=\"trim, h\">  <a>  </%block>|"), "&lt;a&gt;|");
    // `n` is skipped in a block's (or a def's) filters, as Mako skips it there.
    EXPECT_EQ(render("<% n = 1 %><%block filter=\"n, h\"><</%block><%block name=\"q\" filter=\"n\">a</%block>"),
              "&lt;a");
    // An assignment in the block hands the name to the defs the top level calls, as Mako's
    // __M_locals does.
    EXPECT_EQ(render("<%def name=\"g()\">${y}</%def><% y = 1 %><%block><% y = 2 %></%block>${g()}"), "2");
}

TEST(Blocks, TheirNamesAreTheEnclosingFunctionsToo) {
    // Assigned in a block, the name is declared in the enclosing function too (Mako): read there,
    // it is never taken from the globals, only Python's globals (<%! %> names, builtins) remain.
    expect_render_error(
        [] {
            render("<%block><% x = 2 %></%block>${x}", {{"x", 1}});
        },
        1, 0, "name 'x' is not defined");
    expect_render_error(
        [] {
            render("<%block name=\"q\"><% x = 2 %></%block>${x}", {{"x", 1}});
        },
        1, 0, "name 'x' is not defined");
    EXPECT_EQ(render("<%! K = 3 %><%block><% K = 2 %>${K}</%block>${K}"), "23");
    EXPECT_EQ(render("<%block><% len = 2 %></%block>${len('ab')}", {{"len", 7}}), "2");
    // Read in a block never rendered, a name must still be defined when the top level starts.
    expect_render_error([] { render("% if False:\n<%block name=\"q\">${zz}</%block>\n% endif\n"); }, 2, 0,
                        "name 'zz' is not defined");
    // Read before the block assigns it: unbound in the block.
    expect_render_error(
        [] {
            render("<%block>${x}<% x = 2 %></%block>", {{"x", 1}});
        },
        1, 11, "cannot access local variable 'x'");
}

TEST(Blocks, MalformedOrUnsupportedBlocksAreRefused) {
    expect_render_error([] { render("<%def name=\"f()\"><%block name=\"b\">x</%block></%def>"); }, 1, 18,
                        "named block 'b' not allowed inside of a def");
    expect_render_error(
        [] {
            render("<%def name=\"f()\">${caller.body()}</%def><%call expr=\"f()\"><%block "
                   "name=\"b\">x</%block></%call>");
        },
        1, 59, "named block 'b' not allowed inside of a '<%call>'");
    expect_render_error([] { render("<%def name=\"b()\">x</%def><%block name=\"b\">y</%block>"); }, 1, 26,
                        "def or block 'b' defined twice");
    expect_render_error([] { render("<%block name=\"b\">x</%def>"); }, 1, 19, "'</%def>' does not match");
    expect_render_error([] { render("a\n<%block>x"); }, 2, 1, "'<%block>' is not closed by '</%block>'");
    expect_render_error([] { render("x</%block>"); }, 1, 2, "'</%block>' without a matching '<%block>'");
    expect_render_error([] { render("<%block name=\"a b\">x</%block>"); }, 1, 15, "must be an identifier");
    // Mako names anonymous blocks by their line: two on one line collide (nested ones too).
    expect_render_error([] { render("<%block>a</%block><%block>b</%block>"); }, 1, 19, "a second anonymous");
    expect_render_error([] { render("<%block>a<%block>b</%block></%block>"); }, 1, 1, "a second anonymous");
    EXPECT_EQ(render("<%block>a</%block>\n<%block>b</%block>"), "a\nb");
    // Refused by name: args= (Mako passes the enclosing variables of those names), buffered=...,
    // a <%def> inside a block, a block named as one of Mako's Namespace attributes.
    expect_render_error([] { render("<%block name=\"b\" args=\"a\">x</%block>"); }, 1, 18,
                        "the attribute 'args' of '<%block>' is not supported");
    expect_render_error([] { render("<%block><%def name=\"f()\">x</%def></%block>"); }, 1, 9,
                        "a '<%def>' inside a '<%block>' is not supported");
    expect_render_error([] { render("<%block name=\"body\">x</%block>"); }, 1, 1, "named 'body' is not supported");
}

}  // namespace
