#include "array/overlap.hpp"

#include <numeric>

#include "array/signed_size.hpp"

namespace kjarni::detail {

namespace {

// The byte offset of the first element in the allocation (base() may itself be a region of it).
std::ptrdiff_t first_byte(const Array& a) { return to_signed(a.base().offset() + a.offset()); }

// The non-negative residue of `v` modulo `m` (m > 0).
std::ptrdiff_t residue(std::ptrdiff_t v, std::ptrdiff_t m) { return ((v % m) + m) % m; }

bool same_elements(const Array& a, const Array& b) {
    if (first_byte(a) != first_byte(b) || a.dtype().itemsize() != b.dtype().itemsize() || a.shape() != b.shape())
        return false;
    // Strides of axes of extent 1 never move to another element.
    for (std::size_t d = 0; d < a.ndim(); ++d)
        if (a.shape()[d] > 1 && a.strides()[d] != b.strides()[d]) return false;
    return true;
}

}  // namespace

Overlap memory_overlap(const Array& a, const Array& b) {
    if (a.size() == 0 || b.size() == 0) return Overlap::none;
    if (backend_of(a.base()) != backend_of(b.base())) return Overlap::none;
    const auto [a_low, a_high] = a.layout().extent(a.dtype().itemsize());
    const auto [b_low, b_high] = b.layout().extent(b.dtype().itemsize());
    const std::ptrdiff_t a_first = first_byte(a);
    const std::ptrdiff_t b_first = first_byte(b);
    if (a_first + a_high <= b_first + b_low || b_first + b_high <= a_first + a_low) return Overlap::none;
    if (same_elements(a, b)) return Overlap::same_view;
    std::ptrdiff_t g = 0;
    for (const Array* x : {&a, &b})
        for (std::size_t d = 0; d < x->ndim(); ++d)
            if (x->shape()[d] > 1) g = std::gcd(g, x->strides()[d]);  // std::gcd takes absolute values
    const auto a_size = to_signed(a.dtype().itemsize());
    const auto b_size = to_signed(b.dtype().itemsize());
    if (g > 0 && a_size + b_size <= g) {
        // [a_first, + a_size) and [b_first, + b_size) as arcs of a circle of length g.
        const std::ptrdiff_t b_after_a = residue(b_first - a_first, g);
        const std::ptrdiff_t a_after_b = residue(a_first - b_first, g);
        if (b_after_a >= a_size && a_after_b >= b_size) return Overlap::none;
    }
    return Overlap::partial;
}

}  // namespace kjarni::detail
