#pragma once
// Whether an OpenCL device lists an extension (CL_DEVICE_EXTENSIONS); false for CUDA devices, which
// list none.

#include <string_view>

#include "kjarni/device.hpp"

namespace kjarni::detail {

bool has_extension(const Device& device, std::string_view name);

}  // namespace kjarni::detail
