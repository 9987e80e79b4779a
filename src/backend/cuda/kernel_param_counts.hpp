#pragma once
// How many parameters each kernel of a module image takes, read from the image itself, so that the
// driver need not be probed past the last parameter (cuFuncGetParamInfo answers such a probe with
// CUDA_ERROR_INVALID_VALUE, which every user running their program under compute-sanitizer would see
// as an error of theirs).

#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <string>

namespace kjarni::backend::cuda {

/// Kernel name -> number of parameters, for the kernels `image` describes: a cubin (each kernel's
/// `.nv.info.<name>` section lists its parameters, one EIATTR_KPARAM_INFO record each) or
/// NUL-terminated PTX (each `.entry name(...)` declares them). A kernel that cannot be read with
/// certainty (an unknown record, a gap in the ordinals, any other image) is left out: its callers
/// then know nothing about it rather than something wrong. Never reads outside `image`.
std::map<std::string, std::size_t, std::less<>> kernel_param_counts(std::span<const std::byte> image) noexcept;

}  // namespace kjarni::backend::cuda
