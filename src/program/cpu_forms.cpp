#include "program/cpu_forms.hpp"

#include <atomic>

#include "kjarni/device_parameters.hpp"

namespace kjarni::detail {

namespace {

std::atomic<bool> cpu_code_allowed{true};

}  // namespace

bool cpu_code(const BoundDevice& device) {
    return cpu_code_allowed.load(std::memory_order_relaxed) && device.params().type == DeviceType::cpu;
}

void allow_cpu_code(bool allow) { cpu_code_allowed.store(allow, std::memory_order_relaxed); }

}  // namespace kjarni::detail
