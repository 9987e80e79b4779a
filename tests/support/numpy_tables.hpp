#pragma once
// The tables numpy itself writes for the fidelity tests (tests/runtime/data/make_*.py): one case a
// line, words separated by white space, '#' lines and empty lines skipped.

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kjarni::test {

/// The rows of tests/runtime/data/`file`, each split into its words; std::runtime_error naming the
/// file when it cannot be read.
inline std::vector<std::vector<std::string>> numpy_table_rows(const std::string& file) {
    std::ifstream in(std::string(KJARNI_RUNTIME_DATA_DIR) + "/" + file);
    if (!in) throw std::runtime_error("missing " + file);
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::vector<std::string> row;
        for (std::string w; words >> w;) row.push_back(w);
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace kjarni::test
