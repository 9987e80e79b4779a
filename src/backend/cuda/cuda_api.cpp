#include "backend/cuda/cuda_api.hpp"

#include <fmt/format.h>

#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cuda_driver.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/unavailable_api.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

std::unique_ptr<Api> make_cuda_api() {
    auto unavailable = [](std::string reason) -> std::unique_ptr<Api> {
        return std::make_unique<UnavailableApi>(ApiId::cuda(), std::move(reason));
    };
    std::string why_not;
    std::unique_ptr<cuda::Driver> driver = cuda::Driver::load(why_not);
    if (!driver) return unavailable(why_not);

    // cuInit fails when there is no device, or the driver library does not match the kernel
    // module: both mean CUDA cannot be used here, not that kjarni should stop.
    const CUresult init = driver->Init(0);
    if (init == CUDA_ERROR_NO_DEVICE) return unavailable("no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)");
    if (init != CUDA_SUCCESS) {
        return unavailable(fmt::format("cuInit failed: {} ({})", cuda::error_name(*driver, init),
                                       cuda::error_description(*driver, init)));
    }
    int count = 0;
    const CUresult counted = driver->DeviceGetCount(&count);
    if (counted != CUDA_SUCCESS) {
        return unavailable(fmt::format("cuDeviceGetCount failed: {}", cuda::error_name(*driver, counted)));
    }
    // An API without devices is of no use to anyone; say so instead of listing an empty platform.
    if (count == 0) return unavailable("no CUDA device");

    try {
        return std::make_unique<cuda::CudaApi>(std::move(driver));
    } catch (const Error& error) {
        return unavailable(std::string("CUDA device discovery failed: ") + error.what());
    }
}

}  // namespace kjarni::backend

namespace kjarni::backend::cuda {

CudaApi::CudaApi(std::unique_ptr<Driver> driver) : driver_(std::move(driver)) {
    int version = 0;
    KJARNI_CU(*driver_, DriverGetVersion, &version);
    driver_version_ = driver_version_string(version);
    platforms_.push_back(std::make_shared<CudaPlatform>(*this, driver_version_));
}

CudaApi::~CudaApi() = default;

ApiId CudaApi::id() const { return ApiId::cuda(); }

std::shared_ptr<Device> CudaApi::device_from_native(std::uintptr_t native) const {
    for (const auto& device : platforms_.front()->devices()) {
        if (device->native_handle() == native) return device;
    }
    throw NotFoundError(fmt::format("no CUDA device with ordinal {}", native));
}

std::shared_ptr<Context> CudaApi::create_context(std::span<const std::shared_ptr<Device>> devices) {
    return CudaContext::from_devices(*this, devices);
}

std::shared_ptr<Context> CudaApi::create_context_with(std::span<const std::shared_ptr<Device>> devices,
                                                      const ContextFlags& flags) {
    return CudaContext::from_devices(*this, devices, flags);
}

std::shared_ptr<Context> CudaApi::context_from_native(std::span<const std::uintptr_t> natives, bool take_ownership) {
    return CudaContext::from_native(*this, natives, take_ownership);
}

CudaPlatform::CudaPlatform(CudaApi& api, std::string version) : api_(api), version_(std::move(version)) {
    int count = 0;
    KJARNI_CU(api.driver(), DeviceGetCount, &count);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        devices_.push_back(std::make_shared<CudaDevice>(*this, api.driver(), ordinal));
    }
}

}  // namespace kjarni::backend::cuda
