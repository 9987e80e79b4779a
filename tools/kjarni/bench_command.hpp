#pragma once
// `kjarni bench`: a device's launch overhead and copy bandwidth in a few seconds.

#include <cstddef>
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace kjarni::tool {

struct BenchRequest {
    std::string device;             // api[:platform[:device]], empty: the default device
    std::size_t bytes = 64u << 20;  // per copy
    std::size_t launches = 2000;    // launches timed for the overhead
    std::size_t repetitions = 5;    // of each copy; the best is reported
};

/// {"device", "api", "launch": {...}, "copy": {...}}; Error if a copy comes back wrong.
nlohmann::json run_bench(const BenchRequest& request);

void print_bench_report(const nlohmann::json& report, std::ostream& out);

}  // namespace kjarni::tool
