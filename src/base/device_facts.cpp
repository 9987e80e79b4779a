#include "kjarni/device_facts.hpp"

#include <fmt/format.h>

namespace kjarni::characterize {

namespace {

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace

Vendor vendor_of(std::string_view vendor) {
    if (contains(vendor, "NVIDIA")) return Vendor::nvidia;
    if (contains(vendor, "Advanced Micro Devices") || contains(vendor, "AMD")) return Vendor::amd;
    if (contains(vendor, "Intel")) return Vendor::intel;
    if (contains(vendor, "Apple")) return Vendor::apple;
    if (contains(vendor, "ARM") || contains(vendor, "Arm")) return Vendor::arm;
    if (contains(vendor, "Qualcomm")) return Vendor::qualcomm;
    return Vendor::other;
}

std::optional<LocalMemoryBanks> local_memory_banks(const DeviceFacts& facts) {
    if (facts.type == DeviceType::cpu) return std::nullopt;
    switch (vendor_of(facts.vendor)) {
    case Vendor::nvidia:
        // CUDA C Programming Guide, "Shared Memory" per compute capability: 1.x 16 banks of 32 bits,
        // conflicts within a half-warp; 2.0 and later 32 banks, conflicts within a warp (3.x in its
        // default 4-byte bank mode).
        if (!facts.compute_capability) return std::nullopt;
        if (facts.compute_capability->major < 2) return LocalMemoryBanks{16, 4, 16};
        return LocalMemoryBanks{32, 4, 32};
    case Vendor::amd:
        // AMD's GCN architecture and OpenCL optimization guides: the LDS has 32 banks of 4 bytes;
        // bank conflicts are resolved among 32 lanes (half a wave64) at a time. RDNA keeps both.
        if (facts.type != DeviceType::gpu) return std::nullopt;
        return LocalMemoryBanks{32, 4, 32};
    default: return std::nullopt;
    }
}

std::string local_memory_banks_unknown_reason(const DeviceFacts& facts) {
    if (local_memory_banks(facts)) return {};
    if (facts.type == DeviceType::cpu) return "a CPU serves local memory from its caches: it has no banks";
    const Vendor vendor = vendor_of(facts.vendor);
    if (vendor == Vendor::nvidia) return "the device's compute capability is unknown";
    return fmt::format("kjarni has no vendor data on the local memory banks of '{}' devices", facts.vendor);
}

std::size_t local_mem_banks_parameter(const DeviceFacts& facts) {
    if (const auto banks = local_memory_banks(facts)) return banks->count;
    if (facts.type == DeviceType::cpu) return 1;
    return 32;
}

}  // namespace kjarni::characterize
