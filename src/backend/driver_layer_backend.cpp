// The defaults of the driver layer's extras in backend::Context and backend::Queue (foreign,
// page-locked and pitched memory; rectangular transfers), for backends that lack them: each throws
// UnsupportedError naming the backend and what it cannot do.

#include <string>

#include "backend/backend.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

namespace {

[[noreturn]] void unsupported(const Api& api, const std::string& what) {
    throw UnsupportedError("the " + api.id().shortcut() + " backend cannot " + what);
}

}  // namespace

std::shared_ptr<Buffer> Context::adopt_buffer(std::size_t, std::uintptr_t, std::optional<std::size_t>, bool) {
    unsupported(api(), "wrap native device memory in a Buffer");
}

std::shared_ptr<HostAllocation> Context::register_host(void*, std::size_t, HostAllocationFlags) {
    unsupported(api(), "page-lock existing host memory");
}

PointerInfo Context::pointer_info(std::uintptr_t) const { unsupported(api(), "report the attributes of a pointer"); }

PitchedAllocation Context::allocate_pitched(std::size_t, std::size_t, std::size_t, std::size_t) {
    unsupported(api(), "allocate pitched memory");
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
