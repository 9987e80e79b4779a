#pragma once
// NVRTC for the tests that compile CUDA sources for sm_90 on machines without a GPU.

#include <algorithm>
#include <string>

#include "backend/cuda/nvrtc_library.hpp"

namespace kjarni::test {

/// NVRTC where it is found and compiles for sm_90; otherwise null, and `why_not` says why (for
/// GTEST_SKIP).
inline const backend::cuda::NvrtcLibrary* nvrtc_for_sm90(std::string& why_not) {
    const auto* nvrtc = backend::cuda::nvrtc_library(&why_not);
    if (nvrtc == nullptr) {
        why_not = "NVRTC not found: " + why_not;
        return nullptr;
    }
    const auto& archs = nvrtc->supported_architectures();
    if (std::find(archs.begin(), archs.end(), 90) == archs.end()) {
        why_not = "this NVRTC lacks sm_90";
        return nullptr;
    }
    return nvrtc;
}

}  // namespace kjarni::test
