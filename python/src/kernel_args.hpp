#pragma once
// Python launch arguments packed as kjarni's KernelArg, on the caller's stack.
#include <nanobind/nanobind.h>

#include <array>
#include <cstddef>

#include <kjarni/program.hpp>

namespace kjarni::python {

/// The most arguments a Python launch takes (kjarni's launch path needs no allocation up to this).
inline constexpr std::size_t max_kernel_args = 64;

struct PackedArgs {
    std::array<detail::KernelArg, max_kernel_args> args;
    std::size_t count = 0;
    std::span<const detail::KernelArg> span() const noexcept { return {args.data(), count}; }
};

/// Packs `args[first:]` for a launch on `target`: Array, MultiArray and Buffer objects, numpy
/// scalars (their C type is their dtype's), and dicts {device index: value} for values that differ
/// per device. ArgumentError (naming the argument's position) for anything else, Python numbers
/// included: their C type would be a guess, so pass numpy.int32(3), numpy.float32(0.5)...
void pack_args(const nanobind::args& args, std::size_t first, const detail::LaunchTarget& target, PackedArgs& out);

}  // namespace kjarni::python
