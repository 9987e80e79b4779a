#include "backend/cuda/cuda_event_pool.hpp"

#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_driver.hpp"
#include "backend/cuda/cuda_error.hpp"

namespace kjarni::backend::cuda {

CudaEventPool::~CudaEventPool() {
    CUevent spare = spare_.exchange(nullptr);
    if (free_.empty() && spare == nullptr) return;
    try {
        CurrentContext current(*driver_, context_);
        if (spare != nullptr) static_cast<void>(driver_->EventDestroy(spare));
        for (CUevent event : free_) static_cast<void>(driver_->EventDestroy(event));
    } catch (...) {
        // The context could not be made current (driver shut down): nothing left to free.
    }
}

CUevent CudaEventPool::take() {
    if (CUevent spare = spare_.exchange(nullptr, std::memory_order_acquire)) return spare;
    {
        const std::lock_guard lock(mutex_);
        if (!free_.empty()) {
            CUevent event = free_.back();
            free_.pop_back();
            return event;
        }
    }
    CUevent event = nullptr;
    KJARNI_CU(*driver_, EventCreate, &event, static_cast<unsigned int>(CU_EVENT_DEFAULT));
    return event;
}

void CudaEventPool::give_back(CUevent event) noexcept {
    CUevent empty = nullptr;
    if (spare_.compare_exchange_strong(empty, event, std::memory_order_release, std::memory_order_relaxed)) return;
    {
        const std::lock_guard lock(mutex_);
        if (free_.size() < max_kept) {
            // push_back may throw bad_alloc: then the event is destroyed below instead.
            try {
                free_.push_back(event);
                return;
            } catch (...) {
            }
        }
    }
    try {
        CurrentContext current(*driver_, context_);
        static_cast<void>(driver_->EventDestroy(event));
    } catch (...) {
    }
}

}  // namespace kjarni::backend::cuda
