// The defaults of the driver layer's extras in backend::Context, Module and Queue (foreign,
// page-locked and pitched memory; rectangular transfers; PTX and program globals), for backends that
// lack them: each throws UnsupportedError naming the backend (or, for modules and queues, which do
// not know their API, what was asked for).

#include <string>

#include "backend/backend.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

namespace {

[[noreturn]] void backend_cannot(const Api& api, const std::string& what) {
    throw UnsupportedError("the " + api.id().shortcut() + " backend cannot " + what);
}

}  // namespace

FlaggedAllocation Context::allocate_flagged(std::size_t device_index, std::size_t size, const BufferAllocationFlags&) {
    return {allocate(device_index, size), false};
}

std::shared_ptr<Buffer> Context::adopt_buffer(std::size_t, std::uintptr_t, std::optional<std::size_t>, bool) {
    backend_cannot(api(), "wrap native device memory in a Buffer");
}

std::shared_ptr<HostAllocation> Context::register_host(void*, std::size_t, HostAllocationFlags) {
    backend_cannot(api(), "page-lock existing host memory");
}

PointerInfo Context::pointer_info(std::uintptr_t) const { backend_cannot(api(), "report the attributes of a pointer"); }

BuildOutput Context::link(std::size_t, std::span<const LinkUnit>, const BuildOptions&) {
    backend_cannot(api(), "link separately compiled units");
}

std::vector<std::byte> Context::compile_unit(std::size_t, const std::string&, const BuildOptions&) {
    backend_cannot(api(), "compile a unit for linking");
}

PitchedAllocation Context::allocate_pitched(std::size_t, std::size_t, std::size_t, std::size_t) {
    backend_cannot(api(), "allocate pitched memory");
}

std::shared_ptr<Queue> Context::create_queue_with(std::size_t device_index, const QueueFlags& flags) {
    if (flags.priority != 0) backend_cannot(api(), "give queues a priority");
    return create_queue(device_index);
}

void Context::set_limit(std::size_t, ContextLimit, std::size_t) { backend_cannot(api(), "set context limits"); }

std::size_t Context::limit(std::size_t, ContextLimit) const { backend_cannot(api(), "report context limits"); }

void Context::set_cache_preference(std::size_t, CachePreference) {
    backend_cannot(api(), "set a cache / shared memory preference");
}

void Context::profiler(std::size_t, bool) { backend_cannot(api(), "start or stop a profiler"); }

void Kernel::set_cache_preference(CachePreference) {
    throw UnsupportedError("this backend cannot set a kernel's cache / shared memory preference");
}

void Kernel::set_shared_memory_carveout(int) {
    throw UnsupportedError("this backend cannot set a kernel's shared memory carveout");
}

std::shared_ptr<Event> Queue::record_event_with(const EventFlags& flags) {
    if (flags.blocking_sync) throw UnsupportedError("this backend cannot record blocking-sync events");
    // Timing off is a promise not to time: an event that can is as good.
    return record_event();
}

bool Queue::is_done() { return record_event()->is_complete(); }

std::string Context::ptx(std::size_t, const std::string&, const BuildOptions&) {
    backend_cannot(api(), "produce PTX");
}

std::shared_ptr<Buffer> Module::global_buffer(const std::string&) {
    throw UnsupportedError("this backend cannot address a program's global variables from the host");
}

// A queue does not know its API; its context's devices would, but the interface gives a queue no
// context. The message says what was asked for.
void Queue::fill_2d(Buffer&, std::size_t, std::size_t, std::size_t, std::size_t, const void*, std::size_t, bool) {
    throw UnsupportedError("this backend's queues cannot fill 2-D regions");
}

void Queue::write_rect(Buffer&, const RectLayout&, const void*, const RectLayout&, const RectExtent&, bool) {
    throw UnsupportedError("this backend's queues cannot copy rectangular regions from the host");
}

void Queue::read_rect(void*, const RectLayout&, Buffer&, const RectLayout&, const RectExtent&, bool) {
    throw UnsupportedError("this backend's queues cannot copy rectangular regions to the host");
}

void Queue::copy_rect(Buffer&, const RectLayout&, Buffer&, const RectLayout&, const RectExtent&, bool) {
    throw UnsupportedError("this backend's queues cannot copy rectangular regions between buffers");
}

}  // namespace kjarni::backend
