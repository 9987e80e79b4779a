// What a device offers for managed / shared virtual memory, read from the raw attributes its
// backend reports (CUDA device attributes, CL_DEVICE_SVM_CAPABILITIES), so that any Device, a
// fake one in tests included, answers without a driver call.

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "backend/backend.hpp"
#include "kjarni/managed_memory.hpp"

namespace kjarni {

namespace {

// CL_DEVICE_SVM_CAPABILITIES bits (cl.h), repeated so that the public layer needs no vendor header.
constexpr std::int64_t svm_coarse_grain_buffer_bit = 1 << 0;
constexpr std::int64_t svm_fine_grain_buffer_bit = 1 << 1;
constexpr std::int64_t svm_fine_grain_system_bit = 1 << 2;
constexpr std::int64_t svm_atomics_bit = 1 << 3;

std::optional<std::int64_t> integer_attribute(const Device& device, std::string_view name) {
    const auto value = device.attribute(name);
    if (!value) return std::nullopt;
    if (const auto* integer = std::get_if<std::int64_t>(&*value)) return *integer;
    return std::nullopt;
}

bool flag_attribute(const Device& device, std::string_view name) {
    return integer_attribute(device, name).value_or(0) != 0;
}

// "OpenCL 2.1 ..." -> true for 2.1 and later.
bool opencl_version_at_least_2_1(const Device& device) {
    const auto value = device.attribute("CL_DEVICE_VERSION");
    const auto* text = value ? std::get_if<std::string>(&*value) : nullptr;
    unsigned major = 0, minor = 0;
    if (text == nullptr || std::sscanf(text->c_str(), "OpenCL %u.%u", &major, &minor) != 2) return false;
    return major > 2 || (major == 2 && minor >= 1);
}

}  // namespace

std::string ManagedMemoryCapabilities::missing() const {
    if (supported()) return "";
    return "neither CUDA managed memory (CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) nor OpenCL shared virtual memory "
           "(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER in CL_DEVICE_SVM_CAPABILITIES, OpenCL 2.0+)";
}

ManagedMemoryCapabilities managed_memory_capabilities(const Device& device) {
    ManagedMemoryCapabilities caps;
    if (detail::backend_of(device)->platform().api().id() == ApiId::cuda()) {
        caps.managed_memory = flag_attribute(device, "MANAGED_MEMORY");
        caps.concurrent_managed_access = caps.managed_memory && flag_attribute(device, "CONCURRENT_MANAGED_ACCESS");
        caps.pageable_memory_access = flag_attribute(device, "PAGEABLE_MEMORY_ACCESS");
        caps.prefetch = caps.concurrent_managed_access;
        return caps;
    }
    const std::int64_t svm = integer_attribute(device, "CL_DEVICE_SVM_CAPABILITIES").value_or(0);
    caps.svm_coarse_grain_buffer = (svm & svm_coarse_grain_buffer_bit) != 0;
    caps.svm_fine_grain_buffer = (svm & svm_fine_grain_buffer_bit) != 0;
    caps.svm_fine_grain_system = (svm & svm_fine_grain_system_bit) != 0;
    caps.svm_atomics = (svm & svm_atomics_bit) != 0;
    caps.prefetch = caps.svm_coarse_grain_buffer && opencl_version_at_least_2_1(device);
    return caps;
}

}  // namespace kjarni
