#pragma once
// Whether a device's kernel compiler takes asm statements of PTX: what the kernels that reach for
// NVIDIA's instructions (warp matching and shuffles, tensor-core MMA, a device-wide fence) ask
// before they write one.

#include "kjarni/context.hpp"

namespace kjarni::detail {

/// Whether kernels for `device` may hold inline PTX (`asm volatile("...")`): CUDA devices, and GPUs
/// of NVIDIA's OpenCL, whose compiler takes asm statements too. What instructions the device runs
/// is the caller's own check (its compute capability).
bool takes_inline_ptx(const BoundDevice& device);

}  // namespace kjarni::detail
