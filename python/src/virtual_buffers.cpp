// Virtual buffers (grunnur's virtual_alloc: VirtualManager, TrivialManager, ZeroOffsetManager,
// VirtualAllocator, VirtualAllocationStatistics) over kjarni/virtual_buffers.hpp.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include <kjarni/array.hpp>
#include <kjarni/error.hpp>
#include <kjarni/multi_array.hpp>
#include <kjarni/virtual_buffers.hpp>

#include "bindings.hpp"
#include "value_conversion.hpp"

namespace kjarni::python {

namespace {

// Python dependencies as the C++ VirtualDependencies: None, a Buffer, an Array (its base buffer),
// a MultiArray (every part), a VirtualAllocator's own dependencies, an object with
// `__virtual_allocations__` (grunnur's hook: an attribute, or a method that returns the value), or
// any iterable of those (lists, tuples, sets, generators; a dict's values), recursively. Anything
// else is an ArgumentError (grunnur ignores it silently: a mistyped dependency would then share
// memory with what it was meant to be kept apart from).
void add_dependencies(VirtualDependencies& out, nb::handle value, int depth) {
    if (depth > 100) throw ArgumentError("dependencies", "nested more than 100 deep (a cycle?)");
    if (value.is_none()) return;
    if (Buffer* buffer = nullptr; nb::try_cast<Buffer*>(value, buffer) && buffer != nullptr) {
        out.add(*buffer);
        return;
    }
    if (Array* array = nullptr; nb::try_cast<Array*>(value, array) && array != nullptr) {
        out.add(array->base());
        return;
    }
    if (MultiArray* multi = nullptr; nb::try_cast<MultiArray*>(value, multi) && multi != nullptr) {
        for (const Array& part : multi->parts()) out.add(part.base());
        return;
    }
    if (VirtualAllocator* allocator = nullptr;
        nb::try_cast<VirtualAllocator*>(value, allocator) && allocator != nullptr) {
        out.add(allocator->dependencies());
        return;
    }
    if (nb::hasattr(value, "__virtual_allocations__")) {
        nb::object hook = value.attr("__virtual_allocations__");
        add_dependencies(out, PyCallable_Check(hook.ptr()) ? hook() : hook, depth + 1);
        return;
    }
    if (PyDict_Check(value.ptr())) {
        add_dependencies(out, nb::borrow<nb::dict>(value).values(), depth + 1);
        return;
    }
    // Strings and bytes are iterable but never hold allocations: a mistake, not a container.
    if (!PyUnicode_Check(value.ptr()) && !PyBytes_Check(value.ptr())) {
        PyObject* iterator = PyObject_GetIter(value.ptr());
        if (iterator != nullptr) {
            nb::object it = nb::steal(iterator);
            while (PyObject* item = PyIter_Next(it.ptr())) add_dependencies(out, nb::steal(item), depth + 1);
            if (PyErr_Occurred()) throw nb::python_error();
            return;
        }
        PyErr_Clear();
    }
    throw ArgumentError("dependencies", "must be Arrays, Buffers, MultiArrays, objects with __virtual_allocations__ "
                                        "or iterables of them, not " +
                                            text_of(value.type().attr("__name__")));
}

VirtualDependencies to_dependencies(nb::handle value) {
    VirtualDependencies out;
    add_dependencies(out, value, 0);
    return out;
}

nb::dict as_dict(const std::map<std::size_t, std::size_t>& sizes) {
    nb::dict out;
    for (const auto& [size, count] : sizes) out[nb::int_(size)] = nb::int_(count);
    return out;
}

}  // namespace

void bind_virtual_buffers(nb::module_& m) {
    m.def(
        "virtual_allocation_id", [](const Buffer& buffer) { return virtual_allocation_id(buffer); }, nb::arg("buffer"),
        "The virtual allocation a buffer (or any sub-region of it) belongs to; None if it is not virtual.");

    nb::class_<VirtualAllocationStatistics>(m, "VirtualAllocationStatistics",
                                            "Real (physical) and virtual allocations of a manager: counts, total "
                                            "bytes, and {size: count}.")
        .def_ro("real_num", &VirtualAllocationStatistics::real_num)
        .def_ro("real_size_total", &VirtualAllocationStatistics::real_size_total)
        .def_prop_ro("real_sizes", [](const VirtualAllocationStatistics& s) { return as_dict(s.real_sizes); })
        .def_ro("virtual_num", &VirtualAllocationStatistics::virtual_num)
        .def_ro("virtual_size_total", &VirtualAllocationStatistics::virtual_size_total)
        .def_prop_ro("virtual_sizes", [](const VirtualAllocationStatistics& s) { return as_dict(s.virtual_sizes); })
        .def("__eq__",
             [](const VirtualAllocationStatistics& a, const VirtualAllocationStatistics& b) { return a == b; })
        .def("__repr__", [](const VirtualAllocationStatistics& s) {
            return "<VirtualAllocationStatistics real: " + std::to_string(s.real_num) + " allocations, " +
                   std::to_string(s.real_size_total) + " bytes; virtual: " + std::to_string(s.virtual_num) +
                   " allocations, " + std::to_string(s.virtual_size_total) + " bytes>";
        });

    nb::class_<VirtualAllocator>(m, "VirtualAllocator",
                                 "An allocator (pass it as `allocator=` of Array.empty, MultiArray.empty, evaluate...) "
                                 "whose buffers share no memory with its dependencies. Holds only their identifiers.")
        .def("__call__", &VirtualAllocator::operator(), nb::arg("device"), nb::arg("size"))
        .def_prop_ro(
            "dependencies", [](const VirtualAllocator& a) { return a.dependencies().ids(); },
            "The identifiers of the virtual allocations it keeps apart from (sorted).");

    nb::class_<VirtualManager>(m, "VirtualManager",
                               "Hands out virtual allocations that share real ones unless declared dependent (used at "
                               "the same time). Copies share one manager; its allocations outlive it.")
        .def_prop_ro("device", &VirtualManager::device)
        .def(
            "allocator",
            [](const VirtualManager& manager, nb::handle dependencies) {
                return manager.allocator(to_dependencies(dependencies));
            },
            nb::arg("dependencies") = nb::none(),
            "An allocator whose buffers share no memory with `dependencies` (Arrays, Buffers, MultiArrays, objects "
            "with __virtual_allocations__, or iterables of them).")
        .def(
            "allocate",
            [](const VirtualManager& manager, std::size_t size, nb::handle dependencies) {
                return manager.allocate(size, to_dependencies(dependencies));
            },
            nb::arg("size"), nb::arg("dependencies") = nb::none(), "One virtual allocation (a Buffer) directly.")
        .def("pack", &VirtualManager::pack, nb::arg("queue"), nb::call_guard<nb::gil_scoped_release>(),
             "Synchronizes `queue` and frees the real allocations no live virtual allocation uses. It never moves "
             "data: live allocations keep their real ones (a Buffer cannot be re-pointed).")
        .def("statistics", &VirtualManager::statistics);

    refuse_other_constructors(
        nb::class_<TrivialManager, VirtualManager>(m, "TrivialManager", "A separate real allocation per request.")
            .def(nb::init<const BoundDevice&>(), nb::arg("device")));
    refuse_other_constructors(
        nb::class_<ZeroOffsetManager, VirtualManager>(
            m, "ZeroOffsetManager",
            "Virtual allocations share real ones, all at offset 0, where their dependencies allow; real allocations "
            "left unused are kept for later requests until pack().")
            .def(nb::init<const BoundDevice&>(), nb::arg("device")));
}

}  // namespace kjarni::python
