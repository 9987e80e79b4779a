#include "kjarni/api.hpp"

#include "backend/registry.hpp"
#include "core/handles.hpp"
#include "kjarni/error.hpp"
#include "kjarni/platform.hpp"

namespace kjarni {

Api::Api(std::shared_ptr<backend::Api> impl) : Handle(std::move(impl)) {}

std::vector<Api> Api::all_available() {
    std::vector<Api> result;
    for (const ApiId& id : all_api_ids()) {
        backend::Api& api = backend::api_for(id);
        if (api.unavailable_reason().empty()) result.push_back(detail::api_handle(api));
    }
    return result;
}

std::vector<Api> Api::all_by_shortcut(std::string_view shortcut) {
    if (shortcut.empty()) return all_available();
    for (const ApiId& id : all_api_ids()) {
        if (id.shortcut() == shortcut) return {from_api_id(id)};
    }
    std::string known;
    for (const ApiId& id : all_api_ids()) known += (known.empty() ? "" : ", ") + id.shortcut();
    throw NotFoundError("no API with shortcut '" + std::string(shortcut) + "' (known: " + known + ")");
}

Api Api::from_api_id(const ApiId& id) {
    backend::Api& api = backend::api_for(id);
    if (!api.unavailable_reason().empty()) {
        throw ApiUnavailableError(id.shortcut() + " is not available: " + api.unavailable_reason());
    }
    return detail::api_handle(api);
}

std::vector<ApiStatus> Api::status() {
    std::vector<ApiStatus> result;
    for (const ApiId& id : all_api_ids()) {
        const backend::Api& api = backend::api_for(id);
        result.push_back({id, api.unavailable_reason().empty(), api.unavailable_reason()});
    }
    return result;
}

ApiId Api::id() const { return impl_->id(); }

std::string Api::driver_version() const { return impl_->driver_version(); }

std::vector<Platform> Api::platforms() const { return Platform::all(*this); }

}  // namespace kjarni
