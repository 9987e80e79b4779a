#pragma once
/// numpy's sort, argsort, unique and searchsorted on device arrays, by a radix sort.
///
/// Every numeric dtype is sorted: bool, the signed and unsigned integers of 1 to 8 bytes, float16,
/// float32 and float64. The order is numpy's: NaN after +inf (every NaN, whatever its sign or
/// payload), and -0.0 equal to 0.0. Complex and struct arrays are refused (UnsupportedError: numpy
/// orders complex values lexicographically; sort their parts instead).
///
/// The sort is a least-significant-digit radix sort of the values' bits turned into unsigned
/// integers of the same order (floats: the sign bit flipped for non-negative values, every bit for
/// negative ones). Flat sorts (and rows when there is one) of fewer than 2^30 elements run the
/// onesweep sort on GPUs and on PoCL's CPU devices: one kernel per 8-bit digit (1 pass for 1-byte
/// dtypes, 4 for 4-byte ones, 8 for 8-byte ones) after one kernel that counts every digit, work
/// groups finding their tile's place by decoupled look-back (a group waits on groups that started
/// before it, which these devices run to their end). Elsewhere, and for several rows, it is one pass
/// of three kernels per 4-bit digit (a histogram per tile, a scan of the counts, a stable scatter)
/// in which no work group ever waits for another, so it runs on any OpenCL device. It is stable:
/// argsort gives numpy's `kind="stable"` result exactly (equal values keep their order, -0.0 and
/// 0.0 and every NaN included). Along an axis each row is sorted on its own, by a sort by (row,
/// value): the row's bits take extra passes (one per 4 bits of the row count).
///
/// Inputs of any layout are accepted (non-contiguous ones are copied first). Results are new
/// C-contiguous arrays on the queue's device; work is enqueued on `queue` and not waited for, except
/// where a result's shape depends on the data (unique reads its count back). Axes count from the
/// end when negative; an axis out of range is an ArgumentError. \file

#include <optional>

#include "kjarni/array.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

/// numpy.sort: the values sorted along `axis` (std::nullopt: the array flattened in C order, a
/// 1-d result). Where -0.0 and 0.0 meet, -0.0 comes first, and NaNs keep their payloads with the
/// sign cleared (numpy's default sort promises no order between equal values either; argsort is
/// the stable one). A 0-d array needs axis std::nullopt.
/// The result's memory comes from `allocator` (Buffer::allocate when empty), as in argsort and
/// searchsorted (unique: UniqueOptions::allocator).
Array sort(const Queue& queue, const Array& array, std::optional<int> axis = -1, const Allocator& allocator = {});

/// numpy.argsort(kind="stable"): int64 positions along `axis` (std::nullopt: into the flattened
/// array) that sort the values, equal values in their original order.
Array argsort(const Queue& queue, const Array& array, std::optional<int> axis = -1, const Allocator& allocator = {});

/// What unique returns besides the values.
struct UniqueOptions {
    bool return_index = false;    ///< the flat position of each value's first occurrence
    bool return_inverse = false;  ///< for every element, the position of its value in the result
    bool return_counts = false;   ///< how often each value occurs
    /// Where the returned arrays' memory comes from (Buffer::allocate when empty).
    Allocator allocator = {};
};

/// unique's results: the values, and those asked for (int64 arrays).
struct UniqueResult {
    Array values;                  ///< the distinct values, sorted (1-d, the input's dtype)
    std::optional<Array> index;    ///< (values.size()): first occurrences in the flattened input
    std::optional<Array> inverse;  ///< the input's shape (numpy 2's): values[inverse] is the input
    std::optional<Array> counts;   ///< (values.size())
};

/// numpy.unique of the flattened array (equal_nan=True: every NaN is one value; -0.0 and 0.0 are
/// one value, represented by the first of them in the input). Reads the number of distinct values
/// back to the host, so it returns once the work is done.
UniqueResult unique(const Queue& queue, const Array& array, const UniqueOptions& options = {});

/// searchsorted's side: the first position where the value could go, or the last.
enum class Side { left, right };

/// numpy.searchsorted: for every element of `values` (any shape), the position in the 1-d array
/// `sorted` (sorted in numpy's order) where inserting it keeps the order: the first such position
/// (left: sorted[i-1] < v <= sorted[i]) or the last (right: sorted[i-1] <= v < sorted[i]). Both
/// arrays are compared in their common dtype (numpy's result_type). int64, of values' shape.
/// ArgumentError when `sorted` is not 1-d.
Array searchsorted(const Queue& queue, const Array& sorted, const Array& values, Side side = Side::left,
                   const Allocator& allocator = {});

}  // namespace kjarni
