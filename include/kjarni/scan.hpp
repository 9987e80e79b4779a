#pragma once
/// Prefix scans along one axis (PyOpenCL's GenericScanKernel), and numpy's cumsum and cumprod.
///
/// Deterministic: the same input gives the same bits on every run (values are combined in an order
/// fixed by the shape and the device). Long rows are scanned in three kernels -- each work group
/// reduces its chunk, one work item per row scans the chunk totals, each work group rescans its
/// chunk from its carry and writes -- and short rows (or many rows) by one work item per row.
/// Long rows take one kernel that reads and writes each element once instead, when the items are
/// of 4, 8 or 16 bytes (every numeric dtype but 1- and 2-byte ones; float16 is scanned in float32):
/// each tile's prefix is combined from the totals its predecessors publish, over a fixed hierarchy
/// (blocks of 32 tiles, superblocks of 32 blocks), so the bits do not depend on timing. It needs a
/// device that keeps a started work group running while others wait (CUDA devices, OpenCL GPUs and
/// CPUs); other OpenCL devices keep the three kernels, as do scans whose output reads last_item.
/// Work is enqueued on the caller's queue and not waited for. \file

#include <optional>
#include <string>
#include <vector>

#include "kjarni/reduction.hpp"

namespace kjarni {

/// A scan over the broadcast shape of its array arguments along one axis: for every row along that
/// axis, with item_j = input(0) (+) input(1) (+) ... (+) input(j) for the scan operation (+):
///
/// - `dtype`: the type of the items (float16: computed in float).
/// - `arguments`: C declarations ("const float *x, float *y, float a"); arrays are broadcast
///   together by numpy's rules; non-const arrays may be written by output_statement (an array
///   broadcast along the scanned axis must not be written).
/// - `input_expr`: the value entering the scan at position `i` (`x[i]` is array x's element there).
/// - `scan_expr`: combines `a` (earlier items) and `b` (later ones); must be associative (it need
///   not be commutative).
/// - `neutral`: the identity of scan_expr.
/// - `output_statement`: run once for every position `i`, with `item` (the inclusive prefix),
///   `prev_item` (the exclusive prefix: neutral at the first position) and `last_item` (the whole
///   row's total), e.g. "y[i] = item;" (inclusive scan) or "y[i] = prev_item;" (exclusive).
/// `i` is the position along the scanned axis; bool arrays are seen as uint8_t, float16 arrays as
/// uint16_t bits (kjarni_h2f / kjarni_f2h convert).
class ScanKernel {
public:
    ScanKernel(const DType& dtype, std::string neutral, std::string scan_expr, std::string input_expr,
               std::string output_statement, const std::string& arguments, std::string preamble = {},
               Globals render_globals = {}, std::string name = "scan");

    /// Scans along `axis` (negative from the end) of the arguments' broadcast shape. ArgumentError
    /// naming the culprit for a wrong argument count or kind, shapes that do not broadcast, arrays
    /// of another device or context, an axis out of range, or no array at all.
    void operator()(const Queue& queue, const std::vector<Operand>& arguments, int axis = -1) const;

    struct Impl;

private:
    std::shared_ptr<const Impl> impl_;
};

/// numpy's cumsum / cumprod: the running sum / product along `axis`; without an axis, over the
/// array flattened in C order (a 1-d result). Each row starts from its first element as it is,
/// as numpy's (a first -0.0, or a complex first element with an infinite or NaN part, is kept;
/// the later positions are combined in a tree, not in numpy's order, so floats agree within the
/// rounding of the sum or product). Result dtypes as sum()'s (int8 -> int64, bool ->
/// int64, float16 accumulated in float32 and stored as float16); `dtype` overrides. `out` must
/// have the result's shape (any layout; it may be the input itself) and may have any dtype, as
/// numpy's: the result is cast into it unsafely (astype's conversions), computed without `dtype`
/// in numpy's loop for out, np.promote_types(out, array) (a float32 cumsum into float64 in
/// float64); an out of another dtype than that costs a temporary.
/// Without `out` the result's memory comes from `allocator` (Buffer::allocate when empty).
Array cumsum(const Queue& queue, const Array& array, std::optional<int> axis = std::nullopt,
             const std::optional<DType>& dtype = std::nullopt, const std::optional<Array>& out = std::nullopt,
             const Allocator& allocator = {});
Array cumprod(const Queue& queue, const Array& array, std::optional<int> axis = std::nullopt,
              const std::optional<DType>& dtype = std::nullopt, const std::optional<Array>& out = std::nullopt,
              const Allocator& allocator = {});

/// The cumsum of a MultiArray along `axis`, as a MultiArray of the same splay. Along an axis the
/// parts do not split, each device scans its own part. Along the split axis (axis 0 of EqualSplay)
/// each part scans its own rows too, then, in the order of the parts along the axis, adds the carry
/// of the parts before it (the last position of its predecessor, copied to its device; queues wait
/// on events, not the host): deterministic, and float16 is scanned and carried in float32. Returns
/// once the scan is done. UnsupportedError when the splay's parts do not tile the scanned axis with
/// unstepped slices; ArgumentError for an axis out of range.
MultiArray cumsum_parts(const MultiQueue& queue, const MultiArray& array, int axis,
                        const std::optional<DType>& dtype = std::nullopt);
/// The cumprod of a MultiArray along `axis`, as cumsum_parts does it: along the split axis each
/// part's running product is multiplied by the last position of the part before it.
MultiArray cumprod_parts(const MultiQueue& queue, const MultiArray& array, int axis,
                         const std::optional<DType>& dtype = std::nullopt);

}  // namespace kjarni
