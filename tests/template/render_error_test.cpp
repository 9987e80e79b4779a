// RenderError carries what grunnur's does (issue 43, item 1): the exception the failure started
// as, the values of the render globals and the template's whole source.

#include "test_util.hpp"

#include <kjarni/template/lookup.hpp>

#include <cstdint>
#include <stdexcept>

namespace kjarni::test {
namespace {

// A type of the user's, to see that exception() keeps the very exception a callable threw.
struct UserFailure : std::runtime_error {
    explicit UserFailure(std::int64_t value)
        : std::runtime_error("user failure " + std::to_string(value)), code(value) {}
    std::int64_t code;
};

template <class F>
RenderError caught(F&& f) {
    try {
        f();
    } catch (const RenderError& e) {
        return e;
    }
    ADD_FAILURE() << "no RenderError";
    return RenderError("none", 0, 0, "none");
}

TEST(RenderErrorDetails, KeepsTheCallablesExceptionTheGlobalsAndTheSource) {
    const std::string source = "line one\n${n + 1}\n${fail(n)}\nlast\n";
    const Template t = Template::from_string(source, "user.mako");
    Globals globals{{"n", 41}, {"label", "a label"}};
    globals["fail"] = Value::function([](const Args& a) -> Value { throw UserFailure(a[0].as_int() + 1); });
    const RenderError e = caught([&] { t.render(globals); });
    EXPECT_EQ(e.template_name(), "user.mako");
    EXPECT_EQ(e.line(), 3u);
    EXPECT_EQ(e.source(), source);
    ASSERT_EQ(e.globals().size(), 3u);
    EXPECT_EQ(e.globals().at("n").as_int(), 41);
    EXPECT_EQ(e.globals().at("label").as_string(), "a label");
    ASSERT_TRUE(e.exception());
    try {
        std::rethrow_exception(e.exception());
    } catch (const UserFailure& original) {
        EXPECT_EQ(original.code, 42);
    } catch (...) {
        ADD_FAILURE() << "exception() is not the callable's own";
    }
    // Copies share the details (an exception is copied when thrown).
    const RenderError copy = e;
    EXPECT_EQ(&copy.globals(), &e.globals());
}

TEST(RenderErrorDetails, EngineFailuresGiveAnErrorWithTheMessage) {
    const std::string source = "a\n${undefined_name * 2}\n";
    const RenderError e = caught([&] { render(source, {{"x", 1.5}}); });
    EXPECT_EQ(e.source(), source);
    EXPECT_EQ(e.globals().at("x").as_float(), 1.5);
    try {
        std::rethrow_exception(e.exception());
    } catch (const RenderError&) {
        ADD_FAILURE() << "exception() is the RenderError itself";
    } catch (const Error& original) {
        EXPECT_EQ(std::string(original.what()), e.message());
        EXPECT_NE(e.message().find("undefined_name"), std::string::npos) << e.message();
    }
    // Found while compiling: no globals, the whole source.
    const std::string broken = "ok\n% if x:\nno endif\n";
    const RenderError c = caught([&] { Template::from_string(broken, "broken"); });
    EXPECT_TRUE(c.globals().empty());
    EXPECT_EQ(c.source(), broken);
    EXPECT_TRUE(c.exception());
}

TEST(RenderErrorDetails, LoaderTagsAndIncludedTemplates) {
    const TemplateLookup lookup = TemplateLookup::without_directories();
    lookup.put_string("/inner.mako", "inner\n${1 / zero}\n");
    lookup.put_string("/outer.mako", "outer <%include file=\"inner.mako\"/>");
    lookup.put_string("/lost.mako", "<%include file=\"nowhere.mako\"/>");
    // A failure inside the included template is that template's, with the globals it got.
    const RenderError e = caught([&] { lookup.get_template("outer.mako").render({{"zero", 0}}); });
    EXPECT_EQ(e.source(), "inner\n${1 / zero}\n");
    EXPECT_EQ(e.globals().at("zero").as_int(), 0);
    EXPECT_EQ(e.line(), 2u);
    // A template the tag cannot find: exception() is the lookup's TemplateNotFound.
    const RenderError lost = caught([&] { lookup.get_template("lost.mako").render({{"k", 7}}); });
    EXPECT_EQ(lost.globals().at("k").as_int(), 7);
    try {
        std::rethrow_exception(lost.exception());
    } catch (const TemplateNotFound& original) {
        EXPECT_EQ(original.uri(), "nowhere.mako");
    } catch (...) {
        ADD_FAILURE() << "exception() is not the TemplateNotFound";
    }
}

TEST(RenderErrorDetails, DefTemplatesReportTheirWholeSource) {
    const DefTemplate d = DefTemplate::from_string("f", {"a"}, "x ${a.missing}");
    const RenderError e = caught([&] { d.render({Value(3)}, {{"g", "G"}}); });
    EXPECT_EQ(e.source(), "\nx ${a.missing}\n");  // the body as the def wraps it (as grunnur's)
    EXPECT_EQ(e.globals().at("g").as_string(), "G");
    EXPECT_EQ(e.line(), 1u);
}

}  // namespace
}  // namespace kjarni::test
