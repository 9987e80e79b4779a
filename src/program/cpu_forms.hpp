#pragma once
// Whether generated kernels take their CPU forms on a device: the one switch that every layer with
// generated kernels reads (the arrays' strided copy here, the algorithms' kernels through
// algorithms/cpu_code.hpp, which says what the CPU forms are).

#include "kjarni/context.hpp"

namespace kjarni::detail {

/// Whether kernels for `device` take the CPU forms: a CPU device, unless allow_cpu_code(false).
bool cpu_code(const BoundDevice& device);

/// Whether CPU devices take the CPU forms (the default). With false they take the GPU forms: for
/// tests of those forms on a CPU device (CI has no GPU). Process-wide.
void allow_cpu_code(bool allow);

}  // namespace kjarni::detail
