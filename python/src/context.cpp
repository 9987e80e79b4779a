// Contexts, bound devices, queues and events (grunnur's Context, BoundDevice, BoundMultiDevice,
// Queue, MultiQueue; PyCUDA's Event).
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <kjarni/error.hpp>
#include <kjarni/queue.hpp>

#include "bindings.hpp"

namespace kjarni::python {

void bind_context(nb::module_& m) {
    nb::class_<Context>(m, "Context", "A context over one or several devices of one platform.")
        .def_static(
            "from_devices", [](const Device& device) { return Context::from_devices(device); }, nb::arg("devices"))
        .def_static(
            "from_devices", [](const std::vector<Device>& devices) { return Context::from_devices(devices); },
            nb::arg("devices"))
        .def_static(
            "from_criteria",
            [](const Api& api, bool interactive, std::size_t devices_num, const DeviceFilter& device_filter,
               const PlatformFilter& platform_filter) {
                return Context::from_criteria(api,
                                              SelectOptions{interactive, devices_num, device_filter, platform_filter});
            },
            nb::arg("api"), nb::arg("interactive") = false, nb::arg("devices_num") = 1,
            nb::arg("device_filter") = DeviceFilter{}, nb::arg("platform_filter") = PlatformFilter{})
        .def_static(
            "from_backend_devices",
            [](const Api& api, const std::vector<std::uintptr_t>& natives) {
                return Context::from_backend_devices(api, natives);
            },
            nb::arg("api"), nb::arg("backend_devices"))
        .def_static(
            "from_backend_contexts",
            [](const Api& api, const std::vector<std::uintptr_t>& natives, bool take_ownership) {
                return Context::from_backend_contexts(api, natives, take_ownership);
            },
            nb::arg("api"), nb::arg("backend_contexts"), nb::arg("take_ownership") = false)
        .def_prop_ro("api", &Context::api)
        .def_prop_ro("platform", &Context::platform)
        .def_prop_ro("devices", &Context::devices)
        .def_prop_ro(
            "device",
            [](const Context& c) {
                if (c.device_count() != 1)
                    throw ArgumentError("context",
                                        "has " + std::to_string(c.device_count()) + " devices: use context.devices[i]");
                return c.devices()[0];
            },
            "The one device of a single-device context.")
        .def("native_handle", &Context::native_handle, nb::arg("device_index") = 0)
        .def("__eq__", [](const Context& a, const Context& b) { return a == b; })
        .def("__hash__", [](const Context& c) { return std::hash<Context>{}(c); });

    nb::class_<BoundDevice>(m, "BoundDevice", "A device as a member of a context.")
        .def_prop_ro("context", &BoundDevice::context)
        .def_prop_ro("index", &BoundDevice::index)
        .def_prop_ro("device", &BoundDevice::device)
        .def_prop_ro("name", &BoundDevice::name)
        .def_prop_ro("params", &BoundDevice::params, nb::rv_policy::copy)
        .def("__eq__", [](const BoundDevice& a, const BoundDevice& b) { return a == b; })
        .def("__hash__", [](const BoundDevice& d) { return std::hash<BoundDevice>{}(d); })
        .def("__repr__",
             [](const BoundDevice& d) { return "<BoundDevice " + std::to_string(d.index()) + " '" + d.name() + "'>"; });

    nb::class_<BoundMultiDevice>(m, "BoundMultiDevice", "An ordered set of distinct devices of one context.")
        .def_static(
            "from_bound_devices",
            [](const std::vector<BoundDevice>& devices) { return BoundMultiDevice::from_bound_devices(devices); },
            nb::arg("devices"))
        .def_prop_ro("context", &BoundMultiDevice::context)
        .def("__len__", &BoundMultiDevice::size)
        .def("__getitem__",
             [](const BoundMultiDevice& d, std::ptrdiff_t i) {
                 const auto n = static_cast<std::ptrdiff_t>(d.size());
                 if (i < 0) i += n;
                 if (i < 0 || i >= n) throw nb::index_error("device index out of range");
                 return d[static_cast<std::size_t>(i)];
             })
        .def(
            "subset",
            [](const BoundMultiDevice& d, const std::vector<std::size_t>& positions) { return d.subset(positions); },
            nb::arg("positions"))
        .def_prop_ro("indices", &BoundMultiDevice::indices)
        .def("__eq__", [](const BoundMultiDevice& a, const BoundMultiDevice& b) { return a == b; });

    nb::class_<Event>(m, "Event", "Marks everything enqueued on a queue before it.")
        .def("wait", &Event::wait, nb::call_guard<nb::gil_scoped_release>())
        .def_prop_ro("is_complete", &Event::is_complete)
        .def("query", &Event::is_complete, "PyCUDA's name for is_complete.")
        .def("synchronize", &Event::wait, nb::call_guard<nb::gil_scoped_release>(), "PyCUDA's name for wait().")
        .def("time_since", &Event::time_since, nb::arg("earlier"), "Milliseconds from `earlier` to this event.")
        .def("time_till", &Event::time_till, nb::arg("later"));

    refuse_other_constructors(
        nb::class_<Queue>(m, "Queue", "An in-order stream of work on one device (a CUDA stream, an OpenCL queue).")
            .def(
                "__init__",
                [](Queue* self, const BoundDevice& device, int priority) {
                    new (self) Queue(device, QueueOptions{priority});
                },
                nb::arg("device"), nb::arg("priority") = 0,
                "A queue on `device`; `priority` is a CUDA stream priority (lower is more urgent: "
                "queue_priority_range(device)); non-zero on OpenCL is UnsupportedError.")
            .def_prop_ro("device", &Queue::device)
            .def_prop_ro("priority", &Queue::priority)
            .def("synchronize", &Queue::synchronize, nb::call_guard<nb::gil_scoped_release>())
            .def("is_done", &Queue::is_done, nb::call_guard<nb::gil_scoped_release>(),
                 "Whether everything enqueued so far is done, without waiting for it (PyCUDA's Stream.is_done).")
            .def(
                "record_event",
                [](const Queue& q, bool timing, bool blocking_sync) {
                    return q.record_event(EventFlags{timing, blocking_sync});
                },
                nb::arg("timing") = true, nb::arg("blocking_sync") = false,
                "An event marking everything enqueued so far (PyCUDA's Event(flags).record(stream)): "
                "timing=False cannot be timed but is cheaper; blocking_sync makes a waiting thread sleep (CUDA).")
            .def("wait_for", &Queue::wait_for, nb::arg("event"))
            .def_prop_ro("native_handle", &Queue::native_handle, "The CUstream / cl_command_queue, as an int.")
            .def("__eq__", [](const Queue& a, const Queue& b) { return a == b; })
            .def("__hash__", [](const Queue& q) { return std::hash<Queue>{}(q); }));

    m.def("queue_priority_range", &queue_priority_range, nb::arg("device"),
          "(least urgent, most urgent) queue priorities of the device (CUDA); (0, 0) on OpenCL.");

    refuse_other_constructors(
        nb::class_<MultiQueue>(m, "MultiQueue", "One queue on each of several distinct devices of one context.")
            .def(nb::init<std::vector<Queue>>(), nb::arg("queues"))
            .def_static("on_devices", &MultiQueue::on_devices, nb::arg("devices"))
            .def_prop_ro("devices", &MultiQueue::devices)
            .def_prop_ro(
                "queues",
                [](const MultiQueue& q) {
                    nb::dict out;
                    for (const Queue& queue : q.queues()) out[nb::cast(queue.device())] = nb::cast(queue);
                    return out;
                },
                "Device -> its queue.")
            .def("__getitem__", [](const MultiQueue& q, const BoundDevice& d) { return q[d]; })
            .def("synchronize", &MultiQueue::synchronize, nb::call_guard<nb::gil_scoped_release>()));
}

}  // namespace kjarni::python
