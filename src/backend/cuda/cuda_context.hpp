#pragma once
// A kjarni context on CUDA: one CUcontext per device (the device's primary context, or contexts the
// user handed over), made current by kjarni itself before each driver call that needs one.

#include <cuda.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_driver.hpp"
#include "backend/cuda/cuda_event_pool.hpp"

namespace kjarni::backend::cuda {

class CudaApi;

/// The cuCtxCreate / cuDevicePrimaryCtxSetFlags flags of `flags` (CU_CTX_SCHED_*, CU_CTX_MAP_HOST,
/// CU_CTX_LMEM_RESIZE_TO_MAX).
unsigned context_creation_flags(const ContextFlags& flags) noexcept;

/// Makes a context current on the calling thread for the lifetime of the object, cheaply: nothing
/// is done when it is current already. When another context was current (the CUDA runtime's, a
/// user's, ...) it is restored afterwards, so that kjarni does not change the current device of
/// code that shares the thread; when none was, ours stays current so that the next call is free.
class CurrentContext {
public:
    /// Throws BackendError if the context cannot be made current. The usual case, the context
    /// current already, is inline: every launch makes one of these.
    CurrentContext(const Driver& driver, CUcontext context) : driver_(driver) {
        // cuCtxGetCurrent reads a thread-local in the driver: cheaper than tracking it ourselves,
        // and right even when other code (the CUDA runtime, PyTorch) changed it behind our back.
        CUcontext current = nullptr;
        const CUresult result = driver.CtxGetCurrent(&current);
        if (result != CUDA_SUCCESS || current != context) switch_to(context, current, result);
    }
    ~CurrentContext() {
        if (restore_) restore();
    }
    CurrentContext(const CurrentContext&) = delete;
    CurrentContext& operator=(const CurrentContext&) = delete;

private:
    /// The rest of the constructor, out of line: throws for a failed cuCtxGetCurrent (`result`),
    /// else makes `context` current in place of `current`.
    void switch_to(CUcontext context, CUcontext current, CUresult result);
    void restore() noexcept;

    const Driver& driver_;
    CUcontext previous_ = nullptr;
    bool restore_ = false;
};

class CudaContext final : public Context {
public:
    /// How the CUcontexts are let go of when the context goes.
    enum class Ownership {
        primary,   // retained primary contexts: cuDevicePrimaryCtxRelease
        owned,     // the user's, handed over: cuCtxDestroy
        borrowed,  // the user's, kept: nothing
    };

    /// Retains each device's primary context.
    static std::shared_ptr<CudaContext> from_devices(CudaApi& api, std::span<const std::shared_ptr<Device>> devices);
    /// With flags: contexts of kjarni's own (cuCtxCreate, destroyed with this object) or the primary
    /// contexts with their flags set first (cuDevicePrimaryCtxSetFlags); then the shared memory
    /// configuration on each (cuCtxSetSharedMemConfig).
    static std::shared_ptr<CudaContext> from_devices(CudaApi& api, std::span<const std::shared_ptr<Device>> devices,
                                                     const ContextFlags& flags);
    /// Wraps user contexts, one per device. On failure nothing is destroyed: the caller keeps them.
    static std::shared_ptr<CudaContext> from_native(CudaApi& api, std::span<const std::uintptr_t> natives,
                                                    bool take_ownership);

    ~CudaContext() override;

    Api& api() const override;
    const std::vector<std::shared_ptr<Device>>& devices() const override { return devices_; }
    std::uintptr_t native_handle(std::size_t device_index) const override {
        return reinterpret_cast<std::uintptr_t>(contexts_[device_index]);
    }
    /// A CurrentContext over the device's CUcontext.
    std::unique_ptr<CurrentScope> make_current(std::size_t device_index) const override;
    std::shared_ptr<Queue> create_queue(std::size_t device_index) override;
    std::shared_ptr<Buffer> allocate(std::size_t device_index, std::size_t size) override;
    /// cuMemHostAlloc with the context of device 0 current (cuda_host_memory.cpp).
    std::shared_ptr<HostAllocation> allocate_host(std::size_t size, HostAllocationFlags flags) override;
    /// cuMemAllocManaged in the context of the device (cuda_managed_memory.cpp).
    std::shared_ptr<ManagedAllocation> allocate_managed(std::size_t device_index, std::size_t size,
                                                        ManagedAllocationFlags flags) override;
    /// cuMemGetInfo in the context of the device.
    std::optional<std::uint64_t> free_memory(std::size_t device_index) const override;
    // Interprocess memory and events: cuda_ipc.cpp.
    std::shared_ptr<Buffer> open_ipc_memory(std::size_t device_index, std::span<const std::byte> handle,
                                            std::size_t size) override;
    std::shared_ptr<Event> create_ipc_event(std::size_t device_index) override;
    std::shared_ptr<Event> open_ipc_event(std::size_t device_index, std::span<const std::byte> handle) override;
    bool can_access_peer(std::size_t from, std::size_t to) const override;
    // Peer access between devices of this and other contexts (cuda_peer_access.cpp).
    bool peer_access_possible(std::size_t from, const Context& other, std::size_t to) const override;
    bool peer_access_enabled(std::size_t from, const Context& other, std::size_t to) const override;
    void set_peer_access(std::size_t from, Context& other, std::size_t to, bool enable) override;
    /// cuCtxSynchronize in each device's context.
    void synchronize_devices() override;
    /// cuMemAlloc makes the memory at once.
    bool allocates_eagerly() const override { return true; }

    // Knobs (cuda_knobs.cpp).
    std::shared_ptr<Queue> create_queue_with(std::size_t device_index, const QueueFlags& flags) override;
    std::pair<int, int> queue_priority_range(std::size_t device_index) const override;
    void set_limit(std::size_t device_index, ContextLimit limit, std::size_t value) override;
    std::size_t limit(std::size_t device_index, ContextLimit limit) const override;
    void set_cache_preference(std::size_t device_index, CachePreference preference) override;
    void profiler(std::size_t device_index, bool start) override;

    // Foreign, page-locked and pitched memory (cuda_foreign_memory.cpp).
    std::shared_ptr<Buffer> adopt_buffer(std::size_t device_index, std::uintptr_t native,
                                         std::optional<std::size_t> size, bool take_ownership) override;
    /// cuMemHostRegister with the context of device 0 current.
    std::shared_ptr<HostAllocation> register_host(void* data, std::size_t size, HostAllocationFlags flags) override;
    /// cuPointerGetAttributes.
    PointerInfo pointer_info(std::uintptr_t pointer) const override;
    /// cuMemAllocPitch.
    PitchedAllocation allocate_pitched(std::size_t device_index, std::size_t width, std::size_t height,
                                       std::size_t element_size) override;

    // Images (cuda_image.cpp): CUDA arrays read through texture objects, written through surfaces.
    ImageLimits image_limits(std::size_t device_index) const override;
    bool image_format_supported(std::size_t device_index, const ImageFormat& format) const override;
    std::shared_ptr<Image> create_image(std::size_t device_index, const ImageShape& shape,
                                        const ImageFormat& format) override;

    // Programs (defined in cuda_program.cpp).
    BuildOutput build(std::size_t device_index, const std::string& source, const BuildOptions& options) override;
    BuildOutput link(std::size_t device_index, std::span<const LinkUnit> units, const BuildOptions& options) override;
    std::vector<std::byte> compile_unit(std::size_t device_index, const std::string& source,
                                        const BuildOptions& options) override;
    std::shared_ptr<Module> load(std::size_t device_index, std::span<const std::byte> binary,
                                 const BuildOptions& options) override;
    std::string compiler_identity(std::size_t device_index) const override;
    std::string ptx(std::size_t device_index, const std::string& source, const BuildOptions& options) override;

    const Driver& driver() const noexcept { return driver_; }
    CUcontext cu_context(std::size_t device_index) const noexcept { return contexts_[device_index]; }
    CUdevice cu_device(std::size_t device_index) const noexcept { return cu_devices_[device_index]; }
    /// The device's pool of reusable events.
    CudaEventPool& event_pool(std::size_t device_index) const noexcept { return *event_pools_[device_index]; }

private:
    CudaContext(CudaApi& api, Ownership ownership);
    void add(std::shared_ptr<Device> device, CUdevice cu_device, CUcontext context);
    /// Enables peer access between every pair of devices that supports it; a pair that fails is
    /// only recorded as not peer-accessible (copies between them still work, staged by the driver).
    void enable_peer_access() noexcept;

    CudaApi& api_;
    const Driver& driver_;
    Ownership ownership_;
    std::vector<std::shared_ptr<Device>> devices_;
    std::vector<CUdevice> cu_devices_;
    std::vector<CUcontext> contexts_;
    /// peer_[from * n + to]: whether peer access from `from` to `to` is enabled (atomic: the
    /// public toggle may change it while copies ask).
    std::unique_ptr<std::atomic<bool>[]> peer_;
    /// Peer access enabled from a device of this context to another context's CUcontext.
    mutable std::mutex cross_peer_mutex_;
    std::map<std::pair<std::size_t, CUcontext>, bool> cross_peer_;
    /// One per device; emptied before the contexts are released.
    std::vector<std::unique_ptr<CudaEventPool>> event_pools_;
};

}  // namespace kjarni::backend::cuda
