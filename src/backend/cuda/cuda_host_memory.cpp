// Page-locked host memory on CUDA: cuMemHostAlloc, freed with cuMemFreeHost.

#include <cuda.h>

#include <memory>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"

namespace kjarni::backend::cuda {

namespace {

class CudaHostAllocation final : public HostAllocation {
public:
    // Allocated with device 0's context current. Without `portable`, CUDA treats the memory as
    // page-locked (and, if mapped, mapped) in that context only.
    CudaHostAllocation(std::shared_ptr<CudaContext> context, std::size_t size, HostAllocationFlags flags)
        : context_(std::move(context)), size_(size), flags_(flags) {
        unsigned int cu_flags = 0;
        if (flags.portable) cu_flags |= CU_MEMHOSTALLOC_PORTABLE;
        if (flags.mapped) cu_flags |= CU_MEMHOSTALLOC_DEVICEMAP;
        if (flags.write_combined) cu_flags |= CU_MEMHOSTALLOC_WRITECOMBINED;
        CurrentContext current(context_->driver(), context_->cu_context(0));
        KJARNI_CU(context_->driver(), MemHostAlloc, &pointer_, size_, cu_flags);
    }

    ~CudaHostAllocation() override {
        if (pointer_ == nullptr) return;
        try {
            CurrentContext current(context_->driver(), context_->cu_context(0));
            // Errors (a driver shut down at process exit) cannot be reported from a destructor.
            static_cast<void>(context_->driver().MemFreeHost(pointer_));
        } catch (...) {
        }
    }

    CudaHostAllocation(const CudaHostAllocation&) = delete;
    CudaHostAllocation& operator=(const CudaHostAllocation&) = delete;

    void* host_pointer() const override { return pointer_; }
    std::size_t size() const override { return size_; }
    HostAllocationFlags flags() const override { return flags_; }

    std::shared_ptr<Buffer> device_buffer(std::size_t device_index) override {
        // The device address can differ between contexts (it equals the host address only with
        // unified addressing), so it is asked for in the context of the device that will use it.
        CUdeviceptr device_pointer = 0;
        {
            CurrentContext current(context_->driver(), context_->cu_context(device_index));
            KJARNI_CU(context_->driver(), MemHostGetDevicePointer, &device_pointer, pointer_, 0);
        }
        return std::make_shared<CudaBuffer>(context_, device_index, size_, device_pointer, shared_from_this());
    }

private:
    std::shared_ptr<CudaContext> context_;
    std::size_t size_;
    HostAllocationFlags flags_;
    void* pointer_ = nullptr;
};

}  // namespace

std::shared_ptr<HostAllocation> CudaContext::allocate_host(std::size_t size, HostAllocationFlags flags) {
    return std::make_shared<CudaHostAllocation>(std::static_pointer_cast<CudaContext>(shared_from_this()), size,
                                                flags);
}

}  // namespace kjarni::backend::cuda
