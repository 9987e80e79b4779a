#pragma once
/// Devices (reference: grunnur Device / DeviceFilter; PyCUDA Device attributes). \file

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kjarni/detail/handle.hpp"
#include "kjarni/device_parameters.hpp"
#include "kjarni/platform.hpp"

namespace kjarni {

namespace backend {
class Device;
}

/// Which devices discovery keeps: by regexes on the name and by uniqueness of the name.
struct DeviceFilter {
    /// If not empty, one of these regexes must match the device name.
    std::vector<std::string> include_masks;
    /// None of these regexes may match the device name.
    std::vector<std::string> exclude_masks;
    /// Keep only the first device of each name.
    bool unique_only = false;
    /// Drop devices whose max_total_local_size is 1 (no cooperating work items).
    bool exclude_pure_parallel = false;

    bool matches_name(const std::string& name) const;
};

/// One device of a platform (a CUdevice ordinal, a cl_device_id): its name, parameters and API.
/// A cheap handle; equal handles name the same device.
class Device : public detail::Handle<backend::Device> {
public:
    static std::vector<Device> all(const Platform& platform);
    static std::vector<Device> all_filtered(const Platform& platform, const DeviceFilter& filter = {});
    /// Throws ArgumentError if the index is out of range.
    static Device from_index(const Platform& platform, std::size_t device_idx);
    /// Wraps a native device (CUdevice ordinal / cl_device_id).
    static Device from_backend_device(const Api& api, std::uintptr_t native);

    Platform platform() const;
    std::string name() const;
    const DeviceParameters& params() const;
    const DeviceProperties& properties() const;
    /// Every raw attribute the API reports, in the API's own names.
    const std::vector<DeviceAttribute>& attributes() const;
    /// One raw attribute by name; nullopt if the API has no such attribute for this device.
    std::optional<DeviceAttribute::Value> attribute(std::string_view name) const;
    std::uintptr_t native_handle() const;

private:
    friend struct detail::BackendAccess;
    explicit Device(std::shared_ptr<backend::Device> impl);
};

}  // namespace kjarni

template <>
struct std::hash<kjarni::Device> : kjarni::detail::HandleHash<kjarni::Device> {};
