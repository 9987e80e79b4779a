#pragma once
/// Host memory passed straight to a launch (In, Out, InOut; PyCUDA's driver.In / Out / InOut). \file

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include "kjarni/memory_pool.hpp"

namespace kjarni {

namespace detail {
/// Contiguous host memory of known size: what std::data and std::size take (containers with
/// data(), arrays, spans). Spelled with <span>'s std::data / std::size rather than the range
/// concepts of <ranges>, which would cost every includer of program.hpp that header.
// clang-format off
template <class R>
concept HostRange = requires(R& range) {
    { std::data(range) };
    { std::size(range) } -> std::convertible_to<std::size_t>;
} && std::is_pointer_v<decltype(std::data(std::declval<R&>()))>;
// clang-format on
/// A HostRange whose elements may be written.
// clang-format off
template <class R>
concept WritableHostRange =
    HostRange<R> && !std::is_const_v<std::remove_pointer_t<decltype(std::data(std::declval<R&>()))>>;
// clang-format on
}  // namespace detail

/// Host memory passed straight to a launch (PyCUDA's In / Out / InOut): the launch allocates a
/// temporary device buffer of the host range's size (from `pool` when one is given, for the
/// launch's queue; else Buffer::allocate), copies the host data into it on the launch's queue before
/// the kernel (In, InOut), passes the buffer in its place, and after the kernel copies the buffer
/// back into the host range (Out, InOut), waiting for that copy. A launch given any of these returns
/// only once the kernel has finished, so the host range needs to live only through the launch's
/// full expression. Launches on a single Queue only (not on a MultiQueue). An empty range is
/// ArgumentError at launch.
class HostArgument {
public:
    enum class Direction : std::uint8_t { in, out, in_out };
    Direction direction() const noexcept { return direction_; }
    std::span<std::byte> bytes() const noexcept { return bytes_; }
    const std::optional<MemoryPool>& pool() const noexcept { return pool_; }

protected:
    HostArgument(std::span<std::byte> bytes, Direction direction, std::optional<MemoryPool> pool)
        : bytes_(bytes), direction_(direction), pool_(std::move(pool)) {}

    template <class R>
    static std::span<std::byte> bytes_of(R& range) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(std::data(range))>>;
        static_assert(std::is_trivially_copyable_v<T>, "host arguments hold trivially copyable values");
        // In only reads the bytes; the one span type keeps the three wrappers one class.
        auto* data = const_cast<T*>(std::data(range));
        return std::as_writable_bytes(std::span<T>(data, std::size(range)));
    }

private:
    std::span<std::byte> bytes_;
    Direction direction_;
    std::optional<MemoryPool> pool_;
};

/// Host data copied to the device before the launch (read by the kernel).
class In : public HostArgument {
public:
    template <detail::HostRange R>
    explicit In(const R& host, std::optional<MemoryPool> pool = std::nullopt)
        : HostArgument(bytes_of(host), Direction::in, std::move(pool)) {}
};

/// A host range the kernel writes: copied back from the device after the launch.
class Out : public HostArgument {
public:
    template <class R>
        requires detail::WritableHostRange<std::remove_reference_t<R>>
    explicit Out(R&& host, std::optional<MemoryPool> pool = std::nullopt)
        : HostArgument(bytes_of(host), Direction::out, std::move(pool)) {}
};

/// A host range copied in before the launch and back after it.
class InOut : public HostArgument {
public:
    template <class R>
        requires detail::WritableHostRange<std::remove_reference_t<R>>
    explicit InOut(R&& host, std::optional<MemoryPool> pool = std::nullopt)
        : HostArgument(bytes_of(host), Direction::in_out, std::move(pool)) {}
};

}  // namespace kjarni
