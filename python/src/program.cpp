// Programs, kernels, prepared kernels and static kernels (grunnur's Program, Kernel,
// PreparedKernel, StaticKernel). The Python side (kjarni/_program.py) adds the kernel hub
// (`program.kernel.name`) and turns devices, sources and constant arrays into what these take.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <kjarni/detail/packed_launch.hpp>
#include <kjarni/program.hpp>
#include <kjarni/static_kernel.hpp>

#include "bindings.hpp"
#include "call_slot.hpp"
#include "host_memory.hpp"
#include "kernel_args.hpp"
#include "value_conversion.hpp"

namespace kjarni::python {

namespace {

ProgramOptions make_options(bool no_prelude, bool fast_math, std::vector<std::string> compiler_options, bool keep,
                            const std::map<std::string, std::tuple<std::string, std::size_t, std::size_t>>& constants) {
    ProgramOptions o;
    o.no_prelude = no_prelude;
    o.fast_math = fast_math;
    o.compiler_options = std::move(compiler_options);
    o.keep = keep;
    for (const auto& [name, spec] : constants) {
        o.constant_arrays[name] = ConstantArraySpec{std::get<0>(spec), std::get<1>(spec), std::get<2>(spec)};
    }
    return o;
}

// ProgramOptions from the keyword arguments of Program.from_binary / from_file / link /
// compile_unit (kjarni/_program.py passes them as a dict): ArgumentError for an unknown one.
ProgramOptions options_from_dict(const nb::dict& given) {
    ProgramOptions o;
    for (auto [key, value] : given) {
        const std::string name = nb::cast<std::string>(key);
        if (name == "no_prelude") {
            o.no_prelude = nb::cast<bool>(value);
        } else if (name == "fast_math") {
            o.fast_math = nb::cast<bool>(value);
        } else if (name == "compiler_options") {
            o.compiler_options = nb::cast<std::vector<std::string>>(value);
        } else if (name == "include_dirs") {
            o.include_dirs = nb::cast<std::vector<std::string>>(value);
        } else if (name == "keep") {
            o.keep = nb::cast<bool>(value);
        } else if (name == "arch") {
            if (!value.is_none()) o.arch = nb::cast<std::string>(value);
        } else if (name == "jit_max_registers") {
            if (!value.is_none()) o.jit_max_registers = nb::cast<unsigned>(value);
        } else if (name == "jit_optimization_level") {
            if (!value.is_none()) o.jit_optimization_level = nb::cast<unsigned>(value);
        } else {
            throw ArgumentError(name, "is no program option (no_prelude, fast_math, compiler_options, include_dirs, "
                                      "keep, arch, jit_max_registers, jit_optimization_level)");
        }
    }
    return o;
}

std::vector<std::byte> code_bytes(nb::handle code, const char* name) {
    const HostBytes host(code.ptr(), false, name);
    return {host.data(), host.data() + host.size()};
}

nb::bytes to_python_bytes(const std::vector<std::byte>& bytes) {
    return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// A link unit: a str is a source, anything with the buffer protocol (bytes, numpy) compiled code.
LinkInput link_input(nb::handle unit, std::size_t position) {
    if (PyUnicode_Check(unit.ptr())) return LinkInput::source(nb::cast<std::string>(unit));
    const std::string name = "units[" + std::to_string(position) + "]";
    const HostBytes host(unit.ptr(), false, name.c_str());
    return LinkInput::binary(std::span<const std::byte>(host.bytes()));
}

// A PreparedKernel or StaticKernel bound to Python arguments. They keep alive the buffers the
// packed arguments point to, and are let go of under the GIL, wherever the last copy of the
// binding goes.
// The parameter list Python attached to a kernel object (`_parameters`: see pack_args), or None.
nb::handle parameters_of(nb::handle kernel) {
    static PyObject* const name = PyUnicode_InternFromString("_parameters");
    PyObject* value = PyObject_GetAttr(kernel.ptr(), name);
    if (value == nullptr) throw nb::python_error();
    Py_DECREF(value);  // the instance's dict (or the class) keeps it alive for the launch
    return value;
}

template <class AnyKernel>
BoundKernel bind_python(const AnyKernel& kernel, nb::handle parameters, const Queue& queue, const nb::args& args) {
    PackedArgs packed;
    pack_args(args, 0, detail::LaunchTarget{0, queue.device().index()}, packed, parameters);
    std::shared_ptr<const void> owner(new nb::object(nb::borrow(args)), [](const nb::object* kept) {
        const nb::gil_scoped_acquire gil;
        delete kept;
    });
    const std::span<const detail::KernelArg> span = packed.span();
    return detail::bind_packed(kernel, queue, std::vector<detail::KernelArg>(span.begin(), span.end()),
                               std::move(owner));
}

using ConstantSpecs = std::map<std::string, std::tuple<std::string, std::size_t, std::size_t>>;

// Launches on a Queue or on every queue of a MultiQueue; `launch(queue, packed)` does one.
template <class Launch>
nb::object launch_on(nb::handle queue_object, const nb::args& args, std::size_t first, nb::handle parameters,
                     const Launch& launch) {
    static PyTypeObject* const queue_type = reinterpret_cast<PyTypeObject*>(nb::type<Queue>().ptr());
    Queue* queue = Py_TYPE(queue_object.ptr()) == queue_type ? nb::inst_ptr<Queue>(queue_object) : nullptr;
    if (queue != nullptr || (nb::try_cast<Queue*>(queue_object, queue) && queue != nullptr)) {
        PackedArgs packed;
        pack_args(args, first, detail::LaunchTarget{0, queue->device().index()}, packed, parameters);
        launch(*queue, packed.span());
        return nb::none();
    }
    MultiQueue* multi = nullptr;
    if (!nb::try_cast<MultiQueue*>(queue_object, multi) || multi == nullptr) {
        throw ArgumentError("queue", "must be a Queue or a MultiQueue");
    }
    for (std::size_t position = 0; position < multi->queues().size(); ++position) {
        const Queue& q = multi->queues()[position];
        PackedArgs packed;
        pack_args(args, first, detail::LaunchTarget{position, q.device().index()}, packed, parameters);
        launch(q, packed.span());
    }
    return nb::none();
}

// grunnur's sizes: a sequence of extents, or one integer for a 1-tuple (`prepare(8)`, `local_size=4`).
Sizes to_sizes(nb::handle h, const char* name) {
    auto extent = [name](nb::handle item) {
        if (PyBool_Check(item.ptr()) || !PyIndex_Check(item.ptr())) {
            throw ArgumentError(name, "must be an integer or a sequence of integers, not one holding " +
                                          text_of(item.type().attr("__name__")));
        }
        const nb::int_ value(item);
        if (PyObject_RichCompareBool(value.ptr(), nb::int_(0).ptr(), Py_LT) == 1) {
            throw ArgumentError(name, "has the negative extent " + text_of(nb::str(value)));
        }
        return nb::cast<std::size_t>(value);
    };
    Sizes out;
    if (PyIndex_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
        out.push_back(extent(h));
    } else if (PySequence_Check(h.ptr()) && !PyUnicode_Check(h.ptr())) {
        for (nb::handle item : nb::borrow<nb::sequence>(h)) out.push_back(extent(item));
    } else {
        throw ArgumentError(name,
                            "must be an integer or a sequence of integers, not " + text_of(h.type().attr("__name__")));
    }
    return out;
}

std::optional<Sizes> optional_sizes(nb::handle h, const char* name = "local_size") {
    if (h.is_none()) return std::nullopt;
    return to_sizes(h, name);
}

// A dict key naming a device of the context: its index (grunnur 0.3), or the BoundDevice (0.6).
std::size_t device_key(nb::handle key, const char* name) {
    if (BoundDevice* bound = nullptr; nb::try_cast<BoundDevice*>(key, bound) && bound != nullptr) {
        return bound->index();
    }
    if (PyBool_Check(key.ptr()) || !PyIndex_Check(key.ptr())) {
        throw ArgumentError(name, "a per-device dict's keys must be device indices (integers), not " +
                                      text_of(key.type().attr("__name__")));
    }
    return to_sizes(key, name)[0];
}

// The launches' tp_call slots (call_slot.hpp): kernel(queue, *args) on a Queue or a MultiQueue.
template <class AnyKernel>
PyObject* kernel_call(PyObject* self, PyObject* args, PyObject* kwargs) noexcept {
    try {
        if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) != 0) {
            throw ArgumentError("kwargs", "a launch takes no keyword arguments: kernel(queue, *args)");
        }
        const nb::args& positional = nb::borrow<nb::args>(args);
        if (positional.size() == 0) throw ArgumentError("queue", "a launch needs a queue first");
        const AnyKernel& k = slot_self<AnyKernel>(self);
        launch_on(positional[0], positional, 1, parameters_of(self),
                  [&k](const Queue& q, std::span<const detail::KernelArg> a) { detail::enqueue_packed(k, q, a); });
        Py_RETURN_NONE;
    } catch (...) {
        return raise_current_exception();
    }
}

PyObject* bound_kernel_call(PyObject* self, PyObject* args, PyObject* kwargs) noexcept {
    try {
        if (PyTuple_GET_SIZE(args) != 0 || (kwargs != nullptr && PyDict_GET_SIZE(kwargs) != 0)) {
            throw ArgumentError("args", "a BoundKernel launches the arguments it was bound to: call it with none");
        }
        slot_self<BoundKernel>(self).enqueue();
        Py_RETURN_NONE;
    } catch (...) {
        return raise_current_exception();
    }
}

PyType_Slot prepared_kernel_slots[] = {{Py_tp_call, reinterpret_cast<void*>(&kernel_call<PreparedKernel>)},
                                       {0, nullptr}};
PyType_Slot static_kernel_slots[] = {{Py_tp_call, reinterpret_cast<void*>(&kernel_call<StaticKernel>)}, {0, nullptr}};
PyType_Slot bound_kernel_slots[] = {{Py_tp_call, reinterpret_cast<void*>(&bound_kernel_call)}, {0, nullptr}};

}  // namespace

void bind_program(nb::module_& m) {
    nb::class_<Program>(m, "_Program")
        .def(
            "__init__",
            [](Program* self, const BoundMultiDevice& devices, const TemplateSource& source,
               const std::vector<Value>& render_args, nb::handle render_globals, bool no_prelude, bool fast_math,
               std::vector<std::string> compiler_options, bool keep, const ConstantSpecs& constants) {
                const Globals globals = globals_from_python(render_globals);
                new (self) Program(devices, source, render_args, globals,
                                   make_options(no_prelude, fast_math, std::move(compiler_options), keep, constants));
            },
            nb::arg("devices"), nb::arg("source"), nb::arg("render_args"), nb::arg("render_globals").none(),
            nb::arg("no_prelude"), nb::arg("fast_math"), nb::arg("compiler_options"), nb::arg("keep"),
            nb::arg("constant_arrays"))
        .def(
            "__init__",
            [](Program* self, const std::string& origin, const BoundMultiDevice& devices, nb::handle payload,
               const nb::dict& options) {
                const ProgramOptions o = options_from_dict(options);
                if (origin == "binary") {
                    new (self) Program(Program::from_binary(devices, code_bytes(payload, "binary"), o));
                } else if (origin == "file") {
                    new (self) Program(Program::from_file(devices, nb::cast<std::string>(nb::str(payload)), o));
                } else if (origin == "link") {
                    std::vector<LinkInput> units;
                    for (nb::handle unit : nb::borrow<nb::sequence>(payload)) {
                        units.push_back(link_input(unit, units.size()));
                    }
                    new (self) Program(Program::link(devices, units, o));
                } else {
                    throw ArgumentError("origin", "must be 'binary', 'file' or 'link'");
                }
            },
            nb::arg("origin"), nb::arg("devices"), nb::arg("payload"), nb::arg("options"))
        .def_static(
            "_compile_unit",
            [](const BoundDevice& device, const std::string& source, const nb::dict& options) {
                return to_python_bytes(Program::compile_unit(device, source, options_from_dict(options)));
            },
            nb::arg("device"), nb::arg("source"), nb::arg("options"))
        .def(
            "binary", [](const Program& p, const BoundDevice& d) { return to_python_bytes(p.binary(d)); },
            nb::arg("device"),
            "The compiled code for a device, which Program.from_binary takes back: a cubin (or PTX) on CUDA, "
            "the program binary on OpenCL (PyOpenCL's Program.binaries).")
        .def("ptx", &Program::ptx, nb::arg("device"), "The PTX of a device's program (CUDA).")
        .def("_global", &Program::global, nb::arg("device"), nb::arg("name"))
        .def(
            "kept_files",
            [](const Program& p, const BoundDevice& d) -> std::optional<std::string> {
                const auto path = p.kept_files(d);
                if (!path) return std::nullopt;
                return path->string();
            },
            nb::arg("device"))
        .def_prop_ro("devices", &Program::devices)
        .def("source", &Program::source, nb::arg("device"))
        .def("get_kernel", &Program::kernel, nb::arg("name"))
        .def_prop_ro("kernel_names", &Program::kernel_names)
        .def("_set_constant_host",
             [](const Program& p, const Queue& q, const std::string& name, const nb::bytes& data) {
                 p.set_constant_array(q, name, std::span(static_cast<const std::byte*>(data.data()), data.size()));
             })
        .def("_set_constant_buffer", [](const Program& p, const Queue& q, const std::string& name, const Buffer& b) {
            p.set_constant_array(q, name, b);
        });

    nb::class_<PreparedKernel>(m, "PreparedKernel", nb::dynamic_attr(), nb::type_slots(prepared_kernel_slots),
                               "A kernel with its sizes fixed and checked: the fast launch. Calling it, "
                               "kernel(queue, *args), enqueues it: on a MultiQueue, on every device (MultiArrays "
                               "give each device its part, dicts {device index: value} per-device values); it "
                               "returns None (no event: see launch()).")
        .def(
            "launch",
            [](nb::pointer_and_handle<PreparedKernel> self, const Queue& queue, nb::args args) {
                const PreparedKernel& k = *self.p;
                PackedArgs packed;
                pack_args(args, 0, detail::LaunchTarget{0, queue.device().index()}, packed, parameters_of(self.h));
                return detail::launch_packed(k, queue, packed.span());
            },
            nb::arg("queue"), nb::arg("args"), "Enqueues the kernel and returns an Event marking its end.")
        .def(
            "bind",
            [](nb::pointer_and_handle<PreparedKernel> self, const Queue& queue, nb::args args) {
                return bind_python(*self.p, parameters_of(self.h), queue, args);
            },
            nb::arg("queue"), nb::arg("args"),
            "The kernel with its queue and arguments fixed, checked and packed once: a BoundKernel, whose "
            "launches skip the packing and checks of each call (for loops that launch the same arguments).")
        .def("global_size", &PreparedKernel::global_size, nb::arg("device_index"))
        .def("local_size", &PreparedKernel::local_size, nb::arg("device_index"));

    nb::class_<BoundKernel>(m, "BoundKernel", nb::type_slots(bound_kernel_slots),
                            "A PreparedKernel bound to a queue and arguments (PreparedKernel.bind); keeps the "
                            "arguments alive. Calling it, with no arguments, enqueues the kernel and returns None.")
        .def(
            "launch", [](const BoundKernel& k) { return k(); },
            "Enqueues the kernel and returns an Event marking its end.")
        .def_prop_ro("queue", &BoundKernel::queue);

    nb::class_<Kernel>(m, "Kernel", nb::dynamic_attr(), "A kernel of a program, compiled for each of its devices.")
        .def_prop_ro("name", &Kernel::name)
        .def(
            "prepare",
            [](const Kernel& k, nb::handle global_size, nb::handle local_size, std::size_t local_mem) {
                if (PyDict_Check(global_size.ptr())) {
                    std::map<std::size_t, Sizes> global;
                    std::map<std::size_t, std::optional<Sizes>> local;
                    for (auto [key, value] : nb::borrow<nb::dict>(global_size)) {
                        global[device_key(key, "global_size")] = to_sizes(value, "global_size");
                    }
                    if (PyDict_Check(local_size.ptr())) {
                        for (auto [key, value] : nb::borrow<nb::dict>(local_size)) {
                            local[device_key(key, "local_size")] = optional_sizes(value);
                        }
                    } else if (!local_size.is_none()) {
                        throw ArgumentError("local_size", "must be a dict like global_size, or None");
                    }
                    return k.prepare(global, local, local_mem);
                }
                return k.prepare(to_sizes(global_size, "global_size"), optional_sizes(local_size), local_mem);
            },
            nb::arg("global_size"), nb::arg("local_size") = nb::none(), nb::arg("local_mem") = 0,
            "Sizes (first dimension fastest), or dicts {device index: sizes} to prepare for those devices only.")
        .def_prop_ro("max_total_local_sizes", [](const Kernel& k) { return k.max_total_local_sizes(); })
        .def("native_handle", &Kernel::native_handle, nb::arg("device"))
        .def("attributes", &Kernel::attributes, nb::arg("device"),
             "What PyCUDA's Function attributes and PyOpenCL's kernel work-group info report, for a device.")
        .def("set_cache_preference", &Kernel::set_cache_preference, nb::arg("device"), nb::arg("preference"),
             "The kernel's L1 / shared memory preference (PyCUDA's set_cache_config; CUDA only).")
        .def("set_shared_memory_carveout", &Kernel::set_shared_memory_carveout, nb::arg("device"), nb::arg("percent"),
             "The share of L1 the kernel prefers as shared memory, 0..100 or -1 (CUDA only).");

    nb::class_<GlobalVariable>(m, "GlobalVariable", "A program's global variable on a device (CUDA).")
        .def_ro("address", &GlobalVariable::address)
        .def_ro("size", &GlobalVariable::size)
        .def_ro("buffer", &GlobalVariable::buffer)
        .def("__iter__", [](const GlobalVariable& g) { return nb::iter(nb::make_tuple(g.buffer, g.size)); });

    nb::class_<KernelAttributes>(m, "KernelAttributes",
                                 "A kernel's figures on one device (PyCUDA's Function attributes, PyOpenCL's "
                                 "kernel_work_group_info); 0 where the API has no such figure.")
        .def_ro("max_total_local_size", &KernelAttributes::max_total_local_size)
        .def_ro("registers", &KernelAttributes::registers)
        .def_ro("shared_bytes", &KernelAttributes::shared_bytes)
        .def_ro("const_bytes", &KernelAttributes::const_bytes)
        .def_ro("local_bytes", &KernelAttributes::local_bytes)
        .def_ro("max_dynamic_local_bytes", &KernelAttributes::max_dynamic_local_bytes)
        .def_ro("preferred_local_size_multiple", &KernelAttributes::preferred_local_size_multiple);

    nb::enum_<CachePreference>(m, "CachePreference", "A kernel's L1 / shared memory split (PyCUDA's func_cache).")
        .value("none", CachePreference::none)
        .value("shared", CachePreference::shared)
        .value("l1", CachePreference::l1)
        .value("equal", CachePreference::equal);

    nb::class_<StaticKernel>(
        m, "_StaticKernel", nb::type_slots(static_kernel_slots),
        "Calling it, kernel(queue, *args), enqueues it on a Queue or a MultiQueue; it returns None.")
        .def(
            "__init__",
            [](StaticKernel* self, const BoundMultiDevice& devices, const TemplateSource& source,
               const std::string& name, nb::handle global_size, nb::handle local_size,
               const std::vector<Value>& render_args, nb::handle render_globals, bool no_prelude, bool fast_math,
               std::vector<std::string> compiler_options, bool keep, const ConstantSpecs& constants) {
                const Globals globals = globals_from_python(render_globals);
                const ProgramOptions options =
                    make_options(no_prelude, fast_math, std::move(compiler_options), keep, constants);
                if (PyDict_Check(global_size.ptr())) {
                    PerDeviceSizes sizes;
                    for (auto [key, value] : nb::borrow<nb::dict>(global_size)) {
                        const auto index = device_key(key, "global_size");
                        std::optional<Sizes> local;
                        if (PyDict_Check(local_size.ptr()) && nb::borrow<nb::dict>(local_size).contains(key)) {
                            local = optional_sizes(nb::borrow<nb::dict>(local_size)[key]);
                        }
                        sizes.sizes[index] = StaticSizes{to_sizes(value, "global_size"), local};
                    }
                    new (self) StaticKernel(devices, source, name, sizes, render_args, globals, options);
                } else {
                    new (self) StaticKernel(devices, source, name, to_sizes(global_size, "global_size"),
                                            optional_sizes(local_size), render_args, globals, options);
                }
            },
            nb::arg("devices"), nb::arg("source"), nb::arg("name"), nb::arg("global_size"),
            nb::arg("local_size").none(), nb::arg("render_args"), nb::arg("render_globals").none(),
            nb::arg("no_prelude"), nb::arg("fast_math"), nb::arg("compiler_options"), nb::arg("keep"),
            nb::arg("constant_arrays"))
        .def(
            "bind",
            [](nb::pointer_and_handle<StaticKernel> self, const Queue& queue, nb::args args) {
                return bind_python(*self.p, parameters_of(self.h), queue, args);
            },
            nb::arg("queue"), nb::arg("args"),
            "The kernel on the queue's device with its arguments fixed, checked and packed once: a BoundKernel.")
        .def_prop_ro("devices", &StaticKernel::devices)
        .def_prop_ro("name", &StaticKernel::name)
        .def("source", &StaticKernel::source, nb::arg("device"))
        .def("global_size", &StaticKernel::global_size, nb::arg("device"))
        .def("local_size", &StaticKernel::local_size, nb::arg("device"))
        .def("real_global_size", &StaticKernel::real_global_size, nb::arg("device"))
        .def("real_local_size", &StaticKernel::real_local_size, nb::arg("device"))
        .def("_set_constant_host",
             [](const StaticKernel& p, const Queue& q, const std::string& name, const nb::bytes& data) {
                 p.set_constant_array(q, name, std::span(static_cast<const std::byte*>(data.data()), data.size()));
             });
}

}  // namespace kjarni::python
