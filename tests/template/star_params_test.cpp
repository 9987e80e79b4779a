// *args, keyword-only and **kwargs parameters of <%def>s and of def statements: binding as Python
// does, and the errors Mako's Python raises (the corpus's def_star_params shows the renders).

#include "test_util.hpp"

namespace {

using kjarni::test::expect_render_error;
using kjarni::test::render;

TEST(StarParams, DefBindsExtraArgumentsToArgsAndKwargs) {
    EXPECT_EQ(render("<%def name=\"f(a, *args, **kw)\">${a}|${args}|${kw}</%def>${f(1, 2, 3, x=4)}"),
              "1|(2, 3)|{'x': 4}");
    EXPECT_EQ(render("<%def name=\"f(a, *args, b=2, **kw)\">${args}${b}${kw}</%def>${f(1, b=5)}"), "()5{}");
    EXPECT_EQ(render("<%def name=\"f(*args, **kw)\">${args}${kw}</%def>${f(*[1, 2], **{'k': 3})}"), "(1, 2){'k': 3}");
    // A custom tag's attributes are keywords.
    EXPECT_EQ(render("<%def name=\"f(**kw)\">${kw}</%def><%self:f x=\"1\"/>"), "{'x': '1'}");
    // Keyword-only parameters (after *args), with or without defaults in any order.
    EXPECT_EQ(render("<%def name=\"f(a, *r, b, c=3, d)\">${r}${b}${c}${d}</%def>${f(1, 2, d=4, b=5)}"), "(2,)534");
}

TEST(StarParams, BindingErrorsAreTheOnesPythonRaises) {
    expect_render_error([] { render("<%def name=\"f(a, *r, b)\">x</%def>${f(1, 2)}"); }, 1, 0,
                        "f() missing 1 required keyword-only argument: 'b'");
    expect_render_error([] { render("<%def name=\"f(a, **kw)\">x</%def>${f(1, a=2)}"); }, 1, 0,
                        "f() got multiple values for argument 'a'");
    // Mako passes a def its context: a keyword named context is given twice.
    expect_render_error([] { render("<%def name=\"f(**kw)\">x</%def>${f(context=1)}"); }, 1, 0,
                        "got multiple values for argument 'context'");
    expect_render_error([] { render("<%def name=\"f(*r)\">x</%def><%self:f y=\"1\"/>"); }, 1, 0,
                        "f() got an unexpected keyword argument 'y'");
}

TEST(StarParams, MalformedParameterListsAreSyntaxErrors) {
    expect_render_error([] { render("<%def name=\"f(a, *a)\">x</%def>"); }, 1, 19, "duplicate argument 'a'");
    expect_render_error([] { render("<%def name=\"f(*a, *b)\">x</%def>"); }, 1, 19, "may appear only once");
    expect_render_error([] { render("<%def name=\"f(**a, b)\">x</%def>"); }, 1, 20, "cannot follow var-keyword");
    expect_render_error([] { render("<%def name=\"f(*a=1)\">x</%def>"); }, 1, 17, "cannot have default value");
    expect_render_error([] { render("<%\ndef g(*, **k):\n    pass\n%>"); }, 2, 7, "named arguments must follow bare *");
}

TEST(StarParams, WhatMakoRewritesIsRefusedByName) {
    // Mako writes a <%def>'s signature out again without a bare '*' or a '/'.
    expect_render_error([] { render("<%def name=\"f(a, *, b)\">x</%def>"); }, 1, 18, "a bare '*' in a <%def>");
    expect_render_error([] { render("<%def name=\"f(a, /, b)\">x</%def>"); }, 1, 18, "positional-only");
    expect_render_error([] { render("<%page args=\"*a\"/>"); }, 1, 14, "in '<%page args>' are not supported");
}

TEST(StarParams, DefStatementsTakeThemAsPython) {
    EXPECT_EQ(render("<%\ndef g(*n, **names):\n    return n, names\n%>${g(1, x=2)}", {{"n", 0}, {"names", 0}}),
              "((1,), {'x': 2})");
    EXPECT_EQ(render("<%\ndef g(*, n=3):\n    return n\n%>${g()}${g(n=1)}", {{"n", 0}}), "31");
    // Mako's scan of the def statement takes those parameters for the enclosing names: undefined
    // there, Mako's NameError.
    expect_render_error([] { render("<%\ndef g(**kw):\n    return kw\n%>${g()}"); }, 3, 12, "name 'kw' is not defined");
}

}  // namespace
