#include "kjarni/platform.hpp"

#include "backend/backend.hpp"
#include "core/handles.hpp"
#include "core/masks.hpp"
#include "kjarni/device.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

bool PlatformFilter::matches(const std::string& name) const {
    return detail::passes_masks(name, include_masks, exclude_masks);
}

Platform::Platform(std::shared_ptr<backend::Platform> impl) : Handle(std::move(impl)) {}

std::vector<Platform> Platform::all(const Api& api) {
    std::vector<Platform> result;
    for (const auto& p : detail::backend_of(api)->platforms()) result.push_back(Platform(p));
    return result;
}

std::vector<Platform> Platform::all_filtered(const Api& api, const PlatformFilter& filter) {
    std::vector<Platform> result;
    for (const auto& p : detail::backend_of(api)->platforms()) {
        if (filter.matches(p->name())) result.push_back(Platform(p));
    }
    return result;
}

Platform Platform::from_index(const Api& api, std::size_t platform_idx) {
    const auto& platforms = detail::backend_of(api)->platforms();
    if (platform_idx >= platforms.size()) {
        throw ArgumentError("platform_idx", std::to_string(platform_idx) + " is out of range: " + api.shortcut() +
                                                " has " + std::to_string(platforms.size()) + " platform(s)");
    }
    return Platform(platforms[platform_idx]);
}

Platform Platform::from_backend_platform(const Api& api, std::uintptr_t native) {
    for (const auto& p : detail::backend_of(api)->platforms()) {
        if (p->native_handle() == native) return Platform(p);
    }
    throw NotFoundError("no " + api.shortcut() + " platform has the native handle " + std::to_string(native));
}

Api Platform::api() const { return detail::api_handle(impl_->api()); }
std::string Platform::name() const { return impl_->name(); }
std::string Platform::vendor() const { return impl_->vendor(); }
std::string Platform::version() const { return impl_->version(); }
std::vector<Device> Platform::devices() const { return Device::all(*this); }
std::uintptr_t Platform::native_handle() const { return impl_->native_handle(); }

}  // namespace kjarni
