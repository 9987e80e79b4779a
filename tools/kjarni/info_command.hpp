#pragma once
// `kjarni info`: every API, platform and device with its parameters.

#include <iosfwd>

#include <nlohmann/json.hpp>

namespace kjarni::tool {

/// Everything `kjarni info` knows, as JSON (also the source of the table).
nlohmann::json collect_info();

void print_info_table(const nlohmann::json& info, std::ostream& out);

}  // namespace kjarni::tool
