// The defaults of ContextSettings, for backends without driver limits, cache preferences or a
// profiler to drive: each throws UnsupportedError naming the backend.

#include "backend/api.hpp"
#include "backend/service_defaults.hpp"
#include "backend/settings_service.hpp"

namespace kjarni::backend {

void ContextSettings::set_limit(std::size_t, ContextLimit, std::size_t) { backend_cannot(api(), "set context limits"); }

std::size_t ContextSettings::limit(std::size_t, ContextLimit) const { backend_cannot(api(), "report context limits"); }

void ContextSettings::set_cache_preference(std::size_t, CachePreference) {
    backend_cannot(api(), "set a cache / shared memory preference");
}

void ContextSettings::profiler(std::size_t, bool) { backend_cannot(api(), "start or stop a profiler"); }

}  // namespace kjarni::backend
