// Images and samplers (PyOpenCL's Image, ImageFormat, Sampler; PyCUDA's arrays with texture and
// surface references): formats, shapes, regions, transfers, sampled images as kernel arguments.
// kjarni/_images.py adds the numpy side (shapes and dtypes from numpy arrays).
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>

#include <kjarni/image.hpp>

#include "bindings.hpp"
#include "host_memory.hpp"

namespace kjarni::python {

namespace {

std::span<const std::byte> const_bytes(const HostBytes& host) { return host.bytes(); }

}  // namespace

void bind_images(nb::module_& m) {
    nb::enum_<ChannelOrder>(m, "ChannelOrder")
        .value("r", ChannelOrder::r)
        .value("rg", ChannelOrder::rg)
        .value("rgba", ChannelOrder::rgba);
    nb::enum_<ChannelType>(m, "ChannelType")
        .value("uint8", ChannelType::uint8)
        .value("uint16", ChannelType::uint16)
        .value("uint32", ChannelType::uint32)
        .value("int8", ChannelType::int8)
        .value("int16", ChannelType::int16)
        .value("int32", ChannelType::int32)
        .value("float16", ChannelType::float16)
        .value("float32", ChannelType::float32);
    nb::enum_<AddressMode>(m, "AddressMode")
        .value("none", AddressMode::none)
        .value("clamp", AddressMode::clamp)
        .value("clamp_to_edge", AddressMode::clamp_to_edge)
        .value("repeat", AddressMode::repeat)
        .value("mirrored_repeat", AddressMode::mirrored_repeat);
    nb::enum_<FilterMode>(m, "FilterMode").value("nearest", FilterMode::nearest).value("linear", FilterMode::linear);

    nb::class_<ImageFormat>(m, "ImageFormat", "Channels and their type (PyOpenCL's ImageFormat).")
        .def(nb::init<ChannelOrder, ChannelType, bool>(), nb::arg("order") = ChannelOrder::rgba,
             nb::arg("type") = ChannelType::float32, nb::arg("normalized") = false)
        .def_rw("order", &ImageFormat::order)
        .def_rw("type", &ImageFormat::type)
        .def_rw("normalized", &ImageFormat::normalized)
        .def_prop_ro("channel_count", &ImageFormat::channels)
        .def_prop_ro("channel_size", &ImageFormat::channel_size)
        .def_prop_ro("itemsize", &ImageFormat::pixel_size, "Bytes per pixel (PyOpenCL's itemsize).")
        .def_prop_ro("reads_as_float", &ImageFormat::reads_as_float)
        .def("__eq__", [](const ImageFormat& a, const ImageFormat& b) { return a == b; })
        .def("__repr__", [](const ImageFormat& f) { return "<ImageFormat " + to_string(f) + ">"; });

    nb::class_<ImageShape>(m, "ImageShape", "Dimensions of an image in pixels, optionally layered.")
        .def(nb::init<>())
        .def_static("d1", &ImageShape::d1, nb::arg("width"))
        .def_static("d2", &ImageShape::d2, nb::arg("width"), nb::arg("height"))
        .def_static("d3", &ImageShape::d3, nb::arg("width"), nb::arg("height"), nb::arg("depth"))
        .def_static("layered_1d", &ImageShape::layered_1d, nb::arg("width"), nb::arg("layers"))
        .def_static("layered_2d", &ImageShape::layered_2d, nb::arg("width"), nb::arg("height"), nb::arg("layers"))
        .def_ro("dimensions", &ImageShape::dimensions)
        .def_ro("width", &ImageShape::width)
        .def_ro("height", &ImageShape::height)
        .def_ro("depth", &ImageShape::depth)
        .def_ro("layers", &ImageShape::layers)
        .def_prop_ro("pixels", &ImageShape::pixels)
        .def("__eq__", [](const ImageShape& a, const ImageShape& b) { return a == b; })
        .def("__repr__", [](const ImageShape& s) { return "<ImageShape " + to_string(s) + ">"; });

    nb::class_<ImageRegion>(m, "ImageRegion", "A box of pixels: origin and extent (x, y, z / layer).")
        .def(nb::init<>())
        .def(
            "__init__",
            [](ImageRegion* self, const std::array<std::size_t, 3>& origin, const std::array<std::size_t, 3>& extent) {
                new (self) ImageRegion{origin, extent};
            },
            nb::arg("origin"), nb::arg("extent"))
        .def_static("whole", &ImageRegion::whole, nb::arg("shape"))
        .def_rw("origin", &ImageRegion::origin)
        .def_rw("extent", &ImageRegion::extent)
        .def_prop_ro("pixels", &ImageRegion::pixels);

    nb::class_<Sampler>(m, "Sampler", "How kernels read an image (PyOpenCL's Sampler, a CUDA texture's modes).")
        .def(nb::init<AddressMode, FilterMode, bool>(), nb::arg("address") = AddressMode::clamp_to_edge,
             nb::arg("filter") = FilterMode::nearest, nb::arg("normalized_coordinates") = false)
        .def_rw("address", &Sampler::address)
        .def_rw("filter", &Sampler::filter)
        .def_rw("normalized_coordinates", &Sampler::normalized_coordinates);

    nb::class_<ImageLimits>(m, "ImageLimits", "Whether a device has images, and their largest sizes.")
        .def_ro("supported", &ImageLimits::supported)
        .def_ro("max_width_1d", &ImageLimits::max_width_1d)
        .def_ro("max_width_2d", &ImageLimits::max_width_2d)
        .def_ro("max_height_2d", &ImageLimits::max_height_2d)
        .def_ro("max_width_3d", &ImageLimits::max_width_3d)
        .def_ro("max_height_3d", &ImageLimits::max_height_3d)
        .def_ro("max_depth_3d", &ImageLimits::max_depth_3d)
        .def_ro("max_layers", &ImageLimits::max_layers);
    m.def("image_limits", &image_limits, nb::arg("device"));

    nb::class_<SampledImage>(m, "SampledImage",
                             "An image with a sampler: a kernel argument (read through the sampler).")
        .def_prop_ro("sampler", &SampledImage::sampler);

    nb::class_<Image>(m, "Image", "A device image (PyOpenCL's Image; a CUDA array with texture and surface objects).")
        .def_static("allocate", &Image::allocate, nb::arg("device"), nb::arg("shape"), nb::arg("format"))
        .def_prop_ro("device", &Image::device)
        .def_prop_ro("shape", &Image::shape)
        .def_prop_ro("format", &Image::format)
        .def_prop_ro("size_bytes", &Image::size_bytes)
        .def_prop_ro("native_handle", &Image::native_handle)
        .def(
            "_upload",
            [](const Image& image, const Queue& queue, nb::handle host) {
                HostBytes bytes(host.ptr(), false, "host");
                nb::gil_scoped_release release;
                image.upload(queue, const_bytes(bytes));
            },
            nb::arg("queue"), nb::arg("host"))
        .def(
            "_download",
            [](const Image& image, const Queue& queue, nb::handle host) {
                HostBytes bytes(host.ptr(), true, "host");
                nb::gil_scoped_release release;
                image.download(queue, bytes.bytes());
            },
            nb::arg("queue"), nb::arg("host"))
        .def(
            "_upload_region",
            [](const Image& image, const Queue& queue, const ImageRegion& region, nb::handle host) {
                HostBytes bytes(host.ptr(), false, "host");
                nb::gil_scoped_release release;
                image.upload_region(queue, region, const_bytes(bytes));
            },
            nb::arg("queue"), nb::arg("region"), nb::arg("host"))
        .def(
            "_download_region",
            [](const Image& image, const Queue& queue, const ImageRegion& region, nb::handle host) {
                HostBytes bytes(host.ptr(), true, "host");
                nb::gil_scoped_release release;
                image.download_region(queue, region, bytes.bytes());
            },
            nb::arg("queue"), nb::arg("region"), nb::arg("host"))
        .def("copy_from_buffer", nb::overload_cast<const Queue&, const Buffer&, bool>(&Image::copy_from, nb::const_),
             nb::arg("queue"), nb::arg("buffer"), nb::arg("async_") = false)
        .def("copy_to_buffer", &Image::copy_to, nb::arg("queue"), nb::arg("buffer"), nb::arg("async_") = false)
        .def("copy_from_image", nb::overload_cast<const Queue&, const Image&, bool>(&Image::copy_from, nb::const_),
             nb::arg("queue"), nb::arg("source"), nb::arg("async_") = false)
        .def("copy_region_from_buffer",
             nb::overload_cast<const Queue&, const ImageRegion&, const Buffer&, std::size_t, bool>(
                 &Image::copy_region_from, nb::const_),
             nb::arg("queue"), nb::arg("region"), nb::arg("buffer"), nb::arg("offset") = 0, nb::arg("async_") = false)
        .def("copy_region_to_buffer", &Image::copy_region_to, nb::arg("queue"), nb::arg("region"), nb::arg("buffer"),
             nb::arg("offset") = 0, nb::arg("async_") = false)
        .def("copy_region_from_image",
             nb::overload_cast<const Queue&, const Image&, const ImageRegion&, const std::array<std::size_t, 3>&, bool>(
                 &Image::copy_region_from, nb::const_),
             nb::arg("queue"), nb::arg("source"), nb::arg("source_region"), nb::arg("destination_origin"),
             nb::arg("async_") = false)
        .def("sampled", &Image::sampled, nb::arg("sampler") = Sampler{},
             "The image with a sampler, as a kernel argument read through it.");
}

}  // namespace kjarni::python
