#pragma once
/// API discovery (reference: grunnur API / APIID). An Api is a cheap handle; the backend behind it
/// is loaded with dlopen on first use, so a machine without a driver sees the API as unavailable. \file

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kjarni/api_id.hpp"
#include "kjarni/detail/handle.hpp"

namespace kjarni {

namespace backend {
class Api;
}
class Platform;

/// Why an API cannot be used here; empty when it can.
struct ApiStatus {
    ApiId id;
    bool available;
    std::string reason;
};

/// One GPU API (CUDA or OpenCL): a cheap, copyable handle naming the backend, which is loaded on
/// first use. Lists the API's platforms; equal handles name the same API.
class Api : public detail::Handle<backend::Api> {
public:
    /// Every API whose backend loaded and reports at least one platform.
    static std::vector<Api> all_available();
    /// One API by shortcut (throws NotFoundError / ApiUnavailableError), or all available for "".
    static std::vector<Api> all_by_shortcut(std::string_view shortcut = {});
    /// The API for an id; throws ApiUnavailableError (with the reason) if it cannot be loaded.
    static Api from_api_id(const ApiId& id);
    /// Availability of every known API, with the reason for those that are not.
    static std::vector<ApiStatus> status();

    ApiId id() const;
    std::string shortcut() const { return id().shortcut(); }
    /// The driver's own version string (e.g. "CUDA 13.0", "OpenCL ICD loader").
    std::string driver_version() const;
    std::vector<Platform> platforms() const;

private:
    friend struct detail::BackendAccess;
    explicit Api(std::shared_ptr<backend::Api> impl);
};

}  // namespace kjarni

template <>
struct std::hash<kjarni::Api> : kjarni::detail::HandleHash<kjarni::Api> {};
