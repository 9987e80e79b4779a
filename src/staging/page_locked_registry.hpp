#pragma once
// Which host address ranges are page-locked memory kjarni allocated or registered (HostMemory,
// HostMemoryPool, HostMemory::register_memory, the transfer stager's slots), so that a transfer can
// tell whether staging it would only add a copy. Every backend page-locked allocation of kjarni
// goes through allocate_page_locked() or register_page_locked(), which record the range and forget
// it when the allocation is freed (or unregistered).
//
// Memory page-locked by other means (CuPy's or PyTorch's pinned allocators, a cuMemHostRegister
// kjarni did not make) is not known here; transfers from it are staged like pageable ones (still
// correct, one extra copy on the host).

#include <cstddef>
#include <memory>

#include "backend/backend.hpp"

namespace kjarni::detail {

/// backend::Context::allocate_host, with the result's range registered while it lives.
std::shared_ptr<backend::HostAllocation> allocate_page_locked(backend::Context& context, std::size_t size,
                                                              backend::HostAllocationFlags flags);

/// backend::Context::register_host, with the range recorded while the result lives. ArgumentError
/// when the range overlaps page-locked memory kjarni knows (allocated or registered).
std::shared_ptr<backend::HostAllocation> register_page_locked(backend::Context& context, void* data, std::size_t size,
                                                              backend::HostAllocationFlags flags);

/// Whether every byte of [data, data + size) lies in one registered allocation (size > 0).
bool is_registered_page_locked(const void* data, std::size_t size);

}  // namespace kjarni::detail
