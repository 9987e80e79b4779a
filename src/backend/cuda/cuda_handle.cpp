#include "backend/cuda/cuda_handle.hpp"

#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_driver.hpp"

namespace kjarni::backend::cuda {

namespace {

CUresult destroy(const Driver& driver, CUmodule module) { return driver.ModuleUnload(module); }
// Both return at once: work still queued completes, then the driver frees the object.
CUresult destroy(const Driver& driver, CUstream stream) { return driver.StreamDestroy(stream); }
CUresult destroy(const Driver& driver, CUevent event) { return driver.EventDestroy(event); }

}  // namespace

template <class T>
void DriverHandle<T>::reset() noexcept {
    if (raw_ == nullptr) return;
    try {
        CurrentContext current(*driver_, context_);
        static_cast<void>(destroy(*driver_, raw_));
    } catch (...) {
        // The context could not be made current (driver shut down): nothing left to free.
    }
    raw_ = nullptr;
}

template class DriverHandle<CUmodule>;
template class DriverHandle<CUstream>;
template class DriverHandle<CUevent>;

}  // namespace kjarni::backend::cuda
