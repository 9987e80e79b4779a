#pragma once
/// Selecting elements: stream compaction (PyOpenCL's copy_if), numpy's boolean-mask and integer-
/// array ("fancy") indexing to read and to assign, nonzero, argwhere and count_nonzero.
///
/// Compaction is one scan (kjarni/scan.hpp's engine) whose item is 1 where the predicate holds: its
/// exclusive prefix is each selected element's place in the result, the last prefix the count.
/// Where a result's shape depends on the data (boolean indexing, nonzero, argwhere), the count is
/// read back to the host (one 8-byte read), so those calls return once the work is done; copy_if
/// leaves the count on the device and waits for nothing.
///
/// numpy's IndexErrors are ArgumentErrors naming the culprit: a mask that is not bool or whose
/// shape does not match the array's leading axes, an index array that is not of an integer dtype,
/// an index out of [-n, n) for an axis of extent n (negative ones count from the end), an axis out
/// of range, values that do not broadcast to the selection (checked as numpy checks them, also where
/// nothing is selected, before anything is launched; a mask over every axis takes 0-d or 1-d values
/// of one element or of the count, numpy's TypeError). Inputs may have any layout; arrays that
/// are assigned to may be views (non-contiguous ones are written through a contiguous copy).
/// The arrays returned (copy_if's `out`, boolean_index, integer_index, count_nonzero, nonzero's,
/// argwhere) take their memory from `allocator` (Buffer::allocate when empty); arrays assigned to
/// must be writeable (Array::writeable). \file

#include <optional>
#include <string>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/operand.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

/// copy_if's result: `out` has the input's size (1-d); its first `count` elements are the
/// selected ones, in their order. `count` is a 1-element uint64 device array.
struct CopyIfResult {
    Array out;
    Array count;
};

/// PyOpenCL's copy_if: the elements of `array` (flattened in C order) for which `predicate` holds,
/// in order. The predicate is a C expression of the position `i` and `ary[i]` (the element, as the
/// scan kernels see it: bool as uint8_t, float16 as its uint16_t bits), and of the extra arguments
/// declared by `extra_arguments` ("const bool* mask, float limit": arrays of the array's size or
/// of one element, and scalars), passed in `extra`. Enqueued; nothing waits.
CopyIfResult copy_if(const Queue& queue, const Array& array, const std::string& predicate,
                     const std::string& extra_arguments = {}, const std::vector<Operand>& extra = {},
                     const std::string& preamble = {}, const Allocator& allocator = {});

/// numpy's `array[mask]`: `mask` (bool) has the shape of the array's leading mask.ndim() axes; the
/// result is (number of true elements, remaining axes...), the selected elements (or sub-arrays) in
/// C order. A 0-d mask gives (1, shape...) when true, (0, shape...) when false.
Array boolean_index(const Queue& queue, const Array& array, const Array& mask, const Allocator& allocator = {});

/// numpy's `array[mask] = value`: `value` is a scalar (converted to the array's dtype) or an array
/// that broadcasts to the selection's shape (converted as astype does).
void boolean_index_assign(const Queue& queue, const Array& array, const Array& mask, const Operand& value);

/// numpy's `array[indices]` along `axis` (`array[:, indices]` for axis 1, ...): the result's shape
/// is shape[:axis] + indices.shape + shape[axis+1:]. `indices` of any integer dtype.
Array integer_index(const Queue& queue, const Array& array, const Array& indices, int axis = 0,
                    const Allocator& allocator = {});

/// numpy's `array[indices] = values` along `axis` (`array[:, indices] = values` for axis 1): `values`
/// (a scalar, or an array converted to the array's dtype as astype does) broadcast to the
/// selection's shape, shape[:axis] + indices.shape + shape[axis+1:]. When an index repeats, the
/// value of its last occurrence is written, as numpy does (at most 2^31 - 1 indices).
void integer_index_assign(const Queue& queue, const Array& array, const Array& indices, const Operand& values,
                          int axis = 0);

/// numpy.count_nonzero: how many elements are not zero (NaN counts, -0.0 does not), over `axes`
/// (all when not given) as int64 (0-d without axes).
Array count_nonzero(const Queue& queue, const Array& array, const std::optional<std::vector<int>>& axes = std::nullopt,
                    const Allocator& allocator = {});

/// numpy.nonzero: one int64 array per axis, the indices of the non-zero elements in C order.
/// ArgumentError for a 0-d array (as numpy).
std::vector<Array> nonzero(const Queue& queue, const Array& array, const Allocator& allocator = {});

/// numpy.argwhere: (number of non-zero elements, ndim) int64, each row an element's index.
/// ArgumentError for a 0-d array.
Array argwhere(const Queue& queue, const Array& array, const Allocator& allocator = {});

}  // namespace kjarni
