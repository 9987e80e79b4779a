// Every error names the template, the line and the column of the culprit.

#include "test_util.hpp"

#include <fstream>

using kjarni::RenderError;
using kjarni::Template;
using kjarni::Value;
using kjarni::test::expect_render_error;
using kjarni::test::render;

TEST(Errors, UnknownName) {
    expect_render_error(
        [] {
            render("line one\n  a = ${ b + missing };\n", {{"b", 1}});
        },
        2, 14, "name 'missing' is not defined");
    expect_render_error([] { render("% if flag:\nx\n% endif\n"); }, 1, 6, "name 'flag' is not defined");
}

TEST(Errors, RenderErrorSaysEverything) {
    try {
        render("abc\nx ${nope}", {{"alpha", 1}, {"beta", 2}});
        FAIL();
    } catch (const RenderError& e) {
        EXPECT_EQ(e.template_name(), "test");
        EXPECT_EQ(e.line(), 2u);
        EXPECT_EQ(e.column(), 5u);
        EXPECT_EQ(e.message(), "name 'nope' is not defined");
        EXPECT_EQ(e.global_names(), (std::vector<std::string>{"alpha", "beta"}));
        EXPECT_EQ(e.source_line(), "x ${nope}");
        std::string what = e.what();
        EXPECT_NE(what.find("template 'test', line 2, column 5: name 'nope' is not defined"), std::string::npos)
            << what;
        EXPECT_NE(what.find("render globals: alpha, beta"), std::string::npos) << what;
        const kjarni::Error& base = e;  // part of the one hierarchy
        (void)base;
    }
}

TEST(Errors, BadSyntax) {
    expect_render_error([] { Template::from_string("ok\n${1 +}"); }, 2, 6, "invalid syntax: expected an expression");
    expect_render_error([] { Template::from_string("${(1, 2]}"); }, 1, 8, "expected ')'");
    expect_render_error([] { Template::from_string("${a b}"); }, 1, 5, "unexpected 'b'");
    expect_render_error([] { Template::from_string("${}"); }, 1, 1, "empty expression");
    expect_render_error([] { Template::from_string("${'abc}"); }, 1, 1, "unterminated '${'");
    expect_render_error([] { Template::from_string("${'abc\n}"); }, 1, 3, "unterminated string literal");
    expect_render_error([] { Template::from_string("\n\n% if x\n% endif"); }, 3, 7, "expected ':'");
    expect_render_error([] { Template::from_string("% for in x:\n% endfor"); }, 1, 7, "expected a loop variable name");
    expect_render_error([] { Template::from_string("% for i x:\n% endfor"); }, 1, 9, "expected 'in'");
    expect_render_error([] { Template::from_string("a\n% try:\n"); }, 2, 1, "unsupported control line '% try'");
    expect_render_error([] { Template::from_string("a\n% while x:\n"); }, 2, 1,
                        "'% while' is not closed by '% endwhile'");
    expect_render_error([] { Template::from_string("${1 $ 2}"); }, 1, 5, "unexpected character '$'");
    expect_render_error([] { Template::from_string("${f(a=1, 2)}"); }, 1, 10, "positional argument follows keyword");
    expect_render_error([] { Template::from_string("${" + std::string(4301, '9') + "}"); }, 1, 3,
                        "Exceeds the limit (4300 digits) for integer string conversion");
    expect_render_error([] { Template::from_string("<%def name=\"f(a=1, b)\"></%def>"); }, 1, 20,
                        "non-default argument follows default argument");
    expect_render_error([] { Template::from_string("<%def nam=\"f()\"></%def>"); }, 1, 7,
                        "the attribute 'nam' of '<%def>' is not supported");
    expect_render_error([] { Template::from_string("<%def></%def>"); }, 1, 1, "without a name attribute");
    expect_render_error([] { Template::from_string("a\n  <%frob name=\"x\"/>"); }, 2, 3,
                        "the '<%frob>' tag is not supported");
    expect_render_error([] { Template::from_string("a\n  <%call expr=\"f()\">x"); }, 2, 3,
                        "'<%call>' is not closed by '</%call>'");
    expect_render_error([] { Template::from_string("<% x = 1\n  y = 2 %>"); }, 2, 3, "unexpected indent");
    expect_render_error([] { Template::from_string("<% d.a = 1 %>"); }, 1, 5,
                        "assignment to an attribute is not supported");
    expect_render_error([] { Template::from_string("<% del d.a %>"); }, 1, 9, "del takes names and items");
    expect_render_error([] { Template::from_string("<% import os %>"); }, 1, 11, "no module named 'os'");
    expect_render_error([] { Template::from_string("<% class A: pass %>"); }, 1, 4,
                        "the 'class' statement is not supported");
    // A <% %> block runs in a function in Mako (its return ends the def or the top level); <%! %>
    // code is the module's.
    expect_render_error([] { Template::from_string("<%!\nreturn 1\n%>"); }, 2, 1, "'return' outside function");
    expect_render_error([] { Template::from_string("<%\ndef f(a, a):\n    pass\n%>"); }, 2, 10,
                        "duplicate argument 'a'");
    expect_render_error([] { Template::from_string("${f'{1 + }'}"); }, 1, 10, "invalid syntax");
    expect_render_error([] { Template::from_string("${f'{x!z}'}"); }, 1, 7, "invalid conversion character");
    expect_render_error([] { Template::from_string("${f'{'}"); }, 1, 5, "expecting '}'");
}

TEST(Errors, UnterminatedBlocks) {
    expect_render_error([] { Template::from_string("a\n  % if x:\nb\n"); }, 2, 3, "'% if' is not closed by '% endif'");
    expect_render_error([] { Template::from_string("% for i in y:\n% if x:\n% endif\n"); }, 1, 1,
                        "'% for' is not closed by '% endfor'");
    expect_render_error([] { Template::from_string("x\n<%def name=\"f()\">\nbody\n"); }, 2, 1,
                        "'<%def name=\"f\">' is not closed by '</%def>'");
    expect_render_error([] { Template::from_string("<%def name=\"f()\""); }, 1, 1, "unterminated '<%def' tag");
}

TEST(Errors, MismatchedBlockEnds) {
    expect_render_error([] { Template::from_string("a\n% endif\n"); }, 2, 1, "'% endif' without a matching '% if'");
    expect_render_error([] { Template::from_string("% endfor\n"); }, 1, 1, "'% endfor' without a matching '% for'");
    expect_render_error([] { Template::from_string("% else:\n"); }, 1, 1, "'% else' without a matching '% if'");
    expect_render_error([] { Template::from_string("</%def>"); }, 1, 1, "'</%def>' without a matching '<%def>'");
    expect_render_error([] { Template::from_string("% if x:\n% endfor\n"); }, 2, 1, "'% endfor' inside '% if'");
    expect_render_error([] { Template::from_string("% for i in x:\n% endif\n"); }, 2, 1, "'% endif' inside '% for'");
    expect_render_error([] { Template::from_string("% if x:\n% else:\n% elif y:\n% endif"); }, 3, 1,
                        "'% elif' after '% else'");
    expect_render_error([] { Template::from_string("<%def name=\"f()\">\n% if x:\n</%def>\n"); }, 2, 1,
                        "'% if' is not closed");
    expect_render_error([] { Template::from_string("<%def name=\"f()\"></%def><%def name=\"f()\"></%def>"); }, 1, 25,
                        "def 'f' defined twice");
}

TEST(Errors, WrongArgumentCount) {
    const std::string defs = "<%def name=\"f(a, b=2)\">${a}${b}</%def>\n";
    expect_render_error([&] { render(defs + "${f(1, 2, 3)}"); }, 2, 4,
                        "f() takes 2 positional arguments but 3 were given");
    expect_render_error([&] { render(defs + "\n  ${f()}"); }, 3, 6, "f() missing 1 required argument: 'a'");
    expect_render_error([&] { render(defs + "${f(1, c=3)}"); }, 2, 4, "unexpected keyword argument 'c'");
    expect_render_error([&] { render(defs + "${f(1, a=3)}"); }, 2, 4, "multiple values for argument 'a'");
    expect_render_error([] { render("${len(1, 2)}"); }, 1, 6, "len() takes exactly 1 argument (2 given)");
    expect_render_error([] { render("${range()}"); }, 1, 8, "range() takes from 1 to 3 arguments (0 given)");
    auto d = kjarni::DefTemplate::from_string("k", {"a"}, "${a}");
    expect_render_error([&] { d.render({1, 2}); }, 1, 1, "k() takes 1 positional argument but 2 were given");
}

TEST(Errors, EvaluationErrors) {
    expect_render_error([] { render("${1 // 0}"); }, 1, 5, "integer division by zero");
    expect_render_error([] { render("${[1][5]}"); }, 1, 6, "index out of range");
    expect_render_error([] { render("${{'a': 1}['b']}"); }, 1, 11, "key 'b' not found");
    expect_render_error([] { render("${1 + 'a'}"); }, 1, 5, "unsupported operand types for +: 'int' and 'str'");
    expect_render_error([] { render("${1 < 'a'}"); }, 1, 3, "not supported between instances of 'int' and 'str'");
    expect_render_error([] { render("${(1)(2)}"); }, 1, 6, "'int' object is not callable");
    expect_render_error([] { render("${x.y}", {{"x", 1}}); }, 1, 4, "'int' object has no attribute 'y'");
    expect_render_error([] { render("${2 ** 9999999}"); }, 1, 5, "integer too large (more than 1048576 bits");
    expect_render_error([] { render("% for a, b in [1]:\n% endfor"); }, 1, 1, "cannot unpack non-sequence int");
    expect_render_error([] { render("% for i in 5:\n% endfor"); }, 1, 1, "'int' object is not iterable");
    expect_render_error([] { render("${int('x')}"); }, 1, 6, "invalid literal for int()");
}

// Python reads Unicode's decimal digits and blanks in int() and float() (corpus case
// bi_number_text), but nothing else beyond ASCII, and only " \t\n\v\f\r" of ASCII's control
// characters as blanks: each of these raises ValueError in Python 3.11.
TEST(Errors, NumbersOfTextRefuseWhatPythonRefuses) {
    for (const char* text : {"\u00bd", "\u0663.\u0665", "0x\u0663", "\\x1c5", "5\\x1f", "\u0663a", "\u00b2", ""}) {
        SCOPED_TRACE(text);
        expect_render_error([&] { render(std::string("${int(\"") + text + "\")}"); }, 1, 6,
                            "invalid literal for int()");
    }
    for (const char* text : {"\u00bd", "0x\u0663", "\\x1c5", "\u00b2"}) {
        SCOPED_TRACE(text);
        expect_render_error([&] { render(std::string("${float(\"") + text + "\")}"); }, 1, 8,
                            "could not convert string to float");
    }
    EXPECT_EQ(render("${float(\"\u0663\u0663.\")}"), "33.0");
}

TEST(Errors, ErrorsInDefsPointIntoTheDef) {
    const std::string src = "<%def name=\"f(a)\">\n  ${a + nope}\n</%def>\n${f(1)}";
    expect_render_error([&] { render(src); }, 2, 9, "name 'nope' is not defined");
}

TEST(Errors, ErrorsInSnippetsNameTheSnippet) {
    auto s = kjarni::Snippet::from_string("\n ${1 // 0}", "my_snippet");
    try {
        kjarni::render_with_modules(std::string("${s}"), {}, {{"s", s}});
        FAIL();
    } catch (const RenderError& e) {
        EXPECT_EQ(e.template_name(), "my_snippet");
        EXPECT_EQ(e.line(), 2u);
        EXPECT_EQ(e.column(), 6u);
    }
}

TEST(Errors, RunawayRecursionIsStopped) {
    expect_render_error([] { render("<%def name=\"f(n)\">${f(n + 1)}</%def>${f(0)}"); }, 1, 22,
                        "maximum call depth exceeded");
}

TEST(Errors, DeepNestingIsRejected) {
    std::string deep = "${" + std::string(1000, '(') + "1" + std::string(1000, ')') + "}";
    expect_render_error([&] { Template::from_string(deep); }, 1, 0, "nested too deeply");
}

TEST(Errors, RunawayLoopsAreStopped) {
    expect_render_error([] { render("${range(10 ** 12)}"); }, 1, 8, "range() too long");
    expect_render_error([] { render("${'x' * 10 ** 12}"); }, 1, 7, "string too long");
    // Lowered so that the test stays fast; restored even when it fails.
    struct Restore {
        kjarni::TemplateLimits saved = kjarni::template_limits();
        ~Restore() { kjarni::template_limits() = saved; }
    } restore;
    kjarni::template_limits().max_steps = 100'000;
    expect_render_error([] { render("% for i in range(1000):\n% for j in range(1000):\n% endfor\n% endfor\n"); }, 2, 1,
                        "render step limit exceeded");
}

TEST(Files, FromFileAndAssociatedFile) {
    auto t = Template::from_file(std::string(KJARNI_TEST_DATA_DIR) + "/sample.mako");
    // What Mako renders for it: the newline after </%def> stays, the def body starts with one.
    EXPECT_EQ(t.render({{"scale", 2}}), "\nheader 2\n");
    EXPECT_EQ(t.get_def("kernel").render({2}, {{"scale", 1.5}}), "\nx0 = 1.5 * 0;\nx1 = 1.5 * 1;\n");
    auto a = Template::from_associated_file(std::string(KJARNI_TEST_DATA_DIR) + "/sample.cpp");
    EXPECT_EQ(a.source(), t.source());
    EXPECT_THROW(Template::from_file("/nonexistent/file.mako"), kjarni::Error);
}

TEST(Values, ConstructionFromCpp) {
    std::vector<int> ints{1, 2};
    std::map<std::string, double> m{{"a", 0.5}};
    Value v = ints;
    EXPECT_EQ(v.repr(), "[1, 2]");
    EXPECT_EQ(Value(m).repr(), "{'a': 0.5}");
    EXPECT_EQ(Value(std::vector<std::string>{"x"}).repr(), "['x']");
    EXPECT_EQ(Value(3u).as_int(), 3);
    EXPECT_EQ(Value(std::int64_t{-4}).as_int(), -4);
    EXPECT_EQ(Value("s").as_string(), "s");
    EXPECT_EQ(Value(2.0f).str(), "2.0");
    EXPECT_EQ((Value{1, "a", Value()}).repr(), "[1, 'a', None]");
    EXPECT_EQ(Value::tuple({1}).repr(), "(1,)");
    EXPECT_TRUE(Value(1) == Value(1.0));
    EXPECT_FALSE(Value("1") == Value(1));
    EXPECT_EQ(Value(std::uint64_t{1} << 63).str(), "9223372036854775808");  // a big int, as in Python
    EXPECT_THROW(Value(std::uint64_t{1} << 63).as_int(), kjarni::Error);
    EXPECT_THROW(Value(1).as_string(), kjarni::Error);
    EXPECT_EQ(Value(1).type_name(), "int");
}

// Positions stay exact inside the constructs that run Python: blocks, filters, comprehensions,
// lambdas, caller bodies, formatting (an operator's error points at the operator, a call's at '(').
TEST(Errors, PositionsInsideBlocksFiltersAndComprehensions) {
    expect_render_error([] { render("a\n<%\n    x = 1\n    y = x // 0\n%>"); }, 4, 11, "division by zero");
    expect_render_error([] { render("<%\n    for i in range(3):\n        z = nope\n%>"); }, 3, 13,
                        "name 'nope' is not defined");
    expect_render_error([] { render("x\n  ${'a' | nofilter}"); }, 2, 11, "name 'nofilter' is not defined");
    expect_render_error([] { render("${[1 // i for i in range(2)]}"); }, 1, 6, "division by zero");
    expect_render_error([] { render("<% f = lambda v: v.nope %>\n${f(1)}"); }, 1, 19,
                        "'int' object has no attribute 'nope'");
    expect_render_error([] { render("${'%d' % 'x'}"); }, 1, 8, "%d format: a real number is required, not str");
    expect_render_error([] { render("${'{:q}'.format(1)}"); }, 1, 16,
                        "Unknown format code 'q' for object of type 'int'");
    expect_render_error(
        [] { render("<%def name=\"f()\">${caller.body()}</%def>\n<%call expr=\"f()\">\n  ${1 + 'a'}\n</%call>"); }, 3,
        7, "unsupported operand types for +: 'int' and 'str'");
}

TEST(Errors, RenderErrorOfABlockCarriesTheSourceLineAndGlobals) {
    try {
        render("<%\n  k = n * undefined_thing\n%>", {{"n", 1}, {"m", 2}});
        FAIL();
    } catch (const RenderError& e) {
        EXPECT_EQ(e.line(), 2u);
        EXPECT_EQ(e.source_line(), "  k = n * undefined_thing");
        EXPECT_EQ(e.global_names(), (std::vector<std::string>{"m", "n"}));
        EXPECT_EQ(e.message(), "name 'undefined_thing' is not defined");
    }
}

TEST(Errors, ComprehensionInADefaultArgument) {
    // Mako refuses it, but with an error that varies from run to run (Mako 1.3.10: UnboundLocalError
    // on `range` or NameError, by the hash seed), so it is not a corpus case, whose expected text
    // CI re-makes with Mako and compares.
    EXPECT_THROW(render("<%def name=\"f(a=[i for i in range(2)])\">${a}</%def>${f()}"), kjarni::RenderError);
}
