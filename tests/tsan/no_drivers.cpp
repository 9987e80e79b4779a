// The ThreadSanitizer tests link no real backend (its driver would run uninstrumented, and the
// backends are most of the build): every API reports itself unavailable; tests use the fake one.

#include "backend/registry.hpp"
#include "backend/unavailable_api.hpp"

namespace kjarni::backend {

Api& api_for(const ApiId& id) {
    static Api* const cuda = new UnavailableApi(ApiId::cuda(), "not linked into the ThreadSanitizer tests");
    static Api* const opencl = new UnavailableApi(ApiId::opencl(), "not linked into the ThreadSanitizer tests");
    return id == ApiId::cuda() ? *cuda : *opencl;
}

// No CUDA backend here, so no NVRTC (core/version.cpp asks).
std::optional<std::pair<int, int>> nvrtc_version() { return std::nullopt; }

}  // namespace kjarni::backend
