#include "support/test_devices.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <ostream>
#include <sstream>

namespace kjarni::test {

namespace {

struct Selector {
    std::string api;
    std::string platform_mask;
    std::string device_mask;
};

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, separator)) parts.push_back(part);
    return parts;
}

std::vector<Selector> selectors_from_environment() {
    const char* raw = std::getenv("KJARNI_TEST");
    std::vector<Selector> selectors;
    if (raw == nullptr || *raw == '\0') {
        for (const Api& api : Api::all_available()) selectors.push_back({api.shortcut(), "", ""});
        return selectors;
    }
    for (const std::string& item : split(raw, ',')) {
        const auto fields = split(item, ':');
        if (fields.empty() || fields.size() > 3) {
            throw ArgumentError("KJARNI_TEST", "'" + item + "' is not api[:platform_regex[:device_regex]]");
        }
        selectors.push_back({fields[0], fields.size() > 1 ? fields[1] : "", fields.size() > 2 ? fields[2] : ""});
    }
    return selectors;
}

std::vector<TestDevice> find_devices() {
    std::vector<TestDevice> devices;
    for (const Selector& selector : selectors_from_environment()) {
        const Api api = Api::all_by_shortcut(selector.api).at(0);
        const auto platforms = api.platforms();
        for (std::size_t p = 0; p < platforms.size(); ++p) {
            if (!selector.platform_mask.empty() && !std::regex_search(platforms[p].name(), std::regex(selector.platform_mask))) {
                continue;
            }
            const auto platform_devices = platforms[p].devices();
            for (std::size_t d = 0; d < platform_devices.size(); ++d) {
                const std::string name = platform_devices[d].name();
                if (!selector.device_mask.empty() && !std::regex_search(name, std::regex(selector.device_mask))) {
                    continue;
                }
                devices.push_back({api.shortcut(), p, d, name});
            }
        }
    }
    return devices;
}

std::mutex contexts_mutex;
// The contexts the tests share, made on first use and released when the last test has run (not by
// static destruction: drivers may already be torn down then). Releasing them is what a leak checker
// (LeakSanitizer, compute-sanitizer --leak-check full) needs to see everything freed at exit.
// Never destroyed themselves: a process that ends without TearDown leaves them to the OS.
auto& shared_contexts = *new std::map<std::string, std::unique_ptr<Context>>;
auto& multi_device_context = *new std::unique_ptr<Context>;
bool multi_device_context_made = false;

class ReleaseSharedContexts : public ::testing::Environment {
public:
    void TearDown() override {
        const std::lock_guard lock(contexts_mutex);
        shared_contexts.clear();
        multi_device_context.reset();
    }
};

const auto* const release_shared_contexts = ::testing::AddGlobalTestEnvironment(new ReleaseSharedContexts);

}  // namespace

Device TestDevice::device() const {
    return Device::from_index(Platform::from_index(Api::all_by_shortcut(api).at(0), platform_index), device_index);
}

const std::vector<TestDevice>& test_devices() {
    static const std::vector<TestDevice> devices = find_devices();
    return devices;
}

Context& shared_context(const TestDevice& device) {
    const std::lock_guard lock(contexts_mutex);
    const std::string key = fmt::format("{}/{}/{}", device.api, device.platform_index, device.device_index);
    auto& slot = shared_contexts[key];
    if (!slot) slot = std::make_unique<Context>(Context::from_devices(device.device()));
    return *slot;
}

Context* shared_multi_device_context() {
    const std::lock_guard lock(contexts_mutex);
    if (!multi_device_context_made) {
        multi_device_context_made = true;
        std::map<std::pair<std::string, std::size_t>, std::vector<Device>> by_platform;
        for (const TestDevice& d : test_devices()) by_platform[{d.api, d.platform_index}].push_back(d.device());
        for (auto& [platform, devices] : by_platform) {
            if (devices.size() >= 2) {
                multi_device_context = std::make_unique<Context>(Context::from_devices(devices));
                break;
            }
        }
    }
    return multi_device_context.get();
}

void PrintTo(const TestDevice& device, std::ostream* out) {
    *out << device.api << ":" << device.platform_index << ":" << device.device_index << " (" << device.name << ")";
}

std::string test_device_name(const ::testing::TestParamInfo<TestDevice>& info) {
    std::string name = fmt::format("{}_{}_{}_{}", info.param.api, info.param.platform_index, info.param.device_index,
                                   info.param.name);
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
}

}  // namespace kjarni::test
