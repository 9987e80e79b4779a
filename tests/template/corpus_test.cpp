// The template corpus (corpus/cases/*.mako) rendered by kjarni and compared byte for byte with what
// Mako itself renders (corpus/expected/*.txt, made by peer/mako_corpus.py with PyPI's Mako; the
// ctest `template_peers` re-makes them in CI and fails when they differ from what is committed).
//
// A case Mako refuses (`MAKO-ERROR <type>`) must be refused by kjarni with a RenderError too. A case
// kjarni refuses while Mako renders it fails, unless corpus/refused.txt lists it with the reason; a
// listed case that kjarni renders fails as well, so that the list stays true.

#include "corpus_globals.hpp"
#include "test_util.hpp"

#include <kjarni/template/lookup.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace {

namespace fs = std::filesystem;

const fs::path corpus_dir = fs::path(KJARNI_TEST_DATA_DIR).parent_path() / "corpus";

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// corpus/refused.txt: `case: reason` lines; `#` starts a comment.
std::map<std::string, std::string> refused_cases() {
    std::map<std::string, std::string> out;
    std::istringstream in(read_file(corpus_dir / "refused.txt"));
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        out[line.substr(0, colon)] = line.substr(colon + 1);
    }
    return out;
}

std::vector<std::string> case_names() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(corpus_dir / "cases"))
        if (entry.path().extension() == ".mako") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, RendersAsMako) {
    const std::string name = GetParam();
    const std::string source = read_file(corpus_dir / "cases" / (name + ".mako"));
    const std::string expected = read_file(corpus_dir / "expected" / (name + ".txt"));
    const auto refused = refused_cases();
    const bool mako_refuses = expected.rfind("MAKO-ERROR ", 0) == 0;
    std::string rendered;
    std::string error;
    try {
        // As peer/mako_corpus.py: a lookup on corpus/lib for the loader tags.
        static const kjarni::TemplateLookup lookup({corpus_dir / "lib"});
        rendered = lookup.from_string(source, name + ".mako").render(kjarni::test::corpus_globals());
    } catch (const kjarni::RenderError& e) {
        error = e.what();
    }
    if (mako_refuses) {
        EXPECT_FALSE(error.empty()) << "Mako refuses it (" << expected << ") but kjarni renders:\n" << rendered;
        return;
    }
    if (auto it = refused.find(name); it != refused.end()) {
        EXPECT_FALSE(error.empty()) << "listed in refused.txt (" << it->second
                                    << ") but kjarni renders it; remove it from the list. Rendered:\n"
                                    << rendered;
        return;
    }
    ASSERT_TRUE(error.empty()) << "kjarni refuses what Mako renders:\n" << error;
    EXPECT_EQ(rendered, expected);
}

INSTANTIATE_TEST_SUITE_P(Mako, Corpus, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

TEST(CorpusData, IsLargeAndEveryRefusalNamesACase) {
    const auto names = case_names();
    EXPECT_GE(names.size(), 150u);
    for (const auto& [name, reason] : refused_cases()) {
        EXPECT_TRUE(std::binary_search(names.begin(), names.end(), name)) << "refused.txt names no case: " << name;
        EXPECT_GT(reason.size(), 10u) << "refused.txt gives no reason for " << name;
    }
}

}  // namespace
