#include "kjarni/device_parameters.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kjarni {

std::string to_string(DeviceType type) {
    switch (type) {
    case DeviceType::cpu: return "CPU";
    case DeviceType::gpu: return "GPU";
    case DeviceType::accelerator: return "accelerator";
    case DeviceType::other: break;
    }
    return "other";
}

std::string to_string(const DeviceAttribute::Value& value) {
    struct Visitor {
        std::string operator()(std::int64_t v) const { return std::to_string(v); }
        std::string operator()(const std::string& v) const { return v; }
        std::string operator()(const std::vector<std::int64_t>& v) const {
            return fmt::format("({})", fmt::join(v, ", "));
        }
    };
    return std::visit(Visitor{}, value);
}

}  // namespace kjarni
