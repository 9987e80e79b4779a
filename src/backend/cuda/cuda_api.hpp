#pragma once
// The CUDA Api and its one Platform. This header is free of vendor headers: the registry includes
// it to call make_cuda_api().

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace kjarni::backend {

/// Loads libcuda.so.1, initializes the driver and discovers the devices. Never throws: when CUDA
/// cannot be used here the result is an UnavailableApi that says why.
std::unique_ptr<Api> make_cuda_api();

}  // namespace kjarni::backend

namespace kjarni::backend::cuda {

struct Driver;
class CudaPlatform;

class CudaApi final : public Api {
public:
    /// Discovers the devices; the driver must be initialized (cuInit) already.
    explicit CudaApi(std::unique_ptr<Driver> driver);
    ~CudaApi() override;

    ApiId id() const override;
    const std::string& unavailable_reason() const override { return no_reason_; }
    std::string driver_version() const override { return driver_version_; }
    const std::vector<std::shared_ptr<Platform>>& platforms() const override { return platforms_; }
    std::shared_ptr<Device> device_from_native(std::uintptr_t native) const override;
    std::shared_ptr<Context> create_context(std::span<const std::shared_ptr<Device>> devices) override;
    std::shared_ptr<Context> context_from_native(std::span<const std::uintptr_t> natives, bool take_ownership) override;
    /// Contexts of kjarni's own or primary contexts with flags (CudaContext::from_devices).
    std::shared_ptr<Context> create_context_with(std::span<const std::shared_ptr<Device>> devices,
                                                 const ContextFlags& flags) override;

    const Driver& driver() const noexcept { return *driver_; }

private:
    std::unique_ptr<Driver> driver_;
    std::string driver_version_;
    std::string no_reason_;
    std::vector<std::shared_ptr<Platform>> platforms_;
};

/// CUDA has one platform, holding every device the driver reports.
class CudaPlatform final : public Platform {
public:
    CudaPlatform(CudaApi& api, std::string version);

    Api& api() const override { return api_; }
    const std::string& name() const override { return name_; }
    const std::string& vendor() const override { return vendor_; }
    const std::string& version() const override { return version_; }
    const std::vector<std::shared_ptr<Device>>& devices() const override { return devices_; }
    std::uintptr_t native_handle() const override { return 0; }

private:
    CudaApi& api_;
    std::string name_ = "CUDA";
    std::string vendor_ = "NVIDIA Corporation";
    std::string version_;
    std::vector<std::shared_ptr<Device>> devices_;
};

}  // namespace kjarni::backend::cuda
