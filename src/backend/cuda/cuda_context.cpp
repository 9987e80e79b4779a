#include "backend/cuda/cuda_context.hpp"

#include "backend/cuda/cuda_api.hpp"
#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

void CurrentContext::switch_to(CUcontext context, CUcontext current, CUresult result) {
    check(driver_, result, "cuCtxGetCurrent");
    KJARNI_CU(driver_, CtxSetCurrent, context);
    previous_ = current;
    restore_ = current != nullptr;
}

void CurrentContext::restore() noexcept {
    // Nothing to report from a destructor; a failure here leaves our context current, which only
    // costs the next caller a cuCtxSetCurrent.
    static_cast<void>(driver_.CtxSetCurrent(previous_));
}

namespace {

/// CurrentContext behind the backend-neutral scope.
class CudaCurrentScope final : public CurrentScope {
public:
    CudaCurrentScope(const Driver& driver, CUcontext context) : current_(driver, context) {}

private:
    CurrentContext current_;
};

}  // namespace

std::unique_ptr<CurrentScope> CudaContext::make_current(std::size_t device_index) const {
    return std::make_unique<CudaCurrentScope>(driver_, contexts_[device_index]);
}

CudaContext::CudaContext(CudaApi& api, Ownership ownership) : api_(api), driver_(api.driver()), ownership_(ownership) {}

std::shared_ptr<CudaContext> CudaContext::from_devices(CudaApi& api, std::span<const std::shared_ptr<Device>> devices) {
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

unsigned context_creation_flags(const ContextFlags& flags) noexcept {
    CUctx_flags scheduling = CU_CTX_SCHED_AUTO;
    switch (flags.scheduling) {
    case Scheduling::automatic: scheduling = CU_CTX_SCHED_AUTO; break;
    case Scheduling::spin: scheduling = CU_CTX_SCHED_SPIN; break;
    case Scheduling::yield: scheduling = CU_CTX_SCHED_YIELD; break;
    case Scheduling::blocking_sync: scheduling = CU_CTX_SCHED_BLOCKING_SYNC; break;
    }
    auto result = static_cast<unsigned>(scheduling);
    if (flags.map_host) result |= static_cast<unsigned>(CU_CTX_MAP_HOST);
    if (flags.lmem_resize_to_max) result |= static_cast<unsigned>(CU_CTX_LMEM_RESIZE_TO_MAX);
    return result;
}

std::shared_ptr<CudaContext> CudaContext::from_devices(CudaApi& api, std::span<const std::shared_ptr<Device>> devices,
                                                       const ContextFlags& flags) {
    const Driver& driver = api.driver();
    const unsigned cu_flags = context_creation_flags(flags);
    if (flags.shared_memory_banks != SharedMemoryBanks::default_size && driver.CtxSetSharedMemConfig == nullptr) {
        throw UnsupportedError("this CUDA driver has no cuCtxSetSharedMemConfig: ContextOptions::shared_memory_banks "
                               "cannot be " +
                               to_string(flags.shared_memory_banks));
    }
    std::shared_ptr<CudaContext> context(
        new CudaContext(api, flags.own_contexts ? Ownership::owned : Ownership::primary));
    for (const auto& device : devices) {
        const CUdevice cu_device = static_cast<const CudaDevice&>(*device).cu_device();
        CUcontext handle = nullptr;
        if (flags.own_contexts) {
            // cuCtxCreate pushes the new context onto the thread's stack; popping it leaves the
            // thread's current context what it was (kjarni makes its contexts current per call).
            KJARNI_CU(driver, CtxCreate, &handle, cu_flags, cu_device);
            CUcontext popped = nullptr;
            const CUresult pop = driver.CtxPopCurrent(&popped);
            if (pop != CUDA_SUCCESS) {
                static_cast<void>(driver.CtxDestroy(handle));
                throw_cuda_error(driver, pop, "cuCtxPopCurrent");
            }
        } else {
            // The primary context is the process's: its flags hold for every user of it (pygpu
            // sets them the same way). Drivers since 11.1 take them while it is active too.
            if (cu_flags != static_cast<unsigned>(CU_CTX_SCHED_AUTO))
                KJARNI_CU(driver, DevicePrimaryCtxSetFlags, cu_device, cu_flags);
            KJARNI_CU(driver, DevicePrimaryCtxRetain, &handle, cu_device);
        }
        context->add(device, cu_device, handle);
    }
    if (flags.shared_memory_banks != SharedMemoryBanks::default_size) {
        const CUsharedconfig config = flags.shared_memory_banks == SharedMemoryBanks::four_bytes
                                          ? CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE
                                          : CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE;
        for (std::size_t i = 0; i < context->contexts_.size(); ++i) {
            CurrentContext current(driver, context->contexts_[i]);
            KJARNI_CU(driver, CtxSetSharedMemConfig, config);
        }
    }
    context->enable_peer_access();
    return context;
}

void CudaContext::synchronize_devices() {
    for (CUcontext handle : contexts_) {
        CurrentContext current(driver_, handle);
        KJARNI_CU(driver_, CtxSynchronize);
    }
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
        case Ownership::primary: static_cast<void>(driver_.DevicePrimaryCtxRelease(cu_devices_[i])); break;
        case Ownership::owned: static_cast<void>(driver_.CtxDestroy(contexts_[i])); break;
        case Ownership::borrowed: break;
        }
    }
}

Api& CudaContext::api() const { return api_; }

void CudaContext::enable_peer_access() noexcept {
    const std::size_t n = contexts_.size();
    peer_ = std::make_unique<std::atomic<bool>[]>(n * n);
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
                peer_[from * n + to] = result == CUDA_SUCCESS || result == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
            } catch (...) {
                // Could not make the context current: leave the pair without peer access.
            }
        }
    }
}

bool CudaContext::can_access_peer(std::size_t from, std::size_t to) const {
    return peer_[from * contexts_.size() + to].load(std::memory_order_relaxed);
}

std::shared_ptr<Queue> CudaContext::create_queue(std::size_t device_index) {
    return std::make_shared<CudaQueue>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index);
}

std::shared_ptr<Buffer> CudaContext::allocate(std::size_t device_index, std::size_t size) {
    return std::make_shared<CudaBuffer>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index, size);
}

}  // namespace kjarni::backend::cuda
