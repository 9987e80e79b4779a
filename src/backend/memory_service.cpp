// The defaults of ContextMemory (flagged, managed, foreign, page-locked and pitched memory) and of
// ManagedAllocation::enqueue_free, for backends that lack them: each throws UnsupportedError naming
// the backend, except where a plainer call does the job (allocate_flagged, enqueue_free).

#include "backend/api.hpp"
#include "backend/memory_service.hpp"
#include "backend/queue_objects.hpp"
#include "backend/service_defaults.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

FlaggedAllocation ContextMemory::allocate_flagged(std::size_t device_index, std::size_t size,
                                                  const BufferAllocationFlags&) {
    return {allocate(device_index, size), false};
}

std::shared_ptr<ManagedAllocation> ContextMemory::allocate_managed(std::size_t device_index, std::size_t,
                                                                   ManagedAllocationFlags) {
    throw UnsupportedError("device '" + devices().at(device_index)->name() +
                           "': this backend cannot allocate managed / shared virtual memory");
}

std::shared_ptr<Buffer> ContextMemory::adopt_buffer(std::size_t, std::uintptr_t, std::optional<std::size_t>, bool) {
    backend_cannot(api(), "wrap native device memory in a Buffer");
}

std::shared_ptr<HostAllocation> ContextMemory::register_host(void*, std::size_t, HostAllocationFlags) {
    backend_cannot(api(), "page-lock existing host memory");
}

PointerInfo ContextMemory::pointer_info(std::uintptr_t) const {
    backend_cannot(api(), "report the attributes of a pointer");
}

PitchedAllocation ContextMemory::allocate_pitched(std::size_t, std::size_t, std::size_t, std::size_t) {
    backend_cannot(api(), "allocate pitched memory");
}

void ManagedAllocation::enqueue_free(Queue& queue) { queue.synchronize(); }

}  // namespace kjarni::backend
