#include "backend/cuda/cuda_device.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <unordered_map>

#include "backend/cuda/cuda_api.hpp"
#include "backend/cuda/cuda_device_attributes.hpp"
#include "backend/cuda/cuda_error.hpp"

namespace kjarni::backend::cuda {

namespace {

std::size_t to_size(int value) { return value > 0 ? static_cast<std::size_t>(value) : 0; }
std::uint64_t to_u64(int value) { return value > 0 ? static_cast<std::uint64_t>(value) : 0; }

}  // namespace

std::string driver_version_string(int version) {
    return fmt::format("CUDA {}.{}", version / 1000, (version % 1000) / 10);
}

CudaDevice::CudaDevice(CudaPlatform& platform, const Driver& driver, int ordinal)
    : platform_(platform), driver_(driver) {
    KJARNI_CU(driver_, DeviceGet, &device_, ordinal);

    std::array<char, 256> name{};
    KJARNI_CU(driver_, DeviceGetName, name.data(), static_cast<int>(name.size()), device_);
    name_ = std::string(name.data(), strnlen(name.data(), name.size()));

    params_.compute_units = to_size(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
    params_.local_mem_size = to_size(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
    // Shared memory has had 32 banks of 4 bytes on every architecture since Fermi.
    params_.local_mem_banks = 32;
    params_.max_local_sizes = {to_size(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)),
                               to_size(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)),
                               to_size(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z))};
    params_.max_num_groups = {to_size(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)),
                              to_size(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)),
                              to_size(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z))};
    params_.max_total_local_size = to_size(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    params_.warp_size = to_size(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE));
    params_.type = DeviceType::gpu;

    int driver_version = 0;
    KJARNI_CU(driver_, DriverGetVersion, &driver_version);
    std::size_t total_memory = 0;
    KJARNI_CU(driver_, DeviceTotalMem, &total_memory, device_);

    properties_.vendor = "NVIDIA Corporation";
    properties_.driver_version = driver_version_string(driver_version);
    properties_.total_memory = total_memory;
    properties_.max_allocation_size = total_memory;
    properties_.clock_rate_khz = to_u64(attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE));
    properties_.memory_clock_rate_khz = to_u64(attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE));
    properties_.memory_bus_width_bits = to_u64(attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
    properties_.l2_cache_size = to_u64(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
    properties_.compute_capability = ComputeCapability{attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                                                       attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
    // "0000:65:00.0" needs 13 bytes; the driver writes at most len bytes including the terminator.
    std::array<char, 64> bus_id{};
    KJARNI_CU(driver_, DeviceGetPCIBusId, bus_id.data(), static_cast<int>(bus_id.size()), device_);
    properties_.pci_bus_id = std::string(bus_id.data(), strnlen(bus_id.data(), bus_id.size()));
    properties_.unified_memory = attribute(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) != 0;

    read_attributes();
}

Platform& CudaDevice::platform() const { return platform_; }

int CudaDevice::attribute(CUdevice_attribute which) const {
    int value = 0;
    KJARNI_CU(driver_, DeviceGetAttribute, &value, which, device_);
    return value;
}

void CudaDevice::read_attributes() {
    // Aliases share a value: ask the driver once per value.
    std::unordered_map<int, std::int64_t> known;
    for (const DeviceAttributeName& entry : device_attribute_names()) {
        auto found = known.find(entry.value);
        if (found == known.end()) {
            int value = 0;
            const CUresult result =
                driver_.DeviceGetAttribute(&value, static_cast<CUdevice_attribute>(entry.value), device_);
            // A driver older than the headers rejects the newest attributes (CUDA_ERROR_INVALID_VALUE),
            // and some platforms refuse others (CUDA_ERROR_NOT_SUPPORTED). Those are left out: one
            // exotic attribute must not make the whole device unusable. The attributes kjarni itself
            // relies on were read above, and failures there do throw.
            if (result != CUDA_SUCCESS) continue;
            found = known.emplace(entry.value, value).first;
        }
        attributes_.push_back(DeviceAttribute{entry.name, found->second});
    }
    const ComputeCapability& cc = *properties_.compute_capability;
    attributes_.push_back(DeviceAttribute{"COMPUTE_CAPABILITY", std::vector<std::int64_t>{cc.major, cc.minor}});
    attributes_.push_back(DeviceAttribute{"TOTAL_MEMORY", static_cast<std::int64_t>(properties_.total_memory)});
}

}  // namespace kjarni::backend::cuda
