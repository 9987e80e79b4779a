#pragma once
// The shared state behind StaticKernel handles, and the one function that builds it (the public
// constructors call it; tests call it directly to shrink the device limits the mapping works
// within, which makes the spreading over several real dimensions testable on any device).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kjarni/static_kernel.hpp"
#include "program/vsize.hpp"

namespace kjarni::detail {

struct StaticDeviceKernel {
    BoundDevice device;
    VsizePlan plan;
    Program program;
    PreparedKernel prepared;
    Sizes real_global_size;
    Sizes real_local_size;
};

struct StaticKernelState {
    BoundMultiDevice devices;
    std::string name;
    std::vector<StaticDeviceKernel> entries;  // in the order of `devices`

    /// ArgumentError when the kernel was not built for the device.
    const StaticDeviceKernel& on(const BoundDevice& device) const;
};

struct StaticKernelRequest {
    BoundMultiDevice devices;
    TemplateSource source;
    std::string name;
    PerDeviceSizes sizes;  // a key for every device of `devices`
    std::vector<Value> render_args;
    Globals render_globals;
    ProgramOptions options;
    /// The limits the mapping works within on a device; the device's own when empty. Only smaller
    /// limits than the device's make sense (the real launch is checked against the device's).
    std::function<DeviceParameters(const BoundDevice&)> device_limits;
};

std::shared_ptr<const StaticKernelState> build_static_kernel(const StaticKernelRequest& request);

}  // namespace kjarni::detail
