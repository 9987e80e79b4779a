#pragma once
// Pieces of device code every generated algorithm kernel shares: storage types of bool and half
// arrays, half <-> float conversions on both APIs, and the launch grid.

#include <cstddef>
#include <string>

#include "algorithms/generated_kernel.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/template/module.hpp"

namespace kjarni::detail {

/// Definitions placed before a generated kernel, the same text for both APIs: on CUDA a
/// storage-only `half` type; everywhere `float kjarni_h2f(uint16_t)`, `uint16_t kjarni_f2h(float)`
/// (round to nearest even) and the `LOAD_HALF(p, i)` / `STORE_HALF(p, i, v)` macros over `half`
/// pointers.
const std::string& algorithm_preamble();
/// The same text as a C string, for code that builds sources with fmt.
inline const char* algorithm_helpers() { return algorithm_preamble().c_str(); }

/// A kernel template holding the user's preamble and expressions, rendered with their globals
/// (Modules and Snippets land once at the top); a RenderError becomes an ArgumentError naming `what`.
std::string render_user_code(const std::string& text, const Globals& globals, const std::string& what);

/// The C type of an array element in memory as a pointer-style kernel (ElementwiseKernel, whose
/// operation indexes arrays itself) declares it: "uint8_t" for bool (numpy's one byte; OpenCL
/// takes no bool pointers), "half" for float16 (read through LOAD_HALF), else c_type_name().
std::string storage_type(const DType& dtype);
/// The same for value-style kernels (expressions, reductions, scans), which load elements
/// themselves: float16 as its bits, "uint16_t".
std::string storage_ctype(const DType& dtype);
/// The C type a value of `dtype` is computed in: float16 in float, the others as storage_ctype().
std::string compute_ctype(const DType& dtype);
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
