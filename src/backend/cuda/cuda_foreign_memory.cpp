// Memory kjarni did not allocate the usual way, on CUDA: device memory adopted from another library
// (a CUdeviceptr), host memory page-locked in place (cuMemHostRegister), pointer attributes, and
// pitched allocations (cuMemAllocPitch).

#include <cuda.h>
#include <fmt/format.h>

#include <memory>

#include "backend/cuda/cuda_api.hpp"
#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_page_locked.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

namespace {

const char* type_name(PointerInfo::Type type) {
    switch (type) {
    case PointerInfo::Type::unregistered: return "unregistered host memory";
    case PointerInfo::Type::host: return "page-locked host memory";
    case PointerInfo::Type::device: return "device memory";
    case PointerInfo::Type::managed: return "managed memory";
    }
    return "unknown memory";
}

class CudaRegisteredHostMemory final : public CudaPageLockedMemory {
public:
    // Registered with device 0's context current; without `portable`, CUDA treats the memory as
    // page-locked (and mapped) in that context only, as for cuMemHostAlloc.
    CudaRegisteredHostMemory(std::shared_ptr<CudaContext> context, void* data, std::size_t size,
                             HostAllocationFlags flags)
        : CudaPageLockedMemory(std::move(context), data, size, flags) {
        unsigned int cu_flags = 0;
        if (flags.portable) cu_flags |= CU_MEMHOSTREGISTER_PORTABLE;
        if (flags.mapped) cu_flags |= CU_MEMHOSTREGISTER_DEVICEMAP;
        const Driver& driver = context_->driver();
        CurrentContext current(driver, context_->cu_context(0));
        const CUresult result = driver.MemHostRegister(pointer_, size_, cu_flags);
        if (result == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) {
            throw ArgumentError("host", fmt::format("{} bytes at {}: part of it is page-locked already "
                                                    "(cuMemHostRegister: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)",
                                                    size_, data));
        }
        check(driver, result, "cuMemHostRegister");
    }

    ~CudaRegisteredHostMemory() override { release(context_->driver().MemHostUnregister); }
};

}  // namespace

PointerInfo CudaContext::pointer_info(std::uintptr_t pointer) const {
    // cuPointerGetAttributes (unlike cuPointerGetAttribute) answers for any address: what the
    // driver does not know comes back zero, so an ordinary host pointer reads as "unregistered".
    unsigned int memory_type = 0;
    unsigned int is_managed = 0;  // the driver writes a bool into it; the rest stays zero
    int ordinal = -1;
    CUdeviceptr device_pointer = 0;
    void* host_pointer = nullptr;
    CUdeviceptr range_start = 0;
    std::size_t range_size = 0;
    CUcontext owner = nullptr;
    CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,    CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                        CU_POINTER_ATTRIBUTE_HOST_POINTER,   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                        CU_POINTER_ATTRIBUTE_RANGE_SIZE,     CU_POINTER_ATTRIBUTE_CONTEXT};
    void* values[] = {&memory_type,  &is_managed,  &ordinal,    &device_pointer,
                      &host_pointer, &range_start, &range_size, &owner};
    static_assert(std::size(attributes) == std::size(values));
    {
        CurrentContext current(driver_, contexts_[0]);
        KJARNI_CU(driver_, PointerGetAttributes, static_cast<unsigned int>(std::size(attributes)), attributes, values,
                  static_cast<CUdeviceptr>(pointer));
    }
    PointerInfo info;
    if (is_managed != 0) {
        info.type = PointerInfo::Type::managed;
    } else if (memory_type == CU_MEMORYTYPE_HOST) {
        info.type = PointerInfo::Type::host;
    } else if (memory_type == CU_MEMORYTYPE_DEVICE || memory_type == CU_MEMORYTYPE_UNIFIED) {
        info.type = PointerInfo::Type::device;
    }
    if (info.type == PointerInfo::Type::device || info.type == PointerInfo::Type::managed) {
        if (ordinal >= 0) info.device = api_.device_from_native(static_cast<std::uintptr_t>(ordinal));
        for (std::size_t i = 0; i < contexts_.size(); ++i) {
            // The context the memory was allocated in, else (memory pools, another context on the
            // same device) the device it lies on.
            if ((owner != nullptr && owner == contexts_[i]) || (ordinal >= 0 && ordinal == cu_devices_[i])) {
                info.device_index = i;
                break;
            }
        }
    } else if (info.type == PointerInfo::Type::host && owner != nullptr) {
        for (std::size_t i = 0; i < contexts_.size(); ++i) {
            if (owner == contexts_[i]) info.device_index = i;
        }
    }
    info.device_pointer = static_cast<std::uintptr_t>(device_pointer);
    info.host_pointer = reinterpret_cast<std::uintptr_t>(host_pointer);
    info.range_start = static_cast<std::uintptr_t>(range_start);
    info.range_size = range_size;
    return info;
}

std::shared_ptr<Buffer> CudaContext::adopt_buffer(std::size_t device_index, std::uintptr_t native,
                                                  std::optional<std::size_t> size, bool take_ownership) {
    const PointerInfo info = pointer_info(native);
    if (info.type != PointerInfo::Type::device && info.type != PointerInfo::Type::managed) {
        throw ArgumentError("native", fmt::format("0x{:x} is {}, not device memory", native, type_name(info.type)));
    }
    if (info.type == PointerInfo::Type::device && info.device_index != device_index) {
        throw ArgumentError("native",
                            fmt::format("0x{:x} is memory of device '{}', not of '{}'", native,
                                        info.device ? info.device->name() : "unknown", devices_[device_index]->name()));
    }
    // The allocation around the address, for the size check (cuMemGetAddressRange knows every
    // allocation of the driver's, pools' and other libraries' included).
    CUdeviceptr base = 0;
    std::size_t range = 0;
    {
        CurrentContext current(driver_, contexts_[device_index]);
        KJARNI_CU(driver_, MemGetAddressRange, &base, &range, static_cast<CUdeviceptr>(native));
    }
    const std::size_t available = static_cast<std::size_t>(base + range - native);
    const std::size_t bytes = size.value_or(available);
    if (bytes > available) {
        throw ArgumentError("size", fmt::format("{} bytes from 0x{:x} run past the end of its allocation ({} bytes "
                                                "left)",
                                                bytes, native, available));
    }
    if (take_ownership && native != base) {
        throw ArgumentError("native", fmt::format("0x{:x} lies {} bytes into an allocation: only an allocation's start "
                                                  "can be owned (cuMemFree frees whole allocations)",
                                                  native, native - base));
    }
    auto self = std::static_pointer_cast<CudaContext>(shared_from_this());
    // Borrowed memory names the context as its owner, which CudaBuffer reads as "not ours to free".
    std::shared_ptr<const void> owner = take_ownership ? nullptr : std::shared_ptr<const void>(self);
    return std::make_shared<CudaBuffer>(self, device_index, bytes, static_cast<CUdeviceptr>(native), std::move(owner));
}

std::shared_ptr<HostAllocation> CudaContext::register_host(void* data, std::size_t size, HostAllocationFlags flags) {
    if (flags.write_combined) {
        throw UnsupportedError("the cuda backend cannot make registered host memory write-combined "
                               "(cuMemHostRegister has no such flag): allocate it with HostMemory::allocate");
    }
    return std::make_shared<CudaRegisteredHostMemory>(std::static_pointer_cast<CudaContext>(shared_from_this()), data,
                                                      size, flags);
}

PitchedAllocation CudaContext::allocate_pitched(std::size_t device_index, std::size_t width, std::size_t height,
                                                std::size_t element_size) {
    CUdeviceptr pointer = 0;
    std::size_t pitch = 0;
    {
        CurrentContext current(driver_, contexts_[device_index]);
        KJARNI_CU(driver_, MemAllocPitch, &pointer, &pitch, width, height, static_cast<unsigned int>(element_size));
    }
    auto self = std::static_pointer_cast<CudaContext>(shared_from_this());
    // No owner: the buffer frees the allocation.
    return {std::make_shared<CudaBuffer>(self, device_index, pitch * height, pointer, nullptr), pitch};
}

}  // namespace kjarni::backend::cuda
