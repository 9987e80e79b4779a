#include "backend/cuda/cuda_buffer.hpp"

#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"

namespace kjarni::backend::cuda {

CudaBuffer::CudaBuffer(std::shared_ptr<CudaContext> context, std::size_t device_index, std::size_t size)
    : context_(std::move(context)), device_index_(device_index), size_(size) {
    // cuMemAlloc refuses 0 bytes; an empty buffer is still a valid object for the public layer.
    if (size_ == 0) return;
    // The allocation lands on the device of the context that is current.
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    pointer_ = allocate_device_memory(context_->driver(), size_);
}

CudaBuffer::CudaBuffer(std::shared_ptr<CudaContext> context, std::size_t device_index, std::size_t size,
                       CUdeviceptr pointer, std::shared_ptr<const void> owner)
    : context_(std::move(context)), device_index_(device_index), size_(size), pointer_(pointer),
      owner_(std::move(owner)) {}

CudaBuffer::~CudaBuffer() {
    if (pointer_ == 0 || owner_ != nullptr) return;
    try {
        CurrentContext current(context_->driver(), context_->cu_context(device_index_));
        // Errors (e.g. a driver already shut down at process exit) cannot be reported from here.
        static_cast<void>(context_->driver().MemFree(pointer_));
    } catch (...) {
    }
}

}  // namespace kjarni::backend::cuda
