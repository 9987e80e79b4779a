#pragma once
/// Contexts over one or several devices of one platform (reference: grunnur Context, BoundDevice,
/// BoundMultiDevice). On CUDA a context holds each device's primary context and makes it current
/// itself before every driver call, so a user never pushes or pops anything, and kjarni shares
/// memory and streams with the CUDA runtime, CuPy or PyTorch in the same process. \file

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "kjarni/context_options.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "kjarni/device.hpp"
#include "kjarni/discovery.hpp"

namespace kjarni {

namespace backend {
class Context;
}
namespace detail {
struct ContextState;
}
class BoundDevice;
class BoundMultiDevice;

/// A context over one or more devices of one platform: what memory, programs and queues belong to.
/// Copies share the context, which is released when the last copy and everything made in it go.
class Context {
public:
    /// A context over the given devices, which must be distinct and of one platform.
    static Context from_devices(std::span<const Device> devices);
    static Context from_devices(const Device& device);
    /// The same, made as `options` say (kjarni/context_options.hpp): CUDA contexts of kjarni's own
    /// with scheduling and other flags, one queue per device, a kernel cache and compiler options
    /// of the context's own. UnsupportedError naming the backend for CUDA-only flags on OpenCL.
    static Context from_devices(std::span<const Device> devices, const ContextOptions& options);
    static Context from_devices(const Device& device, const ContextOptions& options);
    /// Devices chosen by select_devices(api, options).
    static Context from_criteria(const Api& api, const SelectOptions& options = {});
    /// Native devices: CUdevice ordinals, or cl_device_id values, all of one platform.
    static Context from_backend_devices(const Api& api, std::span<const std::uintptr_t> native_devices);
    /// Native contexts: one CUcontext per device, or one cl_context (all its devices are used).
    /// With take_ownership the handles are released (cuCtxDestroy / clReleaseContext) when the last
    /// kjarni object using them goes; without it they are retained where the API counts references
    /// and the caller keeps them alive otherwise.
    static Context from_backend_contexts(const Api& api, std::span<const std::uintptr_t> native_contexts,
                                         bool take_ownership = false);

    Api api() const;
    Platform platform() const;
    BoundMultiDevice devices() const;
    std::size_t device_count() const;
    /// The native context a device runs in (CUcontext of that device / the one cl_context).
    std::uintptr_t native_handle(std::size_t device_index = 0) const;
    /// What the context was made with (the defaults for contexts made without options).
    const ContextOptions& options() const noexcept;
    /// Waits until all work on every device of the context is done (PyCUDA's Context.synchronize):
    /// every queue kjarni made in it, and on CUDA whatever else runs in its CUcontexts
    /// (cuCtxSynchronize: streams of the CUDA runtime or other libraries sharing a primary context).
    void synchronize() const;

    friend bool operator==(const Context& a, const Context& b) { return a.state_ == b.state_; }

private:
    friend struct detail::BackendAccess;
    explicit Context(std::shared_ptr<backend::Context> impl);
    const std::shared_ptr<backend::Context>& backend() const noexcept;
    /// What the context keeps for kjarni's own use (the compiled-program cache).
    detail::ContextState& state() const noexcept { return *state_; }
    std::shared_ptr<detail::ContextState> state_;
};

/// A device as a member of a context: what buffers, queues and kernels are created on.
class BoundDevice {
public:
    BoundDevice(Context context, std::size_t index);

    const Context& context() const noexcept { return context_; }
    /// Position in the list the context was created from.
    std::size_t index() const noexcept { return index_; }
    Device device() const;
    std::string name() const { return device().name(); }
    const DeviceParameters& params() const { return device().params(); }

    friend bool operator==(const BoundDevice& a, const BoundDevice& b) {
        return a.context_ == b.context_ && a.index_ == b.index_;
    }

private:
    Context context_;
    std::size_t index_;
};

/// An ordered set of distinct devices of one context.
class BoundMultiDevice {
public:
    /// All of them must belong to one context and be distinct.
    static BoundMultiDevice from_bound_devices(std::span<const BoundDevice> devices);

    const Context& context() const noexcept { return context_; }
    std::size_t size() const noexcept { return indices_.size(); }
    BoundDevice operator[](std::size_t position) const;
    /// The devices at the given positions of this set, in that order.
    BoundMultiDevice subset(std::span<const std::size_t> positions) const;
    /// Context indices of the members, in order.
    const std::vector<std::size_t>& indices() const noexcept { return indices_; }
    std::vector<BoundDevice> to_vector() const;

    friend bool operator==(const BoundMultiDevice&, const BoundMultiDevice&) = default;

    BoundMultiDevice(Context context, std::vector<std::size_t> indices);

private:
    Context context_;
    std::vector<std::size_t> indices_;
};

}  // namespace kjarni

/// Equal contexts hash equal (the address of what they share).
template <>
struct std::hash<kjarni::Context> {
    std::size_t operator()(const kjarni::Context& context) const noexcept {
        return std::hash<const void*>{}(&kjarni::detail::state_of(context));
    }
};

/// Equal bound devices (the same context, the same index) hash equal.
template <>
struct std::hash<kjarni::BoundDevice> {
    std::size_t operator()(const kjarni::BoundDevice& device) const noexcept {
        const std::size_t context = std::hash<kjarni::Context>{}(device.context());
        return context ^ (device.index() + 0x9e3779b97f4a7c15ULL + (context << 6) + (context >> 2));
    }
};
