#pragma once
// `kjarni cache size|list|clear`: the on-disk cache of compiled programs.

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace kjarni::tool {

/// What `action` (size, list or clear) reports, as JSON.
nlohmann::json cache_command(const std::string& action);

void print_cache_report(const std::string& action, const nlohmann::json& report, std::ostream& out);

}  // namespace kjarni::tool
