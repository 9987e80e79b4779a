#pragma once
// The backend objects behind kjarni's public handles, for kjarni's own code. Api, Platform, Device,
// Context, Queue, Event, Buffer, HostMemory and ManagedMemory keep their backend object, and the
// constructors from one, private and befriend BackendAccess: the library's sources, the Python
// bindings and the tests that reach the backend go through it; users have no need to (every native
// handle they may want has a public native_handle()). Not part of the user-facing API.

#include <memory>
#include <utility>

namespace kjarni::detail {

struct BackendAccess {
    /// The backend object of a handle (a const reference to its shared pointer).
    template <class Handle>
    static const auto& backend(const Handle& handle) noexcept {
        return handle.backend();
    }
    /// A public handle over a backend object: Api, Platform, Device, Context or Event.
    template <class Handle, class Impl>
    static Handle make(std::shared_ptr<Impl> impl) {
        return Handle(std::move(impl));
    }
    /// What a Context keeps for kjarni's own use (detail::ContextState: the caches, the staging).
    template <class ContextHandle>
    static auto& state(const ContextHandle& context) noexcept {
        return context.state();
    }
};

/// BackendAccess::backend, shorter at the call sites.
template <class Handle>
const auto& backend_of(const Handle& handle) noexcept {
    return BackendAccess::backend(handle);
}

/// BackendAccess::state, shorter at the call sites.
template <class ContextHandle>
auto& state_of(const ContextHandle& context) noexcept {
    return BackendAccess::state(context);
}

}  // namespace kjarni::detail
