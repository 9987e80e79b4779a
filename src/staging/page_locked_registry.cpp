#include "staging/page_locked_registry.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>

#include <fmt/format.h>

#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

// Allocation start -> end (one past the last byte). Page-locked allocations are few and large, so
// a map under one lock costs nothing next to the transfers that consult it.
class Registry {
public:
    void add(std::uintptr_t start, std::uintptr_t end) {
        const std::unique_lock lock(mutex_);
        ranges_[start] = end;
    }
    void remove(std::uintptr_t start) noexcept {
        const std::unique_lock lock(mutex_);
        ranges_.erase(start);
    }
    bool covers(std::uintptr_t start, std::uintptr_t end) const {
        const std::shared_lock lock(mutex_);
        auto after = ranges_.upper_bound(start);
        if (after == ranges_.begin()) return false;
        const auto& [first, last] = *std::prev(after);
        return first <= start && end <= last;
    }
    /// Whether some recorded range shares a byte with [start, end).
    bool overlaps(std::uintptr_t start, std::uintptr_t end) const {
        const std::shared_lock lock(mutex_);
        auto after = ranges_.lower_bound(end);  // the first range starting at or after `end`
        if (after == ranges_.begin()) return false;
        return std::prev(after)->second > start;  // ranges never overlap, so the last one before decides
    }

private:
    mutable std::shared_mutex mutex_;
    std::map<std::uintptr_t, std::uintptr_t> ranges_;
};

// Never destroyed: allocations freed during static destruction still unregister safely.
Registry& registry() {
    static auto* instance = new Registry();
    return *instance;
}

// The deleter of the registered handle: unregisters, then drops the backend allocation (which
// frees the memory unless a Buffer from device_buffer() still holds it: that Buffer holds the
// registered handle, so this runs only after it is gone too).
struct Unregister {
    std::shared_ptr<backend::HostAllocation> allocation;
    void operator()(backend::HostAllocation*) noexcept {
        registry().remove(reinterpret_cast<std::uintptr_t>(allocation->host_pointer()));
        allocation.reset();
    }
};

}  // namespace

std::shared_ptr<backend::HostAllocation> allocate_page_locked(backend::Context& context, std::size_t size,
                                                              backend::HostAllocationFlags flags) {
    std::shared_ptr<backend::HostAllocation> allocation = context.allocate_host(size, flags);
    const auto start = reinterpret_cast<std::uintptr_t>(allocation->host_pointer());
    backend::HostAllocation* raw = allocation.get();
    // Made before registering: if making the handle throws, nothing is left registered.
    std::shared_ptr<backend::HostAllocation> registered(raw, Unregister{std::move(allocation)});
    registry().add(start, start + size);
    return registered;
}

std::shared_ptr<backend::HostAllocation> register_page_locked(backend::Context& context, void* data, std::size_t size,
                                                              backend::HostAllocationFlags flags) {
    const auto start = reinterpret_cast<std::uintptr_t>(data);
    // Checked here and not only by the driver: OpenCL would register the same bytes twice, and the
    // registry keeps one range per start.
    if (registry().overlaps(start, start + size)) {
        throw ArgumentError("host", fmt::format("{} bytes at {}: part of them is page-locked memory of kjarni's "
                                                "already (allocated or registered)",
                                                size, data));
    }
    std::shared_ptr<backend::HostAllocation> allocation = context.register_host(data, size, flags);
    backend::HostAllocation* raw = allocation.get();
    std::shared_ptr<backend::HostAllocation> registered(raw, Unregister{std::move(allocation)});
    registry().add(start, start + size);
    return registered;
}

bool is_registered_page_locked(const void* data, std::size_t size) {
    const auto start = reinterpret_cast<std::uintptr_t>(data);
    return registry().covers(start, start + size);
}

}  // namespace kjarni::detail
