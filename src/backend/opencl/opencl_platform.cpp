#include "backend/opencl/opencl_platform.hpp"

#include <cstdio>

#include "backend/opencl/opencl_device.hpp"
#include "backend/opencl/opencl_info.hpp"

namespace kjarni::backend::opencl {

namespace {

int parse_version(const std::string& version) {
    int major = 1, minor = 0;
    // The format is fixed by the specification: "OpenCL<space><major.minor><space><vendor info>".
    if (std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor) != 2) return 100;
    return major * 100 + minor * 10;
}

}  // namespace

OpenClPlatform::OpenClPlatform(Api& api, cl_platform_id id)
    : api_(api), id_(id), name_(platform_info_string(id, CL_PLATFORM_NAME)),
      vendor_(platform_info_string(id, CL_PLATFORM_VENDOR)), version_(platform_info_string(id, CL_PLATFORM_VERSION)),
      version_number_(parse_version(version_)) {
    cl_uint count = 0;
    const cl_int status = cl().clGetDeviceIDs(id, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
    if (status == CL_DEVICE_NOT_FOUND) return;  // a platform with no devices is legal
    check(status, "clGetDeviceIDs");
    std::vector<cl_device_id> ids(count);
    check(cl().clGetDeviceIDs(id, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr), "clGetDeviceIDs");
    for (cl_device_id device : ids) devices_.push_back(std::make_shared<OpenClDevice>(*this, device));
}

}  // namespace kjarni::backend::opencl
