#include "info_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

#include "kjarni/kjarni.hpp"

namespace kjarni::tool {

namespace {

nlohmann::json attribute_value(const DeviceAttribute::Value& value) {
    return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

nlohmann::json device_json(const Device& device) {
    const DeviceParameters& p = device.params();
    const DeviceProperties& props = device.properties();
    nlohmann::json params = {
        {"type", to_string(p.type)},
        {"compute_units", p.compute_units},
        {"local_mem_size", p.local_mem_size},
        {"local_mem_banks", p.local_mem_banks},
        {"max_local_sizes", p.max_local_sizes},
        {"max_num_groups", p.max_num_groups},
        {"max_total_local_size", p.max_total_local_size},
        {"warp_size", p.warp_size},
    };
    nlohmann::json properties = {
        {"vendor", props.vendor},
        {"driver_version", props.driver_version},
        {"total_memory", props.total_memory},
        {"max_allocation_size", props.max_allocation_size},
        {"clock_rate_khz", props.clock_rate_khz},
        {"unified_memory", props.unified_memory},
    };
    if (props.memory_clock_rate_khz) properties["memory_clock_rate_khz"] = *props.memory_clock_rate_khz;
    if (props.memory_bus_width_bits) properties["memory_bus_width_bits"] = *props.memory_bus_width_bits;
    if (props.l2_cache_size) properties["l2_cache_size"] = *props.l2_cache_size;
    if (props.compute_capability) {
        properties["compute_capability"] =
            fmt::format("{}.{}", props.compute_capability->major, props.compute_capability->minor);
    }
    if (props.pci_bus_id) properties["pci_bus_id"] = *props.pci_bus_id;
    nlohmann::json attributes = nlohmann::json::object();
    for (const DeviceAttribute& a : device.attributes()) attributes[a.name] = attribute_value(a.value);
    return {{"name", device.name()}, {"params", params}, {"properties", properties}, {"attributes", attributes}};
}

}  // namespace

nlohmann::json collect_info() {
    nlohmann::json apis = nlohmann::json::array();
    for (const ApiStatus& status : Api::status()) {
        nlohmann::json api = {{"id", status.id.shortcut()}, {"available", status.available}};
        if (!status.available) {
            api["reason"] = status.reason;
            apis.push_back(api);
            continue;
        }
        const Api handle = Api::from_api_id(status.id);
        api["driver_version"] = handle.driver_version();
        nlohmann::json platforms = nlohmann::json::array();
        for (const Platform& platform : handle.platforms()) {
            nlohmann::json devices = nlohmann::json::array();
            for (const Device& device : platform.devices()) devices.push_back(device_json(device));
            platforms.push_back({{"name", platform.name()},
                                 {"vendor", platform.vendor()},
                                 {"version", platform.version()},
                                 {"devices", devices}});
        }
        api["platforms"] = platforms;
        apis.push_back(api);
    }
    return {{"kjarni_version", version()}, {"apis", apis}};
}

namespace {

std::string scalar_text(const nlohmann::json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_array()) {
        std::string text;
        for (const auto& item : value) text += (text.empty() ? "" : ", ") + scalar_text(item);
        return "(" + text + ")";
    }
    return value.dump();
}

void print_section(std::ostream& out, const char* title, const nlohmann::json& fields, const char* indent) {
    fmt::print(out, "{}{}:\n", indent, title);
    for (const auto& [key, value] : fields.items()) {
        fmt::print(out, "{}  {:<44} {}\n", indent, key, scalar_text(value));
    }
}

}  // namespace

void print_info_table(const nlohmann::json& info, std::ostream& out) {
    fmt::print(out, "kjarni {}\n", info["kjarni_version"].get<std::string>());
    for (const auto& api : info["apis"]) {
        const std::string id = api["id"];
        if (!api["available"].get<bool>()) {
            fmt::print(out, "\nAPI {}: unavailable ({})\n", id, api["reason"].get<std::string>());
            continue;
        }
        fmt::print(out, "\nAPI {}: {}\n", id, api["driver_version"].get<std::string>());
        std::size_t platform_index = 0;
        for (const auto& platform : api["platforms"]) {
            fmt::print(out, "  [{}] platform {} ({}, {})\n", platform_index++, platform["name"].get<std::string>(),
                       platform["vendor"].get<std::string>(), platform["version"].get<std::string>());
            std::size_t device_index = 0;
            for (const auto& device : platform["devices"]) {
                fmt::print(out, "    [{}] device {}\n", device_index++, device["name"].get<std::string>());
                print_section(out, "params", device["params"], "      ");
                print_section(out, "properties", device["properties"], "      ");
                print_section(out, "attributes", device["attributes"], "      ");
            }
        }
    }
}

}  // namespace kjarni::tool
