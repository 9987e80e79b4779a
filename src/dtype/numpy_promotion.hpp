#pragma once
// numpy's promotion of scalar dtypes as numpy stores the result (no GPU rule): the pairwise table
// (np.promote_types) and the common dtype of several at once (np.result_type), which is not a left
// fold of the pairwise table. kjarni::result_type applies the GPU rule to the latter; the
// expressions (algorithms/promotion.hpp) use it as it is.

#include <span>

#include "kjarni/dtype.hpp"

namespace kjarni::detail {

/// numpy.promote_types of two scalar dtypes (int64 with uint64 gives float64). The caller refuses
/// structs.
DType numpy_promote_types(const DType& a, const DType& b);

/// numpy.result_type of several scalar dtypes (PyArray_PromoteDTypeSequence): not a left fold of
/// numpy_promote_types, which depends on the order (int8, uint8, float16 is float16 in numpy, where
/// int8 with uint8 first would give int16, then float32; int8, uint16, float32 is float32, not
/// float64). ArgumentError naming "dtypes" for none or a struct.
DType numpy_result_type(std::span<const DType> dtypes);

}  // namespace kjarni::detail
