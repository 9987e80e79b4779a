#pragma once
/// numpy's array operations on device Arrays of any layout (pygpu's operations
/// module, take1, may_share_memory, transfer): joining (concatenate, stack, hstack, vstack, dstack),
/// splitting (split, array_split, hsplit, vsplit, dsplit), atleast_1d/2d/3d, take, reshape that
/// copies only when it must, ascontiguousarray, asfortranarray, asarray, and transfer to another
/// device or context.
///
/// Semantics are numpy's, with these differences: inputs that are joined must have the same dtype
/// (no type promotion: convert with astype first); axes are std::ptrdiff_t, negative ones counted
/// from the end. Bad arguments are ArgumentErrors naming the culprit (which input, both shapes, the
/// axis, the dtypes, the device).
///
/// Work is enqueued on the queue given and ordered with it; results are allocated on the queue's
/// device. Views (split, atleast_*, reshape without a copy) share memory with their source.
/// Joining arrays that are C-contiguous into a region of the output that is contiguous (always the
/// case along axis 0) is one device-to-device copy per input, enqueued without waiting; any other
/// input is moved by one strided-copy kernel per input, which waits for the queue (Array::set's
/// rules). Inputs may live on other devices of the queue's context (Array::set moves them). \file

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include "kjarni/array.hpp"

namespace kjarni {

// --- Joining ---

/// numpy.concatenate: the arrays (same dtype, same number of dimensions >= 1, same shape except
/// along `axis`) one after the other along `axis`, into a new C-contiguous array.
Array concatenate(const Queue& queue, const std::vector<Array>& arrays, std::ptrdiff_t axis = 0,
                  const Allocator& allocator = {});
/// The same into `out` (on the queue's device, of the joined shape and the dtype; any layout; it
/// must not share memory with an input).
void concatenate(const Queue& queue, const std::vector<Array>& arrays, const Array& out, std::ptrdiff_t axis = 0);
/// numpy.stack: arrays of one shape joined along a new axis at position `axis` (in [-ndim-1, ndim]).
Array stack(const Queue& queue, const std::vector<Array>& arrays, std::ptrdiff_t axis = 0,
            const Allocator& allocator = {});
/// numpy.hstack: concatenate of atleast_1d along axis 1 (axis 0 for one-dimensional arrays).
Array hstack(const Queue& queue, const std::vector<Array>& arrays, const Allocator& allocator = {});
/// numpy.vstack: concatenate of atleast_2d along axis 0.
Array vstack(const Queue& queue, const std::vector<Array>& arrays, const Allocator& allocator = {});
/// numpy.dstack: concatenate of atleast_3d along axis 2.
Array dstack(const Queue& queue, const std::vector<Array>& arrays, const Allocator& allocator = {});

// --- Splitting (views) ---

/// numpy.split into `sections` equal parts along `axis` (ArgumentError when they cannot be equal).
std::vector<Array> split(const Array& array, std::size_t sections, std::ptrdiff_t axis = 0);
/// numpy.split at the given positions along `axis`: parts [0, i0), [i0, i1), ..., [ik, end), each
/// bound taken as a Python slice bound (negative counted from the end, clamped), so parts may be empty.
std::vector<Array> split(const Array& array, std::span<const std::ptrdiff_t> indices, std::ptrdiff_t axis = 0);
inline std::vector<Array> split(const Array& array, std::initializer_list<std::ptrdiff_t> indices,
                                std::ptrdiff_t axis = 0) {
    return split(array, std::span<const std::ptrdiff_t>(indices.begin(), indices.size()), axis);
}
/// numpy.array_split: `sections` parts that may differ by one (the first ones are longer).
std::vector<Array> array_split(const Array& array, std::size_t sections, std::ptrdiff_t axis = 0);
/// numpy.array_split at positions: the same as split at positions.
std::vector<Array> array_split(const Array& array, std::span<const std::ptrdiff_t> indices, std::ptrdiff_t axis = 0);
inline std::vector<Array> array_split(const Array& array, std::initializer_list<std::ptrdiff_t> indices,
                                      std::ptrdiff_t axis = 0) {
    return array_split(array, std::span<const std::ptrdiff_t>(indices.begin(), indices.size()), axis);
}
/// numpy.hsplit: split along axis 1 (axis 0 for one-dimensional arrays; ArgumentError for 0-d).
std::vector<Array> hsplit(const Array& array, std::size_t sections);
std::vector<Array> hsplit(const Array& array, std::span<const std::ptrdiff_t> indices);
/// numpy.vsplit: split along axis 0 of an array of at least 2 dimensions.
std::vector<Array> vsplit(const Array& array, std::size_t sections);
std::vector<Array> vsplit(const Array& array, std::span<const std::ptrdiff_t> indices);
/// numpy.dsplit: split along axis 2 of an array of at least 3 dimensions.
std::vector<Array> dsplit(const Array& array, std::size_t sections);
std::vector<Array> dsplit(const Array& array, std::span<const std::ptrdiff_t> indices);

// --- Dimensions (views) ---

/// numpy.atleast_1d: a 0-d array as shape (1); others unchanged.
Array atleast_1d(const Array& array);
/// numpy.atleast_2d: 0-d as (1, 1), (N) as (1, N); others unchanged.
Array atleast_2d(const Array& array);
/// numpy.atleast_3d: 0-d as (1, 1, 1), (N) as (1, N, 1), (M, N) as (M, N, 1); others unchanged.
Array atleast_3d(const Array& array);
std::vector<Array> atleast_1d(const std::vector<Array>& arrays);
std::vector<Array> atleast_2d(const std::vector<Array>& arrays);
std::vector<Array> atleast_3d(const std::vector<Array>& arrays);

// --- Gathering ---

/// What take does with an index outside [-n, n) of an axis of extent n (numpy's `mode`).
enum class TakeMode {
    /// ArgumentError naming the index (negative ones count from the end). The kernel raises a flag
    /// that is read back, so take waits for the queue in this mode.
    raise,
    /// Taken modulo n (Python's modulo: the result lies in [0, n)).
    wrap,
    /// Clamped to [0, n - 1]; negative indices become 0 (they do not count from the end).
    clip,
};

/// numpy.take: the elements of `array` at the positions `indices` (an array of any integer dtype
/// and shape on the queue's device) along `axis`; the result has shape shape[:axis] +
/// indices.shape + shape[axis+1:], C-contiguous. Without an axis the array is taken flattened (C
/// order). pygpu's `a.take1(idx)` is take(queue, a, idx, 0). Waits for the queue before it
/// returns (its index table is a temporary).
Array take(const Queue& queue, const Array& array, const Array& indices,
           std::optional<std::ptrdiff_t> axis = std::nullopt, TakeMode mode = TakeMode::raise,
           const Allocator& allocator = {});

// --- Reshaping and layouts ---

/// Whether a result may be a copy (numpy's `copy` argument: None, True, False).
enum class CopyMode {
    if_needed,  ///< a view where possible, else a copy
    always,     ///< always a new array
    never,      ///< a view or ArgumentError
};

/// numpy.reshape: the elements read in `order` put into `shape` (one -1 inferred) in that order. A
/// view whenever Layout::reshape finds one (numpy's rule, views of any strides included); else a
/// copy (contiguous in `order`), or ArgumentError with CopyMode::never.
Array reshape(const Queue& queue, const Array& array, std::span<const std::ptrdiff_t> shape, Order order = Order::C,
              CopyMode copy = CopyMode::if_needed, const Allocator& allocator = {});
inline Array reshape(const Queue& queue, const Array& array, std::initializer_list<std::ptrdiff_t> shape,
                     Order order = Order::C, CopyMode copy = CopyMode::if_needed, const Allocator& allocator = {}) {
    return reshape(queue, array, std::span<const std::ptrdiff_t>(shape.begin(), shape.size()), order, copy, allocator);
}

/// numpy.ascontiguousarray: the array itself when C-contiguous (and of `dtype`, when given), else a
/// C-contiguous copy converted to `dtype`. A 0-d array stays 0-d.
Array ascontiguousarray(const Queue& queue, const Array& array, const std::optional<DType>& dtype = std::nullopt,
                        const Allocator& allocator = {});
/// numpy.asfortranarray: the same with Fortran order.
Array asfortranarray(const Queue& queue, const Array& array, const std::optional<DType>& dtype = std::nullopt,
                     const Allocator& allocator = {});
/// numpy.asarray: the array itself when it already has `dtype` and `order` (either when not given),
/// else a copy converted to `dtype` in `order` (C when not given). Conversions follow Array::astype.
Array asarray(const Queue& queue, const Array& array, const std::optional<DType>& dtype = std::nullopt,
              const std::optional<Order>& order = std::nullopt, const Allocator& allocator = {});
/// numpy.asarray of host data: a new device array, converted to `dtype` on the device when given.
Array asarray(const Queue& queue, const HostArray& array, const std::optional<DType>& dtype = std::nullopt,
              const std::optional<Order>& order = std::nullopt, const Allocator& allocator = {});

// --- Memory and devices ---

/// pygpu's / numpy's may_share_memory: whether the byte ranges of two arrays overlap in one
/// allocation (bounds only: interleaved views that touch no common element still say true).
bool may_share_memory(const Array& a, const Array& b);

/// pygpu's transfer: a C-contiguous copy of `array` on the queue's device, which may belong to
/// another context (or API). In the same context the bytes move device to device (a peer copy where
/// the hardware has it); across contexts they are staged through host memory. Returns when the copy
/// is complete.
Array transfer(const Array& array, const Queue& queue, const Allocator& allocator = {});

}  // namespace kjarni
