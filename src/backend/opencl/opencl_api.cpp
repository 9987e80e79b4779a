#include "backend/opencl/opencl_api.hpp"

#include <CL/cl_ext.h>

#include "backend/opencl/opencl_context.hpp"
#include "backend/opencl/opencl_device.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_platform.hpp"
#include "backend/unavailable_api.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

namespace opencl {

namespace {

class OpenClApi final : public Api {
public:
    OpenClApi() {
        cl_uint count = 0;
        const cl_int status = cl().clGetPlatformIDs(0, nullptr, &count);
        if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && count == 0)) {
            reason_ = "the OpenCL ICD loader found no platform (no driver registered in /etc/OpenCL/vendors)";
            return;
        }
        check(status, "clGetPlatformIDs");
        std::vector<cl_platform_id> ids(count);
        check(cl().clGetPlatformIDs(count, ids.data(), nullptr), "clGetPlatformIDs");
        for (cl_platform_id id : ids) platforms_.push_back(std::make_shared<OpenClPlatform>(*this, id));
    }

    ApiId id() const override { return ApiId::opencl(); }
    const std::string& unavailable_reason() const override { return reason_; }
    std::string driver_version() const override { return "OpenCL ICD loader " + cl().path; }
    const std::vector<std::shared_ptr<Platform>>& platforms() const override { return platforms_; }

    std::shared_ptr<Device> device_from_native(std::uintptr_t native) const override {
        for (const auto& platform : platforms_) {
            for (const auto& device : platform->devices()) {
                if (device->native_handle() == native) return device;
            }
        }
        throw NotFoundError("no OpenCL device has the handle given (cl_device_id " + std::to_string(native) + ")");
    }

    std::shared_ptr<Context> create_context(std::span<const std::shared_ptr<Device>> devices) override {
        return OpenClContext::create(*this, devices);
    }

    std::shared_ptr<Context> context_from_native(std::span<const std::uintptr_t> natives,
                                                 bool take_ownership) override {
        if (natives.size() != 1) {
            throw ArgumentError("native_contexts",
                                "OpenCL takes exactly one cl_context (it spans all its devices), got " +
                                    std::to_string(natives.size()));
        }
        return OpenClContext::from_native(*this, reinterpret_cast<cl_context>(natives[0]), take_ownership);
    }

private:
    std::string reason_;
    std::vector<std::shared_ptr<Platform>> platforms_;
};

}  // namespace

}  // namespace opencl

std::unique_ptr<Api> make_opencl_api() {
    std::string reason;
    if (opencl::opencl_library(reason) == nullptr) {
        return std::make_unique<UnavailableApi>(ApiId::opencl(), reason);
    }
    try {
        auto api = std::make_unique<opencl::OpenClApi>();
        if (!api->unavailable_reason().empty()) {
            return std::make_unique<UnavailableApi>(ApiId::opencl(), api->unavailable_reason());
        }
        return api;
    } catch (const Error& e) {
        // A driver that fails while being enumerated makes the API unusable, not the program.
        return std::make_unique<UnavailableApi>(ApiId::opencl(), std::string("enumeration failed: ") + e.what());
    }
}

}  // namespace kjarni::backend
