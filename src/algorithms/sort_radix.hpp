#pragma once
// The LSD radix sort under sort, argsort and unique (see sort_radix.cpp for the kernels), and the
// order-preserving keys it sorts: every numeric dtype's bits turned into an unsigned integer of
// the same width whose unsigned order is numpy's order of the values.

#include <cstddef>
#include <optional>
#include <string>

#include "kjarni/array.hpp"
#include "kjarni/buffer.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

/// How float bits become keys.
enum class FloatKeys {
    /// Invertible (sort): -0.0 sorts just before 0.0 and a NaN keeps its payload (its sign bit
    /// cleared, so that every NaN sorts after +inf). Integers are always invertible.
    exact,
    /// numpy's comparisons (argsort, unique, searchsorted): -0.0 and 0.0 give one key, every NaN
    /// the largest key; stable sorts then keep such equal values in their original order.
    canonical,
};

/// The unsigned C type of `bytes` bytes (1, 2, 4 or 8).
const char* key_ctype(std::size_t bytes);

/// Device functions over `KJARNI_KEY` (which the caller defines as key_ctype(itemsize)):
/// `KJARNI_KEY kjarni_to_key(KJARNI_KEY bits)` (an element's bits to its key) and, for exact keys,
/// `KJARNI_KEY kjarni_from_key(KJARNI_KEY key)` (back). UnsupportedError for complex and struct
/// dtypes, naming `what`.
std::string key_functions(const DType& dtype, FloatKeys mode, const std::string& what);
/// A short name of what key_functions generates for `dtype` (for kernel cache keys).
std::string key_class(const DType& dtype, FloatKeys mode);

/// Keys (and their values) after a sort: the buffers that hold the result, which are the given
/// ones or temporaries of the same sizes.
struct RadixResult {
    Buffer keys;
    std::optional<Buffer> values;
};

/// Which radix sort radix_sort runs.
enum class RadixMethod {
    /// onesweep where onesweep_supported() (sort_onesweep.hpp) says it is safe and the sort is
    /// not segmented, else multi_pass.
    automatic,
    /// One pass per 4-bit digit, each a histogram kernel (digit counts per tile), an exclusive
    /// scan of the counts (the scan engine) and a scatter kernel. No work group waits for another,
    /// so any OpenCL device runs it.
    multi_pass,
    /// 8-bit digits, one kernel per digit with decoupled look-back (UnsupportedError where it is
    /// not supported, and for segmented sorts).
    onesweep,
};

/// Sorts `n` keys of `key_bytes` bytes (unsigned integers in `keys`) stably, carrying `values`
/// (`value_bytes` = 4 or 8 bytes each) along when given, least significant digit first (see
/// RadixMethod). With `row_length` < n the values must be the flat positions 0..n-1 at the start,
/// and the keys end sorted within each row of `row_length` consecutive positions (more passes of
/// the multi-pass sort sort by the row, value / row_length, after the keys: a stable sort by
/// (row, key)). Enqueued on `queue`; the buffers may be dropped once the caller's last use is
/// enqueued.
RadixResult radix_sort(const Queue& queue, const Buffer& keys, std::size_t key_bytes,
                       const std::optional<Buffer>& values, std::size_t value_bytes, std::size_t n,
                       std::size_t row_length, RadixMethod method = RadixMethod::automatic);

/// Whether positions and values among `n` elements need 64-bit indices.
inline bool needs_wide_indices(std::size_t n) { return n >= (std::size_t{1} << 31) - (std::size_t{1} << 16); }

}  // namespace kjarni::detail
