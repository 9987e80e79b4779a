#pragma once
/// \file
/// Interoperation with code that calls OpenCL itself: the native handles of kjarni's objects as
/// OpenCL's own types, and kjarni objects over native handles. Opt-in: this header includes
/// <CL/cl.h>, which no other kjarni header does.
///
/// Every getter checks that its object belongs to OpenCL and throws ArgumentError naming the argument
/// when it belongs to another API. Handles are borrowed (not retained for the caller): they stay
/// valid as long as the kjarni object they came from (or a copy of it) lives; call clRetain* to keep
/// one longer.

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

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

namespace kjarni::opencl {

namespace detail {

inline void require_opencl(const Api& api, const char* argument) {
    if (!(api.id() == ApiId::opencl())) {
        throw ArgumentError(argument, "belongs to " + api.shortcut() + ", not to OpenCL");
    }
}

}  // namespace detail

inline cl_platform_id platform(const Platform& platform) {
    detail::require_opencl(platform.api(), "platform");
    return reinterpret_cast<cl_platform_id>(platform.native_handle());
}

inline cl_device_id device(const Device& device) {
    detail::require_opencl(device.platform().api(), "device");
    return reinterpret_cast<cl_device_id>(device.native_handle());
}

/// The context's cl_context (one for all its devices).
inline cl_context context(const Context& context) {
    detail::require_opencl(context.api(), "context");
    return reinterpret_cast<cl_context>(context.native_handle(0));
}

inline cl_command_queue command_queue(const Queue& queue) {
    detail::require_opencl(queue.device().context().api(), "queue");
    return reinterpret_cast<cl_command_queue>(queue.native_handle());
}

/// The cl_mem of the buffer's whole allocation: a view starts buffer.offset() bytes into it (pass
/// that offset to clEnqueue* calls, or make a sub-buffer).
inline cl_mem memory(const Buffer& buffer) {
    detail::require_opencl(buffer.device().context().api(), "buffer");
    return reinterpret_cast<cl_mem>(buffer.native_handle());
}

/// The kernel's cl_kernel on one of its program's devices.
inline cl_kernel kernel(const Kernel& kernel, const BoundDevice& device) {
    detail::require_opencl(device.context().api(), "device");
    return reinterpret_cast<cl_kernel>(kernel.native_handle(device));
}

/// A Buffer over a cl_mem of the context made elsewhere, without a copy; the rules of
/// Buffer::from_backend_buffer (ownership: released with the last handle, else retained; the
/// context and size checks) apply.
inline Buffer wrap_memory(const BoundDevice& device, cl_mem memory, std::optional<std::size_t> size = std::nullopt,
                          bool take_ownership = false, std::shared_ptr<const void> keep_alive = {}) {
    detail::require_opencl(device.context().api(), "device");
    return Buffer::from_backend_buffer(device, reinterpret_cast<std::uintptr_t>(memory), size, take_ownership,
                                       std::move(keep_alive));
}

/// A Context over an existing cl_context (all its devices); with take_ownership it is released
/// with the last kjarni object using it, else retained.
inline Context wrap_context(cl_context context, bool take_ownership = false) {
    const std::uintptr_t native = reinterpret_cast<std::uintptr_t>(context);
    return Context::from_backend_contexts(Api::from_api_id(ApiId::opencl()), std::span(&native, 1), take_ownership);
}

/// A new Context over OpenCL devices of one platform.
inline Context context_for_devices(std::span<const cl_device_id> devices) {
    std::vector<std::uintptr_t> natives;
    natives.reserve(devices.size());
    for (cl_device_id d : devices) natives.push_back(reinterpret_cast<std::uintptr_t>(d));
    return Context::from_backend_devices(Api::from_api_id(ApiId::opencl()), natives);
}

}  // namespace kjarni::opencl
