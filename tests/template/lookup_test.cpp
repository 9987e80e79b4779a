// The template loader (lookup.hpp): finding files by URI, its errors, its cache, and the loader
// tags where the corpus (rendered by Mako) cannot reach: errors, lifetimes, several directories.
// How the tags render is checked against Mako by the corpus (corpus/cases/ns_*).

#include "test_util.hpp"

#include <kjarni/template/lookup.hpp>

#include <filesystem>
#include <fstream>
#include <map>
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
    expect_render_error([] { Template::from_string("<%include file=\"${x}\"/>"); }, 1, 17,
                        "an expression in the 'file'");
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

// Embedded templates (put_string) against Mako itself: embedded/cases.txt is written by
// peer/mako_embedded.py with Mako's TemplateLookup.put_string (and checked in CI by the ctest
// template_peers): the same texts under the same URIs, alone and beside corpus/lib.
std::string from_hex(const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

TEST(EmbeddedTemplates, RenderAsMakosPutString) {
    const fs::path data = fs::path(KJARNI_TEST_DATA_DIR).parent_path();
    std::ifstream in(data / "embedded" / "cases.txt", std::ios::binary);
    ASSERT_TRUE(in);
    const std::map<std::string, TemplateLookup> lookups{{"strings", TemplateLookup::without_directories()},
                                                        {"mixed", TemplateLookup({data / "corpus" / "lib"})}};
    const Globals globals{{"n", 4}, {"ctype", "float"}, {"names", kjarni::Value{"x", "y", "z"}}};
    std::size_t rendered = 0, refused = 0;
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f;
        std::size_t at = 0;
        for (std::size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1)
            f.push_back(line.substr(at, tab - at));
        f.push_back(line.substr(at));
        ASSERT_EQ(f.size(), 4u) << line;
        const TemplateLookup& lookup = lookups.at(f[1]);
        if (f[0] == "put") {
            lookup.put_string(f[2], from_hex(f[3]));
            EXPECT_TRUE(lookup.has_template(f[2]));
            continue;
        }
        if (f[3] == "MAKO-ERROR TopLevelLookupException") {  // get_template itself finds nothing
            EXPECT_FALSE(lookup.has_template(f[2])) << f[2];
            EXPECT_THROW(lookup.get_template(f[2]), TemplateNotFound) << f[2];
            ++refused;
        } else if (f[3].starts_with("MAKO-ERROR")) {
            EXPECT_THROW(lookup.get_template(f[2]).render(globals), RenderError) << f[2] << ": " << f[3];
            ++refused;
        } else {
            EXPECT_EQ(lookup.get_template(f[2]).render(globals), from_hex(f[3])) << f[1] << " " << f[2];
            ++rendered;
        }
    }
    EXPECT_EQ(rendered, 7u);
    EXPECT_EQ(refused, 5u);
}

TEST(EmbeddedTemplates, PutStringReplacesNormalisesAndRefuses) {
    const TemplateLookup lookup = TemplateLookup::without_directories();
    EXPECT_FALSE(lookup.has_template("a.mako"));
    EXPECT_THROW(lookup.get_template("a.mako"), TemplateNotFound);
    lookup.put_string("/a.mako", "one");
    const Template first = lookup.get_template("a.mako");
    lookup.put_string("a.mako", "two");  // the same URI: replaced
    EXPECT_EQ(lookup.get_template("/a.mako").render(), "two");
    EXPECT_EQ(first.render(), "one");  // a template already got keeps what it was
    // kjarni normalises URIs, embedded ones too (Mako looks those up by the exact string).
    lookup.put_string("/lib/x.mako", "x");
    lookup.put_string("/pages/p.mako", "<%include file=\"../lib/x.mako\"/>!");
    EXPECT_EQ(lookup.get_template("pages/./p.mako").render(), "x!");
    EXPECT_THROW(lookup.put_string("../up.mako", "no"), TemplateNotFound);
    EXPECT_THROW(lookup.put_string("", "no"), TemplateNotFound);
    expect_render_error([&] { lookup.put_string("/bad.mako", "${"); }, 1, 1, "unterminated");
    // A copy of the lookup shares what was put.
    const TemplateLookup copy = lookup;
    copy.put_string("/c.mako", "c");
    EXPECT_EQ(lookup.get_template("c.mako").render(), "c");
}

}  // namespace
