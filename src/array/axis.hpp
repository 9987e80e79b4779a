#pragma once
// Axis arguments of the array operations: numpy's negative axes, checked with a message that names them.

#include <fmt/format.h>

#include <cstddef>

#include "kjarni/error.hpp"

namespace kjarni::detail {

/// `axis` in [-ndim, ndim) as a position in [0, ndim); AxisError naming `what` otherwise.
inline std::size_t normalize_axis(std::ptrdiff_t axis, std::size_t ndim, const char* what = "axis") {
    const auto n = static_cast<std::ptrdiff_t>(ndim);
    if (axis < -n || axis >= n)
        throw AxisError(what, fmt::format("{} is out of range for an array of {} dimensions", axis, ndim));
    return static_cast<std::size_t>(axis < 0 ? axis + n : axis);
}

}  // namespace kjarni::detail
