// The template loader (lookup.hpp): finding files by URI, its errors, its cache, and the loader
// tags where the corpus (rendered by Mako) cannot reach: errors, lifetimes, several directories.
// How the tags render is checked against Mako by the corpus (corpus/cases/ns_*).

#include "test_util.hpp"

#include <kjarni/template/lookup.hpp>

#include <filesystem>
#include <fstream>
#include <random>

namespace {

namespace fs = std::filesystem;
using kjarni::Globals;
using kjarni::RenderError;
using kjarni::Template;
using kjarni::TemplateLookup;
using kjarni::TemplateNotFound;
using kjarni::test::expect_render_error;

// Two fresh directories of template files, removed afterwards (shared by the tests of this file).
class Lookup : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        root_ = fs::temp_directory_path() / ("kjarni-lookup-" + std::to_string(std::random_device{}()));
        write("a/top.mako", "top ${n}\n<%include file=\"sub/mid.mako\"/>");
        write("a/sub/mid.mako", "mid <%include file=\"leaf.mako\"/>|<%include file=\"/leaf.mako\"/>");
        write("a/sub/leaf.mako", "sub-leaf");
        write("a/leaf.mako", "root-leaf");
        write("b/leaf.mako", "b-leaf");
        write("b/only_b.mako", "only in b");
        write("a/cycle1.mako", "<%inherit file=\"cycle2.mako\"/>x");
        write("a/cycle2.mako", "<%inherit file=\"cycle1.mako\"/>y");
        write("a/self.mako", "<%include file=\"self.mako\"/>");
        write("a/page.mako", "<%page args=\"n, k=2\"/>n=${n} k=${k}");
        write("a/base.mako", "[${self.f()}|${next.body()}]");
        write("a/child.mako", "<%inherit file=\"base.mako\"/><%def name=\"f()\">child f</%def>body");
        write("a/assoc.cpp", "");
        write("a/assoc.mako", "assoc: <%include file=\"leaf.mako\"/>");
    }
    static void TearDownTestSuite() { fs::remove_all(root_); }

    static void write(const std::string& rel, const std::string& text) {
        const fs::path p = root_ / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
    }

    static TemplateLookup lookup() { return TemplateLookup({root_ / "a", root_ / "b"}); }
    static fs::path root_;
};

fs::path Lookup::root_;

TEST_F(Lookup, ResolvesRelativeAndAbsoluteUrisAndSearchesDirectoriesInOrder) {
    const auto l = lookup();
    EXPECT_EQ(l.get_template("top.mako").render({{"n", 1}}), "top 1\nmid sub-leaf|root-leaf");
    EXPECT_EQ(l.get_template("/leaf.mako").render(), "root-leaf");  // a/ comes before b/
    EXPECT_EQ(l.get_template("only_b.mako").render(), "only in b");
    EXPECT_EQ(l.get_template("sub/./../leaf.mako").render(), "root-leaf");
    EXPECT_TRUE(l.has_template("sub/leaf.mako"));
    EXPECT_FALSE(l.has_template("nope.mako"));
    EXPECT_FALSE(l.has_template("../a/leaf.mako"));
}

TEST_F(Lookup, CachesCompiledTemplates) {
    const auto l = lookup();
    EXPECT_EQ(l.get_template("leaf.mako").main_def().compiled(), l.get_template("/leaf.mako").main_def().compiled());
}

TEST_F(Lookup, NotFoundNamesTheUriAndTheDirectories) {
    const auto l = lookup();
    try {
        l.get_template("missing.mako");
        ADD_FAILURE() << "no TemplateNotFound";
    } catch (const TemplateNotFound& e) {
        EXPECT_EQ(e.uri(), "missing.mako");
        EXPECT_EQ(e.directories().size(), 2u);
        const std::string what = e.what();
        EXPECT_NE(what.find("'missing.mako'"), std::string::npos) << what;
        EXPECT_NE(what.find((root_ / "b").string()), std::string::npos) << what;
    }
    EXPECT_THROW(TemplateLookup({}), kjarni::Error);
}

TEST_F(Lookup, RefusesUrisThatLeaveTheDirectories) {
    const auto l = lookup();
    for (const char* uri : {"../a/leaf.mako", "sub/../../leaf.mako", "/..", ""}) {
        EXPECT_THROW(l.get_template(uri), TemplateNotFound) << uri;
    }
    // From a tag too: the error is at the tag.
    expect_render_error([&] { l.from_string("x\n <%include file=\"sub/../../../etc/passwd\"/>").render(); }, 2, 2,
                        "leaves the lookup's directories");
}

TEST_F(Lookup, TagErrorsPointAtTheTag) {
    expect_render_error([] { Template::from_string("a\n<%include file=\"leaf.mako\"/>").render(); }, 2, 1,
                        "has no TemplateLookup");
    const auto l = lookup();
    expect_render_error([&] { l.from_string("a\n  <%include file=\"gone.mako\"/>").render(); }, 2, 3,
                        "template 'gone.mako' not found");
    expect_render_error([&] { l.get_template("cycle1.mako").render(); }, 1, 1, "cycle of inheritance");
    expect_render_error([&] { l.get_template("self.mako").render(); }, 1, 1, "maximum call depth");
    expect_render_error([&] { l.from_string("<%namespace name=\"u\" file=\"gone.mako\"/>${u.f()}").render(); }, 1, 1,
                        "not found");
    expect_render_error([&] { l.from_string("<%namespace file=\"leaf.mako\" import=\"nodef\"/>${nodef()}").render(); },
                        1, 1, "has no def 'nodef'");
    expect_render_error([] { Template::from_string("<%include file=\"${x}\"/>"); }, 1, 17, "an expression in the 'file'");
    expect_render_error([] { Template::from_string("<%include file=\"a\" args=\"1\"/>"); }, 1, 26, "keyword arguments");
    expect_render_error([] { Template::from_string("<%include file=\"a\">x"); }, 1, 1, "with a body is not supported");
    expect_render_error([] { Template::from_string("<%inherit file=\"a\"/><%inherit file=\"b\"/>"); }, 1, 21,
                        "inherit only once");
    expect_render_error([] { Template::from_string("<%page cached=\"True\"/>"); }, 1, 16, "'cached' of '<%page>'");
}

TEST_F(Lookup, PageArgsComeFromTheGlobalsAndTemplatesOutliveTheirLookup) {
    Template page = lookup().get_template("page.mako");  // the TemplateLookup object is gone now
    EXPECT_EQ(page.render({{"n", 5}}), "n=5 k=2");
    EXPECT_EQ(page.render({{"n", 5}, {"k", 3}}), "n=5 k=3");
    expect_render_error([&] { page.render(); }, 1, 1, "missing 1 required argument: 'n'");
    EXPECT_EQ(lookup().get_template("top.mako").render({{"n", 2}}), "top 2\nmid sub-leaf|root-leaf");
}

TEST_F(Lookup, InheritanceRendersTheBaseAndDefsSeeTheChain) {
    const auto child = lookup().get_template("child.mako");
    EXPECT_EQ(child.render(), "[child f|body]");
    EXPECT_EQ(child.get_def("f").render(), "child f");
}

TEST_F(Lookup, AssociatedFileFindsItsSiblings) {
    EXPECT_EQ(Template::from_associated_file(root_ / "a" / "assoc.cpp").render(), "assoc: root-leaf");
    EXPECT_THROW(Template::from_associated_file(root_ / "a" / "none.cpp"), kjarni::Error);
}

}  // namespace
