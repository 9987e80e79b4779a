// Splitting arrays into views (split, array_split, hsplit, vsplit, dsplit) and atleast_1d/2d/3d.

#include <fmt/format.h>

#include "array/axis.hpp"
#include "kjarni/array_operations.hpp"

namespace kjarni {

namespace {

// The parts [bounds[k], bounds[k + 1]) along `axis`, each bound a Python slice bound.
std::vector<Array> parts_between(const Array& array, std::size_t axis, const std::vector<std::ptrdiff_t>& bounds) {
    std::vector<Array> parts;
    parts.reserve(bounds.size() - 1);
    std::vector<Index> region(array.ndim(), Slice{});
    for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
        region[axis] = Slice{bounds[k], bounds[k + 1]};
        parts.push_back(array.index(region));
    }
    return parts;
}

std::size_t split_axis(const Array& array, std::ptrdiff_t axis) {
    // numpy's IndexError (hsplit's ValueError): an AxisError is both.
    if (array.ndim() == 0) throw AxisError("array", "is zero-dimensional: it has no axis to split");
    return detail::normalize_axis(axis, array.ndim());
}

std::vector<Array> sections_of(const Array& array, std::size_t sections, std::ptrdiff_t axis, bool equal) {
    const std::size_t ax = split_axis(array, axis);
    if (sections == 0) throw ArgumentError("sections", "is 0: it must be at least 1");
    const std::size_t n = array.shape()[ax];
    if (equal && n % sections != 0)
        throw ArgumentError("sections",
                            fmt::format("{} do not divide axis {} of extent {} equally (array_split allows that)",
                                        sections, ax, n));
    // numpy.array_split: the first n % sections parts have one element more.
    const std::size_t each = n / sections, extra = n % sections;
    std::vector<std::ptrdiff_t> bounds{0};
    for (std::size_t k = 0; k < sections; ++k)
        bounds.push_back(bounds.back() + static_cast<std::ptrdiff_t>(each + (k < extra ? 1 : 0)));
    return parts_between(array, ax, bounds);
}

std::vector<Array> at_positions(const Array& array, std::span<const std::ptrdiff_t> indices, std::ptrdiff_t axis) {
    const std::size_t ax = split_axis(array, axis);
    std::vector<std::ptrdiff_t> bounds{0};
    bounds.insert(bounds.end(), indices.begin(), indices.end());
    bounds.push_back(static_cast<std::ptrdiff_t>(array.shape()[ax]));
    return parts_between(array, ax, bounds);
}

std::ptrdiff_t hsplit_axis(const Array& array) {
    if (array.ndim() == 0) throw ArgumentError("array", "is zero-dimensional: hsplit needs at least 1 dimension");
    return array.ndim() > 1 ? 1 : 0;
}

void need_dimensions(const Array& array, std::size_t ndim, const char* function) {
    if (array.ndim() < ndim)
        throw ArgumentError("array",
                            fmt::format("has {} dimensions: {} needs at least {}", array.ndim(), function, ndim));
}

}  // namespace

std::vector<Array> split(const Array& array, std::size_t sections, std::ptrdiff_t axis) {
    return sections_of(array, sections, axis, true);
}
std::vector<Array> split(const Array& array, std::span<const std::ptrdiff_t> indices, std::ptrdiff_t axis) {
    return at_positions(array, indices, axis);
}
std::vector<Array> array_split(const Array& array, std::size_t sections, std::ptrdiff_t axis) {
    return sections_of(array, sections, axis, false);
}
std::vector<Array> array_split(const Array& array, std::span<const std::ptrdiff_t> indices, std::ptrdiff_t axis) {
    return at_positions(array, indices, axis);
}

std::vector<Array> hsplit(const Array& array, std::size_t sections) {
    return split(array, sections, hsplit_axis(array));
}
std::vector<Array> hsplit(const Array& array, std::span<const std::ptrdiff_t> indices) {
    return split(array, indices, hsplit_axis(array));
}
std::vector<Array> vsplit(const Array& array, std::size_t sections) {
    need_dimensions(array, 2, "vsplit");
    return split(array, sections, 0);
}
std::vector<Array> vsplit(const Array& array, std::span<const std::ptrdiff_t> indices) {
    need_dimensions(array, 2, "vsplit");
    return split(array, indices, 0);
}
std::vector<Array> dsplit(const Array& array, std::size_t sections) {
    need_dimensions(array, 3, "dsplit");
    return split(array, sections, 2);
}
std::vector<Array> dsplit(const Array& array, std::span<const std::ptrdiff_t> indices) {
    need_dimensions(array, 3, "dsplit");
    return split(array, indices, 2);
}

Array atleast_1d(const Array& array) { return array.ndim() == 0 ? array[{newaxis}] : array; }

Array atleast_2d(const Array& array) {
    if (array.ndim() == 0) return array[{newaxis, newaxis}];
    if (array.ndim() == 1) return array[{newaxis, Slice{}}];
    return array;
}

Array atleast_3d(const Array& array) {
    if (array.ndim() == 0) return array[{newaxis, newaxis, newaxis}];
    if (array.ndim() == 1) return array[{newaxis, Slice{}, newaxis}];
    if (array.ndim() == 2) return array[{Slice{}, Slice{}, newaxis}];
    return array;
}

namespace {
template <class F>
std::vector<Array> each(const std::vector<Array>& arrays, F&& f) {
    std::vector<Array> out;
    out.reserve(arrays.size());
    for (const Array& a : arrays) out.push_back(f(a));
    return out;
}
}  // namespace

std::vector<Array> atleast_1d(const std::vector<Array>& arrays) {
    return each(arrays, [](const Array& a) { return atleast_1d(a); });
}
std::vector<Array> atleast_2d(const std::vector<Array>& arrays) {
    return each(arrays, [](const Array& a) { return atleast_2d(a); });
}
std::vector<Array> atleast_3d(const std::vector<Array>& arrays) {
    return each(arrays, [](const Array& a) { return atleast_3d(a); });
}

}  // namespace kjarni
