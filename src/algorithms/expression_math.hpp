#pragma once
// Device functions the expression kernels call where C's operators differ from numpy's: remainders
// with the divisor's sign, integer powers, NaN-propagating minimum/maximum, complex arithmetic.
// Named by type (OpenCL C has no overloading): kj_mod_int32_t, kj_cmul_complex64_t, ...

#include <string>

#include "kjarni/dtype.hpp"

namespace kjarni::detail {

/// All of them, for every type; float64 and complex128 ones guarded by the availability of double.
const std::string& expression_math_preamble();

}  // namespace kjarni::detail
