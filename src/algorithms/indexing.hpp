#pragma once
// Generated code and kernel arguments that turn a flat index into element offsets of several
// operands over an IterationSpace. The extents and strides are kernel arguments, not constants, so
// one compiled kernel serves every shape of the same number of axes (its "layout class").

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/iteration_space.hpp"
#include "kjarni/detail/kernel_arg.hpp"

namespace kjarni::detail {

/// At most this many axes after merging (each takes kernel arguments).
inline constexpr std::size_t max_generated_axes = 8;

/// The C integer type of index arithmetic: "int32_t" when every offset fits 32 bits, else "int64_t".
const char* index_type(bool use_32_bits);

/// Kernel parameter declarations for a space of `ndim` axes and the named operands:
/// `IDX n<d>` for each axis d, then `IDX <name>_off, IDX <name>_s<d>` per operand (leading comma
/// included when non-empty).
std::string layout_parameters(std::size_t ndim, const std::vector<std::string>& operands, const char* idx);

/// Statements declaring `IDX <name>_o` (the element offset of each operand) for flat index `flat`
/// (C order over the space's axes, the last fastest).
std::string decode_offsets(std::size_t ndim, const std::vector<std::string>& operands, const char* idx,
                           const std::string& flat);

/// One index argument: int32_t or int64_t, as index_type(use_32_bits) declares it.
void push_index(std::vector<KernelArg>& args, std::int64_t value, bool use_32_bits);

/// The arguments matching layout_parameters: extents, then each operand's offset and strides.
void push_layout_arguments(std::vector<KernelArg>& args, const IterationSpace& space,
                           const std::vector<std::ptrdiff_t>& offsets, bool use_32_bits);

/// ArgumentError when the merged space has more axes than max_generated_axes.
void check_axis_count(const IterationSpace& space, const std::string& what);

}  // namespace kjarni::detail
