// Images on OpenCL: clCreateImage with a cl_image_desc, samplers (clCreateSamplerWithProperties on
// 2.0+ platforms, clCreateSampler before), and the image transfers clEnqueue{Read,Write,Copy}Image
// and clEnqueueCopy{ImageToBuffer,BufferToImage}, of boxes whose coordinates are kjarni's
// ImageRegion's, which count layers as OpenCL does (the second coordinate of a 1-D array, the
// third of a 2-D array): passed through as they are.

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "backend/opencl/opencl_context.hpp"
#include "backend/opencl/opencl_device.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_info.hpp"
#include "backend/opencl/opencl_queue.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::opencl {

namespace {

cl_image_format cl_format(const ImageFormat& format) {
    cl_image_format out{};
    switch (format.order) {
    case ChannelOrder::r: out.image_channel_order = CL_R; break;
    case ChannelOrder::rg: out.image_channel_order = CL_RG; break;
    case ChannelOrder::rgb: out.image_channel_order = CL_RGB; break;
    case ChannelOrder::rgba: out.image_channel_order = CL_RGBA; break;
    }
    const bool n = format.normalized;
    switch (format.type) {
    case ChannelType::uint8: out.image_channel_data_type = n ? CL_UNORM_INT8 : CL_UNSIGNED_INT8; break;
    case ChannelType::uint16: out.image_channel_data_type = n ? CL_UNORM_INT16 : CL_UNSIGNED_INT16; break;
    case ChannelType::uint32: out.image_channel_data_type = CL_UNSIGNED_INT32; break;
    case ChannelType::int8: out.image_channel_data_type = n ? CL_SNORM_INT8 : CL_SIGNED_INT8; break;
    case ChannelType::int16: out.image_channel_data_type = n ? CL_SNORM_INT16 : CL_SIGNED_INT16; break;
    case ChannelType::int32: out.image_channel_data_type = CL_SIGNED_INT32; break;
    case ChannelType::float16: out.image_channel_data_type = CL_HALF_FLOAT; break;
    case ChannelType::float32: out.image_channel_data_type = CL_FLOAT; break;
    }
    return out;
}

cl_mem_object_type cl_image_type(const ImageShape& shape) {
    if (shape.dimensions == 1) return shape.layered() ? CL_MEM_OBJECT_IMAGE1D_ARRAY : CL_MEM_OBJECT_IMAGE1D;
    if (shape.dimensions == 2) return shape.layered() ? CL_MEM_OBJECT_IMAGE2D_ARRAY : CL_MEM_OBJECT_IMAGE2D;
    return CL_MEM_OBJECT_IMAGE3D;
}

cl_addressing_mode cl_address(AddressMode mode) {
    switch (mode) {
    case AddressMode::none: return CL_ADDRESS_NONE;
    case AddressMode::clamp: return CL_ADDRESS_CLAMP;
    case AddressMode::clamp_to_edge: return CL_ADDRESS_CLAMP_TO_EDGE;
    case AddressMode::repeat: return CL_ADDRESS_REPEAT;
    case AddressMode::mirrored_repeat: return CL_ADDRESS_MIRRORED_REPEAT;
    }
    return CL_ADDRESS_NONE;
}

/// Whether the platform is OpenCL 2.0 or later ("OpenCL 3.0 PoCL ..."): only there may
/// clCreateSamplerWithProperties be called, whatever the ICD loader exports.
bool platform_at_least_2(const Device& device) {
    const std::string& version = device.platform().version();
    return version.size() > 7 && version.compare(0, 7, "OpenCL ") == 0 && version[7] >= '2' && version[7] <= '9';
}

class OpenClImage;

class OpenClImageSampler final : public ImageSampler {
public:
    OpenClImageSampler(std::shared_ptr<OpenClImage> image, Handle<cl_sampler> sampler);
    KernelArg read_argument() const override;

private:
    std::shared_ptr<OpenClImage> image_;
    Handle<cl_sampler> sampler_;
};

class OpenClImage final : public Image, public std::enable_shared_from_this<OpenClImage> {
public:
    OpenClImage(std::shared_ptr<OpenClContext> context, std::size_t device_index, const ImageShape& shape,
                const ImageFormat& format)
        : context_(std::move(context)), device_index_(device_index), shape_(shape), format_(format) {
        const cl_image_format cl_fmt = cl_format(format);
        cl_image_desc desc{};
        desc.image_type = cl_image_type(shape);
        desc.image_width = shape.width;
        desc.image_height = shape.dimensions >= 2 ? shape.height : 0;
        desc.image_depth = shape.dimensions == 3 ? shape.depth : 0;
        desc.image_array_size = shape.layers;
        cl_int status = CL_SUCCESS;
        mem_.reset(cl().clCreateImage(context_->handle(), CL_MEM_READ_WRITE, &cl_fmt, &desc, nullptr, &status));
        check(status, "clCreateImage");
    }

    std::size_t device_index() const override { return device_index_; }
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(mem_.get()); }
    cl_mem mem() const noexcept { return mem_.get(); }

    void write(Queue& queue, const ImageRegion& region, const void* host, bool blocking) override {
        check(cl().clEnqueueWriteImage(queue_of(queue), mem_.get(), blocking ? CL_TRUE : CL_FALSE, region.origin.data(),
                                       region.extent.data(), 0, 0, host, 0, nullptr, nullptr),
              "clEnqueueWriteImage");
        flush_unless(queue, blocking);
    }

    void read(Queue& queue, const ImageRegion& region, void* host, bool blocking) override {
        check(cl().clEnqueueReadImage(queue_of(queue), mem_.get(), blocking ? CL_TRUE : CL_FALSE, region.origin.data(),
                                      region.extent.data(), 0, 0, host, 0, nullptr, nullptr),
              "clEnqueueReadImage");
        flush_unless(queue, blocking);
    }

    // NVIDIA's driver (580) answers CL_INVALID_VALUE to buffer copies of a 1-D image array with more
    // than one layer (whole, or a layer at a time past the first), copies other drivers take and the
    // specification prescribes. There, and only after the driver refused, the pixels go through the
    // host: a blocking read and write, correct if slower.
    bool through_host_after(cl_int status) const {
        return status == CL_INVALID_VALUE && shape_.dimensions == 1 && shape_.layered() && shape_.layers > 1;
    }

    void copy_from_buffer(Queue& queue, const ImageRegion& region, Buffer& source, std::size_t offset,
                          bool blocking) override {
        const cl_mem from = static_cast<OpenClBuffer&>(source).mem();
        const cl_int status =
            cl().clEnqueueCopyBufferToImage(queue_of(queue), from, mem_.get(), offset, region.origin.data(),
                                            region.extent.data(), 0, nullptr, nullptr);
        if (through_host_after(status)) {
            std::vector<std::byte> pixels(region.pixels() * format_.pixel_size());
            check(cl().clEnqueueReadBuffer(queue_of(queue), from, CL_TRUE, offset, pixels.size(), pixels.data(), 0,
                                           nullptr, nullptr),
                  "clEnqueueReadBuffer");
            check(cl().clEnqueueWriteImage(queue_of(queue), mem_.get(), CL_TRUE, region.origin.data(),
                                           region.extent.data(), 0, 0, pixels.data(), 0, nullptr, nullptr),
                  "clEnqueueWriteImage");
        } else {
            check(status, "clEnqueueCopyBufferToImage");
        }
        finish(queue, blocking);
    }

    void copy_to_buffer(Queue& queue, const ImageRegion& region, Buffer& destination, std::size_t offset,
                        bool blocking) override {
        const cl_mem to = static_cast<OpenClBuffer&>(destination).mem();
        const cl_int status = cl().clEnqueueCopyImageToBuffer(queue_of(queue), mem_.get(), to, region.origin.data(),
                                                              region.extent.data(), offset, 0, nullptr, nullptr);
        if (through_host_after(status)) {
            std::vector<std::byte> pixels(region.pixels() * format_.pixel_size());
            check(cl().clEnqueueReadImage(queue_of(queue), mem_.get(), CL_TRUE, region.origin.data(),
                                          region.extent.data(), 0, 0, pixels.data(), 0, nullptr, nullptr),
                  "clEnqueueReadImage");
            check(cl().clEnqueueWriteBuffer(queue_of(queue), to, CL_TRUE, offset, pixels.size(), pixels.data(), 0,
                                            nullptr, nullptr),
                  "clEnqueueWriteBuffer");
        } else {
            check(status, "clEnqueueCopyImageToBuffer");
        }
        finish(queue, blocking);
    }

    void copy_from_image(Queue& queue, Image& source, const ImageRegion& source_region,
                         const std::array<std::size_t, 3>& origin, bool blocking) override {
        check(cl().clEnqueueCopyImage(queue_of(queue), static_cast<OpenClImage&>(source).mem(), mem_.get(),
                                      source_region.origin.data(), origin.data(), source_region.extent.data(), 0,
                                      nullptr, nullptr),
              "clEnqueueCopyImage");
        finish(queue, blocking);
    }

    std::shared_ptr<Image> level(std::size_t, const ImageShape&) override {
        // image_limits says mipmaps false: the public layer never makes an OpenCL image of levels.
        throw UnsupportedError("OpenCL images of several mipmap levels (cl_khr_mipmap_image) are not supported");
    }

    std::shared_ptr<ImageSampler> sampled(const Sampler& sampler) override {
        // A cube map (a 2-D image array here) is read at the pixel coordinates that the prelude's
        // kjarni_cube_coordinates computes from the normalised ones: the layer index stays out of
        // any scaling (PoCL 3.1 scales it too under normalised coordinates, against the spec).
        const bool normalized_coordinates = sampler.normalized_coordinates && !shape_.cube();
        const cl_bool normalized = normalized_coordinates ? CL_TRUE : CL_FALSE;
        const cl_addressing_mode address = cl_address(sampler.address);
        const cl_filter_mode filter = sampler.filter == FilterMode::linear ? CL_FILTER_LINEAR : CL_FILTER_NEAREST;
        cl_int status = CL_SUCCESS;
        Handle<cl_sampler> made;
        if (cl().clCreateSamplerWithProperties != nullptr && platform_at_least_2(*context_->devices()[device_index_])) {
            // clang-format off
            const cl_sampler_properties properties[] = {CL_SAMPLER_NORMALIZED_COORDS, normalized,
                                                        CL_SAMPLER_ADDRESSING_MODE, address,
                                                        CL_SAMPLER_FILTER_MODE, filter, 0};
            // clang-format on
            made.reset(cl().clCreateSamplerWithProperties(context_->handle(), properties, &status));
            check(status, "clCreateSamplerWithProperties");
        } else {
            made.reset(cl().clCreateSampler(context_->handle(), normalized, address, filter, &status));
            check(status, "clCreateSampler");
        }
        return std::make_shared<OpenClImageSampler>(shared_from_this(), std::move(made));
    }

    KernelArg write_argument() override {
        KernelArg arg;
        arg.kind = KernelArg::Kind::image;
        cl_mem mem = mem_.get();
        std::memcpy(arg.scalar, &mem, sizeof mem);
        arg.size = sizeof mem;
        arg.device_index = device_index_;
        return arg;
    }

private:
    static cl_command_queue queue_of(Queue& queue) { return static_cast<OpenClQueue&>(queue).handle(); }
    static void flush_unless(Queue& queue, bool blocking) {
        // Submit now, as the buffer transfers do: a driver may otherwise hold the command until the
        // next flush, and a host thread waiting on an event would wait forever.
        if (!blocking) check(cl().clFlush(queue_of(queue)), "clFlush");
    }
    static void finish(Queue& queue, bool blocking) {
        if (blocking) {
            check(cl().clFinish(queue_of(queue)), "clFinish");
        } else {
            flush_unless(queue, false);
        }
    }

    std::shared_ptr<OpenClContext> context_;
    std::size_t device_index_;
    ImageShape shape_;
    ImageFormat format_;
    Handle<cl_mem> mem_;
};

OpenClImageSampler::OpenClImageSampler(std::shared_ptr<OpenClImage> image, Handle<cl_sampler> sampler)
    : image_(std::move(image)), sampler_(std::move(sampler)) {}

KernelArg OpenClImageSampler::read_argument() const {
    // Two parameters: the image, then the sampler (the prelude's KJARNI_IMAGE*_READ declares both).
    KernelArg arg = image_->write_argument();
    cl_sampler sampler = sampler_.get();
    std::memcpy(arg.scalar + sizeof(cl_mem), &sampler, sizeof sampler);
    arg.size = sizeof(cl_mem) + sizeof sampler;
    arg.param_count = 2;
    return arg;
}

}  // namespace

ImageLimits OpenClContext::image_limits(std::size_t device_index) const {
    const cl_device_id device = device_id(device_index);
    ImageLimits limits;
    if (device_info<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT) == CL_FALSE) return limits;
    limits.supported = true;
    // A 1-D image (array) is as wide as a 2-D one may be (OpenCL 1.2, clCreateImage).
    limits.max_width_2d = device_info<std::size_t>(device, CL_DEVICE_IMAGE2D_MAX_WIDTH);
    limits.max_height_2d = device_info<std::size_t>(device, CL_DEVICE_IMAGE2D_MAX_HEIGHT);
    limits.max_width_1d = limits.max_width_2d;
    limits.max_width_3d = device_info<std::size_t>(device, CL_DEVICE_IMAGE3D_MAX_WIDTH);
    limits.max_height_3d = device_info<std::size_t>(device, CL_DEVICE_IMAGE3D_MAX_HEIGHT);
    limits.max_depth_3d = device_info<std::size_t>(device, CL_DEVICE_IMAGE3D_MAX_DEPTH);
    limits.max_layers = device_info<std::size_t>(device, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE);
    // OpenCL has no cube maps: kjarni holds one as a 2-D image array of its faces.
    limits.max_cube_map_size = std::min(limits.max_width_2d, limits.max_height_2d);
    limits.max_cube_maps = limits.max_layers / 6;
    return limits;
}

bool OpenClContext::image_format_supported(std::size_t, const ImageFormat& format) const {
    // Asked for 2-D read-write images, the kind every image-capable device has the most formats of.
    cl_uint count = 0;
    check(cl().clGetSupportedImageFormats(handle(), CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &count),
          "clGetSupportedImageFormats");
    std::vector<cl_image_format> formats(count);
    if (count != 0) {
        check(cl().clGetSupportedImageFormats(handle(), CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, count, formats.data(),
                                              nullptr),
              "clGetSupportedImageFormats");
    }
    const cl_image_format wanted = cl_format(format);
    for (const cl_image_format& offered : formats) {
        if (offered.image_channel_order == wanted.image_channel_order &&
            offered.image_channel_data_type == wanted.image_channel_data_type) {
            return true;
        }
    }
    return false;
}

std::shared_ptr<Image> OpenClContext::create_image(std::size_t device_index, const ImageShape& shape,
                                                   const ImageFormat& format) {
    return std::make_shared<OpenClImage>(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index,
                                         shape, format);
}

}  // namespace kjarni::backend::opencl
