#pragma once
// Generated code and kernel arguments that turn a flat index into element offsets of several
// operands over an IterationSpace. The extents and strides are kernel arguments, not constants, so
// one compiled kernel serves every shape of the same number of axes (its "layout class").
//
// Up to max_scalar_axes axes every extent, offset and stride is a scalar kernel parameter. Past
// that they could overflow OpenCL's guaranteed parameter space (1024 bytes: 32 axes of three
// operands take more in 64-bit indices), so they travel in one small device table, written on the
// launch's queue just before it; the kernel copies the table into private variables of the same
// names at its start, and the decoding code is the same text in both forms.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/iteration_space.hpp"
#include "kjarni/buffer.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

/// Spaces of at most this many axes (after merging) take their layout as scalar parameters.
inline constexpr std::size_t max_scalar_axes = 8;
/// At most this many axes after merging (past max_scalar_axes, through a layout table).
inline constexpr std::size_t max_generated_axes = 32;

/// Whether a kernel whose widest space has `ndim` axes takes its layout through a table.
inline bool layout_in_table(std::size_t ndim) { return ndim > max_scalar_axes; }

/// Pads a space of more than max_scalar_axes axes with leading axes of extent 1 (stride 0) to 16
/// or 32 axes, so that two compiled kernels serve every table layout; smaller spaces are left as
/// they are.
void pad_table_axes(IterationSpace& space);

/// The C integer type of index arithmetic: "int32_t" when every offset fits 32 bits, else "int64_t".
const char* index_type(bool use_32_bits);

/// Kernel parameter declarations for a space of `ndim` axes and the named operands:
/// `IDX n<d>` for each axis d, then `IDX <name>_off, IDX <name>_s<d>` per operand (leading comma
/// included when non-empty).
std::string layout_parameters(std::size_t ndim, const std::vector<std::string>& operands, const char* idx);

/// The names layout_parameters declares, in its order: n<d>, then <name>_off, <name>_s<d> per operand.
std::vector<std::string> layout_names(std::size_t ndim, const std::vector<std::string>& operands);
/// The values of layout_names for a space and its operands' offsets, in the same order.
std::vector<std::int64_t> layout_values(const IterationSpace& space, const std::vector<std::ptrdiff_t>& offsets);

/// Index-typed kernel inputs by name: `, IDX <name>` each (leading comma), or in table form the one
/// parameter `, CONSTANT_MEM const IDX* kjarni_layout`.
std::string index_parameters(const std::vector<std::string>& names, const char* idx, bool table);
/// The statements that declare the names from the table at the kernel's start (empty unless `table`).
std::string index_prologue(const std::vector<std::string>& names, const char* idx, bool table);
/// Whether a one-axis space's every operand starts at its allocation's first element (`offsets`)
/// and steps by one: a flat kernel may then take its offsets and steps as constants
/// (flat_layout_constants) instead of parameters (NVIDIA's OpenCL charges a launch by its
/// parameters: a raw a + b took 7.4 us with an offset and a step per array, 7.0 without, on an
/// H200 host, 2026-12-01).
bool plain_flat_layout(const IterationSpace& space, const std::vector<std::ptrdiff_t>& offsets);
/// A flat kernel's `<name>_off` and `<name>_step` for each name: as parameters (`, IDX <name>_off,
/// IDX <name>_step`), or, for a plain_flat_layout, as statements declaring them 0 and 1 at the
/// kernel's start.
std::string flat_layout_parameters(const std::vector<std::string>& names, const char* idx);
std::string flat_layout_constants(const std::vector<std::string>& names, const char* idx);
/// The values matching index_parameters: scalar arguments, or the table, written into a temporary
/// buffer on `queue` (ordered before the launch that follows) and held by `holder`, which must live
/// until that launch is enqueued.
void push_index_values(std::vector<KernelArg>& args, const std::vector<std::int64_t>& values, bool use_32_bits,
                       bool table, const Queue& queue, std::optional<Buffer>& holder);

/// Statements declaring `IDX <name>_o` (the element offset of each operand) for flat index `flat`
/// (C order over the space's axes, the last fastest).
std::string decode_offsets(std::size_t ndim, const std::vector<std::string>& operands, const char* idx,
                           const std::string& flat);

/// One index argument: int32_t or int64_t, as index_type(use_32_bits) declares it.
void push_index(std::vector<KernelArg>& args, std::int64_t value, bool use_32_bits);

/// An empty argument list with room for a generated kernel's usual arguments (arrays, scalars and
/// their layouts): one allocation per launch instead of one per doubling as they are pushed.
inline std::vector<KernelArg> argument_list() {
    std::vector<KernelArg> args;
    args.reserve(24);
    return args;
}

/// The arguments matching layout_parameters: extents, then each operand's offset and strides.
void push_layout_arguments(std::vector<KernelArg>& args, const IterationSpace& space,
                           const std::vector<std::ptrdiff_t>& offsets, bool use_32_bits);

/// UnsupportedError when the merged space has more axes than max_generated_axes.
void check_axis_count(const IterationSpace& space, const std::string& what);

}  // namespace kjarni::detail
