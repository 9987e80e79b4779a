#pragma once
// Global and local sizes of a launch: checked against the device's and the kernel's limits, and the
// local size chosen when the user gives none.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "kjarni/device_parameters.hpp"
#include "kjarni/program.hpp"

namespace kjarni::detail {

struct LaunchGeometry {
    unsigned dims = 1;
    std::array<std::size_t, 3> global{1, 1, 1};
    std::array<std::size_t, 3> local{1, 1, 1};
};

/// Throws ArgumentError naming the size and both limits when a size is out of range.
/// `kernel_max_total` is the kernel's own limit on threads per block (registers, local memory).
LaunchGeometry plan_launch(const Sizes& global_size, const std::optional<Sizes>& local_size,
                           const DeviceParameters& device, std::size_t kernel_max_total, std::string_view kernel_name);

}  // namespace kjarni::detail
