#pragma once
// Every raw cl_device_info value kjarni reports, under the names the OpenCL headers give them.

#include <vector>

#include "backend/opencl/opencl_library.hpp"
#include "kjarni/device_parameters.hpp"

namespace kjarni::backend::opencl {

std::vector<DeviceAttribute> query_device_attributes(cl_device_id device);

}  // namespace kjarni::backend::opencl
