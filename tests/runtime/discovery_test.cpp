// Platform and device discovery: indices, filters with regex masks, selection by criteria.

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "kjarni/kjarni.hpp"
#include "support/test_devices.hpp"

namespace kjarni {
namespace {

std::vector<Api> apis_with_devices() {
    std::vector<Api> result;
    for (const Api& api : Api::all_available()) {
        for (const Platform& p : api.platforms()) {
            if (!p.devices().empty()) {
                result.push_back(api);
                break;
            }
        }
    }
    return result;
}

TEST(Discovery, PlatformsAndDevicesByIndex) {
    for (const Api& api : Api::all_available()) {
        const auto platforms = Platform::all(api);
        for (std::size_t i = 0; i < platforms.size(); ++i) {
            const Platform p = Platform::from_index(api, i);
            EXPECT_EQ(p, platforms[i]);
            EXPECT_EQ(p.api(), api);
            EXPECT_FALSE(p.name().empty());
            EXPECT_EQ(Platform::from_backend_platform(api, p.native_handle()), p);
            const auto devices = p.devices();
            for (std::size_t j = 0; j < devices.size(); ++j) {
                const Device d = Device::from_index(p, j);
                EXPECT_EQ(d, devices[j]);
                EXPECT_EQ(d.platform(), p);
                EXPECT_EQ(Device::from_backend_device(api, d.native_handle()), d);
            }
            EXPECT_THROW(Device::from_index(p, devices.size()), ArgumentError);
        }
        try {
            Platform::from_index(api, platforms.size());
            FAIL() << "no exception";
        } catch (const ArgumentError& e) {
            EXPECT_EQ(e.argument(), "platform_idx");
        }
    }
}

TEST(Discovery, PlatformFilterMasks) {
    PlatformFilter none;
    EXPECT_TRUE(none.matches("anything"));
    PlatformFilter include{{"^Port", "NVIDIA"}, {}};
    EXPECT_TRUE(include.matches("Portable Computing Language"));
    EXPECT_TRUE(include.matches("NVIDIA CUDA"));
    EXPECT_FALSE(include.matches("Intel(R) OpenCL"));
    PlatformFilter exclude{{}, {"Intel"}};
    EXPECT_FALSE(exclude.matches("Intel(R) OpenCL"));
    EXPECT_TRUE(exclude.matches("NVIDIA CUDA"));
    PlatformFilter both{{"CUDA|OpenCL"}, {"Intel"}};
    EXPECT_FALSE(both.matches("Intel(R) OpenCL"));
    EXPECT_TRUE(both.matches("NVIDIA CUDA"));
}

TEST(Discovery, MalformedMaskNamesTheArgument) {
    try {
        PlatformFilter{{"(unclosed"}, {}}.matches("x");
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "include_masks");
        EXPECT_NE(std::string(e.what()).find("(unclosed"), std::string::npos);
    }
    EXPECT_THROW((DeviceFilter{{}, {"[z-a]"}, false, false}.matches_name("x")), ArgumentError);
}

TEST(Discovery, DeviceFilterOnRealDevices) {
    for (const Api& api : apis_with_devices()) {
        for (const Platform& p : api.platforms()) {
            const auto all = Device::all(p);
            if (all.empty()) continue;
            // An include mask that is a device's exact name keeps exactly the devices of that name.
            const std::string name = all[0].name();
            std::size_t same_name = 0;
            for (const Device& d : all) same_name += d.name() == name ? 1u : 0u;
            DeviceFilter exact{{"^" + std::regex_replace(name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + "$"},
                               {},
                               false,
                               false};
            EXPECT_EQ(Device::all_filtered(p, exact).size(), same_name);
            DeviceFilter excluded{{}, {".*"}, false, false};
            EXPECT_TRUE(Device::all_filtered(p, excluded).empty());
            DeviceFilter unique{{}, {}, true, false};
            std::set<std::string> names;
            for (const Device& d : all) names.insert(d.name());
            EXPECT_EQ(Device::all_filtered(p, unique).size(), names.size());
            DeviceFilter cooperative{{}, {}, false, true};
            for (const Device& d : Device::all_filtered(p, cooperative)) {
                EXPECT_GT(d.params().max_total_local_size, 1u);
            }
        }
    }
}

TEST(Discovery, ByMaskHonoursQuantity) {
    for (const Api& api : apis_with_devices()) {
        std::size_t most = 0;
        for (const Platform& p : api.platforms()) most = std::max(most, p.devices().size());
        const auto one = platforms_and_devices_by_mask(api, 1);
        EXPECT_FALSE(one.empty());
        const auto all = platforms_and_devices_by_mask(api, most);
        EXPECT_FALSE(all.empty());
        for (const auto& [platform, devices] : all) EXPECT_GE(devices.size(), most);
        EXPECT_TRUE(platforms_and_devices_by_mask(api, most + 1).empty());
    }
}

TEST(Discovery, SelectDevicesTakesTheFirstMatch) {
    for (const Api& api : apis_with_devices()) {
        const auto found = platforms_and_devices_by_mask(api, 1);
        const auto selected = select_devices(api);
        ASSERT_EQ(selected.size(), 1u);
        EXPECT_EQ(selected[0], found[0].second[0]);
        SelectOptions none;
        none.device_filter.include_masks = {"^no device is called this$"};
        try {
            select_devices(api, none);
            FAIL() << "no exception";
        } catch (const NotFoundError& e) {
            EXPECT_NE(std::string(e.what()).find(api.shortcut()), std::string::npos);
        }
    }
}

TEST(Discovery, InteractiveSelectionAsksAgainOnBadInput) {
    for (const Api& api : apis_with_devices()) {
        const auto found = platforms_and_devices_by_mask(api, 1);
        std::size_t platform_choice = 0;
        for (std::size_t i = 0; i < found.size(); ++i) {
            if (found[i].second.size() >= 2) platform_choice = i;
        }
        const auto& devices = found[platform_choice].second;
        std::string answers = found.size() > 1 ? std::to_string(platform_choice) + "\n" : "";
        SelectOptions options;
        options.interactive = true;
        options.quantity = 1;
        options.platform_filter.include_masks = {};
        // A non-number and an out-of-range index are refused; then the last device is taken.
        answers += "abc\n" + std::to_string(devices.size()) + "\n" + std::to_string(devices.size() - 1) + "\n";
        std::istringstream in(answers);
        std::ostringstream out;
        if (devices.size() == 1) {
            // Nothing to choose: the only device is returned without asking.
            const auto chosen = select_devices_interactively(api, options, in, out);
            ASSERT_EQ(chosen.size(), 1u);
            EXPECT_EQ(chosen[0], devices[0]);
            continue;
        }
        const auto chosen = select_devices_interactively(api, options, in, out);
        ASSERT_EQ(chosen.size(), 1u);
        EXPECT_EQ(chosen[0], devices.back());
        EXPECT_NE(out.str().find("'abc' is not a number"), std::string::npos) << out.str();
        std::istringstream ended("");
        EXPECT_THROW(select_devices_interactively(api, options, ended, out), NotFoundError);
    }
}

}  // namespace
}  // namespace kjarni
