#pragma once
// Turning CUresult codes into kjarni exceptions. Every driver call in the backend goes through
// check() (or throw_cuda_error() where a code needs looking at first).

#include <cuda.h>

#include <cstddef>
#include <string>

#include "backend/cuda/cuda_driver.hpp"

namespace kjarni::backend::cuda {

/// "CUDA_ERROR_OUT_OF_MEMORY", or "CUresult 12345" when the driver does not know the code.
std::string error_name(const Driver& driver, CUresult result);
/// The driver's description of the code ("out of memory"), or an empty string.
std::string error_description(const Driver& driver, CUresult result);

/// Throws OutOfMemoryError for CUDA_ERROR_OUT_OF_MEMORY, BackendError("CUDA", ...) otherwise.
/// `detail` defaults to the driver's description of the code.
[[noreturn]] void throw_cuda_error(const Driver& driver, CUresult result, const char* call,
                                   const std::string& detail = {});

/// cuMemAlloc of `bytes` (> 0). Its failures name the bytes asked for, as OpenCL's do
/// ("1073741824 bytes requested: out of memory"): OutOfMemoryError when the device is full.
CUdeviceptr allocate_device_memory(const Driver& driver, std::size_t bytes);

inline void check(const Driver& driver, CUresult result, const char* call) {
    if (result != CUDA_SUCCESS) throw_cuda_error(driver, result, call);
}

}  // namespace kjarni::backend::cuda

/// Calls driver.fn(args...) and throws on failure, naming the call "cu<fn>".
#define KJARNI_CU(driver, fn, ...) ::kjarni::backend::cuda::check((driver), (driver).fn(__VA_ARGS__), "cu" #fn)
