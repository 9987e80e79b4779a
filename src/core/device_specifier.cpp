#include "kjarni/device_specifier.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>
#include <variant>

#include "core/device_extensions.hpp"
#include "kjarni/error.hpp"
#include "kjarni/platform.hpp"

namespace kjarni {

namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const std::size_t at = text.find(separator, start);
        parts.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return parts;
        start = at + 1;
    }
}

std::optional<std::size_t> parse_index(std::string_view digits) {
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return value;
}

Device indexed(const Api& api, std::size_t platform, std::size_t device, std::string_view specifier) {
    const std::vector<Platform> platforms = Platform::all(api);
    if (platform >= platforms.size()) {
        throw NotFoundError(fmt::format("'{}': {} has {} platform(s)", specifier, api.shortcut(), platforms.size()));
    }
    const std::vector<Device> devices = Device::all(platforms[platform]);
    if (device >= devices.size()) {
        throw NotFoundError(fmt::format("'{}': platform {} ('{}') of {} has {} device(s)", specifier, platform,
                                        platforms[platform].name(), api.shortcut(), devices.size()));
    }
    return devices[device];
}

bool search(const std::string& name, std::string_view mask, std::string_view specifier) {
    if (mask.empty()) return true;
    try {
        return std::regex_search(name, std::regex(std::string(mask)));
    } catch (const std::regex_error& error) {
        throw ArgumentError("specifier", fmt::format("'{}': '{}' is not a regex: {}", specifier, mask, error.what()));
    }
}

// Lower case, with the PCI domain: "65:00.0" -> "0000:65:00.0".
std::string normalized_bus_id(std::string_view bus_id) {
    std::string id(bus_id);
    std::transform(id.begin(), id.end(), id.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (std::count(id.begin(), id.end(), ':') == 1) id = "0000:" + id;
    return id;
}

std::optional<std::string> extensions(const Device& device) {
    const auto value = device.attribute("CL_DEVICE_EXTENSIONS");
    if (!value) return std::nullopt;
    if (const auto* text = std::get_if<std::string>(&*value)) return *text;
    return std::nullopt;
}

bool is_cuda(const Device& device) { return device.platform().api().id() == ApiId::cuda(); }

}  // namespace

namespace detail {

bool has_extension(const Device& device, std::string_view name) {
    const auto list = extensions(device);
    if (!list) return false;
    for (std::string_view word : split(*list, ' ')) {
        if (word == name) return true;
    }
    return false;
}

}  // namespace detail

std::vector<Device> devices_from_specifier(std::string_view specifier) {
    if (specifier.starts_with("pci:")) {
        const std::string_view bus_id = specifier.substr(4);
        for (const Api& api : Api::all_available()) {
            try {
                return {device_from_pci_bus_id(api, bus_id)};
            } catch (const NotFoundError&) {
            }
        }
        throw NotFoundError(fmt::format("'{}': no device of an available API is at that PCI address", specifier));
    }
    // pygpu's "cudaN" and "openclP:D".
    if (specifier.starts_with("cuda") && specifier.size() > 4 &&
        std::isdigit(static_cast<unsigned char>(specifier[4]))) {
        const auto device = parse_index(specifier.substr(4));
        if (!device) throw ArgumentError("specifier", fmt::format("'{}' is not cudaN", specifier));
        return {indexed(Api::from_api_id(ApiId::cuda()), 0, *device, specifier)};
    }
    if (specifier.starts_with("opencl") && specifier.size() > 6 &&
        std::isdigit(static_cast<unsigned char>(specifier[6]))) {
        const auto parts = split(specifier.substr(6), ':');
        const auto platform = parse_index(parts[0]);
        const auto device = parts.size() == 2 ? parse_index(parts[1]) : std::nullopt;
        if (!platform || !device) throw ArgumentError("specifier", fmt::format("'{}' is not openclP:D", specifier));
        return {indexed(Api::from_api_id(ApiId::opencl()), *platform, *device, specifier)};
    }
    // kjarni's "api[:platform_regex[:device_regex]]".
    const auto parts = split(specifier, ':');
    if (parts.size() > 3) {
        throw ArgumentError("specifier",
                            fmt::format("'{}' is not api[:platform_regex[:device_regex]], cudaN, openclP:D "
                                        "or pci:BUS_ID",
                                        specifier));
    }
    const std::string_view platform_mask = parts.size() > 1 ? parts[1] : std::string_view{};
    const std::string_view device_mask = parts.size() > 2 ? parts[2] : std::string_view{};
    std::vector<Device> found;
    for (const Api& api : Api::all_by_shortcut(parts[0])) {
        for (const Platform& platform : Platform::all(api)) {
            if (!search(platform.name(), platform_mask, specifier)) continue;
            for (const Device& device : Device::all(platform)) {
                if (search(device.name(), device_mask, specifier)) found.push_back(device);
            }
        }
    }
    if (found.empty()) throw NotFoundError(fmt::format("'{}': no device matches", specifier));
    return found;
}

Device device_from_specifier(std::string_view specifier) { return devices_from_specifier(specifier).front(); }

Context context_from_specifier(std::string_view specifier) {
    return Context::from_devices(device_from_specifier(specifier));
}

std::vector<Device> devices_from_specifiers(std::string_view list) {
    std::vector<Device> devices;
    if (list.empty()) {
        for (const Api& api : Api::all_available()) {
            for (const Platform& platform : Platform::all(api)) {
                for (const Device& device : Device::all(platform)) devices.push_back(device);
            }
        }
        return devices;
    }
    for (std::string_view item : split(list, ',')) {
        if (item.empty()) throw ArgumentError("specifier", fmt::format("'{}' has an empty item", list));
        for (const Device& device : devices_from_specifier(item)) {
            if (std::find(devices.begin(), devices.end(), device) == devices.end()) devices.push_back(device);
        }
    }
    return devices;
}

std::string device_specifier(const Device& device) {
    const Platform platform = device.platform();
    const std::vector<Platform> platforms = Platform::all(platform.api());
    const std::size_t p =
        static_cast<std::size_t>(std::find(platforms.begin(), platforms.end(), platform) - platforms.begin());
    const std::vector<Device> devices = Device::all(platform);
    const std::size_t d = static_cast<std::size_t>(std::find(devices.begin(), devices.end(), device) - devices.begin());
    if (is_cuda(device)) return fmt::format("cuda{}", d);
    return fmt::format("opencl{}:{}", p, d);
}

Device device_from_pci_bus_id(const Api& api, std::string_view bus_id) {
    const std::string wanted = normalized_bus_id(bus_id);
    for (const Platform& platform : Platform::all(api)) {
        for (const Device& device : Device::all(platform)) {
            const auto& id = device.properties().pci_bus_id;
            if (id && normalized_bus_id(*id) == wanted) return device;
        }
    }
    throw NotFoundError(fmt::format("no {} device is at PCI address '{}'", api.shortcut(), bus_id));
}

bool have_double(const Device& device) {
    if (is_cuda(device)) return true;
    if (detail::has_extension(device, "cl_khr_fp64")) return true;
    // OpenCL 3.0 makes double optional without the extension's name: the FP config says.
    const auto config = device.attribute("CL_DEVICE_DOUBLE_FP_CONFIG");
    if (!config) return false;
    const auto* bits = std::get_if<std::int64_t>(&*config);
    return bits != nullptr && *bits != 0;
}

bool have_half(const Device& device) {
    if (is_cuda(device)) {
        const auto capability = device.properties().compute_capability;
        return capability && *capability >= ComputeCapability{5, 3};
    }
    return detail::has_extension(device, "cl_khr_fp16");
}

bool have_complex(const Device& device, bool double_precision) { return !double_precision || have_double(device); }

void require_capabilities(const Device& device, const RequiredCapabilities& required) {
    std::vector<std::string> missing;
    if (required.double_precision && !have_double(device)) missing.emplace_back("double precision (cl_khr_fp64)");
    if (required.complex && !have_complex(device, required.double_precision)) missing.emplace_back("complex128");
    if (required.half && !have_half(device)) {
        missing.emplace_back(is_cuda(device) ? "half-precision arithmetic (compute capability 5.3)"
                                             : "half-precision arithmetic (cl_khr_fp16)");
    }
    if (!missing.empty()) {
        throw UnsupportedError(fmt::format("device '{}' ({}) lacks {}", device.name(), device_specifier(device),
                                           fmt::join(missing, ", ")));
    }
}

}  // namespace kjarni
