#pragma once
// A CUDA device: its parameters, properties and raw attributes, read once when it is discovered.

#include <cuda.h>

#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_driver.hpp"

namespace kjarni::backend::cuda {

class CudaPlatform;

class CudaDevice final : public Device {
public:
    /// Queries everything about device `ordinal` (throws BackendError if the driver fails).
    CudaDevice(CudaPlatform& platform, const Driver& driver, int ordinal);

    Platform& platform() const override;
    const std::string& name() const override { return name_; }
    const DeviceParameters& params() const override { return params_; }
    const DeviceProperties& properties() const override { return properties_; }
    const std::vector<DeviceAttribute>& attributes() const override { return attributes_; }
    std::uintptr_t native_handle() const override { return static_cast<std::uintptr_t>(device_); }

    CUdevice cu_device() const noexcept { return device_; }

private:
    int attribute(CUdevice_attribute attribute) const;
    void read_attributes();

    CudaPlatform& platform_;
    const Driver& driver_;
    CUdevice device_ = 0;
    std::string name_;
    DeviceParameters params_;
    DeviceProperties properties_;
    std::vector<DeviceAttribute> attributes_;
};

/// "CUDA 13.0" from cuDriverGetVersion's 13000.
std::string driver_version_string(int version);

}  // namespace kjarni::backend::cuda
