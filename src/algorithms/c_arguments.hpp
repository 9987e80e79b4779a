#pragma once
// The argument lists the algorithm kernels take as C declarations, PyOpenCL style:
// "float *y, const float *x, float a" (pointers are arrays, the rest scalars passed by value).

#include <string>
#include <vector>

#include "kjarni/dtype.hpp"

namespace kjarni::detail {

struct CArgument {
    std::string name;
    DType dtype;
    /// A pointer: an array argument (GLOBAL_MEM is added by the generator).
    bool pointer = false;
    /// Declared const (inputs only).
    bool is_const = false;
    /// The declaration's type as written ("float", "complex64_t", "uint32_t", ...).
    std::string ctype;
};

/// Parses a comma-separated list of declarations. Types: the prelude's names (bool, int8_t ...
/// uint64_t, half, float, double, complex64_t, complex128_t), C's (char, short, int, long,
/// unsigned ..., size_t as uint64) and numpy's (int8 ... float64, complex64, complex128).
/// ArgumentError naming `what` and the offending declaration otherwise (unknown type, missing or
/// repeated name).
std::vector<CArgument> parse_c_arguments(const std::string& declarations, const std::string& what);

/// The C type a generated kernel uses for a dtype ("float", "int32_t", "complex64_t", "half").
std::string c_type_name(const DType& dtype);

}  // namespace kjarni::detail
