// Loading tuned CLBlast parameters (clblast_tuning.hpp): parsing the files, finding those of a
// device, and handing them to CLBlast once per device.

#include "vendor/clblast_tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "kjarni/error.hpp"
#include "program/cache/disk_cache.hpp"

namespace kjarni::blas::detail {

TunedDevice parse_tuned_parameters(std::string_view json, const std::string& origin) {
    const auto bad = [&](const std::string& why) { return ArgumentError("CLBlast parameters " + origin, why); };
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(json);
    } catch (const nlohmann::json::exception& e) {
        throw bad(std::string("is not JSON: ") + e.what());
    }
    if (!doc.is_object() || !doc.contains("device") || !doc["device"].is_string())
        throw bad("has no \"device\" string");
    if (!doc.contains("kernels") || !doc["kernels"].is_array()) throw bad("has no \"kernels\" array");
    TunedDevice out;
    out.device = doc["device"].get<std::string>();
    if (doc.contains("driver")) {
        if (!doc["driver"].is_string()) throw bad("has a \"driver\" that is not a string");
        out.driver = doc["driver"].get<std::string>();
    }
    for (const auto& k : doc["kernels"]) {
        if (!k.is_object() || !k.contains("kernel") || !k["kernel"].is_string() || !k.contains("precision") ||
            !k["precision"].is_number_integer() || !k.contains("parameters") || !k["parameters"].is_object())
            throw bad("has a kernel entry without \"kernel\", \"precision\" and \"parameters\"");
        TunedKernel kernel;
        kernel.kernel = k["kernel"].get<std::string>();
        kernel.precision = k["precision"].get<int>();
        for (const auto& [name, value] : k["parameters"].items()) {
            if (!value.is_number_unsigned())
                throw bad(
                    fmt::format("gives {} of {} a value that is not a non-negative integer", name, kernel.kernel));
            kernel.parameters.emplace_back(name, value.get<std::size_t>());
        }
        out.kernels.push_back(std::move(kernel));
    }
    return out;
}

namespace {

std::string read_file(const std::filesystem::path& path, const char* origin = "KJARNI_CLBLAST_PARAMETERS") {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ArgumentError(origin, "names " + path.string() + ", which cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The user's files, from KJARNI_CLBLAST_PARAMETERS.
std::vector<TunedDevice> user_parameters() {
    std::vector<TunedDevice> out;
    const char* env = std::getenv("KJARNI_CLBLAST_PARAMETERS");
    if (env == nullptr) return out;
    std::stringstream list{std::string(env)};
    std::string entry;
    while (std::getline(list, entry, ':')) {
        if (entry.empty()) continue;
        const std::filesystem::path path(entry);
        std::vector<std::filesystem::path> files;
        if (std::filesystem::is_directory(path)) {
            for (const auto& f : std::filesystem::directory_iterator(path))
                if (f.path().extension() == ".json") files.push_back(f.path());
            std::sort(files.begin(), files.end());
        } else {
            files.push_back(path);
        }
        for (const auto& f : files) out.push_back(parse_tuned_parameters(read_file(f), f.string()));
    }
    return out;
}

/// The tuner's file for this device and driver in the cache directory, if there is one.
std::optional<TunedDevice> cached_parameters(const std::string& device_name, const std::string& driver) {
    const std::filesystem::path directory = tuning_cache_directory();
    if (directory.empty()) return std::nullopt;
    const std::filesystem::path file = directory / tuning_cache_file_name(device_name, driver);
    std::error_code error;
    if (!std::filesystem::is_regular_file(file, error)) return std::nullopt;
    TunedDevice device = parse_tuned_parameters(read_file(file, "the GEMM tuning cache"), file.string());
    if (device.device != device_name || device.driver != driver) return std::nullopt;
    return device;
}

}  // namespace

std::filesystem::path tuning_cache_directory() {
    const auto settings = kjarni::detail::DiskCacheSettings::from_environment();
    if (settings.directory.empty()) return {};
    return settings.directory / "gemm-tuning";
}

std::string tuning_cache_file_name(const std::string& device_name, const std::string& driver) {
    std::string name = device_name + "--" + driver;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-') ch = '_';
    return name + ".json";
}

std::vector<TunedKernel> tuned_parameters_for(const std::string& device_name, const std::string& driver) {
    std::vector<TunedKernel> out;
    // "none" leaves CLBlast with its own database (for comparisons).
    if (const char* env = std::getenv("KJARNI_CLBLAST_PARAMETERS"); env != nullptr && std::string(env) == "none")
        return out;
    const auto take = [&](const TunedDevice& d) {
        if (d.device == device_name) out.insert(out.end(), d.kernels.begin(), d.kernels.end());
    };
    for (const auto& [name, text] : embedded_tuned_parameters())
        take(parse_tuned_parameters(text, "data/clblast/" + std::string(name)));
    if (const auto cached = cached_parameters(device_name, driver)) take(*cached);
    for (const auto& d : user_parameters()) take(d);
    return out;
}

void apply_tuned_parameters_once(std::uintptr_t device, const std::string& device_name, const std::string& driver,
                                 const std::function<void(const TunedKernel&)>& apply) {
    static std::mutex mutex;
    static std::set<std::uintptr_t> done;
    const std::lock_guard lock(mutex);
    if (done.count(device) != 0) return;
    done.insert(device);  // once, even when it fails: the error is reported once, not on every call
    for (const auto& kernel : tuned_parameters_for(device_name, driver))
        if (kernel.kernel != kjarni_gemm_entry) apply(kernel);
}

}  // namespace kjarni::blas::detail
