#pragma once
// Device memory from cuMemAlloc, freed when the last reference goes.

#include <cuda.h>

#include <memory>

#include "backend/backend.hpp"

namespace kjarni::backend::cuda {

class CudaContext;

class CudaBuffer final : public Buffer {
public:
    /// Allocates `size` bytes on the context's device `device_index`; size 0 allocates nothing
    /// (the handle is 0). Throws OutOfMemoryError when the device is full.
    CudaBuffer(std::shared_ptr<CudaContext> context, std::size_t device_index, std::size_t size);
    /// Memory at `pointer` that this buffer did not allocate. With an `owner` (a mapped host
    /// allocation's device address; a user's memory, with the context as owner) it is kept alive by
    /// that owner and never freed here; without one (adopted memory, a pitched allocation) it is
    /// freed with cuMemFree when the buffer goes.
    CudaBuffer(std::shared_ptr<CudaContext> context, std::size_t device_index, std::size_t size, CUdeviceptr pointer,
               std::shared_ptr<const void> owner);
    ~CudaBuffer() override;
    CudaBuffer(const CudaBuffer&) = delete;
    CudaBuffer& operator=(const CudaBuffer&) = delete;

    std::size_t size() const override { return size_; }
    std::size_t device_index() const override { return device_index_; }
    std::uintptr_t native_handle() const override { return static_cast<std::uintptr_t>(pointer_); }
    /// cuIpcGetMemHandle of the allocation (cuda_ipc.cpp); UnsupportedError for memory this
    /// buffer does not own.
    std::vector<std::byte> ipc_handle() const override;

    CUdeviceptr pointer() const noexcept { return pointer_; }
    /// The address `offset` bytes into the allocation.
    CUdeviceptr at(std::size_t offset) const noexcept { return pointer_ + offset; }

private:
    std::shared_ptr<CudaContext> context_;
    std::size_t device_index_;
    std::size_t size_;
    CUdeviceptr pointer_ = 0;
    /// Set for memory this buffer does not own.
    std::shared_ptr<const void> owner_;
};

}  // namespace kjarni::backend::cuda
