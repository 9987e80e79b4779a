// Snippets and Modules: what grunnur does not define (C++ callables, keyword arguments, errors).
// The rendered sources of the reference's examples and of the module rules are compared with what
// grunnur itself renders in grunnur_test.cpp.

#include "test_util.hpp"

using kjarni::Args;
using kjarni::DefTemplate;
using kjarni::Globals;
using kjarni::Module;
using kjarni::render_with_modules;
using kjarni::Snippet;
using kjarni::Value;

TEST(Snippets, RenderGlobalsClashingWithTheSnippetsOwnAreAnError) {
    auto s = Snippet::from_callable({"a"}, [] { return "${a}${b}${c}"; }, "root", {{"b", 2}, {"c", 3}});
    try {
        render_with_modules(s, {1}, {{"c", 4}});
        ADD_FAILURE() << "no error for a global clashing with the snippet's own";
    } catch (const kjarni::Error& e) {
        EXPECT_NE(std::string(e.what()).find("'c'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'root'"), std::string::npos) << e.what();
    }
}

TEST(Modules, KeywordArgumentsAreArgumentsToo) {
    // grunnur's modules take positional arguments only; kjarni's take keywords as well, and a
    // rendering is reused for equal keyword arguments.
    auto c = Module::from_callable(
        {"prefix", "v"}, [] { return "#define ${prefix} ${v}"; }, "c");
    std::string out = render_with_modules(std::string("${c(v=2)} ${c(v=2)} ${c(2)} ${c(v=3)}"), {}, {{"c", c}});
    EXPECT_EQ(out, "\n#define _mod_c_0_ 2\n\n\n#define _mod_c_1_ 2\n\n\n#define _mod_c_2_ 3\n\n"
                   "\n_mod_c_0_ _mod_c_0_ _mod_c_1_ _mod_c_2_\n");
}

TEST(Modules, ADefMustTakeThePrefix) { EXPECT_THROW(Module(DefTemplate::from_string("m", {}, "x")), kjarni::Error); }

TEST(Modules, ErrorsInsideModulesNameTheModule) {
    auto bad = Module::from_string("ok\n  ${undefined_thing}\n", "bad");
    try {
        render_with_modules(std::string("${bad}"), {}, {{"bad", bad}});
        FAIL();
    } catch (const kjarni::RenderError& e) {
        EXPECT_EQ(e.template_name(), "bad");
        EXPECT_EQ(e.line(), 2u);
        EXPECT_EQ(e.column(), 5u);
        EXPECT_EQ(e.global_names(), std::vector<std::string>{});
    }
}

TEST(Modules, UsedOutsideModuleProcessingIsAnError) {
    auto m = Module::from_string("", "m");
    kjarni::test::expect_render_error(
        [&] {
            kjarni::test::render("${m}", {{"m", m}});
        },
        1, 1, "without module processing");
}

TEST(Modules, CallablesFromCpp) {
    Globals g{{"twice", Value([](const Args& a) { return Value(a[0].as_int() * 2); })},
              {"kw", Value([](const Args& a) {
                   const Value* k = a.find_keyword("k");
                   return Value(k ? k->str() : std::string("none"));
               })},
              {"thrower", Value([](const Args&) -> Value { throw std::runtime_error("boom"); })}};
    EXPECT_EQ(render_with_modules(std::string("${twice(21)} ${kw()} ${kw(k=1.5)}"), {}, g), "\n\n42 none 1.5\n");
    kjarni::test::expect_render_error([&] { render_with_modules(std::string("x ${thrower()}"), {}, g); }, 1, 12,
                                      "boom");
}
