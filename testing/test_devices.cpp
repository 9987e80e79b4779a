#include "kjarni/testing.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "kjarni/device_specifier.hpp"
#include "kjarni/platform.hpp"

namespace kjarni::test {

namespace {

std::vector<TestDevice> find_devices() {
    const char* raw = std::getenv("KJARNI_TEST");
    std::vector<TestDevice> devices;
    for (const Device& device : devices_from_specifiers(raw == nullptr ? "" : raw)) {
        const Platform platform = device.platform();
        const auto platforms = Platform::all(platform.api());
        const auto p =
            static_cast<std::size_t>(std::find(platforms.begin(), platforms.end(), platform) - platforms.begin());
        const auto platform_devices = Device::all(platform);
        const auto d = static_cast<std::size_t>(std::find(platform_devices.begin(), platform_devices.end(), device) -
                                                platform_devices.begin());
        devices.push_back({platform.api().shortcut(), p, d, device.name()});
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
    const std::string key =
        device.api + "/" + std::to_string(device.platform_index) + "/" + std::to_string(device.device_index);
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
    std::string name = info.param.api + "_" + std::to_string(info.param.platform_index) + "_" +
                       std::to_string(info.param.device_index) + "_" + info.param.name;
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
}

}  // namespace kjarni::test
