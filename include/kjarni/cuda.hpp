#pragma once
/// \file
/// Interoperation with code that calls the CUDA driver API itself: the native handles of kjarni's
/// objects as CUDA's own types, and kjarni objects over native handles. Opt-in: this header includes
/// <cuda.h> (the CUDA toolkit's), which no other kjarni header does, so a program that never calls
/// CUDA directly never needs the toolkit's headers.
///
/// Every getter checks that its object belongs to CUDA and throws ArgumentError naming the argument
/// when it belongs to another API (an OpenCL buffer has no CUdeviceptr). Handles are borrowed: they
/// stay valid as long as the kjarni object they came from (or a copy of it) lives.

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kjarni/api.hpp"
#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/device.hpp"
#include "kjarni/error.hpp"
#include "kjarni/platform.hpp"
#include "kjarni/program.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::cuda {

namespace detail {

inline void require_cuda(const Api& api, const char* argument) {
    if (!(api.id() == ApiId::cuda())) throw ArgumentError(argument, "belongs to " + api.shortcut() + ", not to CUDA");
}

}  // namespace detail

/// The device (CUDA's CUdevice is the device's ordinal).
inline CUdevice device(const Device& device) {
    detail::require_cuda(device.platform().api(), "device");
    return static_cast<CUdevice>(device.native_handle());
}

/// The CUDA context of one of the context's devices (its primary context unless the context was
/// made from native contexts).
inline CUcontext context(const Context& context, std::size_t device_index = 0) {
    detail::require_cuda(context.api(), "context");
    return reinterpret_cast<CUcontext>(context.native_handle(device_index));
}

/// The queue's stream.
inline CUstream stream(const Queue& queue) {
    detail::require_cuda(queue.device().context().api(), "queue");
    return reinterpret_cast<CUstream>(queue.native_handle());
}

/// The device address of the buffer's first byte (its allocation's start plus its offset).
inline CUdeviceptr device_pointer(const Buffer& buffer) {
    detail::require_cuda(buffer.device().context().api(), "buffer");
    return static_cast<CUdeviceptr>(buffer.native_handle() + buffer.offset());
}

/// The kernel's function on one of its program's devices.
inline CUfunction function(const Kernel& kernel, const BoundDevice& device) {
    detail::require_cuda(device.context().api(), "device");
    return reinterpret_cast<CUfunction>(kernel.native_handle(device));
}

/// A Buffer over device memory allocated elsewhere (cuMemAlloc, CuPy, PyTorch), without a copy;
/// the rules of Buffer::from_backend_buffer (ownership, keep_alive, the size check) apply.
inline Buffer wrap_device_pointer(const BoundDevice& device, CUdeviceptr pointer,
                                  std::optional<std::size_t> size = std::nullopt, bool take_ownership = false,
                                  std::shared_ptr<const void> keep_alive = {}) {
    detail::require_cuda(device.context().api(), "device");
    return Buffer::from_backend_buffer(device, static_cast<std::uintptr_t>(pointer), size, take_ownership,
                                       std::move(keep_alive));
}

/// A Context over existing CUDA contexts, one per device; the rules of
/// Context::from_backend_contexts (ownership, retaining) apply.
inline Context wrap_contexts(std::span<const CUcontext> contexts, bool take_ownership = false) {
    std::vector<std::uintptr_t> natives;
    natives.reserve(contexts.size());
    for (CUcontext c : contexts) natives.push_back(reinterpret_cast<std::uintptr_t>(c));
    return Context::from_backend_contexts(Api::from_api_id(ApiId::cuda()), natives, take_ownership);
}

/// A Context over CUDA devices by CUdevice (their primary contexts).
inline Context context_for_devices(std::span<const CUdevice> devices) {
    std::vector<std::uintptr_t> natives;
    natives.reserve(devices.size());
    for (CUdevice d : devices) natives.push_back(static_cast<std::uintptr_t>(d));
    return Context::from_backend_devices(Api::from_api_id(ApiId::cuda()), natives);
}

}  // namespace kjarni::cuda
