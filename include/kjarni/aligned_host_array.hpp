#pragma once
/// Host arrays whose first element lies at a chosen alignment (PyCUDA's aligned_empty,
/// aligned_zeros, aligned_empty_like and aligned_zeros_like): ordinary pageable memory (not
/// page-locked: see host_memory.hpp for that), aligned for vector loads, for register_memory
/// (page-locking whole pages wastes nothing) or for libraries that demand it. \file

#include <cstddef>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/dtype.hpp"

namespace kjarni {

/// PyCUDA's default alignment: a page.
inline constexpr std::size_t default_host_alignment = 4096;

/// A contiguous HostArray (in `order`) whose memory starts at a multiple of `alignment` bytes and
/// is freed when its last copy or view goes. Its elements are not initialised. ArgumentError
/// (naming `alignment`) unless the alignment is a power of two; ArgumentError (naming `shape`)
/// when the size in bytes overflows; std::bad_alloc when the host has not that much memory.
HostArray aligned_empty(const DType& dtype, std::vector<std::size_t> shape, Order order = Order::C,
                        std::size_t alignment = default_host_alignment);
/// As aligned_empty, every byte zero.
HostArray aligned_zeros(const DType& dtype, std::vector<std::size_t> shape, Order order = Order::C,
                        std::size_t alignment = default_host_alignment);
/// An aligned_empty of `like`'s dtype and shape, in Fortran order where `like` is Fortran- and not
/// C-contiguous, in C order otherwise (PyCUDA's rule). Nothing is copied.
HostArray aligned_empty_like(const HostArray& like, std::size_t alignment = default_host_alignment);
/// As aligned_empty_like, every byte zero.
HostArray aligned_zeros_like(const HostArray& like, std::size_t alignment = default_host_alignment);

}  // namespace kjarni
