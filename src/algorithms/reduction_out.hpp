#pragma once
// numpy's out= of reductions and scans of another dtype than the result's: ufunc.reduce and
// ufunc.accumulate take any out and cast their result into it unsafely (np.sum(float64_array,
// out=int8_array) truncates and wraps), computing in the dtype their loop takes for out's dtype.

#include <functional>
#include <optional>

#include "kjarni/array.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/reduction.hpp"

namespace kjarni::detail {

/// The dtype numpy's add / multiply loop computes a sum, product or scan of an `array` dtype in
/// when written into an out of dtype `out` without dtype=: np.promote_types(out, array) (sum of
/// int64 into float32 in float64, of int8 into int8 in int8). nullopt where that is bool (numpy's
/// logical or / and, whose truth value the default integer result cast to bool gives too).
std::optional<DType> accumulation_for_out(const DType& array, const DType& out);

/// `result` converted into `out` (numpy's unsafe casting: astype's conversions); ArgumentError
/// naming "out" when the shapes differ or out is not writeable. `what` names the function.
void convert_into_out(const Queue& queue, const Array& result, const Array& out, const char* what);

/// A reduction run with the options given (their out, when given, of the dtype it computes).
using Reduce = std::function<Array(const ReduceOptions& options)>;

/// out= as numpy's reductions take it (ufunc.reduce casts its result into out unsafely, whatever
/// out's dtype): `reduce` writes straight into out where `result` (the dtype it computes) is out's
/// (or no out is given), else into a temporary then converted into out, through `loop` when given
/// (the dtype numpy's loop for out computes in: min and max of a uint64 array into an int64 out
/// compare in float64). Returns the result (out when given).
Array into_out(const Queue& queue, const ReduceOptions& options, const DType& result, const char* what,
               const Reduce& reduce, const std::optional<DType>& loop = std::nullopt);

/// A reduction of the array given with the options given (no out): its own result.
using ArrayReduce = std::function<Array(const Array& array, const ReduceOptions& options)>;

/// min, max, nanmin and nanmax (numpy's minimum, maximum, fmin and fmax.reduce, `reduce` kjarni's)
/// of `array` with out= (any dtype), as numpy's: having no identity, numpy copies each output's
/// first element (index 0 along every reduced axis, whatever the strides) into out, cast unsafely,
/// then compares that value with the other elements in its loop's dtype (np.promote_types(out,
/// array)) and casts the extremum into out. Where out holds every value of the array
/// (np.promote_types(array, out) is out: the cast keeps order) that is the extremum converted;
/// otherwise a first element out cannot hold competes by its cast value: max of int16 [300, 100]
/// into int8 is 100 (300 is 44 in int8), of float64 [NaN, 1] into int32 is 1. (numpy casts its
/// running extremum into out again after each buffer of 8192 elements; kjarni once:
/// docs/numpy-differences.md.)
Array extremum_into_out(const Queue& queue, const Array& array, const ReduceOptions& options, const char* what,
                        const ArrayReduce& reduce);

/// argmin and argmax: numpy takes an out its int64 indices cast to safely the other way round
/// (np.can_cast(out.dtype, intp, "safe"): bool, every signed integer, unsigned up to 32 bits);
/// ArgumentError naming out for another dtype.
void check_index_out(const ReduceOptions& options, const char* what);

/// The elements of `array` that are not NaN (complex: neither part) over the reduced axes of
/// `options` (axes and keepdims; its out is not used), as int64.
Array count_not_nan(const Queue& queue, const Array& array, const ReduceOptions& options);

}  // namespace kjarni::detail
