// The defaults of the interprocess (IPC) calls of the backend interface (ContextIpc, and the
// handles of buffers and events), for backends without them.

#include "backend/api.hpp"
#include "backend/ipc_service.hpp"
#include "backend/memory_objects.hpp"
#include "backend/queue_objects.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

namespace {

[[noreturn]] void no_ipc_handles(const Api& api, const char* what) {
    const std::string name = api.id() == ApiId::opencl() ? "OpenCL" : api.id().shortcut();
    throw UnsupportedError(std::string(what) + ": the " + name +
                           " API has no interprocess handles (only CUDA has: cuIpcGetMemHandle, cuIpcGetEventHandle)");
}

}  // namespace

std::shared_ptr<Buffer> ContextIpc::open_ipc_memory(std::size_t, std::span<const std::byte>, std::size_t) {
    no_ipc_handles(api(), "opening interprocess memory");
}

std::shared_ptr<Event> ContextIpc::create_ipc_event(std::size_t) { no_ipc_handles(api(), "an interprocess event"); }

std::shared_ptr<Event> ContextIpc::open_ipc_event(std::size_t, std::span<const std::byte>) {
    no_ipc_handles(api(), "opening an interprocess event");
}

std::vector<std::byte> Buffer::ipc_handle() const {
    throw UnsupportedError("exporting memory: this backend has no interprocess handles (only CUDA has)");
}

std::vector<std::byte> Event::ipc_handle() const {
    throw UnsupportedError("exporting an event: only an event made as an interprocess event (CUDA) has a handle");
}

void Queue::record(Event&) { throw UnsupportedError("recording an existing event: this backend cannot"); }

}  // namespace kjarni::backend
