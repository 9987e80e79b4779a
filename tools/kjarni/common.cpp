#include "common.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

#include "kjarni/api.hpp"
#include "kjarni/device_specifier.hpp"
#include "kjarni/error.hpp"

namespace kjarni::tool {

BoundDevice choose_device(const std::string& spec) {
    if (Api::all_available().empty()) throw NotFoundError("no GPU API is available here (kjarni info says why)");
    return Context::from_devices(device_from_specifier(spec)).devices()[0];
}

Value to_value(const nlohmann::json& json) {
    switch (json.type()) {
    case nlohmann::json::value_t::null: return Value(nullptr);
    case nlohmann::json::value_t::boolean: return Value(json.get<bool>());
    case nlohmann::json::value_t::number_integer: return Value(json.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return Value(json.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return Value(json.get<double>());
    case nlohmann::json::value_t::string: return Value(json.get<std::string>());
    case nlohmann::json::value_t::array: {
        std::vector<Value> items;
        for (const auto& item : json) items.push_back(to_value(item));
        return Value::list(std::move(items));
    }
    case nlohmann::json::value_t::object: {
        Globals items;
        for (const auto& [key, item] : json.items()) items.emplace(key, to_value(item));
        return Value::dict(std::move(items));
    }
    default: throw ArgumentError("value", "cannot be a template value: " + json.dump());
    }
}

Globals parse_globals(const std::vector<std::string>& assignments) {
    Globals globals;
    for (const std::string& assignment : assignments) {
        const std::size_t equals = assignment.find('=');
        if (equals == std::string::npos || equals == 0) {
            throw ArgumentError("--arg", "'" + assignment + "' is not NAME=VALUE");
        }
        const std::string text = assignment.substr(equals + 1);
        nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        globals.insert_or_assign(assignment.substr(0, equals), parsed.is_discarded() ? Value(text) : to_value(parsed));
    }
    return globals;
}

Progress::Progress(std::string title, std::size_t steps)
    : title_(std::move(title)), steps_(steps), shown_(::isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
    if (shown_ && done_ > 0) std::fputs("\r\033[K", stderr);
}

void Progress::step(std::string_view what) {
    ++done_;
    if (!shown_) return;
    std::fputs(fmt::format("\r\033[K{} [{}/{}] {}", title_, done_, steps_, what).c_str(), stderr);
    std::fflush(stderr);
}

}  // namespace kjarni::tool
