#pragma once
// Which host address ranges are page-locked memory kjarni allocated (HostMemory, HostMemoryPool,
// the transfer stager's slots), so that a transfer can tell whether staging it would only add a
// copy. Every backend page-locked allocation of kjarni goes through allocate_page_locked(), which
// registers the range and unregisters it when the allocation is freed.
//
// Memory page-locked by other means (cuMemHostRegister, CuPy's or PyTorch's pinned allocators) is
// not known here; transfers from it are staged like pageable ones (still correct, one extra copy
// on the host).

#include <cstddef>
#include <memory>

#include "backend/backend.hpp"

namespace kjarni::detail {

/// backend::Context::allocate_host, with the result's range registered while it lives.
std::shared_ptr<backend::HostAllocation> allocate_page_locked(backend::Context& context, std::size_t size,
                                                              backend::HostAllocationFlags flags);

/// Whether every byte of [data, data + size) lies in one registered allocation (size > 0).
bool is_registered_page_locked(const void* data, std::size_t size);

}  // namespace kjarni::detail
