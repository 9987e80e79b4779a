#pragma once
// The kernel prelude: macros and functions that make one kernel source compile, with the same
// meaning, on CUDA (NVRTC) and OpenCL. Reference 000 §3.3.14 lists them; the API macros are named
// KJARNI_CUDA_API / KJARNI_OPENCL_API / KJARNI_FAST_MATH.

#include <string>
#include <string_view>

#include "kjarni/api.hpp"

namespace kjarni::detail {

/// The prelude for one API; `fast_math` adds the KJARNI_FAST_MATH definition. The text lives as
/// long as the process.
std::string_view prelude(const ApiId& api, bool fast_math);

/// The image macros and helpers (image_prelude.cpp; kjarni/image.hpp lists them), part of prelude().
const char* image_prelude(const ApiId& api);

}  // namespace kjarni::detail
