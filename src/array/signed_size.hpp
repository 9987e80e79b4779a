#pragma once
// A size or shape entry as the signed type that strides and offsets use (shared by the layout code).

#include <cstddef>

namespace kjarni::detail {

/// `v` as std::ptrdiff_t: sizes here are allocation sizes, far below PTRDIFF_MAX.
inline std::ptrdiff_t to_signed(std::size_t v) { return static_cast<std::ptrdiff_t>(v); }

}  // namespace kjarni::detail
