// Device characterization (PyOpenCL's pyopencl.characterize): local memory banks, SIMD group
// sizes, usable local memory, bank-conflict analysis, driver quirks. kjarni/characterize.py gives
// them PyOpenCL's names and accepts bound devices too.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <kjarni/characterize.hpp>

#include "bindings.hpp"

namespace kjarni::python {

namespace {

std::optional<std::pair<int, int>> compute_capability_of(const characterize::DeviceFacts& facts) {
    if (!facts.compute_capability) return std::nullopt;
    return std::make_pair(facts.compute_capability->major, facts.compute_capability->minor);
}

nb::tuple conflict_tuple(const characterize::LocalAccessConflict& c) {
    return nb::make_tuple(c.multiplicity, c.minimum, c.explanation);
}

}  // namespace

void bind_characterize(nb::module_& top) {
    nb::module_ m = top.def_submodule("_characterize", "kjarni's device characterization (see kjarni.characterize)");
    namespace ch = characterize;

    nb::class_<ch::DeviceFacts>(m, "DeviceFacts", "What characterization reads of a device.")
        .def_ro("cuda", &ch::DeviceFacts::cuda)
        .def_ro("vendor", &ch::DeviceFacts::vendor)
        .def_ro("platform_name", &ch::DeviceFacts::platform_name)
        .def_ro("platform_version", &ch::DeviceFacts::platform_version)
        .def_prop_ro("compute_capability", &compute_capability_of)
        .def_ro("warp_size", &ch::DeviceFacts::warp_size)
        .def_ro("local_mem_size", &ch::DeviceFacts::local_mem_size)
        .def_ro("unified_memory", &ch::DeviceFacts::unified_memory)
        .def_ro("extensions", &ch::DeviceFacts::extensions);
    m.def("facts_of", &ch::facts_of, nb::arg("device"));

    nb::class_<ch::LocalMemoryBanks>(m, "LocalMemoryBanks",
                                     "Local memory's banks: how many, bytes per bank word, "
                                     "work items served at once.")
        .def(
            "__init__",
            [](ch::LocalMemoryBanks* self, std::size_t count, std::size_t granularity, std::size_t simultaneous) {
                new (self) ch::LocalMemoryBanks{count, granularity, simultaneous};
            },
            nb::arg("count"), nb::arg("granularity"), nb::arg("simultaneous_work_items"))
        .def_rw("count", &ch::LocalMemoryBanks::count)
        .def_rw("granularity", &ch::LocalMemoryBanks::granularity)
        .def_rw("simultaneous_work_items", &ch::LocalMemoryBanks::simultaneous_work_items);
    m.def("local_memory_banks", nb::overload_cast<const Device&>(&ch::local_memory_banks), nb::arg("device"));
    m.def(
        "local_memory_banks_unknown_reason",
        [](const Device& d) { return ch::local_memory_banks_unknown_reason(ch::facts_of(d)); }, nb::arg("device"));
    m.def("usable_local_mem_size",
          nb::overload_cast<const Device&, std::optional<std::size_t>>(&ch::usable_local_mem_size), nb::arg("device"),
          nb::arg("nargs") = nb::none());
    m.def("simd_group_size", nb::overload_cast<const Device&, std::size_t>(&ch::simd_group_size), nb::arg("device"),
          nb::arg("type_size"));
    m.def("fast_inaccurate_build_options", nb::overload_cast<const Device&>(&ch::fast_inaccurate_build_options),
          nb::arg("device"));
    m.def(
        "why_not_local_access_conflict_free",
        [](const Device& device, std::size_t itemsize, const std::vector<std::size_t>& shape,
           const std::vector<std::size_t>& stored_shape, std::optional<std::size_t> axis) {
            return conflict_tuple(ch::why_not_local_access_conflict_free(device, itemsize, shape, stored_shape, axis));
        },
        nb::arg("device"), nb::arg("itemsize"), nb::arg("array_shape"), nb::arg("array_stored_shape"),
        nb::arg("axis") = nb::none());
    m.def(
        "local_access_conflicts",
        [](const ch::LocalMemoryBanks& banks, std::size_t itemsize, const std::vector<std::size_t>& offsets) {
            return conflict_tuple(ch::local_access_conflicts(banks, itemsize, offsets));
        },
        nb::arg("banks"), nb::arg("itemsize"), nb::arg("element_offsets"));
    m.def("pocl_version", &ch::pocl_version, nb::arg("platform_name"), nb::arg("platform_version"));
    m.def("has_struct_arg_count_bug", nb::overload_cast<const Device&>(&ch::has_struct_arg_count_bug),
          nb::arg("device"));
    m.def("has_amd_double_support", nb::overload_cast<const Device&>(&ch::has_amd_double_support), nb::arg("device"));
    m.def(
        "driver_quirks",
        [](const Device& d) {
            nb::list out;
            for (const ch::DriverQuirk& q : ch::driver_quirks(d)) {
                out.append(nb::make_tuple(q.name, q.description, q.workaround));
            }
            return out;
        },
        nb::arg("device"));
}

}  // namespace kjarni::python
