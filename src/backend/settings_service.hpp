#pragma once
// A backend context's driver settings and profiling: context limits (stack, printf FIFO, malloc
// heap), the cache / shared memory preference, the driver's profiler. The defaults
// (settings_service.cpp) throw UnsupportedError naming the backend.

#include <cstddef>

#include "backend/context_service.hpp"

namespace kjarni::backend {

class ContextSettings : public virtual ContextService {
public:
    virtual void set_limit(std::size_t device_index, ContextLimit limit, std::size_t value);
    virtual std::size_t limit(std::size_t device_index, ContextLimit limit) const;
    virtual void set_cache_preference(std::size_t device_index, CachePreference preference);
    /// Starts or stops the driver's profiler (cuProfilerStart / cuProfilerStop).
    virtual void profiler(std::size_t device_index, bool start);
};

}  // namespace kjarni::backend
