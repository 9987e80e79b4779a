#pragma once
/// Virtual buffers (grunnur's virtual_alloc).
///
/// Temporaries used in one place but many times: instead of a real allocation each, a manager hands
/// out virtual allocations that may share real (physical) allocations. Two virtual allocations that
/// are declared dependent — used at the same time — never share memory.
///
///     ZeroOffsetManager manager(device);
///     auto a = Array::empty(device, {n}, dtypes::float32, Order::C, manager.allocator());
///     auto b = Array::empty(device, {n}, dtypes::float32, Order::C, manager.allocator(a));
///     auto c = Array::empty(device, {n}, dtypes::float32, Order::C, manager.allocator({a, b}));
///
/// A virtual allocation is a Buffer (the whole of what the allocator returns) aliasing the start of a
/// real allocation; it is alive while any handle to it (copies, sub-regions, arrays over it and their
/// views) is. The dependencies of a request are the virtual allocations alive at that moment that it
/// must not share memory with; dependency is symmetric, and the allocator holds only identifiers,
/// never the objects.
///
/// Dependencies are given as a VirtualDependencies, made from
///  - a Buffer or an Array (its base buffer): its virtual allocation; ignored when it is not virtual
///    (a persistent allocation);
///  - a range of valid values (vector, list, ... of Arrays, Buffers, or further ranges), processed
///    recursively;
///  - an initializer list of valid values: `manager.allocator({a, b, temps})`;
///  - any object `x` for which `virtual_allocations(x)` — found by argument-dependent lookup —
///    returns a valid value (the counterpart of grunnur's `__virtual_allocations__`), recursively.
///
/// Managers.
///  - TrivialManager: a separate real allocation per request, freed with its virtual allocation.
///  - ZeroOffsetManager: every virtual allocation starts at offset 0 of a real allocation; a request
///    takes the smallest real allocation large enough whose live users are none of its dependencies;
///    failing that, an unused real allocation too small is replaced by one of the requested size, or
///    else a new one is made. Real allocations left without users are kept for later requests until
///    pack().
///
/// pack(queue) (grunnur's pack). Synchronizes `queue` (work enqueued there on the memory must be
/// done), frees every real allocation that no live virtual allocation uses, and then, for a
/// ZeroOffsetManager, places the live virtual allocations again from nothing, largest first, each in
/// the smallest new real allocation that none of its dependencies uses (the assignment the manager
/// makes for requests, without the history that fragments it). When that arrangement takes less
/// memory (fewer bytes, or fewer real allocations), the contents are copied there on `queue`, every
/// handle (copies, sub-regions, arrays over it and their views) is re-pointed at the new memory, the
/// old real allocations are freed, and pack returns once the copies are done. A handle reads where
/// its memory is when it is used: kernels launched after pack, transfers and kjarni's algorithms see
/// the new memory; native_handle() values taken before it are stale, and so are the arguments a
/// BoundKernel packed before it (PreparedKernel::bind packs addresses once): bind again after pack. The contents of a virtual
/// allocation survive, except where it now shares memory with one it was not declared dependent on
/// (which may overwrite it at any time anyway: then the larger one's bytes are what both hold).
/// No other thread may use the manager's virtual allocations while pack runs. A TrivialManager
/// only frees (each of its virtual allocations has a real one of its own, of its size).
///
/// All members are safe to call from several threads at once. A manager's virtual allocations stay
/// valid after the manager is gone (they keep their real memory alive). \file

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

/// Identifier of a virtual allocation, unique in the process.
using VirtualAllocationId = std::uint64_t;

/// The virtual allocation a buffer (or any sub-region of it) belongs to; nullopt if not virtual.
std::optional<VirtualAllocationId> virtual_allocation_id(const Buffer& buffer);

class VirtualDependencies;

namespace detail {
// clang-format off
template <class T>
concept HasVirtualAllocations = requires(const T& x) { virtual_allocations(x); };
// A view of memory with a base Buffer (an Array, kjarni/array.hpp), named without including it.
template <class T>
concept HasBaseBuffer = requires(const T& x) { { x.base() } -> std::convertible_to<const Buffer&>; };
// clang-format on
}  // namespace detail

/// A set of virtual allocation identifiers (see the header's comment for what makes one).
class VirtualDependencies {
public:
    VirtualDependencies() = default;
    VirtualDependencies(const Buffer& buffer) { add(buffer); }                // NOLINT: implicit on purpose
    template <class A>
        requires(detail::HasBaseBuffer<A> && !std::same_as<std::remove_cvref_t<A>, Buffer>)
    VirtualDependencies(const A& array) {  // NOLINT: an Array, implicitly: its base buffer
        add(array.base());
    }
    VirtualDependencies(std::initializer_list<VirtualDependencies> values) {  // NOLINT
        for (const auto& v : values) add(v);
    }
    template <class T>
        requires(detail::HasVirtualAllocations<T> && !std::same_as<std::remove_cvref_t<T>, VirtualDependencies>)
    VirtualDependencies(const T& object) {  // NOLINT
        add(VirtualDependencies(virtual_allocations(object)));
    }
    // A range spelled with std::begin / std::end (from <vector> and friends) rather than the
    // concepts of <ranges>, so that this header does not cost its includers <ranges>.
    template <class R>
        requires(!detail::HasVirtualAllocations<R> && !detail::HasBaseBuffer<R> &&
                 !std::same_as<std::remove_cvref_t<R>, VirtualDependencies> &&
                 requires(const R& range) { std::begin(range) != std::end(range); } &&
                 std::constructible_from<VirtualDependencies, decltype(*std::begin(std::declval<const R&>()))>)
    VirtualDependencies(const R& range) {  // NOLINT
        for (auto&& element : range) add(VirtualDependencies(element));
    }

    static VirtualDependencies from_ids(std::vector<VirtualAllocationId> ids);

    void add(const Buffer& buffer);
    void add(const VirtualDependencies& other);

    /// Sorted, without duplicates.
    const std::vector<VirtualAllocationId>& ids() const noexcept { return ids_; }
    bool contains(VirtualAllocationId id) const noexcept;

private:
    std::vector<VirtualAllocationId> ids_;
};

/// How many physical allocations a virtual buffer manager made, their sizes, and the virtual
/// buffers placed in them.
struct VirtualAllocationStatistics {
    /// The number of physical allocations.
    std::size_t real_num = 0;
    /// The total size of physical allocations (bytes).
    std::size_t real_size_total = 0;
    /// size: count, for the physical allocations.
    std::map<std::size_t, std::size_t> real_sizes;
    /// The number of (live) virtual allocations.
    std::size_t virtual_num = 0;
    /// The total size of virtual allocations (bytes).
    std::size_t virtual_size_total = 0;
    /// size: count, for the virtual allocations.
    std::map<std::size_t, std::size_t> virtual_sizes;

    friend bool operator==(const VirtualAllocationStatistics&, const VirtualAllocationStatistics&) = default;
};

namespace detail {
struct VirtualState;
}

class VirtualManager;

/// A callable usable as an Array allocator: (device, size) -> a virtual allocation that shares no
/// memory with its dependencies. Holds the dependencies' identifiers and a reference to the manager.
class VirtualAllocator {
public:
    VirtualAllocator(const VirtualManager& manager, VirtualDependencies dependencies);
    Buffer operator()(const BoundDevice& device, std::size_t size) const;
    const VirtualDependencies& dependencies() const noexcept { return dependencies_; }

private:
    std::shared_ptr<detail::VirtualState> state_;
    VirtualDependencies dependencies_;
};

/// Base of the managers; copies share one manager.
class VirtualManager {
public:
    const BoundDevice& device() const noexcept;

    /// An allocator whose buffers share no memory with `dependencies`.
    VirtualAllocator allocator(VirtualDependencies dependencies = {}) const;
    /// One virtual allocation directly.
    Buffer allocate(std::size_t size, const VirtualDependencies& dependencies = {}) const;
    /// Frees the real allocations no live virtual allocation uses and compacts the live ones into
    /// fewer, smaller real allocations when it can (see pack(queue) above); synchronizes `queue`,
    /// which must be on the manager's device (ArgumentError otherwise).
    void pack(const Queue& queue) const;
    VirtualAllocationStatistics statistics() const;

protected:
    enum class Kind { trivial, zero_offset };
    VirtualManager(const BoundDevice& device, Kind kind);

private:
    friend class VirtualAllocator;
    std::shared_ptr<detail::VirtualState> state_;
};

/// A separate real allocation per request.
class TrivialManager : public VirtualManager {
public:
    explicit TrivialManager(const BoundDevice& device) : VirtualManager(device, Kind::trivial) {}
};

/// Several virtual allocations share one real allocation, all at its offset 0, when dependencies
/// allow.
class ZeroOffsetManager : public VirtualManager {
public:
    explicit ZeroOffsetManager(const BoundDevice& device) : VirtualManager(device, Kind::zero_offset) {}
};

}  // namespace kjarni
