#pragma once
// numpy's type promotion for array arithmetic (np.promote_types and NEP 50's weak Python scalars),
// without the GPU widening of kjarni::result_type: int8 + int8 stays int8, as numpy stores it.

#include <span>

#include "kjarni/dtype.hpp"

namespace kjarni::detail {

/// numpy.promote_types for scalar dtypes (int64 with uint64 gives float64).
DType promote_types(const DType& a, const DType& b);

/// numpy.result_type of several dtypes (detail::numpy_result_type, dtype/numpy_promotion.hpp): not a
/// left fold of promote_types, which depends on the order (int8, uint8, float16 is float16 in numpy;
/// int8 with uint8 first would give int16, then float32). ArgumentError for structs or none.
DType promote_types_sequence(std::span<const DType> dtypes);

/// The kind of a C++ scalar written without a dtype: like a Python scalar it is "weak" (NEP 50)
/// and takes the array's type within its kind.
enum class WeakKind { boolean, integer, floating, complex };

/// The dtype of `array_dtype op weak` under NEP 50: an integer scalar keeps an integer, float or
/// complex array's type; a float scalar keeps float and complex types and gives float64 with
/// integers; a complex scalar gives the complex type of a float's precision (complex128 with
/// integers).
DType promote_weak(const DType& array_dtype, WeakKind weak);
/// A weak scalar's own dtype when nothing else decides it: bool, int64, float64, complex128.
DType default_dtype(WeakKind weak);

/// What numpy's dot of two vectors whose promoted dtype is `result` accumulates in before it stores
/// `result`: int64 for bool and signed integers, uint64 for unsigned ones (the stored value wraps
/// into `result`, as numpy's integer dots do; bool: whether any product is true), float32 for
/// float16 (numpy's half dot adds in float), `result` itself otherwise.
DType dot_accumulator(const DType& result);

/// The smallest float type numpy's ufuncs compute an integer or bool type in: float16 for one
/// byte, float32 for two, float64 otherwise; float and complex types map to themselves.
DType float_type_for(const DType& dtype);

}  // namespace kjarni::detail
