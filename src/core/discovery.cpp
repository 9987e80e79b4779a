#include "kjarni/discovery.hpp"

#include <unistd.h>
#include <cstdio>
#include <iostream>
#include <string>

#include "kjarni/error.hpp"

namespace kjarni {

std::vector<std::pair<Platform, std::vector<Device>>> platforms_and_devices_by_mask(
    const Api& api, std::size_t quantity, const DeviceFilter& device_filter, const PlatformFilter& platform_filter) {
    std::vector<std::pair<Platform, std::vector<Device>>> result;
    const std::size_t at_least = quantity == 0 ? 1 : quantity;
    for (const Platform& platform : Platform::all_filtered(api, platform_filter)) {
        auto devices = Device::all_filtered(platform, device_filter);
        if (devices.size() >= at_least) result.emplace_back(platform, std::move(devices));
    }
    return result;
}

namespace {

std::string describe_request(const Api& api, const SelectOptions& options) {
    return std::to_string(options.quantity == 0 ? 1 : options.quantity) + " device(s) of one " + api.shortcut() +
           " platform matching the filters";
}

std::vector<Device> take(std::vector<Device> devices, std::size_t quantity) {
    if (quantity != 0) devices.erase(devices.begin() + static_cast<std::ptrdiff_t>(quantity), devices.end());
    return devices;
}

// Reads an index in [0, count) from `in`, asking again until it gets one.
std::size_t ask_index(std::istream& in, std::ostream& out, const std::string& what, std::size_t count) {
    for (;;) {
        out << "Choose " << what << " [0-" << count - 1 << "]: " << std::flush;
        std::string line;
        if (!std::getline(in, line)) throw NotFoundError("no " + what + " chosen: input ended");
        try {
            std::size_t used = 0;
            const unsigned long choice = std::stoul(line, &used);
            if (used == line.size() && choice < count) return choice;
        } catch (const std::logic_error&) {  // not a number: ask again
        }
        out << "'" << line << "' is not a number from 0 to " << count - 1 << "\n";
    }
}

}  // namespace

std::vector<Device> select_devices(const Api& api, const SelectOptions& options) {
    if (options.interactive && isatty(STDIN_FILENO) != 0) {
        return select_devices_interactively(api, options, std::cin, std::cout);
    }
    auto found = platforms_and_devices_by_mask(api, options.quantity, options.device_filter, options.platform_filter);
    if (found.empty()) throw NotFoundError("no " + describe_request(api, options));
    return take(std::move(found.front().second), options.quantity);
}

std::vector<Device> select_devices_interactively(const Api& api, const SelectOptions& options, std::istream& in,
                                                 std::ostream& out) {
    auto found = platforms_and_devices_by_mask(api, options.quantity, options.device_filter, options.platform_filter);
    if (found.empty()) throw NotFoundError("no " + describe_request(api, options));

    std::size_t platform_index = 0;
    if (found.size() > 1) {
        out << "Platforms:\n";
        for (std::size_t i = 0; i < found.size(); ++i) out << "  [" << i << "] " << found[i].first.name() << "\n";
        platform_index = ask_index(in, out, "a platform", found.size());
    }
    auto& devices = found[platform_index].second;
    const std::size_t wanted = options.quantity == 0 ? devices.size() : options.quantity;
    if (devices.size() == wanted) return devices;  // nothing to choose

    out << "Devices of " << found[platform_index].first.name() << ":\n";
    for (std::size_t i = 0; i < devices.size(); ++i) out << "  [" << i << "] " << devices[i].name() << "\n";
    std::vector<Device> chosen;
    while (chosen.size() < wanted) {
        const std::size_t index =
            ask_index(in, out, "device " + std::to_string(chosen.size() + 1) + " of " + std::to_string(wanted),
                      devices.size());
        bool already = false;
        for (const Device& d : chosen) already = already || d == devices[index];
        if (already) {
            out << "device " << index << " is already chosen\n";
            continue;
        }
        chosen.push_back(devices[index]);
    }
    return chosen;
}

}  // namespace kjarni
