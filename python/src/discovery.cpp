// API, platform and device discovery (grunnur's API, Platform, Device, their filters, and
// platforms_and_devices_by_mask / select_devices).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <kjarni/discovery.hpp>

#include "bindings.hpp"

namespace kjarni::python {

void bind_discovery(nb::module_& m) {
    nb::class_<ApiId>(m, "APIID", "Identifies an API, whether or not it can be loaded here.")
        .def_prop_ro("shortcut", &ApiId::shortcut)
        .def("__eq__", [](const ApiId& a, const ApiId& b) { return a == b; })
        .def("__hash__", [](const ApiId& a) { return std::hash<std::string>{}(a.shortcut()); })
        .def("__repr__", [](const ApiId& a) { return "APIID('" + a.shortcut() + "')"; });
    m.def("all_api_ids", &all_api_ids, "Every API kjarni knows, available here or not.");
    m.def("cuda_api_id", &cuda_api_id);
    m.def("opencl_api_id", &opencl_api_id);

    nb::class_<Api>(m, "API", "A GPU API (CUDA or OpenCL) whose driver is loaded here.")
        .def_static("all_available", &Api::all_available, "Every API whose driver loads and has a platform.")
        .def_static("all_by_shortcut", &Api::all_by_shortcut, nb::arg("shortcut") = "",
                    "[the API of that shortcut] ('cuda', 'opencl'), or all available ones for ''.")
        .def_static("from_api_id", &Api::from_api_id, nb::arg("api_id"))
        .def_prop_ro("id", &Api::id)
        .def_prop_ro("shortcut", &Api::shortcut)
        .def_prop_ro("driver_version", &Api::driver_version)
        .def_prop_ro("platforms", &Api::platforms)
        .def("__eq__", [](const Api& a, const Api& b) { return a == b; })
        .def("__hash__", [](const Api& a) { return std::hash<Api>{}(a); })
        .def("__repr__", [](const Api& a) { return "<API " + a.shortcut() + ">"; });

    refuse_other_constructors(
        nb::class_<PlatformFilter>(m, "PlatformFilter", "Regex masks on the platform name (searched, not anchored).")
            .def(nb::init<>())
            .def(
                "__init__",
                [](PlatformFilter* self, std::vector<std::string> include_masks,
                   std::vector<std::string> exclude_masks) {
                    new (self) PlatformFilter{std::move(include_masks), std::move(exclude_masks)};
                },
                nb::arg("include_masks") = std::vector<std::string>{},
                nb::arg("exclude_masks") = std::vector<std::string>{})
            .def_rw("include_masks", &PlatformFilter::include_masks)
            .def_rw("exclude_masks", &PlatformFilter::exclude_masks)
            .def("matches", &PlatformFilter::matches, nb::arg("name")));

    nb::class_<Platform>(m, "Platform", "A platform of an API (CUDA has one).")
        .def_static("all", &Platform::all, nb::arg("api"))
        .def_static("all_filtered", &Platform::all_filtered, nb::arg("api"), nb::arg("filter") = PlatformFilter{})
        .def_static("from_index", &Platform::from_index, nb::arg("api"), nb::arg("platform_idx"))
        .def_static("from_backend_platform", &Platform::from_backend_platform, nb::arg("api"), nb::arg("native"))
        .def_prop_ro("api", &Platform::api)
        .def_prop_ro("name", &Platform::name)
        .def_prop_ro("vendor", &Platform::vendor)
        .def_prop_ro("version", &Platform::version)
        .def_prop_ro("devices", &Platform::devices)
        .def_prop_ro("native_handle", &Platform::native_handle)
        .def("__eq__", [](const Platform& a, const Platform& b) { return a == b; })
        .def("__hash__", [](const Platform& a) { return std::hash<Platform>{}(a); })
        .def("__repr__", [](const Platform& p) { return "<Platform '" + p.name() + "'>"; });

    nb::enum_<DeviceType>(m, "DeviceType")
        .value("CPU", DeviceType::cpu)
        .value("GPU", DeviceType::gpu)
        .value("ACCELERATOR", DeviceType::accelerator)
        .value("OTHER", DeviceType::other);

    nb::class_<DeviceParameters>(m, "DeviceParameters", "What kernels need to know about a device.")
        .def_ro("compute_units", &DeviceParameters::compute_units)
        .def_ro("local_mem_size", &DeviceParameters::local_mem_size)
        .def_ro("local_mem_banks", &DeviceParameters::local_mem_banks)
        .def_prop_ro("max_local_sizes",
                     [](const DeviceParameters& p) { return nb::tuple(nb::cast(p.max_local_sizes)); })
        .def_prop_ro("max_num_groups", [](const DeviceParameters& p) { return nb::tuple(nb::cast(p.max_num_groups)); })
        .def_ro("max_total_local_size", &DeviceParameters::max_total_local_size)
        .def_ro("warp_size", &DeviceParameters::warp_size)
        .def_ro("type", &DeviceParameters::type);

    refuse_other_constructors(
        nb::class_<DeviceFilter>(m, "DeviceFilter", "Regex masks on the device name, and two more criteria.")
            .def(
                "__init__",
                [](DeviceFilter* self, std::vector<std::string> include_masks, std::vector<std::string> exclude_masks,
                   bool unique_only, bool exclude_pure_parallel) {
                    new (self) DeviceFilter{std::move(include_masks), std::move(exclude_masks), unique_only,
                                            exclude_pure_parallel};
                },
                nb::arg("include_masks") = std::vector<std::string>{},
                nb::arg("exclude_masks") = std::vector<std::string>{}, nb::arg("unique_only") = false,
                nb::arg("exclude_pure_parallel") = false)
            .def_rw("include_masks", &DeviceFilter::include_masks)
            .def_rw("exclude_masks", &DeviceFilter::exclude_masks)
            .def_rw("unique_only", &DeviceFilter::unique_only)
            .def_rw("exclude_pure_parallel", &DeviceFilter::exclude_pure_parallel));

    nb::class_<DeviceProperties>(m, "DeviceProperties",
                                 "What a device says of itself beyond kernel limits (PyCUDA's Device.total_memory(), "
                                 "compute_capability(), pci_bus_id(); PyOpenCL's device.global_mem_size, ...).")
        .def_ro("vendor", &DeviceProperties::vendor)
        .def_ro("driver_version", &DeviceProperties::driver_version)
        .def_ro("total_memory", &DeviceProperties::total_memory)
        .def_ro("max_allocation_size", &DeviceProperties::max_allocation_size)
        .def_ro("clock_rate_khz", &DeviceProperties::clock_rate_khz)
        .def_ro("memory_clock_rate_khz", &DeviceProperties::memory_clock_rate_khz)
        .def_ro("memory_bus_width_bits", &DeviceProperties::memory_bus_width_bits)
        .def_ro("l2_cache_size", &DeviceProperties::l2_cache_size)
        .def_prop_ro("compute_capability",
                     [](const DeviceProperties& p) -> std::optional<std::pair<int, int>> {
                         if (!p.compute_capability) return std::nullopt;
                         return std::make_pair(p.compute_capability->major, p.compute_capability->minor);
                     })
        .def_ro("pci_bus_id", &DeviceProperties::pci_bus_id)
        .def_ro("unified_memory", &DeviceProperties::unified_memory);

    nb::class_<Device>(m, "Device", "A device of a platform.")
        .def_static("all", &Device::all, nb::arg("platform"))
        .def_static("all_filtered", &Device::all_filtered, nb::arg("platform"), nb::arg("filter") = DeviceFilter{})
        .def_static("from_index", &Device::from_index, nb::arg("platform"), nb::arg("device_idx"))
        .def_static("from_backend_device", &Device::from_backend_device, nb::arg("api"), nb::arg("native"))
        .def_prop_ro("platform", &Device::platform)
        .def_prop_ro("name", &Device::name)
        .def_prop_ro("params", &Device::params, nb::rv_policy::copy)
        .def_prop_ro("properties", &Device::properties, nb::rv_policy::copy)
        .def_prop_ro("native_handle", &Device::native_handle)
        .def("attribute", &Device::attribute, nb::arg("name"), "One raw attribute by the API's name, or None.")
        .def_prop_ro("attributes",
                     [](const Device& d) {
                         nb::dict out;
                         for (const auto& a : d.attributes()) out[a.name.c_str()] = nb::cast(a.value);
                         return out;
                     })
        .def("__eq__", [](const Device& a, const Device& b) { return a == b; })
        .def("__hash__", [](const Device& a) { return std::hash<Device>{}(a); })
        .def("__repr__", [](const Device& d) { return "<Device '" + d.name() + "'>"; });

    m.def("platforms_and_devices_by_mask", &platforms_and_devices_by_mask, nb::arg("api"), nb::arg("quantity") = 1,
          nb::arg("device_filter") = DeviceFilter{}, nb::arg("platform_filter") = PlatformFilter{},
          "Every (platform, devices) pair with at least `quantity` matching devices (0: any number).");
    m.def(
        "select_devices",
        [](const Api& api, bool interactive, std::size_t quantity, const DeviceFilter& device_filter,
           const PlatformFilter& platform_filter) {
            return select_devices(api, SelectOptions{interactive, quantity, device_filter, platform_filter});
        },
        nb::arg("api"), nb::arg("interactive") = false, nb::arg("quantity") = 1,
        nb::arg("device_filter") = DeviceFilter{}, nb::arg("platform_filter") = PlatformFilter{},
        "The first matching devices (of one platform), or the user's choice when interactive.");
}

}  // namespace kjarni::python
