// What a context can say about its devices beyond their parameters (pygpu's bin_id,
// largest_memblock), and the names of the context options' values.

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "backend/backend.hpp"
#include "core/context_state.hpp"
#include "kjarni/context.hpp"
#include "kjarni/error.hpp"
#include "kjarni/kernel_attributes.hpp"

namespace kjarni {

std::string to_string(Scheduling scheduling) {
    switch (scheduling) {
    case Scheduling::automatic: return "automatic";
    case Scheduling::spin: return "spin";
    case Scheduling::yield: return "yield";
    case Scheduling::blocking_sync: return "blocking_sync";
    }
    return "unknown";
}

std::string to_string(SharedMemoryBanks banks) {
    switch (banks) {
    case SharedMemoryBanks::default_size: return "default_size";
    case SharedMemoryBanks::four_bytes: return "four_bytes";
    case SharedMemoryBanks::eight_bytes: return "eight_bytes";
    }
    return "unknown";
}

std::string to_string(KernelAttribute attribute) {
    switch (attribute) {
    case KernelAttribute::max_dynamic_shared_bytes: return "max_dynamic_shared_bytes";
    case KernelAttribute::preferred_shared_memory_carveout: return "preferred_shared_memory_carveout";
    case KernelAttribute::required_cluster_width: return "required_cluster_width";
    case KernelAttribute::required_cluster_height: return "required_cluster_height";
    case KernelAttribute::required_cluster_depth: return "required_cluster_depth";
    case KernelAttribute::non_portable_cluster_size_allowed: return "non_portable_cluster_size_allowed";
    case KernelAttribute::cluster_scheduling_policy_preference: return "cluster_scheduling_policy_preference";
    }
    return "unknown";
}

std::string bin_id(const BoundDevice& device) {
    const DeviceProperties& properties = device.device().properties();
    if (device.context().api().id() == ApiId::cuda() && properties.compute_capability) {
        return fmt::format("sm_{}{}", properties.compute_capability->major, properties.compute_capability->minor);
    }
    // Elsewhere what decides whether a binary loads is what the compiled-program cache keys on.
    return detail::state_of(device.context()).compiler_identity(device.index());
}

std::optional<std::uint64_t> largest_memblock(const BoundDevice& device) {
    backend::Context& backend = *detail::backend_of(device.context());
    if (auto reported = backend.largest_free_block(device.index())) return reported;
    if (!backend.allocates_eagerly()) return std::nullopt;
    // Bisection on the size of an allocation that succeeds: `low` always does (0 trivially), `high`
    // never does. Each probe is freed before the next, so the answer is what one allocation could
    // take now (other users of the device may change it the next moment).
    const DeviceProperties& properties = device.device().properties();
    std::uint64_t high = std::min(properties.max_allocation_size, properties.total_memory);
    if (const auto free = backend.free_memory(device.index())) high = std::min(high, *free);
    high += 1;
    std::uint64_t low = 0;
    while (high - low > 1) {
        const std::uint64_t middle = low + (high - low) / 2;
        try {
            static_cast<void>(backend.allocate(device.index(), static_cast<std::size_t>(middle)));
            low = middle;
        } catch (const OutOfMemoryError&) {
            high = middle;
        }
    }
    return low;
}

}  // namespace kjarni
