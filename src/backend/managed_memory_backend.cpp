// The defaults of backend::Context::allocate_managed and wrap_native, for backends without them.

#include "backend/backend.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

std::shared_ptr<ManagedAllocation> Context::allocate_managed(std::size_t device_index, std::size_t,
                                                             ManagedAllocationFlags) {
    throw UnsupportedError("device '" + devices().at(device_index)->name() +
                           "': this backend cannot allocate managed / shared virtual memory");
}

std::shared_ptr<Buffer> Context::wrap_native(std::size_t device_index, std::uintptr_t, std::size_t,
                                             std::shared_ptr<const void>) {
    throw UnsupportedError("device '" + devices().at(device_index)->name() +
                           "': this backend cannot use device memory allocated elsewhere");
}

}  // namespace kjarni::backend
