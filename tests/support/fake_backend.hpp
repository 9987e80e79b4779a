#pragma once
// A backend Api with one platform and one device that exist only in memory: lets tests put a
// device of another platform next to a real one without a second driver.

#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "kjarni/device.hpp"
#include "kjarni/error.hpp"

namespace kjarni::test {

class FakeApi;

class FakeDevice final : public backend::Device {
public:
    explicit FakeDevice(backend::Platform& platform) : platform_(platform) {
        params_.max_local_sizes = {1};
        params_.max_num_groups = {1};
    }
    backend::Platform& platform() const override { return platform_; }
    const std::string& name() const override { return name_; }
    const DeviceParameters& params() const override { return params_; }
    const DeviceProperties& properties() const override { return properties_; }
    const std::vector<DeviceAttribute>& attributes() const override { return attributes_; }
    std::uintptr_t native_handle() const override { return 42; }

private:
    backend::Platform& platform_;
    std::string name_ = "fake device";
    DeviceParameters params_;
    DeviceProperties properties_;
    std::vector<DeviceAttribute> attributes_;
};

class FakePlatform final : public backend::Platform {
public:
    explicit FakePlatform(backend::Api& api) : api_(api) { devices_.push_back(std::make_shared<FakeDevice>(*this)); }
    backend::Api& api() const override { return api_; }
    const std::string& name() const override { return name_; }
    const std::string& vendor() const override { return name_; }
    const std::string& version() const override { return name_; }
    const std::vector<std::shared_ptr<backend::Device>>& devices() const override { return devices_; }
    std::uintptr_t native_handle() const override { return 7; }

private:
    backend::Api& api_;
    std::string name_ = "fake platform";
    std::vector<std::shared_ptr<backend::Device>> devices_;
};

class FakeApi final : public backend::Api {
public:
    FakeApi() { platforms_.push_back(std::make_shared<FakePlatform>(*this)); }
    ApiId id() const override { return ApiId::opencl(); }
    const std::string& unavailable_reason() const override { return reason_; }
    std::string driver_version() const override { return "fake"; }
    const std::vector<std::shared_ptr<backend::Platform>>& platforms() const override { return platforms_; }
    std::shared_ptr<backend::Device> device_from_native(std::uintptr_t) const override {
        return platforms_[0]->devices()[0];
    }
    std::shared_ptr<backend::Context> create_context(std::span<const std::shared_ptr<backend::Device>>) override {
        throw UnsupportedError("the fake API makes no contexts");
    }
    std::shared_ptr<backend::Context> context_from_native(std::span<const std::uintptr_t>, bool) override {
        throw UnsupportedError("the fake API makes no contexts");
    }

    /// The fake device, as a public handle.
    kjarni::Device device() const { return kjarni::Device(platforms_[0]->devices()[0]); }

private:
    std::string reason_;
    std::vector<std::shared_ptr<backend::Platform>> platforms_;
};

}  // namespace kjarni::test
