#pragma once
// The list of backends compiled into this build; the only place that knows which exist.

#include "backend/backend.hpp"

#include <optional>
#include <utility>

namespace kjarni::backend {

/// The process-wide Api object for an id (created, and its library loaded, on first use). Never
/// null: an API that cannot be used is an Api whose unavailable_reason() says why.
Api& api_for(const ApiId& id);

/// The (major, minor) version of the process's NVRTC (loaded on first use); nullopt when it cannot
/// be loaded or this build has no CUDA backend.
std::optional<std::pair<int, int>> nvrtc_version();

}  // namespace kjarni::backend
