#include "kjarni/device.hpp"

#include <set>

#include "backend/backend.hpp"
#include "core/masks.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

bool DeviceFilter::matches_name(const std::string& name) const {
    return detail::passes_masks(name, include_masks, exclude_masks);
}

Device::Device(std::shared_ptr<backend::Device> impl) : Handle(std::move(impl)) {}

std::vector<Device> Device::all(const Platform& platform) {
    std::vector<Device> result;
    for (const auto& d : detail::backend_of(platform)->devices()) result.push_back(Device(d));
    return result;
}

std::vector<Device> Device::all_filtered(const Platform& platform, const DeviceFilter& filter) {
    std::vector<Device> result;
    std::set<std::string> seen;
    for (const auto& d : detail::backend_of(platform)->devices()) {
        if (!filter.matches_name(d->name())) continue;
        if (filter.exclude_pure_parallel && d->params().max_total_local_size == 1) continue;
        if (filter.unique_only && !seen.insert(d->name()).second) continue;
        result.push_back(Device(d));
    }
    return result;
}

Device Device::from_index(const Platform& platform, std::size_t device_idx) {
    const auto& devices = detail::backend_of(platform)->devices();
    if (device_idx >= devices.size()) {
        throw ArgumentError("device_idx", std::to_string(device_idx) + " is out of range: platform '" +
                                              platform.name() + "' has " + std::to_string(devices.size()) +
                                              " device(s)");
    }
    return Device(devices[device_idx]);
}

Device Device::from_backend_device(const Api& api, std::uintptr_t native) {
    return Device(detail::backend_of(api)->device_from_native(native));
}

Platform Device::platform() const {
    // Platforms are owned by their process-wide Api; find the owning pointer to share it.
    const backend::Platform& mine = impl_->platform();
    for (const auto& p : mine.api().platforms()) {
        if (p.get() == &mine) return detail::BackendAccess::make<Platform>(p);
    }
    throw Error("internal: a device's platform is not listed by its API");
}

std::string Device::name() const { return impl_->name(); }
const DeviceParameters& Device::params() const { return impl_->params(); }
const DeviceProperties& Device::properties() const { return impl_->properties(); }
const std::vector<DeviceAttribute>& Device::attributes() const { return impl_->attributes(); }

std::optional<DeviceAttribute::Value> Device::attribute(std::string_view name) const {
    for (const auto& attribute : impl_->attributes()) {
        if (attribute.name == name) return attribute.value;
    }
    return std::nullopt;
}

std::uintptr_t Device::native_handle() const { return impl_->native_handle(); }

}  // namespace kjarni
