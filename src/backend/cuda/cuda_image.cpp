// Images on CUDA: a CUDA array (cuArray3DCreate, always with CUDA_ARRAY3D_SURFACE_LDST so that
// kernels can write it; a mipmapped array for several levels, CUBEMAP for cube maps), one surface
// object made with it for WRITE parameters, and a texture object per SampledImage for READ
// parameters. Transfers are cuMemcpy3DAsync of a box with an array side; layers count as the
// depth of the copy (the third extent of a layered array).

#include <cuda.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"

namespace kjarni::backend::cuda {

namespace {

CUarray_format cu_format(ChannelType type) {
    switch (type) {
    case ChannelType::uint8: return CU_AD_FORMAT_UNSIGNED_INT8;
    case ChannelType::uint16: return CU_AD_FORMAT_UNSIGNED_INT16;
    case ChannelType::uint32: return CU_AD_FORMAT_UNSIGNED_INT32;
    case ChannelType::int8: return CU_AD_FORMAT_SIGNED_INT8;
    case ChannelType::int16: return CU_AD_FORMAT_SIGNED_INT16;
    case ChannelType::int32: return CU_AD_FORMAT_SIGNED_INT32;
    case ChannelType::float16: return CU_AD_FORMAT_HALF;
    case ChannelType::float32: return CU_AD_FORMAT_FLOAT;
    }
    return CU_AD_FORMAT_FLOAT;
}

CUaddress_mode cu_address(AddressMode mode) {
    switch (mode) {
    case AddressMode::clamp: return CU_TR_ADDRESS_MODE_BORDER;  // the border colour, all zero
    case AddressMode::repeat: return CU_TR_ADDRESS_MODE_WRAP;
    case AddressMode::mirrored_repeat: return CU_TR_ADDRESS_MODE_MIRROR;
    case AddressMode::none:  // unspecified results: the cheapest defined mode
    case AddressMode::clamp_to_edge: break;
    }
    return CU_TR_ADDRESS_MODE_CLAMP;
}

/// The prelude's kjarni_image_surface (image_prelude.cpp), byte for byte.
struct SurfaceArgument {
    unsigned long long surface;
    unsigned int format;  // channels | ChannelType << 4 | normalized << 8
    unsigned int dims;    // 1, 2, 3; 4: 1-D array; 5: 2-D array; 6: cube map; 7: cube map array
};
static_assert(sizeof(SurfaceArgument) == 16);

class CudaImageSampler;

class CudaImage final : public Image, public std::enable_shared_from_this<CudaImage> {
public:
    /// A new image: a CUDA array, or a mipmapped array whose level 0 is this image's array.
    CudaImage(std::shared_ptr<CudaContext> context, std::size_t device_index, const ImageShape& shape,
              const ImageFormat& format)
        : context_(std::move(context)), device_index_(device_index), shape_(shape), format_(format) {
        const Driver& driver = context_->driver();
        CurrentContext current(driver, context_->cu_context(device_index_));
        CUDA_ARRAY3D_DESCRIPTOR d{};
        d.Width = shape.width;
        // Unused extents are 0 to CUDA; a layered array's layers are its depth.
        d.Height = shape.dimensions >= 2 ? shape.height : 0;
        d.Depth = shape.dimensions == 3 ? shape.depth : shape.layers;
        d.Format = cu_format(format.type);
        d.NumChannels = static_cast<unsigned int>(format.channels());
        // A cube map is an array of six layers with the CUBEMAP flag (and LAYERED too for an array
        // of cube maps); its faces are copied as layers.
        const auto flag = [](bool on, unsigned int bit) { return on ? bit : 0u; };
        d.Flags = static_cast<unsigned int>(CUDA_ARRAY3D_SURFACE_LDST) |
                  flag(shape.layered() && shape.kind != ImageKind::cube_map, CUDA_ARRAY3D_LAYERED) |
                  flag(shape.cube(), CUDA_ARRAY3D_CUBEMAP);
        if (shape.levels > 1) {
            KJARNI_CU(driver, MipmappedArrayCreate, &mipmap_, &d, static_cast<unsigned int>(shape.levels));
            const CUresult got = driver.MipmappedArrayGetLevel(&array_, mipmap_, 0);
            if (got != CUDA_SUCCESS) {
                release_arrays();
                check(driver, got, "cuMipmappedArrayGetLevel");
            }
        } else {
            KJARNI_CU(driver, Array3DCreate, &array_, &d);
        }
        make_surface();
    }

    /// Level `array` (of `shape`) of `parent`'s mipmapped array, which owns it.
    CudaImage(std::shared_ptr<CudaImage> parent, CUarray array, const ImageShape& shape)
        : context_(parent->context_), device_index_(parent->device_index_), shape_(shape), format_(parent->format_),
          parent_(std::move(parent)), array_(array) {
        CurrentContext current(context_->driver(), context_->cu_context(device_index_));
        make_surface();
    }

    ~CudaImage() override {
        try {
            CurrentContext current(context_->driver(), context_->cu_context(device_index_));
            // Errors (a driver already shut down at process exit) cannot be reported from here.
            static_cast<void>(context_->driver().SurfObjectDestroy(surface_));
            release_arrays();
        } catch (...) {
        }
    }
    CudaImage(const CudaImage&) = delete;
    CudaImage& operator=(const CudaImage&) = delete;

    std::size_t device_index() const override { return device_index_; }
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(array_); }
    const std::shared_ptr<CudaContext>& context() const noexcept { return context_; }
    /// What a texture reads: every level of a mipmapped image, else the array.
    CUDA_RESOURCE_DESC resource_desc() const {
        CUDA_RESOURCE_DESC resource{};
        if (mipmap_ != nullptr) {
            resource.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
            resource.res.mipmap.hMipmappedArray = mipmap_;
        } else {
            resource.resType = CU_RESOURCE_TYPE_ARRAY;
            resource.res.array.hArray = array_;
        }
        return resource;
    }
    const ImageFormat& format() const noexcept { return format_; }
    const ImageShape& shape() const noexcept { return shape_; }

    void write(Queue& queue, const ImageRegion& region, const void* host, bool blocking) override {
        CUDA_MEMCPY3D p = extent(region);
        p.srcMemoryType = CU_MEMORYTYPE_HOST;
        p.srcHost = host;
        packed_source(p);
        array_destination(p, region.origin);
        run(queue, p, blocking);
    }

    void read(Queue& queue, const ImageRegion& region, void* host, bool blocking) override {
        CUDA_MEMCPY3D p = extent(region);
        array_source(p, region.origin);
        p.dstMemoryType = CU_MEMORYTYPE_HOST;
        p.dstHost = host;
        packed_destination(p);
        run(queue, p, blocking);
    }

    void copy_from_buffer(Queue& queue, const ImageRegion& region, Buffer& source, std::size_t offset,
                          bool blocking) override {
        CUDA_MEMCPY3D p = extent(region);
        p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        p.srcDevice = static_cast<CudaBuffer&>(source).at(offset);
        packed_source(p);
        array_destination(p, region.origin);
        run(queue, p, blocking);
    }

    void copy_to_buffer(Queue& queue, const ImageRegion& region, Buffer& destination, std::size_t offset,
                        bool blocking) override {
        CUDA_MEMCPY3D p = extent(region);
        array_source(p, region.origin);
        p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        p.dstDevice = static_cast<CudaBuffer&>(destination).at(offset);
        packed_destination(p);
        run(queue, p, blocking);
    }

    void copy_from_image(Queue& queue, Image& source, const ImageRegion& source_region,
                         const std::array<std::size_t, 3>& origin, bool blocking) override {
        CUDA_MEMCPY3D p = extent(source_region);
        static_cast<CudaImage&>(source).array_source(p, source_region.origin);
        array_destination(p, origin);
        run(queue, p, blocking);
    }

    std::shared_ptr<ImageSampler> sampled(const Sampler& sampler) override;

    std::shared_ptr<Image> level(std::size_t level, const ImageShape& shape) override {
        const Driver& driver = context_->driver();
        CurrentContext current(driver, context_->cu_context(device_index_));
        CUarray array = nullptr;
        KJARNI_CU(driver, MipmappedArrayGetLevel, &array, mipmap_, static_cast<unsigned int>(level));
        return std::make_shared<CudaImage>(shared_from_this(), array, shape);
    }

    KernelArg write_argument() override {
        SurfaceArgument surface{};
        surface.surface = surface_;
        surface.format = static_cast<unsigned int>(format_.channels()) | static_cast<unsigned int>(format_.type) << 4 |
                         (format_.normalized ? 1u << 8 : 0u);
        surface.dims = shape_.kind == ImageKind::cube_map         ? 6u
                       : shape_.kind == ImageKind::cube_map_array ? 7u
                       : shape_.layered()                         ? shape_.dimensions + 3
                                                                  : shape_.dimensions;
        KernelArg arg;
        arg.kind = KernelArg::Kind::image;
        std::memcpy(arg.scalar, &surface, sizeof surface);
        arg.size = sizeof surface;
        arg.device_index = device_index_;
        return arg;
    }

private:
    // Called with the context current. A surface over the array (every level's array may have one).
    void make_surface() {
        CUDA_RESOURCE_DESC resource{};
        resource.resType = CU_RESOURCE_TYPE_ARRAY;
        resource.res.array.hArray = array_;
        const CUresult made = context_->driver().SurfObjectCreate(&surface_, &resource);
        if (made != CUDA_SUCCESS) {
            release_arrays();
            check(context_->driver(), made, "cuSurfObjectCreate");
        }
    }
    // A level's array belongs to its mipmapped array, which belongs to the image that made it.
    void release_arrays() noexcept {
        if (mipmap_ != nullptr) {
            static_cast<void>(context_->driver().MipmappedArrayDestroy(mipmap_));
        } else if (parent_ == nullptr && array_ != nullptr) {
            static_cast<void>(context_->driver().ArrayDestroy(array_));
        }
    }

    /// kjarni's region coordinates as CUDA's (x, y, z): a 1-D array's layer (kjarni's y) is CUDA's
    /// z, the depth of a layered array; the other kinds agree.
    std::array<std::size_t, 3> cuda_coordinates(const std::array<std::size_t, 3>& c) const {
        if (shape_.dimensions == 1 && shape_.layered()) return {c[0], 0, c[1]};
        return c;
    }
    /// A box's extent: rows of extent-x pixels, `Height` rows per slice, `Depth` slices (or layers).
    CUDA_MEMCPY3D extent(const ImageRegion& region) const {
        std::array<std::size_t, 3> e = cuda_coordinates(region.extent);
        if (shape_.dimensions == 1 && shape_.layered()) e[1] = 1;
        CUDA_MEMCPY3D p{};
        p.WidthInBytes = e[0] * format_.pixel_size();
        p.Height = e[1];
        p.Depth = e[2];
        return p;
    }
    void array_source(CUDA_MEMCPY3D& p, const std::array<std::size_t, 3>& origin) const {
        const auto o = cuda_coordinates(origin);
        p.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        p.srcArray = array_;
        p.srcXInBytes = o[0] * format_.pixel_size();
        p.srcY = o[1];
        p.srcZ = o[2];
    }
    void array_destination(CUDA_MEMCPY3D& p, const std::array<std::size_t, 3>& origin) const {
        const auto o = cuda_coordinates(origin);
        p.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        p.dstArray = array_;
        p.dstXInBytes = o[0] * format_.pixel_size();
        p.dstY = o[1];
        p.dstZ = o[2];
    }
    void packed_source(CUDA_MEMCPY3D& p) const {
        p.srcPitch = p.WidthInBytes;
        p.srcHeight = p.Height;
    }
    void packed_destination(CUDA_MEMCPY3D& p) const {
        p.dstPitch = p.WidthInBytes;
        p.dstHeight = p.Height;
    }
    void run(Queue& queue, const CUDA_MEMCPY3D& p, bool blocking) const {
        auto& cuda_queue = static_cast<CudaQueue&>(queue);
        const Driver& driver = context_->driver();
        CurrentContext current(driver, context_->cu_context(device_index_));
        KJARNI_CU(driver, Memcpy3DAsync, &p, cuda_queue.stream());
        if (blocking) KJARNI_CU(driver, StreamSynchronize, cuda_queue.stream());
    }

    std::shared_ptr<CudaContext> context_;
    std::size_t device_index_;
    ImageShape shape_;
    ImageFormat format_;
    std::shared_ptr<CudaImage> parent_;  // the image whose mipmapped array holds this level
    CUmipmappedArray mipmap_ = nullptr;  // an image of several levels: all of them
    CUarray array_ = nullptr;            // level 0, or the level this image is
    CUsurfObject surface_ = 0;
};

class CudaImageSampler final : public ImageSampler {
public:
    CudaImageSampler(std::shared_ptr<CudaImage> image, const Sampler& sampler) : image_(std::move(image)) {
        const Driver& driver = image_->context()->driver();
        CurrentContext current(driver, image_->context()->cu_context(image_->device_index()));
        CUDA_RESOURCE_DESC resource = image_->resource_desc();
        CUDA_TEXTURE_DESC texture{};
        const CUaddress_mode address = cu_address(sampler.address);
        for (auto& mode : texture.addressMode) mode = address;
        texture.filterMode = sampler.filter == FilterMode::linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
        const ImageFormat& format = image_->format();
        // Integer formats not normalised are read as integers; normalised ones (and floats) as floats.
        const auto flag = [](bool on, int bit) { return on ? static_cast<unsigned int>(bit) : 0u; };
        texture.flags = flag(sampler.normalized_coordinates, CU_TRSF_NORMALIZED_COORDINATES) |
                        flag(!format.reads_as_float(), CU_TRSF_READ_AS_INTEGER);
        // Not CU_TRSF_SEAMLESS_CUBEMAP: filtering stops at a face's edge, as OpenCL's cube maps
        // (a 2-D image array read face by face) do.
        if (image_->shape().levels > 1) {
            texture.mipmapFilterMode =
                sampler.mipmap_filter == FilterMode::linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
            texture.maxMipmapLevelClamp = static_cast<float>(image_->shape().levels - 1);
        }
        KJARNI_CU(driver, TexObjectCreate, &texture_, &resource, &texture, nullptr);
    }
    ~CudaImageSampler() override {
        try {
            CurrentContext current(image_->context()->driver(), image_->context()->cu_context(image_->device_index()));
            static_cast<void>(image_->context()->driver().TexObjectDestroy(texture_));
        } catch (...) {
        }
    }
    CudaImageSampler(const CudaImageSampler&) = delete;
    CudaImageSampler& operator=(const CudaImageSampler&) = delete;

    KernelArg read_argument() const override {
        KernelArg arg;
        arg.kind = KernelArg::Kind::image;
        std::memcpy(arg.scalar, &texture_, sizeof texture_);
        arg.size = sizeof texture_;
        arg.device_index = image_->device_index();
        return arg;
    }

private:
    std::shared_ptr<CudaImage> image_;
    CUtexObject texture_ = 0;
};

std::shared_ptr<ImageSampler> CudaImage::sampled(const Sampler& sampler) {
    return std::make_shared<CudaImageSampler>(shared_from_this(), sampler);
}

}  // namespace

ImageLimits CudaContext::image_limits(std::size_t device_index) const {
    const auto attribute = [&](CUdevice_attribute which) {
        int value = 0;
        KJARNI_CU(driver_, DeviceGetAttribute, &value, which, cu_devices_[device_index]);
        return static_cast<std::size_t>(value);
    };
    // Arrays are made surface-capable: the smaller of the texture and the surface limits holds.
    // One set of limits for layered and plain images: the layered ones, which are the smaller.
    const auto both = [&](CUdevice_attribute texture, CUdevice_attribute surface) {
        return std::min(attribute(texture), attribute(surface));
    };
    ImageLimits limits;
    limits.supported = true;
    limits.mipmaps = true;
    limits.max_width_1d =
        both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH);
    limits.max_width_2d =
        both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH);
    limits.max_height_2d =
        both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT);
    limits.max_width_3d =
        both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH);
    limits.max_height_3d =
        both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT);
    limits.max_depth_3d =
        both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH);
    limits.max_layers = std::min(both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS,
                                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS),
                                 both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS,
                                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS));
    // As above, the layered limits, which are the smaller; the layer limit counts faces.
    limits.max_cube_map_size = std::min(both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH,
                                             CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH),
                                        both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH,
                                             CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH));
    limits.max_cube_maps = both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS,
                                CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS) /
                           6;
    return limits;
}

bool CudaContext::image_format_supported(std::size_t, const ImageFormat& format) const {
    // CUDA arrays have 1, 2 or 4 channels of each of the eight types: every kjarni format but rgb.
    return format.order != ChannelOrder::rgb;
}

std::shared_ptr<Image> CudaContext::create_image(std::size_t device_index, const ImageShape& shape,
                                                 const ImageFormat& format) {
    return std::make_shared<CudaImage>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index, shape,
                                       format);
}

}  // namespace kjarni::backend::cuda
