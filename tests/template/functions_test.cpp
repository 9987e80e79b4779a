// def statements, <%! %> module blocks, import math, self/local and custom tags: what the Mako
// corpus (blk_def_functions, blk_module_more, call_custom_tag_args...) cannot show: errors, their
// positions, and the lifetime rules.

#include "test_util.hpp"

namespace {

using kjarni::Globals;
using kjarni::Template;
using kjarni::Value;
using kjarni::test::expect_render_error;
using kjarni::test::render;

TEST(Functions, ErrorsInsideAFunctionPointIntoItsBody) {
    expect_render_error([] { render("<%\ndef f(x):\n    return x + 'a'\n%>${f(1)}"); }, 3, 0,
                        "unsupported operand types for +: 'int' and 'str'");
    expect_render_error([] { render("<%\ndef f(x):\n    return x\n%>${f()}"); }, 4, 0,
                        "f() missing 1 required argument: 'x'");
    expect_render_error([] { render("<%\ndef f(x):\n    return x\n%>${f(1, y=2)}"); }, 4, 0,
                        "f() got an unexpected keyword argument 'y'");
    // Mako's scan of a def statement misses its *args (a name read in its body is the enclosing
    // function's too, and must be defined).
    expect_render_error([] { render("<%\ndef f(*a):\n    return a\n%>${f(1)}"); }, 3, 12, "name 'a' is not defined");
}

TEST(Functions, RecursionIsBoundedByTheCallDepthLimit) {
    EXPECT_EQ(render("<%\ndef fib(k):\n    return k if k < 2 else fib(k - 1) + fib(k - 2)\n%>${fib(15)}"), "610");
    expect_render_error([] { render("<%\ndef f(k):\n    return f(k + 1)\n%>${f(0)}"); }, 3, 13, "maximum call depth");
}

TEST(Functions, AClosureOutlivingItsScopeIsRefused) {
    // inner() holds make()'s scope weakly (a strong hold would be a reference cycle): calling it
    // after make() returned is refused, not answered from the wrong scope.
    expect_render_error(
        [] { render("<%\ndef make(k):\n    def inner():\n        return k\n    return inner\ng = make(3)\n%>${g()}"); },
        7, 0, "inner() was called after the scope that defined it ended");
    // Called while its scope lives, it sees that scope's variables as they are then (late binding).
    EXPECT_EQ(
        render(
            "<%\ndef make(k):\n    def inner():\n        return k\n    k = k * 10\n    return inner()\n%>${make(3)}"),
        "30");
}

TEST(Functions, ModuleBlocksRunOncePerRenderAndSeeNoGlobals) {
    const Template t = Template::from_string(
        "<%!\nCOUNT = []\ndef bump():\n    COUNT.append(1)\n    return len(COUNT)\n%>${bump()} ${bump()}");
    EXPECT_EQ(t.render({}), "1 2");
    EXPECT_EQ(t.render({}), "1 2");  // a fresh module scope each render (Mako: once per loaded module)
    Globals g;
    g["secret"] = 1;
    expect_render_error([&] { render("<%!\nX = secret\n%>${X}", g); }, 2, 0, "name 'secret' is not defined");
    // Module names come before the globals.
    g["W"] = 1;
    EXPECT_EQ(render("<%!\nW = 2\n%>${W}", g), "2");
}

TEST(Functions, MathModule) {
    EXPECT_EQ(render("<% import math %>${math.floor(2.5)} ${math.sqrt(16)} ${math.pi}"), "2 4.0 3.141592653589793");
    expect_render_error([] { render("<% import math %>${math.sqrt(-1)}"); }, 1, 0, "math domain error");
    expect_render_error([] { render("<% import math %>${math.nope}"); }, 1, 0, "module 'math' has no attribute 'nope'");
    expect_render_error([] { render("<% from math import sqrt as s, nope %>"); }, 1, 0, "no attribute 'nope'");
}

TEST(Functions, SelfLocalAndCustomTags) {
    EXPECT_EQ(render("<%def name=\"a(x=1)\">[${x}]</%def>${self.a()}${local.a(x=2)}"), "[1][2]");
    expect_render_error([] { render("${self.nope()}"); }, 1, 0, "'Namespace' object has no attribute 'nope'");
    EXPECT_EQ(render("<%def name=\"box(w)\">(${w}:${caller.body()})</%def><%self:box w=\"${1 + 1}\">in</%self:box>"),
              "(2:in)");
    expect_render_error(
        [] { render("<%def name=\"box(w)\">${caller.body()}</%def>\n<%self:box w=\"${1 +}\">x</%self:box>"); }, 2, 0,
        "invalid syntax");
}

TEST(Functions, DefFilterAttribute) {
    EXPECT_EQ(render("<%def name=\"f()\" filter=\"trim, h\">\n  <a> \n</%def>[${f()}]"), "[&lt;a&gt;]");
    Globals g;
    g["up"] = Value::function([](const kjarni::Args& a) { return Value(a[0].as_string() + "!"); });
    EXPECT_EQ(render("<%def name=\"f()\" filter=\"up\">x</%def>${f()}", g), "x!");
}

}  // namespace

namespace {

TEST(Functions, ACallBodyReadingItsOwnNameBeforeAssigningItIsUnbound) {
    // The body is a Python function in Mako: a name it assigns anywhere is its local all through
    // it, so reading it first is UnboundLocalError, not the enclosing value (here 1, or a global).
    const std::string f = "<%def name=\"f()\">${caller.body()}</%def>";
    expect_render_error([&] { render(f + "<% x = 1 %><%call expr=\"f()\">${x}<% x = 2 %></%call>"); }, 1, 72,
                        "cannot access local variable 'x' where it is not associated with a value");
    expect_render_error(
        [&] {
            render(f + "<%call expr=\"f()\">${x}<% x = 2 %></%call>", {{"x", 5}});
        },
        1, 0, "cannot access local variable 'x'");
    // Read after the assignment, it is the body's; outside the body, the enclosing one.
    EXPECT_EQ(render(f + "<% x = 1 %><%call expr=\"f()\"><% x = 2 %>${x}</%call>${x}"), "21");
}

}  // namespace
