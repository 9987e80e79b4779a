// The image defaults of backend::Context, for backends without images: no images at all, and
// creating one is an UnsupportedError naming the backend.

#include "backend/backend.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

ImageLimits Context::image_limits(std::size_t) const { return {}; }

bool Context::image_format_supported(std::size_t, const ImageFormat&) const { return false; }

std::shared_ptr<Image> Context::create_image(std::size_t, const ImageShape&, const ImageFormat&) {
    throw UnsupportedError("the " + api().id().shortcut() + " backend cannot create images");
}

}  // namespace kjarni::backend
