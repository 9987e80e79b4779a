#pragma once
// Page-locked host memory on CUDA, however it came to be page-locked: allocated (cuMemHostAlloc,
// cuda_host_memory.cpp) or registered in place (cuMemHostRegister, cuda_foreign_memory.cpp). What
// both answer the same way is here; each kind page-locks in its constructor and releases in its
// destructor.

#include <cuda.h>

#include <cstddef>
#include <memory>

#include "backend/cuda/cuda_context.hpp"
#include "backend/memory_objects.hpp"

namespace kjarni::backend::cuda {

class CudaPageLockedMemory : public HostAllocation {
public:
    CudaPageLockedMemory(const CudaPageLockedMemory&) = delete;
    CudaPageLockedMemory& operator=(const CudaPageLockedMemory&) = delete;

    void* host_pointer() const override { return pointer_; }
    std::size_t size() const override { return size_; }
    HostAllocationFlags flags() const override { return flags_; }
    /// The device address is asked for in the context of the device that will use it: it can
    /// differ between contexts (it equals the host address only with unified addressing).
    std::shared_ptr<Buffer> device_buffer(std::size_t device_index) override;

protected:
    CudaPageLockedMemory(std::shared_ptr<CudaContext> context, void* pointer, std::size_t size,
                         HostAllocationFlags flags)
        : context_(std::move(context)), pointer_(pointer), size_(size), flags_(flags) {}
    ~CudaPageLockedMemory() override = default;

    /// For the destructors: `free_memory(pointer_)` (cuMemFreeHost, cuMemHostUnregister) with device
    /// 0's context current, as the memory was page-locked. Errors (a driver shut down at process
    /// exit) cannot be reported from a destructor: they are dropped.
    void release(CUresult(CUDAAPI* free_memory)(void*)) noexcept;

    std::shared_ptr<CudaContext> context_;
    void* pointer_;
    std::size_t size_;
    HostAllocationFlags flags_;
};

}  // namespace kjarni::backend::cuda
