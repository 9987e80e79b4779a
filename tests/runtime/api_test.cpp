// API discovery: availability, shortcuts, ids, and the reasons given for unavailable APIs.

#include <gtest/gtest.h>

#include "kjarni/kjarni.hpp"

namespace kjarni {
namespace {

TEST(Api, StatusListsEveryKnownApiWithAReasonWhenUnavailable) {
    const auto status = Api::status();
    ASSERT_EQ(status.size(), all_api_ids().size());
    for (const ApiStatus& s : status) {
        EXPECT_EQ(s.available, s.reason.empty()) << s.id.shortcut() << ": " << s.reason;
    }
}

TEST(Api, AllAvailableMatchesStatus) {
    std::vector<std::string> expected;
    for (const ApiStatus& s : Api::status()) {
        if (s.available) expected.push_back(s.id.shortcut());
    }
    std::vector<std::string> actual;
    for (const Api& api : Api::all_available()) actual.push_back(api.shortcut());
    EXPECT_EQ(actual, expected);
}

TEST(Api, ByShortcutAndIdGiveTheSameApi) {
    for (const Api& api : Api::all_available()) {
        const auto by_shortcut = Api::all_by_shortcut(api.shortcut());
        ASSERT_EQ(by_shortcut.size(), 1u);
        EXPECT_EQ(by_shortcut[0], api);
        EXPECT_EQ(Api::from_api_id(api.id()), api);
        EXPECT_FALSE(api.driver_version().empty());
        EXPECT_FALSE(api.platforms().empty());
    }
    EXPECT_EQ(Api::all_by_shortcut().size(), Api::all_available().size());
}

TEST(Api, UnknownShortcutIsNotFound) {
    try {
        Api::all_by_shortcut("vulkan");
        FAIL() << "no exception";
    } catch (const NotFoundError& e) {
        EXPECT_NE(std::string(e.what()).find("vulkan"), std::string::npos) << e.what();
    }
}

TEST(Api, UnavailableApiRaisesWithItsReason) {
    for (const ApiStatus& s : Api::status()) {
        if (s.available) continue;
        try {
            Api::from_api_id(s.id);
            FAIL() << "no exception for " << s.id.shortcut();
        } catch (const ApiUnavailableError& e) {
            EXPECT_NE(std::string(e.what()).find(s.reason), std::string::npos) << e.what();
        }
        EXPECT_THROW(Api::all_by_shortcut(s.id.shortcut()), ApiUnavailableError);
    }
}

TEST(Api, IdsHaveTheirShortcuts) {
    EXPECT_EQ(cuda_api_id().shortcut(), "cuda");
    EXPECT_EQ(opencl_api_id().shortcut(), "opencl");
    EXPECT_EQ(ApiId::cuda(), cuda_api_id());
    EXPECT_FALSE(ApiId::cuda() == ApiId::opencl());
}

}  // namespace
}  // namespace kjarni
