#pragma once
// Whole groups needed for `count` items in groups of `group` (launch sizes, tiles, pieces).
#include <cstddef>

namespace kjarni::detail {

constexpr std::size_t ceil_div(std::size_t count, std::size_t group) { return (count + group - 1) / group; }

}  // namespace kjarni::detail
