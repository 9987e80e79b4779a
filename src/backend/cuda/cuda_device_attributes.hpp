#pragma once
// The table of CUdevice_attribute values and their names, for Device::attributes().

#include <span>

namespace kjarni::backend::cuda {

struct DeviceAttributeName {
    int value;
    const char* name;
};

/// In the order of cuda.h; aliases share a value.
std::span<const DeviceAttributeName> device_attribute_names() noexcept;

}  // namespace kjarni::backend::cuda
