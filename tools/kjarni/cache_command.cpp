#include "cache_command.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>

#include "kjarni/disk_cache.hpp"
#include "kjarni/error.hpp"

namespace kjarni::tool {

nlohmann::json cache_command(const std::string& action) {
    if (action == "clear") {
        const DiskCacheContents before = disk_cache_contents();
        const std::size_t removed = clear_disk_cache();
        return {{"directory", before.directory.string()}, {"removed_entries", removed}};
    }
    if (action != "size" && action != "list")
        throw ArgumentError("action", "'" + action + "': use size, list or clear");
    const DiskCacheContents contents = disk_cache_contents();
    nlohmann::json report = {{"directory", contents.directory.string()},
                             {"enabled", contents.enabled},
                             {"max_bytes", contents.max_bytes},
                             {"entries", contents.entries.size()},
                             {"bytes", contents.total_bytes()}};
    if (action == "list") {
        nlohmann::json list = nlohmann::json::array();
        for (const DiskCacheEntry& entry : contents.entries) {
            const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(entry.last_used.time_since_epoch());
            list.push_back(
                {{"key", entry.key},
                 {"path", entry.path.string()},
                 {"bytes", entry.size},
                 {"last_used", fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                                           fmt::gmtime(std::chrono::system_clock::to_time_t(entry.last_used)))},
                 {"last_used_unix", seconds.count()}});
        }
        report["list"] = list;
    }
    return report;
}

void print_cache_report(const std::string& action, const nlohmann::json& report, std::ostream& out) {
    if (action == "clear") {
        fmt::print(out, "removed {} entries from {}\n", report["removed_entries"].get<std::size_t>(),
                   report["directory"].get<std::string>());
        return;
    }
    fmt::print(out, "{}{}: {} entries, {} bytes (bound {} bytes)\n", report["directory"].get<std::string>(),
               report["enabled"].get<bool>() ? "" : " (disabled)", report["entries"].get<std::size_t>(),
               report["bytes"].get<std::uint64_t>(), report["max_bytes"].get<std::uint64_t>());
    if (action == "list") {
        for (const auto& entry : report["list"]) {
            fmt::print(out, "  {}  {:>10} B  {}\n", entry["key"].get<std::string>(),
                       entry["bytes"].get<std::uint64_t>(), entry["last_used"].get<std::string>());
        }
    }
}

}  // namespace kjarni::tool
