#pragma once

#include "backend/backend.hpp"
#include "backend/opencl/opencl_library.hpp"

namespace kjarni::backend::opencl {

class OpenClDevice final : public Device {
public:
    OpenClDevice(Platform& platform, cl_device_id id);

    Platform& platform() const override { return platform_; }
    const std::string& name() const override { return name_; }
    const DeviceParameters& params() const override { return params_; }
    const DeviceProperties& properties() const override { return properties_; }
    const std::vector<DeviceAttribute>& attributes() const override { return attributes_; }
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(id_); }

    cl_device_id id() const noexcept { return id_; }
    bool has_extension(const std::string& name) const;
    std::optional<std::size_t> struct_argument_count() const override;

private:
    Platform& platform_;
    cl_device_id id_;
    std::string name_;
    std::string extensions_;
    DeviceParameters params_;
    DeviceProperties properties_;
    std::vector<DeviceAttribute> attributes_;
};

}  // namespace kjarni::backend::opencl
