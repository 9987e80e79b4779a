// The kinds of memory beside device buffers (PyCUDA's pagelocked / registered / managed memory and
// IPC handles, PyOpenCL's SVM and its pools): page-locked host memory and its pool, managed memory
// (CUDA managed, OpenCL SVM) and its pool, IPC handles, pitched allocations and rectangular copies,
// pointer attributes. Host-visible memory exposes Python's buffer protocol, so that numpy views it
// without a copy (kjarni/_memory.py makes the numpy arrays).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <optional>
#include <vector>

#include <kjarni/buffer.hpp>
#include <kjarni/host_memory.hpp>
#include <kjarni/ipc.hpp>
#include <kjarni/managed_memory.hpp>
#include <kjarni/pitched_memory.hpp>
#include <kjarni/pointer_attributes.hpp>
#include <kjarni/svm_pool.hpp>

#include "bindings.hpp"
#include "host_memory.hpp"

namespace kjarni::python {

namespace {

// The buffer protocol over `size` bytes at `data`, owned by `exporter` (the view keeps it alive).
int fill_view(PyObject* exporter, Py_buffer* view, void* data, std::size_t size, int flags) {
    static char empty = 0;
    return PyBuffer_FillInfo(view, exporter, data != nullptr ? data : &empty, static_cast<Py_ssize_t>(size), 0, flags);
}

int host_memory_getbuffer(PyObject* exporter, Py_buffer* view, int flags) {
    const HostMemory* memory = nb::inst_ptr<HostMemory>(exporter);
    return fill_view(exporter, view, memory->data(), memory->size(), flags);
}

// Managed memory the host may touch outside a host access scope (CUDA, OpenCL fine-grained SVM);
// coarse-grained SVM refuses: its bytes are the host's only between map and unmap (host_access).
int managed_getbuffer(PyObject* exporter, Py_buffer* view, int flags) {
    const ManagedMemory* memory = nb::inst_ptr<ManagedMemory>(exporter);
    if (!memory->fine_grained()) {
        PyErr_SetString(PyExc_BufferError,
                        "coarse-grained shared virtual memory is the host's only inside a host access scope: "
                        "use memory.host_access(queue) (a `with` block) and view that");
        return -1;
    }
    return fill_view(exporter, view, memory->data(), memory->size(), flags);
}

int host_access_getbuffer(PyObject* exporter, Py_buffer* view, int flags) {
    const ManagedHostAccess* access = nb::inst_ptr<ManagedHostAccess>(exporter);
    if (!access->is_open()) {
        PyErr_SetString(PyExc_BufferError, "the host access scope has ended: its bytes are the devices' again");
        return -1;
    }
    return fill_view(exporter, view, access->data(), access->size(), flags);
}

int pooled_svm_getbuffer(PyObject* exporter, Py_buffer* view, int flags) {
    const PooledSVM* block = nb::inst_ptr<PooledSVM>(exporter);
    if (!*block) {
        PyErr_SetString(PyExc_BufferError, "the pooled SVM block has been released");
        return -1;
    }
    if (!block->memory().fine_grained()) {
        PyErr_SetString(PyExc_BufferError,
                        "coarse-grained shared virtual memory is the host's only inside a host access scope: "
                        "use block.memory.host_access(queue)");
        return -1;
    }
    return fill_view(exporter, view, block->data(), block->size(), flags);
}

PyType_Slot host_memory_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(host_memory_getbuffer)}, {0, nullptr}};
PyType_Slot managed_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(managed_getbuffer)}, {0, nullptr}};
PyType_Slot host_access_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(host_access_getbuffer)}, {0, nullptr}};
PyType_Slot pooled_svm_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(pooled_svm_getbuffer)}, {0, nullptr}};

HostMemoryFlags host_flags(bool portable, bool mapped, bool write_combined) {
    return HostMemoryFlags{portable, mapped, write_combined};
}

std::vector<std::byte> handle_bytes(const nb::bytes& handle) {
    const auto* data = static_cast<const std::byte*>(handle.data());
    return {data, data + handle.size()};
}

nb::bytes to_bytes(const std::vector<std::byte>& bytes) {
    return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

RectLayout to_layout(const std::vector<std::size_t>& origin, std::size_t offset, std::size_t pitch,
                     std::size_t slice_pitch, const char* name) {
    if (origin.size() > 3) throw ArgumentError(name, "an origin has at most 3 coordinates (x bytes, y rows, z slices)");
    RectLayout layout;
    layout.offset = offset;
    layout.pitch = pitch;
    layout.slice_pitch = slice_pitch;
    if (origin.size() > 0) layout.x = origin[0];
    if (origin.size() > 1) layout.y = origin[1];
    if (origin.size() > 2) layout.z = origin[2];
    return layout;
}

RectExtent to_extent(const std::vector<std::size_t>& region) {
    if (region.empty() || region.size() > 3) {
        throw ArgumentError("region", "must be (width bytes[, height rows[, depth slices]])");
    }
    RectExtent extent;
    extent.width = region[0];
    if (region.size() > 1) extent.height = region[1];
    if (region.size() > 2) extent.depth = region[2];
    return extent;
}

void bind_host_memory(nb::module_& m) {
    nb::class_<HostMemoryFlags>(m, "HostMemoryFlags", "How page-locked host memory is allocated or registered.")
        .def(nb::init<>())
        .def_rw("portable", &HostMemoryFlags::portable)
        .def_rw("mapped", &HostMemoryFlags::mapped)
        .def_rw("write_combined", &HostMemoryFlags::write_combined);

    nb::class_<HostMemory>(m, "HostMemory", nb::type_slots(host_memory_slots), nb::dynamic_attr(),
                           "Page-locked (pinned) host memory of a context (PyCUDA's HostAllocation and "
                           "RegisteredHostMemory); its bytes are a Python buffer (numpy.frombuffer).")
        .def_static(
            "allocate",
            [](const Context& context, std::size_t size, bool portable, bool mapped, bool write_combined) {
                return HostMemory::allocate(context, size, host_flags(portable, mapped, write_combined));
            },
            nb::arg("context"), nb::arg("size"), nb::kw_only(), nb::arg("portable") = false, nb::arg("mapped") = false,
            nb::arg("write_combined") = false)
        .def_static(
            "_register",
            [](const Context& context, nb::handle host, bool portable, bool mapped) {
                // The caller (kjarni/_memory.py) keeps the host object alive as long as the result.
                HostBytes bytes(host.ptr(), true, "host_array");
                return HostMemory::register_memory(context, bytes.bytes(), host_flags(portable, mapped, false));
            },
            nb::arg("context"), nb::arg("host_array"), nb::arg("portable"), nb::arg("mapped"))
        .def_prop_ro("size", &HostMemory::size)
        .def_prop_ro("address", [](const HostMemory& h) { return reinterpret_cast<std::uintptr_t>(h.data()); })
        .def_prop_ro("context", &HostMemory::context)
        .def_prop_ro("portable", [](const HostMemory& h) { return h.flags().portable; })
        .def_prop_ro("mapped", [](const HostMemory& h) { return h.flags().mapped; })
        .def_prop_ro("write_combined", [](const HostMemory& h) { return h.flags().write_combined; })
        .def("device_buffer", &HostMemory::device_buffer, nb::arg("device"),
             "The memory as a Buffer of `device` (PyCUDA's get_device_pointer): kernels read and write the "
             "host's bytes. Needs mapped=True (or a device that maps any pinned memory).");

    refuse_other_constructors(
        nb::class_<HostMemoryPool>(m, "HostMemoryPool",
                                   "A pool of page-locked host memory (PyCUDA's PageLockedMemoryPool).")
            .def(
                "__init__",
                [](HostMemoryPool* self, bool portable, bool mapped, bool write_combined, unsigned leading_bits) {
                    new (self) HostMemoryPool(host_flags(portable, mapped, write_combined), leading_bits);
                },
                nb::kw_only(), nb::arg("portable") = false, nb::arg("mapped") = false,
                nb::arg("write_combined") = false, nb::arg("leading_bits_in_bin_id") = 4)
            .def("allocate", &HostMemoryPool::allocate, nb::arg("context"), nb::arg("size"))
            .def_prop_ro("held_blocks", &HostMemoryPool::held_blocks)
            .def_prop_ro("active_blocks", &HostMemoryPool::active_blocks)
            .def_prop_ro("managed_bytes", &HostMemoryPool::managed_bytes)
            .def_prop_ro("active_bytes", &HostMemoryPool::active_bytes)
            .def_prop_ro("leading_bits_in_bin_id", &HostMemoryPool::leading_bits_in_bin_id)
            .def("free_held", &HostMemoryPool::free_held)
            .def("stop_holding", &HostMemoryPool::stop_holding));
}

void bind_managed_memory(nb::module_& m) {
    nb::class_<ManagedMemoryCapabilities>(m, "ManagedMemoryCapabilities",
                                          "What a device offers for managed memory / shared virtual memory.")
        .def_ro("managed_memory", &ManagedMemoryCapabilities::managed_memory)
        .def_ro("concurrent_managed_access", &ManagedMemoryCapabilities::concurrent_managed_access)
        .def_ro("pageable_memory_access", &ManagedMemoryCapabilities::pageable_memory_access)
        .def_ro("svm_coarse_grain_buffer", &ManagedMemoryCapabilities::svm_coarse_grain_buffer)
        .def_ro("svm_fine_grain_buffer", &ManagedMemoryCapabilities::svm_fine_grain_buffer)
        .def_ro("svm_fine_grain_system", &ManagedMemoryCapabilities::svm_fine_grain_system)
        .def_ro("svm_atomics", &ManagedMemoryCapabilities::svm_atomics)
        .def_ro("prefetch", &ManagedMemoryCapabilities::prefetch)
        .def_prop_ro("supported", &ManagedMemoryCapabilities::supported)
        .def_prop_ro("missing", &ManagedMemoryCapabilities::missing);
    m.def("managed_memory_capabilities", &managed_memory_capabilities, nb::arg("device"));

    nb::enum_<ManagedMemory::Attach>(m, "ManagedAttach", "Which queues' kernels may use managed memory (CUDA).")
        .value("global_", ManagedMemory::Attach::global)
        .value("host", ManagedMemory::Attach::host)
        .value("single", ManagedMemory::Attach::single);

    nb::class_<ManagedHostAccess>(m, "ManagedHostAccess", nb::type_slots(host_access_slots),
                                  "A scope in which the host may touch managed memory (a `with` block; PyOpenCL's "
                                  "SVMMap); its bytes are a Python buffer while it is open.")
        .def_prop_ro("size", &ManagedHostAccess::size)
        .def_prop_ro("is_open", &ManagedHostAccess::is_open)
        .def("end", &ManagedHostAccess::end, nb::call_guard<nb::gil_scoped_release>(),
             "Closes the scope (unmaps coarse-grained memory, waiting for it).")
        .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
        .def("__exit__", [](ManagedHostAccess& a, nb::args) {
            nb::gil_scoped_release release;
            a.end();
        });

    nb::class_<ManagedMemory>(m, "ManagedMemory", nb::type_slots(managed_slots),
                              "Memory with one address for the host and every device of a context (PyCUDA's "
                              "ManagedAllocation, PyOpenCL's SVMAllocation). A kernel argument as it is.")
        .def_static(
            "allocate",
            [](const Context& context, std::size_t size, bool attach_host, bool coarse_grain) {
                return ManagedMemory::allocate(context, size, ManagedMemoryFlags{attach_host, coarse_grain});
            },
            nb::arg("context"), nb::arg("size"), nb::kw_only(), nb::arg("attach_host") = false,
            nb::arg("coarse_grain") = false)
        .def_static(
            "allocate",
            [](const BoundDevice& device, std::size_t size, bool attach_host, bool coarse_grain) {
                return ManagedMemory::allocate(device, size, ManagedMemoryFlags{attach_host, coarse_grain});
            },
            nb::arg("device"), nb::arg("size"), nb::kw_only(), nb::arg("attach_host") = false,
            nb::arg("coarse_grain") = false)
        .def_prop_ro("size", &ManagedMemory::size)
        .def_prop_ro("address", [](const ManagedMemory& h) { return reinterpret_cast<std::uintptr_t>(h.data()); })
        .def_prop_ro("context", &ManagedMemory::context)
        .def_prop_ro("fine_grained", &ManagedMemory::fine_grained)
        .def(
            "host_access",
            [](const ManagedMemory& memory, const Queue& queue, const std::string& access, std::size_t offset,
               std::size_t size) {
                ManagedMemory::Access mode = ManagedMemory::Access::read_write;
                if (access == "read") {
                    mode = ManagedMemory::Access::read;
                } else if (access == "write") {
                    mode = ManagedMemory::Access::write;
                } else if (access != "read_write") {
                    throw ArgumentError("access", "must be 'read', 'write' or 'read_write', not '" + access + "'");
                }
                nb::gil_scoped_release release;
                return memory.host_access(queue, mode, offset, size);
            },
            nb::arg("queue"), nb::arg("access") = "read_write", nb::arg("offset") = 0, nb::arg("size") = 0,
            "A scope in which the host may touch bytes [offset, offset + size) (size 0: to the end): waits for "
            "the queue's work, maps coarse-grained memory; `with memory.host_access(queue) as view:`.")
        .def("prefetch", &ManagedMemory::prefetch, nb::arg("queue"))
        .def("prefetch_to_host", &ManagedMemory::prefetch_to_host, nb::arg("queue"))
        .def("attach", &ManagedMemory::attach, nb::arg("queue"), nb::arg("attach"))
        .def("copy_from", &ManagedMemory::copy_from, nb::arg("queue"), nb::arg("source"), nb::arg("offset") = 0,
             nb::arg("async_") = false)
        .def("copy_to", &ManagedMemory::copy_to, nb::arg("queue"), nb::arg("destination"), nb::arg("offset") = 0,
             nb::arg("async_") = false)
        .def("device_buffer", &ManagedMemory::device_buffer, nb::arg("device"));

    nb::class_<PooledSVM>(m, "PooledSVM", nb::type_slots(pooled_svm_slots),
                          "A block of an SVMPool (PyOpenCL's PooledSVM); returns to the pool when released or "
                          "collected. A kernel argument as it is.")
        .def_prop_ro("size", &PooledSVM::size)
        .def_prop_ro("address", [](const PooledSVM& b) { return reinterpret_cast<std::uintptr_t>(b.data()); })
        .def_prop_ro("memory", &PooledSVM::memory, "The ManagedMemory the block lies in (host_access through it).")
        .def("release", &PooledSVM::release)
        .def("bind_to_queue", &PooledSVM::bind_to_queue, nb::arg("queue"))
        .def("unbind_from_queue", &PooledSVM::unbind_from_queue)
        .def("__bool__", [](const PooledSVM& b) { return static_cast<bool>(b); });

    refuse_other_constructors(
        nb::class_<SVMPool>(m, "SVMPool", "A pool of shared virtual / managed memory (PyOpenCL's SVMPool).")
            .def(
                "__init__",
                [](SVMPool* self, const Context& context, bool attach_host, bool coarse_grain, unsigned bits) {
                    new (self) SVMPool(context, ManagedMemoryFlags{attach_host, coarse_grain}, bits);
                },
                nb::arg("context"), nb::kw_only(), nb::arg("attach_host") = false, nb::arg("coarse_grain") = false,
                nb::arg("leading_bits_in_bin_id") = 4)
            .def("allocate", nb::overload_cast<std::size_t>(&SVMPool::allocate, nb::const_), nb::arg("size"))
            .def("allocate", nb::overload_cast<const Queue&, std::size_t>(&SVMPool::allocate, nb::const_),
                 nb::arg("queue"), nb::arg("size"))
            .def(
                "__call__", [](const SVMPool& p, std::size_t size) { return p.allocate(size); }, nb::arg("size"))
            .def_prop_ro("held_blocks", &SVMPool::held_blocks)
            .def_prop_ro("active_blocks", &SVMPool::active_blocks)
            .def_prop_ro("managed_bytes", &SVMPool::managed_bytes)
            .def_prop_ro("active_bytes", &SVMPool::active_bytes)
            .def_prop_ro("leading_bits_in_bin_id", &SVMPool::leading_bits_in_bin_id)
            .def("free_held", &SVMPool::free_held)
            .def("stop_holding", &SVMPool::stop_holding));
}

void bind_ipc_and_pitched(nb::module_& m) {
    m.attr("ipc_memory_handle_bytes") = ipc_memory_handle_bytes;
    m.attr("ipc_event_handle_bytes") = ipc_event_handle_bytes;
    m.def(
        "_buffer_ipc_handle", [](const Buffer& b) { return to_bytes(b.ipc_handle()); }, nb::arg("buffer"));
    m.def(
        "_buffer_open_ipc",
        [](const BoundDevice& device, const nb::bytes& handle) {
            return Buffer::open_ipc(device, handle_bytes(handle));
        },
        nb::arg("device"), nb::arg("handle"));

    nb::class_<IpcEvent>(m, "IpcEvent", "An event another process can wait for (PyCUDA's Event(INTERPROCESS)).")
        .def_static("create", &IpcEvent::create, nb::arg("device"))
        .def_static(
            "open",
            [](const BoundDevice& device, const nb::bytes& handle) {
                return IpcEvent::open(device, handle_bytes(handle));
            },
            nb::arg("device"), nb::arg("handle"))
        .def("handle", [](const IpcEvent& e) { return to_bytes(e.handle()); })
        .def("record", &IpcEvent::record, nb::arg("queue"))
        .def("event", &IpcEvent::event)
        .def_prop_ro("device", &IpcEvent::device);

    nb::class_<PitchedBuffer>(m, "PitchedBuffer", "A 2D allocation whose rows start `pitch` bytes apart.")
        .def_ro("buffer", &PitchedBuffer::buffer)
        .def_ro("pitch", &PitchedBuffer::pitch)
        .def("__iter__", [](const PitchedBuffer& p) { return nb::iter(nb::make_tuple(p.buffer, p.pitch)); });
    m.def("allocate_pitched", &allocate_pitched, nb::arg("device"), nb::arg("width"), nb::arg("height"),
          nb::arg("element_size") = 4,
          "`height` rows of `width` bytes, each row aligned for the device (PyCUDA's mem_alloc_pitch): "
          "(buffer, pitch).");
    m.def(
        "fill_2d",
        [](const Queue& queue, const Buffer& buffer, std::size_t pitch, std::size_t width, std::size_t height,
           nb::handle value) {
            // numpy scalars of 1, 2 or 4 bytes (PyCUDA's memset_d2d8/16/32), or a bytes pattern.
            if (PyBytes_Check(value.ptr())) {
                const nb::bytes pattern = nb::borrow<nb::bytes>(value);
                fill_2d(queue, buffer, pitch, width * pattern.size(), height,
                        std::span(static_cast<const std::byte*>(pattern.data()), pattern.size()));
                return;
            }
            HostBytes bytes(value.ptr(), false, "value");
            switch (bytes.size()) {
            case 1: {
                std::uint8_t v;
                std::memcpy(&v, bytes.data(), 1);
                return fill_2d(queue, buffer, pitch, width * 1, height, v);
            }
            case 2: {
                std::uint16_t v;
                std::memcpy(&v, bytes.data(), 2);
                return fill_2d(queue, buffer, pitch, width * 2, height, v);
            }
            case 4: {
                std::uint32_t v;
                std::memcpy(&v, bytes.data(), 4);
                return fill_2d(queue, buffer, pitch, width * 4, height, v);
            }
            default: throw ArgumentError("value", "must be a numpy scalar of 1, 2 or 4 bytes, or a bytes pattern");
            }
        },
        nb::arg("queue"), nb::arg("buffer"), nb::arg("pitch"), nb::arg("width"), nb::arg("height"), nb::arg("value"),
        "Fills `height` rows of `width` elements (of the value's size; PyCUDA's memset_d2d8/16/32) that start "
        "`pitch` bytes apart.");
    m.def(
        "_copy_rect",
        [](const Queue& queue, nb::handle dst, const std::vector<std::size_t>& dst_origin, std::size_t dst_offset,
           std::size_t dst_pitch, std::size_t dst_slice_pitch, nb::handle src,
           const std::vector<std::size_t>& src_origin, std::size_t src_offset, std::size_t src_pitch,
           std::size_t src_slice_pitch, const std::vector<std::size_t>& region) {
            const RectLayout dst_layout = to_layout(dst_origin, dst_offset, dst_pitch, dst_slice_pitch, "dst_origin");
            const RectLayout src_layout = to_layout(src_origin, src_offset, src_pitch, src_slice_pitch, "src_origin");
            const RectExtent extent = to_extent(region);
            Buffer* dst_buffer = nullptr;
            Buffer* src_buffer = nullptr;
            const bool dst_device = nb::try_cast<Buffer*>(dst, dst_buffer) && dst_buffer != nullptr;
            const bool src_device = nb::try_cast<Buffer*>(src, src_buffer) && src_buffer != nullptr;
            if (dst_device && src_device) {
                nb::gil_scoped_release release;
                copy_rect(queue, *dst_buffer, dst_layout, *src_buffer, src_layout, extent);
            } else if (dst_device) {
                HostBytes host(src.ptr(), false, "src");
                nb::gil_scoped_release release;
                copy_rect(queue, *dst_buffer, dst_layout, std::span<const std::byte>(host.bytes()), src_layout, extent);
            } else if (src_device) {
                HostBytes host(dst.ptr(), true, "dst");
                nb::gil_scoped_release release;
                copy_rect(queue, host.bytes(), dst_layout, *src_buffer, src_layout, extent);
            } else {
                throw ArgumentError("dst",
                                    "a rectangular copy needs a Buffer on at least one side (host to host: numpy)");
            }
        },
        nb::arg("queue"), nb::arg("dst"), nb::arg("dst_origin"), nb::arg("dst_offset"), nb::arg("dst_pitch"),
        nb::arg("dst_slice_pitch"), nb::arg("src"), nb::arg("src_origin"), nb::arg("src_offset"), nb::arg("src_pitch"),
        nb::arg("src_slice_pitch"), nb::arg("region"));

    nb::enum_<PointerAttributes::MemoryType>(m, "MemoryType")
        .value("unregistered", PointerAttributes::MemoryType::unregistered)
        .value("host", PointerAttributes::MemoryType::host)
        .value("device", PointerAttributes::MemoryType::device)
        .value("managed", PointerAttributes::MemoryType::managed);
    nb::class_<PointerAttributes>(m, "PointerAttributes",
                                  "What the driver knows of an address (cuPointerGetAttributes).")
        .def_ro("type", &PointerAttributes::type)
        .def_ro("device", &PointerAttributes::device)
        .def_ro("device_index", &PointerAttributes::device_index)
        .def_ro("device_pointer", &PointerAttributes::device_pointer)
        .def_ro("host_pointer", &PointerAttributes::host_pointer)
        .def_ro("range_start", &PointerAttributes::range_start)
        .def_ro("range_size", &PointerAttributes::range_size);
    m.def(
        "pointer_attributes",
        [](const Context& context, std::uintptr_t pointer) { return pointer_attributes(context, pointer); },
        nb::arg("context"), nb::arg("pointer"));
    m.def(
        "mem_get_info",
        [](const BoundDevice& device) {
            const MemoryInfo info = memory_info(device);
            return std::make_pair(info.free, info.total);
        },
        nb::arg("device"), "(free bytes or None where the API does not say, total bytes) (PyCUDA's mem_get_info).");
}

}  // namespace

void bind_memory_kinds(nb::module_& m) {
    bind_host_memory(m);
    bind_managed_memory(m);
    bind_ipc_and_pitched(m);
}

}  // namespace kjarni::python
