// Every construct of the template language, rendered.

#include "test_util.hpp"

using kjarni::Globals;
using kjarni::Value;
using kjarni::test::render;

TEST(Language, PlainTextIsUnchanged) {
    EXPECT_EQ(render("int main() { return a % b; }\n"), "int main() { return a % b; }\n");
    EXPECT_EQ(render(""), "");
    EXPECT_EQ(render("$ {x} $x {y}"), "$ {x} $x {y}");
}

TEST(Language, Substitution) {
    EXPECT_EQ(render("a ${x} b ${y}", {{"x", 1}, {"y", "two"}}), "a 1 b two");
    EXPECT_EQ(render("${ {'a': 1}['a'] }"), "1");
    EXPECT_EQ(render("${'}'}"), "}");
    // Mako compiles the expression as Python statements: a line end outside brackets ends it.
    EXPECT_EQ(render("${(1 +\n 2)}"), "3");
    EXPECT_EQ(render("${1 +\\\n 2}"), "3");
    EXPECT_THROW(render("${1 +\n 2}"), kjarni::RenderError);
}

TEST(Language, LiteralsPrintAsPython) {
    EXPECT_EQ(render("${1.5} ${2.0} ${1e16} ${1.5e-5} ${0.1} ${-0.0} ${123.0}"),
              "1.5 2.0 1e+16 1.5e-05 0.1 -0.0 123.0");
    EXPECT_EQ(render("${True} ${False} ${None}"), "True False None");
    EXPECT_EQ(render("${0x1F} ${'a' \"b\"} ${'it\\'s'} ${\"tab\\there\"}"), "31 ab it's tab\there");
    EXPECT_EQ(render("${[1, 'a', 2.5]} ${(1,)} ${(1, 2)} ${()} ${{'k': [None]}}"),
              "[1, 'a', 2.5] (1,) (1, 2) () {'k': [None]}");
}

TEST(Language, Arithmetic) {
    EXPECT_EQ(render("${1 + 2 * 3} ${(1 + 2) * 3} ${7 / 2} ${7 // 2} ${-7 // 2} ${7 % 3} ${-7 % 3} ${7 % -3}"),
              "7 9 3.5 3 -4 1 2 -2");
    EXPECT_EQ(render("${2 ** 10} ${2 ** -1} ${-2 ** 2} ${2 ** 3 ** 2} ${7.5 // 2} ${-7.5 % 2}"),
              "1024 0.5 -4 512 3.0 0.5");
    EXPECT_EQ(render("${1 << 4} ${256 >> 2} ${6 & 3} ${(6 | 3)} ${6 ^ 3} ${~5} ${+3} ${-(-3)}"), "16 64 2 7 5 -6 3 3");
    EXPECT_EQ(render("${1 + 0.5} ${True + 1} ${10 / 4}"), "1.5 2 2.5");
}

TEST(Language, StringsAndLists) {
    EXPECT_EQ(render("${'ab' + 'cd'} ${'ab' * 3} ${2 * 'x'} ${[1] + [2]} ${[0] * 3} ${(1,) + (2,)}"),
              "abcd ababab xx [1, 2] [0, 0, 0] (1, 2)");
    EXPECT_EQ(render(
                  "${'abc'[1]} ${'abc'[-1]} ${[1, 2, 3][1:]} ${'hello'[::-1]} ${[1, 2, 3, 4][1:3]} ${'abcdef'[::2]}"),
              "b c [2, 3] olleh [2, 3] ace");
    EXPECT_EQ(render("${', '.join(['a', 'b'])} ${'Ab'.upper()} ${'Ab'.lower()} ${'a-b'.replace('-', '_')}"),
              "a, b AB ab a_b");
    EXPECT_EQ(
        render(
            "${'abc'.startswith('ab')} ${'abc'.endswith('x')} ${'  s '.strip()} ${'a,b'.split(',')} ${'a b'.split()}"),
        "True False s ['a', 'b'] ['a', 'b']");
}

TEST(Language, ComparisonsAndLogic) {
    EXPECT_EQ(render("${1 < 2} ${2 <= 1} ${1 == 1.0} ${'a' != 'b'} ${1 < 2 < 3} ${3 > 2 > 2} ${[1, 2] < [1, 3]}"),
              "True False True True True False True");
    EXPECT_EQ(render(
                  "${2 in [1, 2]} ${'b' in 'abc'} ${'k' in {'k': 1}} ${3 not in [1]} ${None is None} ${1 is not None}"),
              "True True True True True True");
    EXPECT_EQ(render("${1 and 2} ${0 and 2} ${0 or 'x'} ${'' or 0} ${not 0} ${not [1]}"), "2 0 x 0 True False");
    EXPECT_EQ(render("${'yes' if 1 > 0 else 'no'} ${'yes' if [] else 'no'} ${1 if 0 else 2 if 0 else 3}"), "yes no 3");
}

TEST(Language, Truthiness) {
    EXPECT_EQ(
        render("${bool(0)} ${bool(0.0)} ${bool('')} ${bool([])} ${bool({})} ${bool(None)} ${bool('0')} ${bool([0])}"),
        "False False False False False False True True");
}

TEST(Language, Builtins) {
    EXPECT_EQ(render("${range(3)} ${range(1, 4)} ${range(10, 0, -3)} ${len('abc')} ${len([1, 2])} ${len({'a': 1})}"),
              "[0, 1, 2] [1, 2, 3] [10, 7, 4, 1] 3 2 1");
    EXPECT_EQ(
        render("${str(1.0) + 'f'} ${int('42')} ${int(3.9)} ${int(-3.9)} ${int('ff', 16)} ${float('1.5')} ${float(2)}"),
        "1.0f 42 3 -3 255 1.5 2.0");
    EXPECT_EQ(render(
                  "${min(3, 1, 2)} ${max([3, 1, 2])} ${abs(-2)} ${abs(-2.5)} ${sum([1, 2, 3])} ${sorted([3, 1, 2])}"),
              "1 3 2 2.5 6 [1, 2, 3]");
    EXPECT_EQ(render("${list(enumerate(['a', 'b']))} ${enumerate('ab', 1)} ${zip([1, 2], 'ab')} ${list('ab')} "
                     "${tuple([1])} ${reversed([1, 2])} ${repr('x')}"),
              "[(0, 'a'), (1, 'b')] [(1, 'a'), (2, 'b')] [(1, 'a'), (2, 'b')] ['a', 'b'] (1,) [2, 1] 'x'");
    // Code points of each UTF-8 length, through chr, '%c' and a case mapping (Python's bytes).
    EXPECT_EQ(render("${chr(0x41)}${chr(0xE9)}${chr(0x20AC)}${chr(0x1F600)} ${'%c' % 0x3A9} ${'\xC3\xA9'.upper()}"),
              "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80 \xCE\xA9 \xC3\x89");
}

TEST(Language, DictMethods) {
    Globals g{{"d", Value(std::map<std::string, Value>{{"a", 1}, {"b", 2}})}};
    EXPECT_EQ(render("${d.keys()} ${d.values()} ${d.items()} ${d.get('a')} ${d.get('z', 0)} ${d['b']}", g),
              "['a', 'b'] [1, 2] [('a', 1), ('b', 2)] 1 0 2");
}

TEST(Language, IfElifElse) {
    const std::string src = "begin\n"
                            "% if x > 2:\n"
                            "big\n"
                            "% elif x == 2:\n"
                            "two\n"
                            "% else:\n"
                            "small\n"
                            "% endif\n"
                            "end\n";
    EXPECT_EQ(render(src, {{"x", 3}}), "begin\nbig\nend\n");
    EXPECT_EQ(render(src, {{"x", 2}}), "begin\ntwo\nend\n");
    EXPECT_EQ(render(src, {{"x", 1}}), "begin\nsmall\nend\n");
}

TEST(Language, ControlLinesMayBeIndented) {
    EXPECT_EQ(render("a\n    % if True:\n    b\n    % endif\nc"), "a\n    b\nc");
}

TEST(Language, ForLoops) {
    EXPECT_EQ(render("% for i in range(3):\n${i};\n% endfor\n"), "0;\n1;\n2;\n");
    EXPECT_EQ(render("% for i, c in enumerate('ab'):\n${i}=${c}\n% endfor\n"), "0=a\n1=b\n");
    EXPECT_EQ(render("% for (a, b) in [(1, 2)]:\n${a + b}\n% endfor\n"), "3\n");
    EXPECT_EQ(render("% for k in {'x': 1, 'y': 2}:\n${k}\n% endfor\n"), "x\ny\n");
    EXPECT_EQ(render("% for i in []:\nnever\n% endfor\ndone"), "done");
    // As in Python, the loop variable stays defined after the loop.
    EXPECT_EQ(render("% for i in range(3):\n% endfor\n${i}"), "2");
}

TEST(Language, NestedControlFlow) {
    const std::string src = "% for i in range(4):\n"
                            "%   if i % 2 == 0:\n"
                            "%     for j in range(i):\n"
                            "${i}${j} \\\n"
                            "%     endfor\n"
                            "even\n"
                            "%   else:\n"
                            "odd\n"
                            "%   endif\n"
                            "% endfor\n";
    EXPECT_EQ(render(src), "even\nodd\n20 21 even\nodd\n");
}

TEST(Language, CommentsVanish) {
    EXPECT_EQ(render("a\n## a comment ${undefined}\n   ## indented comment\nb ## not a comment\n"),
              "a\nb ## not a comment\n");
}

TEST(Language, LineContinuation) {
    EXPECT_EQ(render("a \\\nb\nc"), "a b\nc");
    EXPECT_EQ(render("${1}\\\n${2}"), "12");
}

TEST(Language, DoublePercentIsALiteralPercent) {
    EXPECT_EQ(render("%% not control\n  %%x\n"), "% not control\n  %x\n");
    EXPECT_EQ(render("a %% b"), "a %% b");  // only at the start of a line, as in Mako
}

TEST(Language, Defs) {
    const std::string src = "<%def name=\"add(a, b=1)\">\n"
                            "${a} + ${b}\\\n"
                            "</%def>\n"
                            "x = ${add(2)};\n"
                            "y = ${add(2, 3)};\n"
                            "z = ${add(b=5, a=4)};\n";
    // As in Mako: the def's body starts with the newline after its tag.
    EXPECT_EQ(render(src), "\nx = \n2 + 1;\ny = \n2 + 3;\nz = \n4 + 5;\n");
}

TEST(Language, InlineDef) {
    EXPECT_EQ(render("<%def name=\"f()\">F</%def>[${f()}]"), "[F]");
    EXPECT_EQ(render("<%def name='g(x)' />[${g(1)}]"), "[]");
}

TEST(Language, DefsCallingDefs) {
    const std::string src = "<%def name=\"square(x)\">${x} * ${x}</%def>\n"
                            "<%def name=\"sum_of_squares(a, b)\">${square(a)} + ${square(b)}</%def>\n"
                            "<%def name=\"count(n)\">${n}${count(n - 1) if n > 0 else ''}</%def>\n"
                            "${sum_of_squares('x', 'y')}; ${count(5)}";
    // As in Mako, a def called in an expression writes its text and returns an empty string.
    EXPECT_EQ(render(src), "\n\n\nx * x + y * y; 543210");
}

TEST(Language, DefsSeeGlobalsAndTheirArgumentsShadowThem) {
    const std::string src = "<%def name=\"f(x)\">${x}${y}</%def>${f(1)}${x}";
    EXPECT_EQ(render(src, {{"x", "X"}, {"y", "Y"}}), "1YX");
}

TEST(Language, DefDefaultsSeeModuleNamesNotGlobals) {
    // Mako evaluates a def's defaults when it loads the template, before any render: a global is
    // a NameError there, a name of <%! %> code is not.
    EXPECT_EQ(render("<%! K = 21 %><%def name=\"f(a=K * 2)\">${a}</%def>${f()}"), "42");
    EXPECT_THROW(render("<%def name=\"f(a=n * 2)\">${a}</%def>${f()}", {{"n", 21}}), kjarni::RenderError);
}

TEST(Language, GetDef) {
    auto t = kjarni::Template::from_string("<%def name=\"f(a, b)\">${a}-${b}-${c}</%def>top");
    auto f = t.get_def("f");
    EXPECT_EQ(f.name(), "f");
    EXPECT_EQ(f.argnames(), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(f.render({1, "x"}, {{"c", 2.5}}), "1-x-2.5");
    EXPECT_EQ(t.render(), "top");
    EXPECT_THROW(t.get_def("g"), kjarni::Error);
}

TEST(Language, TemplateCompiledOnceRendersManyTimes) {
    auto t = kjarni::Template::from_string("${x * 2}");
    for (int i = 0; i < 5; ++i) EXPECT_EQ(t.render({{"x", i}}), std::to_string(i * 2));
}

TEST(Language, DefTemplateFromString) {
    auto d = kjarni::DefTemplate::from_string("_func", {"varname"}, "${varname} + ${num}");
    // As grunnur's (a <%def> tag on its own line, the body, the closing tag on its own line).
    EXPECT_EQ(d.render({"x"}, {{"num", 1}}), "\nx + 1\n");
    kjarni::Args args;
    args.keyword.emplace_back("varname", "k");
    EXPECT_EQ(d.render(args, {{"num", 2}}), "\nk + 2\n");
    EXPECT_THROW(kjarni::DefTemplate::from_string("bad", {"not a name"}, ""), kjarni::Error);
}

TEST(Language, DefTemplateFromCallable) {
    auto d = kjarni::DefTemplate::from_callable("f", {"a", "b"}, [] { return std::string("${a}${b}"); });
    EXPECT_EQ(d.render({1, 2}), "\n12\n");
}
