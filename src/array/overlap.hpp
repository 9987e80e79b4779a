#pragma once
// Whether two arrays touch common bytes: the test behind assignments between views of one
// allocation (numpy's `a[1:] = a[:-1]` reads as if the source were copied first).

#include "kjarni/array.hpp"

namespace kjarni::detail {

enum class Overlap {
    none,       ///< no byte in common (proven), or different allocations
    same_view,  ///< element k of one is element k of the other (same first byte, itemsize, shape, strides)
    partial,    ///< may share bytes otherwise (conservative: the test is exact only in the cases below)
};

/// How the elements of `a` and `b` lie relative to each other. `none` is proven either by disjoint
/// byte ranges or by a residue argument: every element of an array starts at its first byte plus a
/// multiple of g, the gcd of both arrays' strides (axes of extent > 1), so when the bytes
/// [first, first + itemsize) of the two arrays fall in disjoint classes modulo g they never meet
/// (a[::2] and a[1::2]; the real and imaginary parts of a complex array). Views that interleave
/// less regularly (a[:, ::2] and a[:, 1::2] with an odd row length) say `partial`: numpy's exact
/// shares_memory solves a bounded Diophantine problem, not worth it to save one copy.
Overlap memory_overlap(const Array& a, const Array& b);

}  // namespace kjarni::detail
