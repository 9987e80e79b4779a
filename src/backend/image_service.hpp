#pragma once
// Images of a backend context (kjarni/image.hpp). The defaults (image_service.cpp) say the device
// has none and throw UnsupportedError naming the backend.

#include <cstddef>
#include <memory>

#include "backend/context_service.hpp"
#include "backend/image_objects.hpp"

namespace kjarni::backend {

class ContextImages : public virtual ContextService {
public:
    /// What images device `device_index` can hold.
    virtual ImageLimits image_limits(std::size_t device_index) const;
    /// Whether the device holds images of `format` (asked after image_limits says it has images).
    virtual bool image_format_supported(std::size_t device_index, const ImageFormat& format) const;
    /// An image of `shape` and `format` on device `device_index`; the public layer has checked both
    /// against the two calls above. Its contents are undefined.
    virtual std::shared_ptr<Image> create_image(std::size_t device_index, const ImageShape& shape,
                                                const ImageFormat& format);
};

}  // namespace kjarni::backend
