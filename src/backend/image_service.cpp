// The defaults of ContextImages, for backends without images: no images at all, and creating one
// is an UnsupportedError naming the backend.

#include "backend/api.hpp"
#include "backend/image_service.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

ImageLimits ContextImages::image_limits(std::size_t) const { return {}; }

bool ContextImages::image_format_supported(std::size_t, const ImageFormat&) const { return false; }

std::shared_ptr<Image> ContextImages::create_image(std::size_t, const ImageShape&, const ImageFormat&) {
    throw UnsupportedError("the " + api().id().shortcut() + " backend cannot create images");
}

}  // namespace kjarni::backend
