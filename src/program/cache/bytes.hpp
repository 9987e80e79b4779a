#pragma once
// A byte vector whose new elements are left uninitialised, for bytes that are written at once (a
// cache entry's payload, read from its file): std::vector<std::byte> would zero them first, a
// wasted pass over memory on every disk-cache hit.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace kjarni::detail {

/// std::allocator, except that construction without a value (vector::resize, vector(n))
/// default-initialises: for std::byte, writes nothing.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    using value_type = T;
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };

    DefaultInitAllocator() noexcept = default;
    template <class U>
    DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: as std::allocator's

    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

/// Bytes that a new element leaves uninitialised (see DefaultInitAllocator).
using Bytes = std::vector<std::byte, DefaultInitAllocator<std::byte>>;

inline bool operator==(const Bytes& a, const std::vector<std::byte>& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace kjarni::detail
