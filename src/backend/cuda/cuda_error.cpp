#include "backend/cuda/cuda_error.hpp"

#include <fmt/format.h>

#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

std::string error_name(const Driver& driver, CUresult result) {
    const char* name = nullptr;
    if (driver.GetErrorName != nullptr && driver.GetErrorName(result, &name) == CUDA_SUCCESS && name != nullptr) {
        return name;
    }
    return fmt::format("CUresult {}", static_cast<int>(result));
}

std::string error_description(const Driver& driver, CUresult result) {
    const char* text = nullptr;
    if (driver.GetErrorString != nullptr && driver.GetErrorString(result, &text) == CUDA_SUCCESS && text != nullptr) {
        return text;
    }
    return {};
}

void throw_cuda_error(const Driver& driver, CUresult result, const char* call, const std::string& detail) {
    const std::string name = error_name(driver, result);
    const std::string text = detail.empty() ? error_description(driver, result) : detail;
    if (result == CUDA_ERROR_OUT_OF_MEMORY) {
        throw OutOfMemoryError("CUDA", call, static_cast<std::int64_t>(result), name, text);
    }
    throw BackendError("CUDA", call, static_cast<std::int64_t>(result), name, text);
}

CUdeviceptr allocate_device_memory(const Driver& driver, std::size_t bytes) {
    CUdeviceptr pointer = 0;
    const CUresult result = driver.MemAlloc(&pointer, bytes);
    if (result != CUDA_SUCCESS)
        throw_cuda_error(driver, result, "cuMemAlloc",
                         fmt::format("{} bytes requested: {}", bytes, error_description(driver, result)));
    return pointer;
}

}  // namespace kjarni::backend::cuda
