// Page-locked host memory on CUDA: cuMemHostAlloc, freed with cuMemFreeHost; and what it shares with
// memory page-locked in place (cuda_page_locked.hpp).

#include <cuda.h>

#include <memory>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_page_locked.hpp"

namespace kjarni::backend::cuda {

namespace {

class CudaHostAllocation final : public CudaPageLockedMemory {
public:
    // Allocated with device 0's context current. Without `portable`, CUDA treats the memory as
    // page-locked (and, if mapped, mapped) in that context only.
    CudaHostAllocation(std::shared_ptr<CudaContext> context, std::size_t size, HostAllocationFlags flags)
        : CudaPageLockedMemory(std::move(context), nullptr, size, flags) {
        unsigned int cu_flags = 0;
        if (flags.portable) cu_flags |= CU_MEMHOSTALLOC_PORTABLE;
        if (flags.mapped) cu_flags |= CU_MEMHOSTALLOC_DEVICEMAP;
        if (flags.write_combined) cu_flags |= CU_MEMHOSTALLOC_WRITECOMBINED;
        CurrentContext current(context_->driver(), context_->cu_context(0));
        KJARNI_CU(context_->driver(), MemHostAlloc, &pointer_, size_, cu_flags);
    }

    ~CudaHostAllocation() override {
        if (pointer_ != nullptr) release(context_->driver().MemFreeHost);
    }
};

}  // namespace

std::shared_ptr<Buffer> CudaPageLockedMemory::device_buffer(std::size_t device_index) {
    CUdeviceptr device_pointer = 0;
    {
        CurrentContext current(context_->driver(), context_->cu_context(device_index));
        KJARNI_CU(context_->driver(), MemHostGetDevicePointer, &device_pointer, pointer_, 0);
    }
    return std::make_shared<CudaBuffer>(context_, device_index, size_, device_pointer, shared_from_this());
}

void CudaPageLockedMemory::release(CUresult(CUDAAPI* free_memory)(void*)) noexcept {
    try {
        CurrentContext current(context_->driver(), context_->cu_context(0));
        static_cast<void>(free_memory(pointer_));
    } catch (...) {
    }
}

std::shared_ptr<HostAllocation> CudaContext::allocate_host(std::size_t size, HostAllocationFlags flags) {
    return std::make_shared<CudaHostAllocation>(std::static_pointer_cast<CudaContext>(shared_from_this()), size, flags);
}

}  // namespace kjarni::backend::cuda
