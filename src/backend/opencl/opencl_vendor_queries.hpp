#pragma once
// cl_device_info values of vendor extensions (cl_nv_device_attribute_query,
// cl_amd_device_attribute_query) that not every cl_ext.h carries.

#include <CL/cl.h>

namespace kjarni::backend::opencl::vendor {

constexpr cl_device_info nv_compute_capability_major = 0x4000;
constexpr cl_device_info nv_compute_capability_minor = 0x4001;
constexpr cl_device_info nv_registers_per_block = 0x4002;
constexpr cl_device_info nv_warp_size = 0x4003;
constexpr cl_device_info nv_gpu_overlap = 0x4004;
constexpr cl_device_info nv_kernel_exec_timeout = 0x4005;
constexpr cl_device_info nv_integrated_memory = 0x4006;
constexpr cl_device_info nv_pci_bus_id = 0x4008;
constexpr cl_device_info nv_pci_slot_id = 0x4009;
constexpr cl_device_info nv_pci_domain_id = 0x400A;
constexpr cl_device_info amd_wavefront_width = 0x4043;

}  // namespace kjarni::backend::opencl::vendor
