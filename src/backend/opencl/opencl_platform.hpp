#pragma once

#include "backend/backend.hpp"
#include "backend/opencl/opencl_library.hpp"

namespace kjarni::backend::opencl {

class OpenClPlatform final : public Platform {
public:
    OpenClPlatform(Api& api, cl_platform_id id);

    Api& api() const override { return api_; }
    const std::string& name() const override { return name_; }
    const std::string& vendor() const override { return vendor_; }
    const std::string& version() const override { return version_; }
    const std::vector<std::shared_ptr<Device>>& devices() const override { return devices_; }
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(id_); }

    cl_platform_id id() const noexcept { return id_; }
    /// The OpenCL version the platform reports, e.g. 300 for "OpenCL 3.0 ...".
    int version_number() const noexcept { return version_number_; }

private:
    Api& api_;
    cl_platform_id id_;
    std::string name_;
    std::string vendor_;
    std::string version_;
    int version_number_;
    std::vector<std::shared_ptr<Device>> devices_;
};

}  // namespace kjarni::backend::opencl
