#pragma once
// Making public handles out of backend objects.

#include <memory>

#include "backend/backend.hpp"
#include "kjarni/api.hpp"

namespace kjarni::detail {

/// Backend Api objects live for the whole process: a handle to one owns nothing (an aliasing
/// shared_ptr with an empty owner).
inline Api api_handle(backend::Api& api) {
    return BackendAccess::make<Api>(std::shared_ptr<backend::Api>(std::shared_ptr<backend::Api>{}, &api));
}

}  // namespace kjarni::detail
