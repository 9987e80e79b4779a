#pragma once
// Pieces of device code every generated algorithm kernel shares: storage types of bool and half
// arrays, half <-> float conversions on both APIs, and the launch grid.

#include <cstddef>
#include <string>

#include "algorithms/generated_kernel.hpp"
#include "kjarni/dtype.hpp"

namespace kjarni::detail {

/// Definitions placed before a generated kernel, the same text for both APIs: on CUDA a
/// storage-only `half` type; everywhere `float kjarni_h2f(uint16_t)`, `uint16_t kjarni_f2h(float)`
/// (round to nearest even) and the `LOAD_HALF(p, i)` / `STORE_HALF(p, i, v)` macros over `half`
/// pointers.
const std::string& algorithm_preamble();

/// The C type of an array element in memory as a generated kernel declares it: "uint8_t" for
/// bool (numpy's one byte), "half" for float16, else c_type_name().
std::string storage_type(const DType& dtype);
/// The type a scalar kernel parameter of `dtype` is passed as: bool as uint8_t (OpenCL forbids
/// bool parameters), float16 as float, else c_type_name().
std::string scalar_parameter_type(const DType& dtype);
/// The dtype a scalar parameter's bytes must be in (scalar_parameter_type's).
DType scalar_parameter_dtype(const DType& dtype);

/// A 1-D grid for `n` items handled by a grid-stride loop: work groups of up to 256 items (within
/// the kernel's limit), no more groups than the device keeps busy (8 per compute unit), at least one.
struct Grid {
    std::size_t global = 0;
    std::size_t local = 0;
};
Grid grid_for(const GeneratedKernel& kernel, std::size_t n);

}  // namespace kjarni::detail
