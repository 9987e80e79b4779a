// Page-locked host memory on OpenCL: a buffer created with CL_MEM_ALLOC_HOST_PTR (which drivers
// back with pinned host memory), mapped once for its whole life to give the host pointer. Existing
// host memory is registered the same way, as a CL_MEM_USE_HOST_PTR buffer over it (drivers pin or
// use it in place); mapping such a buffer gives back the memory itself (OpenCL 1.2, 5.4.2), with
// the buffer's contents, which is what keeps the host's view right while it is registered.
//
// Portable is what every OpenCL allocation is (all devices of the context reach it), so the flag
// is accepted and changes nothing. Write-combined cannot be asked for. A mapped allocation's buffer
// is the cl_mem itself; kernels may use it while it is mapped, which drivers that serve
// CL_MEM_ALLOC_HOST_PTR from host memory (PoCL, the GPU vendors' drivers) allow, though OpenCL 1.2
// leaves it undefined: finish the kernel's queue before reading the host pointer.

#include <CL/cl.h>

#include <memory>

#include "backend/opencl/opencl_context.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_library.hpp"
#include "backend/opencl/opencl_quirks.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::opencl {

namespace {

class OpenClHostAllocation final : public HostAllocation {
public:
    /// With `existing`: registers that memory (CL_MEM_USE_HOST_PTR) instead of allocating.
    OpenClHostAllocation(std::shared_ptr<OpenClContext> context, std::size_t size, HostAllocationFlags flags,
                         void* existing = nullptr)
        : context_(std::move(context)), size_(size), flags_(flags) {
        cl_int status = CL_SUCCESS;
        const cl_mem_flags how = existing != nullptr ? CL_MEM_USE_HOST_PTR : CL_MEM_ALLOC_HOST_PTR;
        mem_.reset(cl().clCreateBuffer(context_->handle(), CL_MEM_READ_WRITE | how, size, existing, &status));
        check(status, "clCreateBuffer");
        // A queue of its own for the map and the unmap, so that they wait for nothing of the user's.
        queue_ = context_->create_queue(0);
        pointer_ = cl().clEnqueueMapBuffer(queue(), mem_.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 0,
                                           nullptr, nullptr, &status);
        check(status, "clEnqueueMapBuffer");
        if (existing != nullptr && pointer_ != existing) {
            // The specification forbids this; a driver doing it would leave the user's memory stale.
            if (cl().clEnqueueUnmapMemObject(queue(), mem_.get(), pointer_, 0, nullptr, nullptr) == CL_SUCCESS) {
                cl().clFinish(queue());
            }
            throw UnsupportedError("this OpenCL driver maps a CL_MEM_USE_HOST_PTR buffer to a copy, not to the "
                                   "host memory itself: it cannot register host memory");
        }
    }

    ~OpenClHostAllocation() override {
        // Errors cannot be reported from a destructor; the memory goes with the cl_mem anyway.
        if (pointer_ != nullptr &&
            cl().clEnqueueUnmapMemObject(queue(), mem_.get(), pointer_, 0, nullptr, nullptr) == CL_SUCCESS) {
            cl().clFinish(queue());
        }
    }

    OpenClHostAllocation(const OpenClHostAllocation&) = delete;
    OpenClHostAllocation& operator=(const OpenClHostAllocation&) = delete;

    void* host_pointer() const override { return pointer_; }
    std::size_t size() const override { return size_; }
    HostAllocationFlags flags() const override { return flags_; }

    std::shared_ptr<Buffer> device_buffer(std::size_t device_index) override {
        // Kernels may use a mapped buffer only where the mapping is the buffer's own storage.
        if (!quirks::mapped_host_memory_reaches_kernels(*context_->devices()[device_index])) {
            throw UnsupportedError(
                "mapped host memory as a kernel argument needs an OpenCL device that shares memory with the "
                "host (CL_DEVICE_HOST_UNIFIED_MEMORY); '" +
                context_->devices()[device_index]->name() +
                "' does not: transfer with Buffer::set/get from this page-locked memory instead");
        }
        // The buffer holds its own reference to the cl_mem; the allocation (and so the mapping)
        // must outlive it too, which the public layer sees to.
        return std::make_shared<OpenClBuffer>(context_, device_index, size_, Handle<cl_mem>::retain(mem_.get()));
    }

private:
    cl_command_queue queue() const { return reinterpret_cast<cl_command_queue>(queue_->native_handle()); }

    std::shared_ptr<OpenClContext> context_;
    std::size_t size_;
    HostAllocationFlags flags_;
    Handle<cl_mem> mem_;
    std::shared_ptr<Queue> queue_;
    void* pointer_ = nullptr;
};

}  // namespace

std::shared_ptr<HostAllocation> OpenClContext::allocate_host(std::size_t size, HostAllocationFlags flags) {
    if (flags.write_combined) {
        throw UnsupportedError("OpenCL cannot allocate write-combined host memory");
    }
    return std::make_shared<OpenClHostAllocation>(std::static_pointer_cast<OpenClContext>(shared_from_this()), size,
                                                  flags);
}

std::shared_ptr<HostAllocation> OpenClContext::register_host(void* data, std::size_t size, HostAllocationFlags flags) {
    if (flags.write_combined) {
        throw UnsupportedError("the opencl backend cannot make host memory write-combined");
    }
    return std::make_shared<OpenClHostAllocation>(std::static_pointer_cast<OpenClContext>(shared_from_this()), size,
                                                  flags, data);
}

}  // namespace kjarni::backend::opencl
