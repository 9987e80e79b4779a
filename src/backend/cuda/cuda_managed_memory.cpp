// Managed memory on CUDA: cuMemAllocManaged (attach global or host), freed with cuMemFree; host
// access scopes synchronize; prefetch with cuMemPrefetchAsync in its CUmemLocation form (the
// CUdevice form is gone from CUDA 13's headers; the driver table asks cuGetProcAddress for the
// 12.2 ABI explicitly, so a 13.x driver hands out the right one).

#include <cuda.h>

#include <memory>
#include <optional>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

namespace {

class CudaManagedAllocation final : public ManagedAllocation {
public:
    CudaManagedAllocation(std::shared_ptr<CudaContext> context, std::size_t device_index, std::size_t size,
                          ManagedAllocationFlags flags)
        : context_(std::move(context)), device_index_(device_index), size_(size), flags_(flags) {
        CurrentContext current(context_->driver(), context_->cu_context(device_index_));
        // cuMemAllocManaged takes no alignment and gives at least 256 bytes' (CUDA's promise for
        // every allocation): a larger one is had by allocating alignment - 1 bytes more and
        // handing out the first aligned address inside; the base is what is freed and attached.
        const std::size_t extra = flags.alignment > natural_alignment ? flags.alignment - 1 : 0;
        KJARNI_CU(context_->driver(), MemAllocManaged, &base_, size_ + extra,
                  flags.attach_host ? CU_MEM_ATTACH_HOST : CU_MEM_ATTACH_GLOBAL);
        pointer_ = extra == 0 ? base_ : (base_ + extra) / flags.alignment * flags.alignment;
    }

    ~CudaManagedAllocation() override {
        if (base_ == 0) return;
        try {
            CurrentContext current(context_->driver(), context_->cu_context(device_index_));
            // Errors (a driver shut down at process exit) cannot be reported from a destructor.
            static_cast<void>(context_->driver().MemFree(base_));
        } catch (...) {
        }
    }

    CudaManagedAllocation(const CudaManagedAllocation&) = delete;
    CudaManagedAllocation& operator=(const CudaManagedAllocation&) = delete;

    void* pointer() const override { return reinterpret_cast<void*>(pointer_); }
    std::size_t size() const override { return size_; }
    ManagedAllocationFlags flags() const override { return flags_; }

    void begin_host_access(Queue& queue, std::size_t, std::size_t, bool, bool, bool whole_context) override {
        const Driver& driver = context_->driver();
        if (!whole_context) {
            queue.synchronize();
            return;
        }
        // Without concurrentManagedAccess no kernel of the context may run while the host touches
        // managed memory: wait for every device.
        for (std::size_t i = 0; i < context_->devices().size(); ++i) {
            CurrentContext current(driver, context_->cu_context(i));
            KJARNI_CU(driver, CtxSynchronize);
        }
    }

    void end_host_access(Queue&, std::size_t) override {}  // coherent: nothing to publish

    void prefetch(Queue& queue, std::size_t offset, std::size_t size, bool to_host) override {
        const Driver& driver = context_->driver();
        if (driver.MemPrefetchAsync == nullptr) {
            throw UnsupportedError("prefetching managed memory needs a CUDA 12.2 or later driver (cuMemPrefetchAsync "
                                   "with a CUmemLocation)");
        }
        auto& cuda_queue = static_cast<CudaQueue&>(queue);
        CUmemLocation location{};
        if (to_host) {
            location.type = CU_MEM_LOCATION_TYPE_HOST;
            location.id = 0;  // ignored for the host
        } else {
            location.type = CU_MEM_LOCATION_TYPE_DEVICE;
            location.id = context_->cu_device(cuda_queue.device_index());
        }
        CurrentContext current(driver, context_->cu_context(cuda_queue.device_index()));
        KJARNI_CU(driver, MemPrefetchAsync, pointer_ + offset, size, location, 0, cuda_queue.stream());
    }

    void attach(Queue& queue, int attach) override {
        static constexpr unsigned int flags[] = {CU_MEM_ATTACH_GLOBAL, CU_MEM_ATTACH_HOST, CU_MEM_ATTACH_SINGLE};
        auto& cuda_queue = static_cast<CudaQueue&>(queue);
        CurrentContext current(context_->driver(), context_->cu_context(cuda_queue.device_index()));
        // Length 0: the whole allocation (the only length managed memory accepts).
        KJARNI_CU(context_->driver(), StreamAttachMemAsync, cuda_queue.stream(), base_, 0,
                  flags[static_cast<std::size_t>(attach)]);
    }

    std::shared_ptr<Buffer> device_buffer(std::size_t device_index) override {
        // Unified addressing: the managed address is valid in every context of the process.
        return std::make_shared<CudaBuffer>(context_, device_index, size_, pointer_, shared_from_this());
    }

private:
    std::shared_ptr<CudaContext> context_;
    std::size_t device_index_;
    std::size_t size_;
    ManagedAllocationFlags flags_;
    static constexpr std::size_t natural_alignment = 256;
    CUdeviceptr base_ = 0;     // what the driver gave
    CUdeviceptr pointer_ = 0;  // base_, or the first address inside aligned as flags_.alignment asks
};

}  // namespace

std::shared_ptr<ManagedAllocation> CudaContext::allocate_managed(std::size_t device_index, std::size_t size,
                                                                 ManagedAllocationFlags flags) {
    return std::make_shared<CudaManagedAllocation>(std::static_pointer_cast<CudaContext>(shared_from_this()),
                                                   device_index, size, flags);
}

std::optional<std::uint64_t> CudaContext::free_memory(std::size_t device_index) const {
    CurrentContext current(driver_, contexts_[device_index]);
    std::size_t free = 0;
    std::size_t total = 0;
    KJARNI_CU(driver_, MemGetInfo, &free, &total);
    return free;
}

}  // namespace kjarni::backend::cuda
