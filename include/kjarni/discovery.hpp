#pragma once
/// Finding devices by criteria (reference: grunnur platforms_and_devices_by_mask / select_devices). \file

#include <cstddef>
#include <iosfwd>
#include <utility>
#include <vector>

#include "kjarni/device.hpp"

namespace kjarni {

/// Every (platform, matching devices) pair with at least `quantity` devices (0: any number >= 1).
std::vector<std::pair<Platform, std::vector<Device>>> platforms_and_devices_by_mask(
    const Api& api, std::size_t quantity = 1, const DeviceFilter& device_filter = {},
    const PlatformFilter& platform_filter = {});

/// How select_devices() chooses: interactively or not, how many devices, and the filters on
/// devices and platforms.
struct SelectOptions {
    /// Ask the user on a terminal when several choices exist.
    bool interactive = false;
    /// How many devices of one platform to take (0: all matching devices of the chosen platform).
    std::size_t quantity = 1;
    DeviceFilter device_filter;
    PlatformFilter platform_filter;
};

/// The first matching devices, or the user's choice when interactive. Throws NotFoundError.
std::vector<Device> select_devices(const Api& api, const SelectOptions& options = {});

/// The interactive selection, on explicit streams (select_devices uses stdin/stdout).
std::vector<Device> select_devices_interactively(const Api& api, const SelectOptions& options, std::istream& in,
                                                 std::ostream& out);

}  // namespace kjarni
