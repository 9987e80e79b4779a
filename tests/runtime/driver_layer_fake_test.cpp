// The driver layer's extras on a backend that lacks them (the fake backend of
// tests/support/fake_backend.hpp, which implements neither images nor separate compilation): each
// is an UnsupportedError naming the backend, raised before anything reaches a driver.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "kjarni/image.hpp"
#include "kjarni/program.hpp"
#include "support/fake_backend.hpp"

namespace kjarni::test {
namespace {

constexpr const char* unit = R"(
FUNCTION int32_t twice(int32_t x) { return 2 * x; }
)";

class DriverLayerFake : public ::testing::Test {
protected:
    FakeApi api;
    std::shared_ptr<FakeContext> fake = std::make_shared<FakeContext>(api, api.platforms()[0]->devices());
    Context context = detail::BackendAccess::make<Context>(fake);
    BoundDevice device = context.devices()[0];
    // "the <shortcut> backend ..."
    std::string backend_words() const { return "the " + context.api().shortcut() + " backend"; }
};

TEST_F(DriverLayerFake, ImagesAreUnsupportedNamingTheBackend) {
    EXPECT_FALSE(image_limits(device).supported);
    try {
        Image::allocate(device, ImageShape::d2(8, 8), ImageFormat{});
        FAIL() << "an image was made on a backend without images";
    } catch (const UnsupportedError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(backend_words()), std::string::npos) << message;
        EXPECT_NE(message.find("fake device"), std::string::npos) << message;
    }
    // The backend's own default, for a caller that skips the public checks.
    try {
        fake->create_image(0, ImageShape::d1(4), ImageFormat{});
        FAIL() << "the default create_image made an image";
    } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find(backend_words()), std::string::npos) << e.what();
    }
}

TEST_F(DriverLayerFake, LinkingIsUnsupportedNamingTheBackend) {
    try {
        Program::link(device, {LinkInput::source(unit)});
        FAIL() << "a backend without a linker linked";
    } catch (const UnsupportedError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(backend_words()), std::string::npos) << message;
        EXPECT_NE(message.find("link"), std::string::npos) << message;
    }
    const std::vector<std::byte> code(16, std::byte{7});
    EXPECT_THROW(Program::link(device, {LinkInput::binary(code)}), UnsupportedError);
    try {
        Program::compile_unit(device, unit);
        FAIL() << "a backend without separate compilation compiled a unit";
    } catch (const UnsupportedError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(backend_words()), std::string::npos) << message;
        EXPECT_NE(message.find("compile a unit"), std::string::npos) << message;
    }
    // Bad input is still refused as such first.
    EXPECT_THROW(Program::link(device, {}), ArgumentError);
}

}  // namespace
}  // namespace kjarni::test
