#pragma once
// How error messages name one device of a context: "device 1 ('NVIDIA H200')".
#include <fmt/format.h>

#include <string>

#include "kjarni/device.hpp"

namespace kjarni::detail {

inline std::string device_label(const BoundDevice& device) {
    return fmt::format("device {} ('{}')", device.index(), device.name());
}

}  // namespace kjarni::detail
