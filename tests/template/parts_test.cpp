// render_parts_with_modules(): the pieces of one template (a kernel's preamble, operation, loop
// hooks) rendered each on its own, with what Mako makes module-level shared and every module
// rendered once. The layout is checked against one render_with_modules() of the same parts joined,
// which is what ElementwiseKernel did before and whose kernels must stay byte for byte.

#include "test_util.hpp"

#include <kjarni/template/module.hpp>

using kjarni::Globals;
using kjarni::Module;
using kjarni::render_parts_with_modules;
using kjarni::render_with_modules;
using kjarni::RenderedParts;
using kjarni::Snippet;

TEST(Parts, EachPartRendersOnItsOwnAndModulesOnceForAll) {
    auto m = Module::from_string("#define ${prefix}X 1", "m");
    auto twice = Snippet::from_callable(
        {"a"}, [] { return "(2 * ${a})"; }, "twice");
    const Globals g{{"m", m}, {"twice", twice}, {"n", 3}};
    const RenderedParts out = render_parts_with_modules({"int a = ${m}X;", "y = ${twice('x')} + ${n};\n", "${m}X"}, g);
    ASSERT_EQ(out.parts.size(), 3u);
    EXPECT_EQ(out.modules, "\n#define _mod_m_0_X 1\n");
    EXPECT_EQ(out.parts[0], "int a = _mod_m_0_X;");
    EXPECT_EQ(out.parts[1], "y = \n(2 * x)\n + 3;\n");  // a snippet renders between its def's newlines
    EXPECT_EQ(out.parts[2], "_mod_m_0_X");
    // The layout of one render of the parts joined by a separator line between a def's newlines.
    const std::string joined =
        render_with_modules(std::string("int a = ${m}X;\n//|\ny = ${twice('x')} + ${n};\n\n//|\n${m}X"), {}, g);
    EXPECT_EQ(joined, out.modules + "\n\n" + out.parts[0] + "\n//|\n" + out.parts[1] + "\n//|\n" + out.parts[2] + "\n");
}

TEST(Parts, DefsAndModuleLevelCodeOfAnyPartServeEveryPart) {
    const RenderedParts out = render_parts_with_modules({"<%def name=\"scale(v)\">(${v} * ${k})</%def>x",
                                                         "${scale('a')} ${two}", "<%! two = 2 %>${scale(two)}"},
                                                        {{"k", 5}});
    EXPECT_EQ(out.modules, "");
    EXPECT_EQ(out.parts[0], "x");
    EXPECT_EQ(out.parts[1], "(a * 5) 2");
    EXPECT_EQ(out.parts[2], "(2 * 5)");
}

TEST(Parts, PlainPartsComeBackAsTheyAre) {
    const RenderedParts out = render_parts_with_modules({"#define A 1\n", "y[i] = x[i] % 2", "", "ends\\"});
    EXPECT_EQ(out.modules, "");
    EXPECT_EQ(out.parts, (std::vector<std::string>{"#define A 1\n", "y[i] = x[i] % 2", "", "ends\\"}));
}

TEST(Parts, NothingRunsFromOnePartIntoTheNext) {
    // A block left open at a part's end is an error there, named at its line of the joined parts.
    kjarni::test::expect_render_error(
        [] {
            (void)render_parts_with_modules({"a", "% if True:\nb", "% endif"}, {{"k", 1}});
        },
        2, 1, "not closed");
    kjarni::test::expect_render_error(
        [] {
            (void)render_parts_with_modules({"a", "b", "<%def name=\"f()\">"}, {{"k", 1}});
        },
        3, 1, "not closed");
    // The names a <% %> block assigns belong to its part.
    kjarni::test::expect_render_error(
        [] {
            (void)render_parts_with_modules({"<% v = 1 %>${v}", "${v}"}, {{"k", 1}});
        },
        2, 3, "'v'");
    // A def defined in two parts is defined twice.
    kjarni::test::expect_render_error(
        [] {
            (void)render_parts_with_modules({"<%def name=\"f()\"/>", "<%def name=\"f()\"/>"});
        },
        2, 1, "twice");
    EXPECT_THROW((void)render_parts_with_modules({}), kjarni::Error);
}

TEST(Parts, InheritAndPageAreRefused) {
    kjarni::test::expect_render_error(
        [] {
            (void)render_parts_with_modules({"a", "<%inherit file=\"b\"/>"});
        },
        2, 1, "<%inherit>");
    kjarni::test::expect_render_error([] { (void)render_parts_with_modules({"<%page args=\"x\"/>"}); }, 1, 1,
                                      "<%page>");
}
