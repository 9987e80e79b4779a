#pragma once
// What the reduction and scan generators share: the C types arrays are seen as in generated
// kernels, float16 conversions (device code and host), arguments checked and packed, scalars
// converted to their declared types, and the pool that holds their temporaries.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "algorithms/c_arguments.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/iteration_space.hpp"
#include "kjarni/array.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/memory_pool.hpp"
#include "kjarni/reduction.hpp"

namespace kjarni::detail {

/// The expression reading element `element` (of `dtype`) converted to `to` as numpy's loops see
/// it (to float16: rounded to it, then computed in float; a float or a complex's real part into an
/// integer as numpy's astype on x86-64), with the conversion module, where one is needed, added to
/// `globals` under `name`.
std::string load_as(const DType& dtype, const std::string& element, const DType& to, const std::string& name,
                    Globals& globals);

/// The bytes of a scalar converted to `dtype` (numpy's casting; complex to real takes the real
/// part), at most 16.
std::vector<std::byte> convert_scalar(const Operand& scalar, const DType& dtype);

/// Appends the kernel arguments of the user's operands, in order: each array as its whole
/// allocation (the generated code shifts its pointer), each scalar as its bytes converted to its
/// declared type (convert_scalar), kept in `scalars`, which must live until the launch is enqueued.
void push_operands(std::vector<KernelArg>& args, const std::vector<CArgument>& declarations,
                   const std::vector<Operand>& arguments, std::vector<std::vector<std::byte>>& scalars);

/// The arrays among checked arguments, with their declaration.
struct ArrayOperand {
    std::size_t argument;  // position in the declarations
    const Array* array;
};

/// Checks that `arguments` match the declarations (count, array or scalar) and that every array
/// lives on `queue`'s device (ArgumentError naming the argument otherwise); returns the arrays.
std::vector<ArrayOperand> check_arguments(const Queue& queue, const std::vector<CArgument>& declarations,
                                          const std::vector<Operand>& arguments, const std::string& what);

/// ArgumentError unless `array` is on `queue`'s device.
void check_device(const Queue& queue, const Array& array, const std::string& name);

/// Axes normalised (negative from the end), checked in range and unrepeated (ArgumentError
/// naming `argument`: "axes" for reductions, "axis" for scans); all of them when not given.
/// Returns a flag per axis.
std::vector<bool> reduced_axes(const std::optional<std::vector<int>>& axes, std::size_t ndim, const std::string& what,
                               const char* argument = "axes");

/// A temporary buffer for work on `queue` (queue-ordered reuse: it may be dropped right after the
/// work using it is enqueued).
Buffer temporary_buffer(const Queue& queue, std::size_t size);

/// Pads a space with leading axes of extent 1 to 1, 4 or 8 axes (16 or 32 past 8: pad_table_axes),
/// so that few compiled kernels serve every layout (most shapes merge to one axis and keep the
/// cheapest decoding).
void pad_axes(IterationSpace& space);

/// Power of two at most `value` (value >= 1).
std::size_t floor_pow2(std::size_t value);

}  // namespace kjarni::detail
