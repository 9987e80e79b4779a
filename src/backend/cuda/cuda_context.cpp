#include "backend/cuda/cuda_context.hpp"

#include "backend/cuda/cuda_api.hpp"
#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"

namespace kjarni::backend::cuda {

CurrentContext::CurrentContext(const Driver& driver, CUcontext context) : driver_(driver) {
    // cuCtxGetCurrent reads a thread-local in the driver: cheaper than tracking it ourselves, and
    // right even when other code (the CUDA runtime, PyTorch) changed it behind our back.
    CUcontext current = nullptr;
    KJARNI_CU(driver_, CtxGetCurrent, &current);
    if (current == context) return;
    KJARNI_CU(driver_, CtxSetCurrent, context);
    previous_ = current;
    restore_ = current != nullptr;
}

CurrentContext::~CurrentContext() {
    // Nothing to report from a destructor; a failure here leaves our context current, which only
    // costs the next caller a cuCtxSetCurrent.
    if (restore_) static_cast<void>(driver_.CtxSetCurrent(previous_));
}

CudaContext::CudaContext(CudaApi& api, Ownership ownership)
    : api_(api), driver_(api.driver()), ownership_(ownership) {}

std::shared_ptr<CudaContext> CudaContext::from_devices(CudaApi& api,
                                                       std::span<const std::shared_ptr<Device>> devices) {
    // Built up one device at a time, so that if a retain fails the destructor releases those
    // already retained.
    std::shared_ptr<CudaContext> context(new CudaContext(api, Ownership::primary));
    for (const auto& device : devices) {
        const CUdevice cu_device = static_cast<const CudaDevice&>(*device).cu_device();
        CUcontext primary = nullptr;
        KJARNI_CU(api.driver(), DevicePrimaryCtxRetain, &primary, cu_device);
        context->add(device, cu_device, primary);
    }
    context->enable_peer_access();
    return context;
}

std::shared_ptr<CudaContext> CudaContext::from_native(CudaApi& api, std::span<const std::uintptr_t> natives,
                                                      bool take_ownership) {
    // Borrowed until everything is known, so that a failure destroys nothing of the caller's.
    std::shared_ptr<CudaContext> context(new CudaContext(api, Ownership::borrowed));
    for (std::uintptr_t native : natives) {
        CUcontext handle = reinterpret_cast<CUcontext>(native);
        CUdevice cu_device = 0;
        {
            // cuCtxGetDevice (12.0 ABI) asks about the current context only.
            CurrentContext current(api.driver(), handle);
            KJARNI_CU(api.driver(), CtxGetDevice, &cu_device);
        }
        context->add(api.device_from_native(static_cast<std::uintptr_t>(cu_device)), cu_device, handle);
    }
    context->enable_peer_access();
    if (take_ownership) context->ownership_ = Ownership::owned;
    return context;
}

void CudaContext::add(std::shared_ptr<Device> device, CUdevice cu_device, CUcontext handle) {
    devices_.push_back(std::move(device));
    cu_devices_.push_back(cu_device);
    contexts_.push_back(handle);
    event_pools_.push_back(std::make_unique<CudaEventPool>(driver_, handle));
}

CudaContext::~CudaContext() {
    // Errors are ignored: a destructor cannot report them, and at process exit the driver may have
    // shut down already (CUDA_ERROR_DEINITIALIZED). The pooled events go first, while their
    // contexts still exist.
    event_pools_.clear();
    for (std::size_t i = 0; i < contexts_.size(); ++i) {
        switch (ownership_) {
            case Ownership::primary:
                static_cast<void>(driver_.DevicePrimaryCtxRelease(cu_devices_[i]));
                break;
            case Ownership::owned:
                static_cast<void>(driver_.CtxDestroy(contexts_[i]));
                break;
            case Ownership::borrowed:
                break;
        }
    }
}

Api& CudaContext::api() const { return api_; }

void CudaContext::enable_peer_access() noexcept {
    const std::size_t n = contexts_.size();
    peer_.assign(n * n, false);
    for (std::size_t from = 0; from < n; ++from) {
        peer_[from * n + from] = true;
        for (std::size_t to = 0; to < n; ++to) {
            if (to == from) continue;
            int can_access = 0;
            if (driver_.DeviceCanAccessPeer(&can_access, cu_devices_[from], cu_devices_[to]) != CUDA_SUCCESS ||
                can_access == 0) {
                continue;
            }
            try {
                // Lets kernels in `from`'s context use memory of `to`'s context. Primary contexts are
                // shared process-wide, so another library may have done this already.
                CurrentContext current(driver_, contexts_[from]);
                const CUresult result = driver_.CtxEnablePeerAccess(contexts_[to], 0);
                peer_[from * n + to] =
                    result == CUDA_SUCCESS || result == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
            } catch (...) {
                // Could not make the context current: leave the pair without peer access.
            }
        }
    }
}

bool CudaContext::can_access_peer(std::size_t from, std::size_t to) const {
    return peer_[from * contexts_.size() + to];
}

std::shared_ptr<Queue> CudaContext::create_queue(std::size_t device_index) {
    return std::make_shared<CudaQueue>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index);
}

std::shared_ptr<Buffer> CudaContext::allocate(std::size_t device_index, std::size_t size) {
    return std::make_shared<CudaBuffer>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index,
                                        size);
}

}  // namespace kjarni::backend::cuda
