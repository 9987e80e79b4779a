#include "kjarni/pointer_attributes.hpp"

#include "backend/backend.hpp"

namespace kjarni {

// The public enumeration mirrors the backend's, value for value.
static_assert(static_cast<int>(PointerAttributes::MemoryType::managed) ==
              static_cast<int>(backend::PointerInfo::Type::managed));
static_assert(static_cast<int>(PointerAttributes::MemoryType::device) ==
              static_cast<int>(backend::PointerInfo::Type::device));
static_assert(static_cast<int>(PointerAttributes::MemoryType::host) ==
              static_cast<int>(backend::PointerInfo::Type::host));

PointerAttributes pointer_attributes(const Context& context, std::uintptr_t pointer) {
    const backend::PointerInfo info = detail::backend_of(context)->pointer_info(pointer);
    PointerAttributes result;
    result.type = static_cast<PointerAttributes::MemoryType>(info.type);
    if (info.device) result.device = detail::BackendAccess::make<Device>(info.device);
    result.device_index = info.device_index;
    result.device_pointer = info.device_pointer;
    result.host_pointer = info.host_pointer;
    result.range_start = info.range_start;
    result.range_size = info.range_size;
    return result;
}

MemoryInfo memory_info(const BoundDevice& device) {
    return {detail::backend_of(device.context())->free_memory(device.index()),
            device.device().properties().total_memory};
}

}  // namespace kjarni
