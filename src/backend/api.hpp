#pragma once
// The roots of the backend interface: an Api (one a vendor API, living for the whole process), its
// Platforms and their Devices, and the flags a context is made with.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/backend_fwd.hpp"
#include "kjarni/api_id.hpp"
#include "kjarni/context_options.hpp"
#include "kjarni/device_parameters.hpp"

namespace kjarni::backend {

/// How an API's contexts are made (the CUDA part of the public ContextOptions; the rest is the
/// public layer's). All false / default: what create_context makes.
struct ContextFlags {
    bool own_contexts = false;  // CUDA: cuCtxCreate instead of the primary contexts
    Scheduling scheduling = Scheduling::automatic;
    bool map_host = false;
    bool lmem_resize_to_max = false;
    SharedMemoryBanks shared_memory_banks = SharedMemoryBanks::default_size;

    /// Whether any flag asks for more than create_context gives (own_contexts aside).
    bool has_cuda_settings() const noexcept {
        return scheduling != Scheduling::automatic || map_host || lmem_resize_to_max ||
               shared_memory_banks != SharedMemoryBanks::default_size;
    }
};

class Api {
public:
    virtual ~Api() = default;
    virtual ApiId id() const = 0;
    /// Empty when the API can be used; otherwise why not ("libcuda.so.1 not found: ...").
    virtual const std::string& unavailable_reason() const = 0;
    /// Driver version, as a human-readable string.
    virtual std::string driver_version() const = 0;
    /// Found once, in the order the driver reports them.
    virtual const std::vector<std::shared_ptr<Platform>>& platforms() const = 0;
    /// Finds the Device object wrapping a native device (CUdevice / cl_device_id); NotFoundError.
    virtual std::shared_ptr<Device> device_from_native(std::uintptr_t native) const = 0;
    /// A context over distinct devices of one platform of this API (checked by the caller).
    virtual std::shared_ptr<Context> create_context(std::span<const std::shared_ptr<Device>> devices) = 0;
    /// A context over native contexts (one CUcontext per device / one cl_context).
    virtual std::shared_ptr<Context> context_from_native(std::span<const std::uintptr_t> natives,
                                                         bool take_ownership) = 0;
    /// A context made as `flags` say. The default (src/backend/api.cpp) calls
    /// create_context, and throws UnsupportedError naming the backend for CUDA settings.
    virtual std::shared_ptr<Context> create_context_with(std::span<const std::shared_ptr<Device>> devices,
                                                         const ContextFlags& flags);
};

class Platform {
public:
    virtual ~Platform() = default;
    virtual Api& api() const = 0;
    virtual const std::string& name() const = 0;
    virtual const std::string& vendor() const = 0;
    virtual const std::string& version() const = 0;
    virtual const std::vector<std::shared_ptr<Device>>& devices() const = 0;
    /// cl_platform_id, or 0 for CUDA's one platform.
    virtual std::uintptr_t native_handle() const = 0;
};

class Device {
public:
    virtual ~Device() = default;
    virtual Platform& platform() const = 0;
    virtual const std::string& name() const = 0;
    virtual const DeviceParameters& params() const = 0;
    virtual const DeviceProperties& properties() const = 0;
    virtual const std::vector<DeviceAttribute>& attributes() const = 0;
    /// CUdevice ordinal / cl_device_id.
    virtual std::uintptr_t native_handle() const = 0;
    /// How many arguments the device's compiler counts for a kernel whose one parameter is a struct
    /// of two longs passed by value (PyOpenCL's check for PoCL's argument-counting bug), compiled
    /// in a context of this device alone. std::nullopt where the backend cannot tell (the default).
    virtual std::optional<std::size_t> struct_argument_count() const { return std::nullopt; }
};

}  // namespace kjarni::backend
