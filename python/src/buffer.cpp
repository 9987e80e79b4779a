// Device buffers, allocators and the memory pool (grunnur's Buffer; PyOpenCL's allocators and
// MemoryPool).
#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>

#include <kjarni/buffer.hpp>
#include <kjarni/memory_pool.hpp>
#include <kjarni/virtual_buffers.hpp>

#include "allocator.hpp"
#include "bindings.hpp"
#include "host_memory.hpp"

namespace kjarni::python {

Allocator to_allocator(const nb::object& allocator) {
    if (allocator.is_none()) return {};
    MemoryPool* pool = nullptr;
    if (nb::try_cast<MemoryPool*>(allocator, pool) && pool != nullptr) return *pool;
    // A manager's allocator is called from C++ directly, without a round trip through Python.
    if (VirtualAllocator* virtual_allocator = nullptr;
        nb::try_cast<VirtualAllocator*>(allocator, virtual_allocator) && virtual_allocator != nullptr) {
        return *virtual_allocator;
    }
    if (DeferredAllocator* deferred = nullptr; nb::try_cast<DeferredAllocator*>(allocator, deferred) && deferred) {
        return *deferred;
    }
    if (ImmediateAllocator* immediate = nullptr; nb::try_cast<ImmediateAllocator*>(allocator, immediate) && immediate) {
        return *immediate;
    }
    if (!PyCallable_Check(allocator.ptr())) {
        throw ArgumentError("allocator", "must be None, a MemoryPool, a DeferredAllocator, an ImmediateAllocator, a "
                                         "VirtualAllocator or a callable (device, size) -> Buffer");
    }
    // Called from C++ with or without the GIL: take it for the call into Python.
    auto holder = std::make_shared<nb::object>(allocator);
    return [holder](const BoundDevice& device, std::size_t size) {
        nb::gil_scoped_acquire gil;
        nb::object result = (*holder)(device, size);
        Buffer* buffer = nullptr;
        if (!nb::try_cast<Buffer*>(result, buffer) || buffer == nullptr) {
            throw ArgumentError("allocator", "returned something other than a Buffer");
        }
        return *buffer;
    };
}

void bind_buffer(nb::module_& m) {
    nb::class_<Buffer>(m, "Buffer", "Device memory; copies of the handle share the allocation.")
        .def_static("allocate", nb::overload_cast<const BoundDevice&, std::size_t>(&Buffer::allocate),
                    nb::arg("device"), nb::arg("size"))
        .def_prop_ro("size", &Buffer::size)
        .def_prop_ro("offset", &Buffer::offset)
        .def_prop_ro("device", &Buffer::device)
        .def_prop_ro("native_handle", &Buffer::native_handle,
                     "CUdeviceptr / cl_mem of the whole allocation (add `offset` for this view's start).")
        .def("get_sub_region", &Buffer::get_sub_region, nb::arg("origin"), nb::arg("size"))
        .def(
            "set",
            [](const Buffer& self, const Queue& queue, nb::object source, bool no_async) {
                Buffer* other = nullptr;
                if (nb::try_cast<Buffer*>(source, other) && other != nullptr) {
                    self.set(queue, *other, !no_async);
                    return;
                }
                HostBytes host(source.ptr(), false, "buf");
                // Synchronous unless asked: the Python object may go as soon as this returns.
                nb::gil_scoped_release release;
                self.set(queue, std::span<const std::byte>(host.bytes()), false);
            },
            nb::arg("queue"), nb::arg("buf"), nb::arg("no_async") = false,
            "Copies a host array's bytes (synchronously) or another Buffer's (in queue order) into this one.")
        .def(
            "get",
            [](const Buffer& self, const Queue& queue, nb::object host_array, bool async_) {
                HostBytes host(host_array.ptr(), true, "host_array");
                nb::gil_scoped_release release;
                self.get(queue, host.bytes(), false);
                (void)async_;
            },
            nb::arg("queue"), nb::arg("host_array"), nb::arg("async_") = false,
            "Copies this buffer's first len(host_array) bytes to the host array (always completes before it "
            "returns: the host object is borrowed only for the call).")
        .def(
            "fill",
            [](const Buffer& self, const Queue& queue, const nb::bytes& pattern) {
                self.fill(queue, std::span(static_cast<const std::byte*>(pattern.data()), pattern.size()));
            },
            nb::arg("queue"), nb::arg("pattern"));

    nb::class_<DeferredAllocator>(m, "DeferredAllocator",
                                  "Allocates device memory when called (PyOpenCL's DeferredAllocator; the default).")
        .def(nb::init<>())
        .def(
            "__call__", [](const DeferredAllocator& a, const BoundDevice& d, std::size_t size) { return a(d, size); },
            nb::arg("device"), nb::arg("size"));
    nb::class_<ImmediateAllocator>(m, "ImmediateAllocator",
                                   "Allocates device memory and touches it on a queue, so that an allocation the "
                                   "device cannot hold fails at once (PyOpenCL's ImmediateAllocator).")
        .def(nb::init<Queue>(), nb::arg("queue"))
        .def(
            "__call__", [](const ImmediateAllocator& a, const BoundDevice& d, std::size_t size) { return a(d, size); },
            nb::arg("device"), nb::arg("size"));

    refuse_other_constructors(
        nb::class_<MemoryPool>(m, "MemoryPool",
                               "A device memory pool with queue-ordered reuse; usable wherever an allocator is.")
            .def(
                "__init__",
                [](MemoryPool* self, const nb::object& allocator, unsigned leading_bits) {
                    Allocator a = to_allocator(allocator);
                    new (self) MemoryPool(a ? a : Allocator(DeferredAllocator{}), leading_bits);
                },
                nb::arg("allocator") = nb::none(), nb::arg("leading_bits_in_bin_id") = 4)
            .def("allocate", nb::overload_cast<const Queue&, std::size_t>(&MemoryPool::allocate, nb::const_),
                 nb::arg("queue"), nb::arg("size"))
            .def("allocate", nb::overload_cast<const BoundDevice&, std::size_t>(&MemoryPool::allocate, nb::const_),
                 nb::arg("device"), nb::arg("size"))
            .def("__call__", [](const MemoryPool& p, const BoundDevice& d, std::size_t size) { return p(d, size); })
            .def_prop_ro("held_blocks", &MemoryPool::held_blocks)
            .def_prop_ro("active_blocks", &MemoryPool::active_blocks)
            .def_prop_ro("managed_bytes", &MemoryPool::managed_bytes)
            .def_prop_ro("active_bytes", &MemoryPool::active_bytes)
            .def("free_held", &MemoryPool::free_held)
            .def("stop_holding", &MemoryPool::stop_holding)
            .def_prop_ro("leading_bits_in_bin_id", &MemoryPool::leading_bits_in_bin_id)
            .def_static("bin_number", &MemoryPool::bin_number)
            .def_static("allocation_size", &MemoryPool::allocation_size));
}

}  // namespace kjarni::python
