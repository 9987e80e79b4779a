#pragma once
// Typed wrappers over the clGet*Info calls.

#include <string>
#include <vector>

#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_library.hpp"

namespace kjarni::backend::opencl {

template <class T>
T device_info(cl_device_id device, cl_device_info what) {
    T value{};
    check(cl().clGetDeviceInfo(device, what, sizeof(T), &value, nullptr), "clGetDeviceInfo");
    return value;
}

/// Variable-length values (strings, arrays); returns false if the query fails.
bool device_info_bytes(cl_device_id device, cl_device_info what, std::vector<unsigned char>& out);

std::string device_info_string(cl_device_id device, cl_device_info what);
std::string platform_info_string(cl_platform_id platform, cl_platform_info what);

}  // namespace kjarni::backend::opencl
