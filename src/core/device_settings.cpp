#include "kjarni/device_settings.hpp"

#include "backend/backend.hpp"
#include "kjarni/context.hpp"

namespace kjarni {

void set_context_limit(const BoundDevice& device, ContextLimit limit, std::size_t bytes) {
    detail::backend_of(device.context())->set_limit(device.index(), limit, bytes);
}

std::size_t context_limit(const BoundDevice& device, ContextLimit limit) {
    return detail::backend_of(device.context())->limit(device.index(), limit);
}

void set_cache_preference(const BoundDevice& device, CachePreference preference) {
    detail::backend_of(device.context())->set_cache_preference(device.index(), preference);
}

void start_profiler(const BoundDevice& device) { detail::backend_of(device.context())->profiler(device.index(), true); }

void stop_profiler(const BoundDevice& device) { detail::backend_of(device.context())->profiler(device.index(), false); }

}  // namespace kjarni
