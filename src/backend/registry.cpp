#include "backend/registry.hpp"

#include "backend/opencl/opencl_api.hpp"
#include "backend/unavailable_api.hpp"
#ifdef KJARNI_WITH_CUDA
#include "backend/cuda/cuda_api.hpp"
#include "backend/cuda/nvrtc_library.hpp"
#endif

namespace kjarni::backend {

Api& api_for(const ApiId& id) {
    // Leaked on purpose: backends must outlive every static object that may still hold a handle.
    if (id == ApiId::cuda()) {
#ifdef KJARNI_WITH_CUDA
        static Api* const cuda = make_cuda_api().release();
#else
        static Api* const cuda =
            new UnavailableApi(id, "this build of kjarni has no CUDA backend (cuda.h was not found)");
#endif
        return *cuda;
    }
    static Api* const opencl = make_opencl_api().release();
    return *opencl;
}

std::optional<std::pair<int, int>> nvrtc_version() {
#ifdef KJARNI_WITH_CUDA
    if (const cuda::NvrtcLibrary* nvrtc = cuda::nvrtc_library(nullptr))
        return std::pair{nvrtc->major_version(), nvrtc->minor_version()};
#endif
    return std::nullopt;
}

}  // namespace kjarni::backend
