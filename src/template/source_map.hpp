#pragma once
// Turns byte offsets into 1-based (line, column), so that the lexer and the AST store a single
// 32-bit offset per position and pay for lines only when an error is reported.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kjarni::tmpl {

class SourceMap {
public:
    explicit SourceMap(std::string_view source) {
        line_starts_.push_back(0);
        for (std::size_t i = 0; i < source.size(); ++i)
            if (source[i] == '\n') line_starts_.push_back(i + 1);
    }
    std::size_t line(std::uint32_t offset) const {
        auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), std::size_t{offset});
        return static_cast<std::size_t>(it - line_starts_.begin());
    }
    std::size_t column(std::uint32_t offset) const { return std::size_t{offset} - line_starts_[line(offset) - 1] + 1; }
    std::string line_text(std::string_view source, std::size_t line_no) const {
        if (line_no == 0 || line_no > line_starts_.size()) return {};
        std::size_t start = line_starts_[line_no - 1];
        std::size_t end = source.find('\n', start);
        if (end == std::string_view::npos) end = source.size();
        return std::string(source.substr(start, end - start));
    }

private:
    std::vector<std::size_t> line_starts_;
};

}  // namespace kjarni::tmpl
