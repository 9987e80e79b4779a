#pragma once
// Size bins of the memory pools (MemoryPool, HostMemoryPool): the arithmetic, in one place.
//
// A size's bin is named by its top set bit and the `bits` bits after it. With
// shift = max(0, bit_width(size) - (bits + 1)), the bin is (shift, size >> shift); every block of
// a bin has the bin's largest size (the shifted-out bits all set), so it serves any request of
// the bin.

#include <bit>
#include <cstddef>

namespace kjarni::detail {

/// How many low bits of `size` its bin ignores.
constexpr unsigned bin_shift(std::size_t size, unsigned bits) noexcept {
    const unsigned keep = bits + 1;
    const auto significant = static_cast<unsigned>(std::bit_width(size));
    return significant > keep ? significant - keep : 0;
}

/// (shift, top bits) packed into one number: small sizes (shift 0) are bins of their own.
constexpr std::size_t bin_number(std::size_t size, unsigned bits) noexcept {
    const unsigned shift = bin_shift(size, bits);
    return (std::size_t{shift} << (bits + 1)) | (size >> shift);
}

/// The size every block of the bin of `size` has.
constexpr std::size_t bin_allocation_size(std::size_t size, unsigned bits) noexcept {
    const unsigned shift = bin_shift(size, bits);
    return ((size >> shift) << shift) | ((std::size_t{1} << shift) - 1);
}

/// A bin as a place in a two-level table: level = shift, index = the top bits less the set top
/// bit (levels above 0 all have it set), so that each level is dense.
struct BinSlot {
    unsigned level;
    std::size_t index;
};

/// Largest level + 1 (a shift is below 64).
constexpr unsigned bin_levels = 64;

constexpr BinSlot bin_slot(std::size_t size, unsigned bits) noexcept {
    const unsigned shift = bin_shift(size, bits);
    const std::size_t top = size >> shift;
    return {shift, shift == 0 ? top : top - (std::size_t{1} << bits)};
}

/// Bins in a level: sizes below 2^(bits + 1) at level 0, 2^bits top-bit patterns above.
constexpr std::size_t bin_level_width(unsigned level, unsigned bits) noexcept {
    return level == 0 ? std::size_t{1} << (bits + 1) : std::size_t{1} << bits;
}

}  // namespace kjarni::detail
