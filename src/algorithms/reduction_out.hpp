#pragma once
// numpy's out= of reductions and scans of another dtype than the result's: ufunc.reduce and
// ufunc.accumulate take any out and cast their result into it unsafely (np.sum(float64_array,
// out=int8_array) truncates and wraps), computing in the dtype their loop takes for out's dtype.

#include <optional>

#include "kjarni/array.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

/// The dtype numpy's add / multiply loop computes a sum, product or scan of an `array` dtype in
/// when written into an out of dtype `out` without dtype=: np.promote_types(out, array) (sum of
/// int64 into float32 in float64, of int8 into int8 in int8). nullopt where that is bool (numpy's
/// logical or / and, whose truth value the default integer result cast to bool gives too).
std::optional<DType> accumulation_for_out(const DType& array, const DType& out);

/// `result` converted into `out` (numpy's unsafe casting: astype's conversions); ArgumentError
/// naming "out" when the shapes differ or out is not writeable. `what` names the function.
void convert_into_out(const Queue& queue, const Array& result, const Array& out, const char* what);

}  // namespace kjarni::detail
