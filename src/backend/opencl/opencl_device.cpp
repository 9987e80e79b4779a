#include "backend/opencl/opencl_device.hpp"

#include <CL/cl_ext.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "backend/opencl/opencl_device_attributes.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_handle.hpp"
#include "backend/opencl/opencl_info.hpp"
#include "backend/opencl/opencl_vendor_queries.hpp"
#include "kjarni/device_facts.hpp"

namespace kjarni::backend::opencl {

namespace {

using namespace vendor;

DeviceType device_type(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU) return DeviceType::gpu;
    if (type & CL_DEVICE_TYPE_CPU) return DeviceType::cpu;
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return DeviceType::accelerator;
    return DeviceType::other;
}

std::string pci_address(unsigned domain, unsigned bus, unsigned device, unsigned function) {
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

}  // namespace

OpenClDevice::OpenClDevice(Platform& platform, cl_device_id id)
    : platform_(platform), id_(id), name_(device_info_string(id, CL_DEVICE_NAME)),
      extensions_(device_info_string(id, CL_DEVICE_EXTENSIONS)) {
    const bool nvidia = has_extension("cl_nv_device_attribute_query");
    const bool amd = has_extension("cl_amd_device_attribute_query");

    params_.type = device_type(device_info<cl_device_type>(id, CL_DEVICE_TYPE));
    params_.compute_units = device_info<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
    params_.local_mem_size = device_info<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
    params_.max_total_local_size = device_info<std::size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    const auto dimensions = device_info<cl_uint>(id, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    params_.max_local_sizes.resize(dimensions);
    check(cl().clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, dimensions * sizeof(std::size_t),
                               params_.max_local_sizes.data(), nullptr),
          "clGetDeviceInfo");

    if (nvidia) {
        params_.warp_size = device_info<cl_uint>(id, nv_warp_size);
    } else if (amd && params_.type == DeviceType::gpu) {
        params_.warp_size = device_info<cl_uint>(id, amd_wavefront_width);
    } else {
        // No portable query exists; 1 is always true (nothing is promised to run in lockstep).
        params_.warp_size = 1;
    }
    // local_mem_banks is set below, once the vendor and compute capability are known.

    // OpenCL has no query for the grid's extent. NVIDIA's driver maps work groups onto CUDA's grid;
    // elsewhere the limit is the range of size_t work-item indices, which we cap at 2^31 - 1 per
    // dimension so that group counts stay representable as int on every device.
    if (nvidia) {
        params_.max_num_groups = {2147483647, 65535, 65535};
    } else {
        params_.max_num_groups.assign(dimensions, 2147483647);
    }
    params_.max_num_groups.resize(dimensions, 65535);

    properties_.vendor = device_info_string(id, CL_DEVICE_VENDOR);
    properties_.driver_version = device_info_string(id, CL_DRIVER_VERSION);
    properties_.total_memory = device_info<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
    properties_.max_allocation_size = device_info<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    properties_.clock_rate_khz = std::uint64_t{device_info<cl_uint>(id, CL_DEVICE_MAX_CLOCK_FREQUENCY)} * 1000;
    properties_.l2_cache_size = device_info<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    std::vector<unsigned char> bytes;
    if (device_info_bytes(id, CL_DEVICE_HOST_UNIFIED_MEMORY, bytes) && bytes.size() >= sizeof(cl_bool)) {
        cl_bool unified = CL_FALSE;
        std::memcpy(&unified, bytes.data(), sizeof unified);
        properties_.unified_memory = unified == CL_TRUE;
    }
    if (nvidia) {
        properties_.compute_capability =
            ComputeCapability{static_cast<int>(device_info<cl_uint>(id, nv_compute_capability_major)),
                              static_cast<int>(device_info<cl_uint>(id, nv_compute_capability_minor))};
        // The slot id is the PCI device number (checked against CUDA's cuDeviceGetPCIBusId on an
        // H100: slot 6 there is "0000:00:06.0"); the extension reports no function number.
        cl_uint domain_id = 0;  // older drivers lack the domain query: domain 0 then
        if (device_info_bytes(id, nv_pci_domain_id, bytes) && bytes.size() >= sizeof domain_id) {
            std::memcpy(&domain_id, bytes.data(), sizeof domain_id);
        }
        properties_.pci_bus_id = pci_address(domain_id, device_info<cl_uint>(id, nv_pci_bus_id),
                                             device_info<cl_uint>(id, nv_pci_slot_id), 0);
    } else if (has_extension("cl_khr_pci_bus_info")) {
        const auto info = device_info<cl_device_pci_bus_info_khr>(id, CL_DEVICE_PCI_BUS_INFO_KHR);
        properties_.pci_bus_id = pci_address(info.pci_domain, info.pci_bus, info.pci_device, info.pci_function);
    }
    attributes_ = query_device_attributes(id);
    // The bank count agrees with kjarni::characterize (the vendors' documentation), which reads
    // the facts gathered above.
    characterize::DeviceFacts facts;
    facts.vendor = properties_.vendor;
    facts.type = params_.type;
    facts.compute_capability = properties_.compute_capability;
    params_.local_mem_banks = characterize::local_mem_banks_parameter(facts);
}

std::optional<std::size_t> OpenClDevice::struct_argument_count() const {
    // Raw OpenCL calls in a context of its own: the public layer's program machinery is above
    // this one, and the answer is wanted only for a few old PoCL versions.
    cl_int status = CL_SUCCESS;
    cl_device_id device = id_;
    Handle<cl_context> context(cl().clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status));
    check(status, "clCreateContext");
    const char* source = "struct two_things { long a; long b; };\n"
                         "__kernel void test_knl(struct two_things x) { }\n";
    const std::size_t length = std::char_traits<char>::length(source);
    Handle<cl_program> program(cl().clCreateProgramWithSource(context.get(), 1, &source, &length, &status));
    check(status, "clCreateProgramWithSource");
    check(cl().clBuildProgram(program.get(), 1, &device, "", nullptr, nullptr), "clBuildProgram");
    Handle<cl_kernel> kernel(cl().clCreateKernel(program.get(), "test_knl", &status));
    check(status, "clCreateKernel");
    cl_uint count = 0;
    check(cl().clGetKernelInfo(kernel.get(), CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr), "clGetKernelInfo");
    return count;
}

bool OpenClDevice::has_extension(const std::string& name) const {
    // Extensions are a space-separated list: match whole words only.
    std::size_t pos = 0;
    while ((pos = extensions_.find(name, pos)) != std::string::npos) {
        const bool starts = pos == 0 || extensions_[pos - 1] == ' ';
        const std::size_t end = pos + name.size();
        const bool ends = end == extensions_.size() || extensions_[end] == ' ';
        if (starts && ends) return true;
        pos = end;
    }
    return false;
}

}  // namespace kjarni::backend::opencl
