#pragma once
/// What an address is and how much memory a device has left (PyCUDA's
/// pointer_attribute and mem_get_info). \file

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kjarni/context.hpp"
#include "kjarni/device.hpp"

namespace kjarni {

/// What the driver knows about an address: the kind of memory it points into and, where it is
/// device or managed memory, the device and the allocation.
struct PointerAttributes {
    enum class MemoryType : std::uint8_t {
        unregistered,  // ordinary host memory the driver does not know
        host,          // page-locked host memory (allocated or registered)
        device,        // device memory
        managed,       // managed (unified) memory
    };
    MemoryType type = MemoryType::unregistered;
    /// The device the memory lies on (device and managed memory, where the driver says).
    std::optional<Device> device;
    /// That device's position in the context asked, when the memory belongs to one of its
    /// devices (page-locked host memory: to the context it was locked for).
    std::optional<std::size_t> device_index;
    /// The address kernels use and the one the host uses (0 where there is none).
    std::uintptr_t device_pointer = 0;
    std::uintptr_t host_pointer = 0;
    /// The allocation the address lies in (start 0 where the driver does not say).
    std::uintptr_t range_start = 0;
    std::size_t range_size = 0;
};

/// What the driver knows of `pointer` (any address: a host pointer, a CUdeviceptr). CUDA:
/// cuPointerGetAttributes. OpenCL has no such query: UnsupportedError.
PointerAttributes pointer_attributes(const Context& context, std::uintptr_t pointer);
inline PointerAttributes pointer_attributes(const Context& context, const void* pointer) {
    return pointer_attributes(context, reinterpret_cast<std::uintptr_t>(pointer));
}

/// The free and total global memory of a device.
struct MemoryInfo {
    /// Bytes free now, where the API can tell (CUDA cuMemGetInfo; OpenCL devices with
    /// cl_amd_device_attribute_query); nullopt elsewhere.
    std::optional<std::uint64_t> free;
    /// Bytes of global memory of the device.
    std::uint64_t total = 0;
};

/// The free and total memory of a device (PyCUDA's mem_get_info).
MemoryInfo memory_info(const BoundDevice& device);

}  // namespace kjarni
