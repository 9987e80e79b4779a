#pragma once
// What every service of a backend context (memory_service.hpp, queue_service.hpp, ...) may ask of the
// context it is part of. A backend's context class derives from Context (context.hpp), which gathers
// the services; it overrides these two once, for all of them.

#include <memory>
#include <vector>

#include "backend/backend_fwd.hpp"

namespace kjarni::backend {

class Api;

class ContextService {
public:
    virtual ~ContextService() = default;
    /// The API the context belongs to (the services' defaults name its backend in their errors).
    virtual Api& api() const = 0;
    /// The devices, in the order the context was created with.
    virtual const std::vector<std::shared_ptr<Device>>& devices() const = 0;
};

}  // namespace kjarni::backend
