#include "program/launch_geometry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

// Enough threads per block to hide latency on GPUs, few enough to leave room for several blocks
// per multiprocessor; on CPUs (warp size 1) a work group of this size amortizes scheduling.
constexpr std::size_t preferred_total_local_size = 256;

// The largest divisor of n not above limit, preferring multiples of `multiple` (the warp size),
// so that no warp runs partly empty.
std::size_t best_divisor(std::size_t n, std::size_t limit, std::size_t multiple) {
    std::size_t best = 1;
    std::size_t best_aligned = 0;
    for (std::size_t d = 1; d * d <= n; ++d) {
        if (n % d != 0) continue;
        for (std::size_t candidate : {d, n / d}) {
            if (candidate > limit) continue;
            best = std::max(best, candidate);
            if (multiple > 1 && candidate % multiple == 0) best_aligned = std::max(best_aligned, candidate);
        }
    }
    return best_aligned != 0 ? best_aligned : best;
}

}  // namespace

LaunchGeometry plan_launch(const Sizes& global_size, const std::optional<Sizes>& local_size,
                           const DeviceParameters& device, std::size_t kernel_max_total, std::string_view kernel_name) {
    const std::size_t device_dims = std::min<std::size_t>(3, device.max_local_sizes.size());
    if (global_size.empty() || global_size.size() > device_dims) {
        throw ArgumentError("global_size", fmt::format("kernel '{}': {} dimensions given, the device takes 1 to {}",
                                                       kernel_name, global_size.size(), device_dims));
    }
    if (local_size && local_size->size() != global_size.size()) {
        throw ArgumentError("local_size", fmt::format("kernel '{}': {} dimensions, but global_size has {}", kernel_name,
                                                      local_size->size(), global_size.size()));
    }
    const std::size_t max_total = std::min(device.max_total_local_size, kernel_max_total);
    LaunchGeometry g;
    g.dims = static_cast<unsigned>(global_size.size());
    for (std::size_t d = 0; d < global_size.size(); ++d) {
        if (global_size[d] == 0) {
            throw ArgumentError("global_size", fmt::format("kernel '{}': dimension {} is 0", kernel_name, d));
        }
        g.global[d] = global_size[d];
    }

    if (local_size) {
        std::size_t total = 1;
        for (std::size_t d = 0; d < g.dims; ++d) {
            const std::size_t l = (*local_size)[d];
            if (l == 0 || l > device.max_local_sizes[d]) {
                throw ArgumentError("local_size",
                                    fmt::format("kernel '{}': dimension {} is {}; the device allows 1 to {}",
                                                kernel_name, d, l, device.max_local_sizes[d]));
            }
            if (g.global[d] % l != 0) {
                throw ArgumentError("local_size", fmt::format("kernel '{}': dimension {} is {}, which does not divide "
                                                              "the global size {}",
                                                              kernel_name, d, l, g.global[d]));
            }
            g.local[d] = l;
            total *= l;
        }
        if (total > max_total) {
            throw ArgumentError("local_size",
                                fmt::format("kernel '{}': {} threads per block ({}); the device allows {} and this "
                                            "kernel {}",
                                            kernel_name, total, fmt::join(*local_size, " x "),
                                            device.max_total_local_size, kernel_max_total));
        }
    } else {
        // Fill the first dimension first (it is the contiguous one), then the others with what
        // is left of the budget.
        std::size_t budget = std::min(max_total, preferred_total_local_size);
        for (std::size_t d = 0; d < g.dims; ++d) {
            const std::size_t limit = std::min(budget, device.max_local_sizes[d]);
            g.local[d] = best_divisor(g.global[d], limit, d == 0 ? device.warp_size : 1);
            budget = std::max<std::size_t>(1, budget / g.local[d]);
        }
    }

    for (std::size_t d = 0; d < g.dims; ++d) {
        const std::size_t groups = g.global[d] / g.local[d];
        if (groups > device.max_num_groups[d]) {
            throw ArgumentError("global_size",
                                fmt::format("kernel '{}': dimension {} needs {} groups of {}; the device allows {} "
                                            "groups",
                                            kernel_name, d, groups, g.local[d], device.max_num_groups[d]));
        }
    }
    return g;
}

}  // namespace kjarni::detail
