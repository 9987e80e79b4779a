#include "backend/opencl/opencl_info.hpp"

namespace kjarni::backend::opencl {

namespace {

std::string trimmed(std::vector<char> chars) {
    std::string s(chars.data());  // stops at the terminating NUL the API writes
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

}  // namespace

bool device_info_bytes(cl_device_id device, cl_device_info what, std::vector<unsigned char>& out) {
    std::size_t size = 0;
    if (cl().clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS) return false;
    out.assign(size, 0);
    return size == 0 || cl().clGetDeviceInfo(device, what, size, out.data(), nullptr) == CL_SUCCESS;
}

std::string device_info_string(cl_device_id device, cl_device_info what) {
    std::size_t size = 0;
    check(cl().clGetDeviceInfo(device, what, 0, nullptr, &size), "clGetDeviceInfo");
    std::vector<char> chars(size + 1, '\0');
    check(cl().clGetDeviceInfo(device, what, size, chars.data(), nullptr), "clGetDeviceInfo");
    return trimmed(std::move(chars));
}

std::string platform_info_string(cl_platform_id platform, cl_platform_info what) {
    std::size_t size = 0;
    check(cl().clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo");
    std::vector<char> chars(size + 1, '\0');
    check(cl().clGetPlatformInfo(platform, what, size, chars.data(), nullptr), "clGetPlatformInfo");
    return trimmed(std::move(chars));
}

}  // namespace kjarni::backend::opencl
