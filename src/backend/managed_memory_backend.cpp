// The default of backend::Context::allocate_managed, for backends without managed memory.

#include "backend/backend.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

std::shared_ptr<ManagedAllocation> Context::allocate_managed(std::size_t device_index, std::size_t,
                                                             ManagedAllocationFlags) {
    throw UnsupportedError("device '" + devices().at(device_index)->name() +
                           "': this backend cannot allocate managed / shared virtual memory");
}

void ManagedAllocation::enqueue_free(Queue& queue) { queue.synchronize(); }

}  // namespace kjarni::backend
