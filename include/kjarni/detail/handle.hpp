#pragma once
// What kjarni's handles over one backend object share, written once: copies share the object,
// equal handles hold the same object, std::hash hashes its address, and kjarni's own code reaches
// the object through BackendAccess. Not part of the user-facing API (its members are protected).

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

#include "kjarni/detail/backend_access.hpp"

namespace kjarni::detail {

template <class Impl>
class Handle {
public:
    /// Equal handles hold the same backend object.
    friend bool operator==(const Handle& a, const Handle& b) noexcept { return a.impl_ == b.impl_; }

protected:
    Handle() = default;
    explicit Handle(std::shared_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}

    friend struct BackendAccess;
    const std::shared_ptr<Impl>& backend() const noexcept { return impl_; }

    std::shared_ptr<Impl> impl_;
};

/// std::hash of a handle: the address of its backend object, so that equal handles hash equal.
template <class H>
struct HandleHash {
    std::size_t operator()(const H& handle) const noexcept {
        return std::hash<const void*>{}(BackendAccess::backend(handle).get());
    }
};

}  // namespace kjarni::detail
