#pragma once
/// Platforms (reference: grunnur Platform / PlatformFilter). CUDA has a single platform. \file

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kjarni/api.hpp"
#include "kjarni/detail/handle.hpp"

namespace kjarni {

namespace backend {
class Platform;
}
class Device;

/// Regex masks on the platform name (ECMAScript syntax without back-references, searched, not
/// anchored; at most 1024 characters each). A malformed mask raises ArgumentError.
struct PlatformFilter {
    /// If not empty, one of these must match the name.
    std::vector<std::string> include_masks;
    /// None of these may match the name.
    std::vector<std::string> exclude_masks;

    bool matches(const std::string& name) const;
};

/// One platform of an API (an OpenCL platform; CUDA has one): its name, vendor, version and devices.
/// A cheap handle; equal handles name the same platform.
class Platform : public detail::Handle<backend::Platform> {
public:
    static std::vector<Platform> all(const Api& api);
    static std::vector<Platform> all_filtered(const Api& api, const PlatformFilter& filter = {});
    /// Throws ArgumentError if the index is out of range.
    static Platform from_index(const Api& api, std::size_t platform_idx);
    /// Wraps a native platform handle (cl_platform_id; 0 for CUDA's single platform).
    static Platform from_backend_platform(const Api& api, std::uintptr_t native);

    Api api() const;
    std::string name() const;
    std::string vendor() const;
    std::string version() const;
    std::vector<Device> devices() const;
    std::uintptr_t native_handle() const;

private:
    friend struct detail::BackendAccess;
    explicit Platform(std::shared_ptr<backend::Platform> impl);
};

}  // namespace kjarni

template <>
struct std::hash<kjarni::Platform> : kjarni::detail::HandleHash<kjarni::Platform> {};
