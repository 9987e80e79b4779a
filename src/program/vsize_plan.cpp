// Planning virtual sizes (vsize.hpp): the virtual grid's local sizes and group counts, and the real
// launch of up to three dimensions it is laid over, checked against the device's limits.

#include "program/vsize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <string>

#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();

// a * b, saturating at `unlimited`.
std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) {
    std::uint64_t result = 0;
    return __builtin_mul_overflow(a, b, &result) ? unlimited : result;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// The largest divisor of n not above limit.
std::size_t largest_divisor(std::size_t n, std::size_t limit) {
    std::size_t best = 1;
    for (std::size_t d = 1; d * d <= n; ++d) {
        if (n % d != 0) continue;
        if (d <= limit) best = std::max(best, d);
        if (n / d <= limit) best = std::max(best, n / d);
    }
    return best;
}

std::array<std::size_t, 3> three(const std::vector<std::size_t>& values) {
    std::array<std::size_t, 3> result{1, 1, 1};
    for (std::size_t i = 0; i < std::min<std::size_t>(3, values.size()); ++i)
        result[i] = std::max<std::size_t>(1, values[i]);
    return result;
}

std::string shape(const Sizes& sizes) { return fmt::format("{}", fmt::join(sizes, " x ")); }

// Local sizes when none are given: the first dimension first (it is the contiguous one), each one
// as even a split of its global size as the budget allows (least padding), the first rounded up to
// whole warps when it is at least a warp long.
Sizes choose_local_size(const Sizes& global, std::size_t budget, std::size_t warp) {
    Sizes local(global.size(), 1);
    for (std::size_t d = 0; d < global.size() && budget > 1; ++d) {
        const std::size_t groups = ceil_div(global[d], budget);
        std::size_t l = ceil_div(global[d], groups);
        if (d == 0 && warp > 1 && global[d] >= warp) {
            const std::size_t aligned = ceil_div(l, warp) * warp;
            if (aligned <= budget) l = aligned;
        }
        local[d] = l;
        budget /= l;
    }
    return local;
}

}  // namespace

Sizes VsizePlan::real_global_size() const {
    Sizes result;
    for (unsigned d = 0; d < real_dims; ++d) result.push_back(real_groups[d] * real_local[d]);
    return result;
}

Sizes VsizePlan::real_local_size() const { return Sizes(real_local.begin(), real_local.begin() + real_dims); }

VsizePlan plan_vsize(const Sizes& global_size, const std::optional<Sizes>& local_size, const DeviceParameters& device,
                     std::optional<std::size_t> kernel_max_total, std::uint64_t max_vsize,
                     std::string_view kernel_name) {
    const std::size_t dims = global_size.size();
    if (dims == 0 || dims > max_virtual_dims) {
        throw ArgumentError("global_size", fmt::format("static kernel '{}': {} dimensions given; 1 to {} are supported",
                                                       kernel_name, dims, max_virtual_dims));
    }
    for (std::size_t d = 0; d < dims; ++d) {
        if (global_size[d] == 0) {
            throw ArgumentError("global_size", fmt::format("static kernel '{}': dimension {} of {} is 0", kernel_name,
                                                           d, shape(global_size)));
        }
    }
    if (local_size && local_size->size() != dims) {
        throw ArgumentError("local_size",
                            fmt::format("static kernel '{}': {} dimensions ({}), but the global size has "
                                        "{} ({})",
                                        kernel_name, local_size->size(), shape(*local_size), dims, shape(global_size)));
    }

    const auto max_local = three(device.max_local_sizes);
    const auto max_groups = three(device.max_num_groups);
    const std::size_t device_max_total = std::max<std::size_t>(1, device.max_total_local_size);

    VsizePlan plan;
    plan.global_size = global_size;
    if (local_size) {
        std::uint64_t total = 1;
        for (std::size_t d = 0; d < dims; ++d) {
            if ((*local_size)[d] == 0) {
                throw ArgumentError("local_size", fmt::format("static kernel '{}': dimension {} of {} is 0",
                                                              kernel_name, d, shape(*local_size)));
            }
            total = mul_sat(total, (*local_size)[d]);
        }
        const std::string limits =
            kernel_max_total
                ? fmt::format("the device allows {} and this kernel {}", device_max_total, *kernel_max_total)
                : fmt::format("the device allows {} (and this kernel, once compiled, at most that)", device_max_total);
        if (total > device_max_total || (kernel_max_total && total > *kernel_max_total)) {
            throw ArgumentError("local_size",
                                fmt::format("static kernel '{}': the local size {} makes {} work items per group; {}",
                                            kernel_name, shape(*local_size), total, limits));
        }
        plan.local_size = *local_size;
    } else {
        std::size_t budget = std::min({device_max_total, preferred_virtual_local_size, max_local[0]});
        if (kernel_max_total) budget = std::min(budget, std::max<std::size_t>(1, *kernel_max_total));
        plan.local_size = choose_local_size(global_size, budget, device.warp_size);
    }

    // The virtual grid, padded to whole groups, must be addressable with VSIZE_T.
    std::uint64_t padded_total = 1;
    for (std::size_t d = 0; d < dims; ++d) {
        const std::size_t groups = ceil_div(global_size[d], plan.local_size[d]);
        plan.num_groups.push_back(groups);
        plan.total_local *= plan.local_size[d];
        plan.total_groups = mul_sat(plan.total_groups, groups);
        padded_total = mul_sat(padded_total, mul_sat(groups, plan.local_size[d]));
    }
    if (padded_total > max_vsize) {
        throw ArgumentError("global_size",
                            fmt::format("static kernel '{}': the grid {} with local size {} ({} work items with the "
                                        "padding) does not fit VSIZE_T on this API (at most {})",
                                        kernel_name, shape(global_size), shape(plan.local_size),
                                        padded_total == unlimited ? std::string("too many")
                                                                  : std::to_string(padded_total),
                                        max_vsize));
    }

    // A virtual group is one real group, its work items laid over the real local dimensions.
    {
        const std::size_t total = plan.total_local;
        const std::size_t r0 = total <= max_local[0] ? total : largest_divisor(total, max_local[0]);
        const std::size_t rest = total / r0;
        const std::size_t r1 = rest <= max_local[1] ? rest : largest_divisor(rest, max_local[1]);
        const std::size_t r2 = rest / r1;
        if (r2 > max_local[2]) {
            throw ArgumentError("local_size",
                                fmt::format("static kernel '{}': {} work items per group ({}) cannot be laid out "
                                            "within the device's group extents {}",
                                            kernel_name, total, shape(plan.local_size), shape(device.max_local_sizes)));
        }
        plan.real_local = {r0, r1, r2};
    }

    // The virtual groups, numbered with dimension 0 fastest, over the real grid: x alone while they
    // fit, else x and y, else x, y and z, each split as evenly as the limits allow (least padding).
    {
        const std::uint64_t n = plan.total_groups;
        const std::uint64_t xy = mul_sat(max_groups[0], max_groups[1]);
        std::uint64_t g0 = 1, g1 = 1, g2 = 1;
        if (n <= max_groups[0]) {
            g0 = n;
        } else if (n <= xy) {
            g1 = ceil_div(n, max_groups[0]);
            g0 = ceil_div(n, g1);
        } else if (n <= mul_sat(xy, max_groups[2]) && n != unlimited) {
            g2 = ceil_div(n, xy);
            const std::uint64_t rest = ceil_div(n, g2);
            g1 = ceil_div(rest, max_groups[0]);
            g0 = ceil_div(rest, g1);
        } else {
            throw ArgumentError("global_size",
                                fmt::format("static kernel '{}': the grid {} with local size {} needs {} groups; the "
                                            "device allows {} in all",
                                            kernel_name, shape(global_size), shape(plan.local_size),
                                            n == unlimited ? std::string("too many") : std::to_string(n),
                                            shape(device.max_num_groups)));
        }
        const std::uint64_t real_total = mul_sat(mul_sat(g0, g1), g2);
        if (g0 > max_groups[0] || g1 > max_groups[1] || g2 > max_groups[2] || real_total < n) {
            throw Error(fmt::format("static kernel '{}': internal error laying {} groups over {}", kernel_name, n,
                                    shape(device.max_num_groups)));
        }
        if (real_total > max_vsize) {
            throw ArgumentError("global_size",
                                fmt::format("static kernel '{}': the grid {} with local size {} needs {} real groups, "
                                            "more than VSIZE_T holds on this API ({})",
                                            kernel_name, shape(global_size), shape(plan.local_size), real_total,
                                            max_vsize));
        }
        plan.real_groups = {static_cast<std::size_t>(g0), static_cast<std::size_t>(g1), static_cast<std::size_t>(g2)};
    }

    plan.real_dims = 1;
    for (unsigned d = 1; d < 3; ++d) {
        if (plan.real_local[d] > 1 || plan.real_groups[d] > 1) plan.real_dims = d + 1;
    }
    return plan;
}

}  // namespace kjarni::detail
