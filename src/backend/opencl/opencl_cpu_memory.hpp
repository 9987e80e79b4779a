#pragma once
// The memory of large buffers on CPU devices: a mapping of kjarni's own, in huge pages where the
// operating system gives them (madvise(MADV_HUGEPAGE), as numpy does for arrays of 4 MiB and more),
// handed to the runtime with CL_MEM_USE_HOST_PTR, which a CPU runtime uses in place. PoCL 3.1 takes
// a buffer's memory from posix_memalign, in 4 KiB pages: on the 2-core CI machine (a KVM guest,
// where a TLB miss walks two page tables) a kernel streaming 64 MiB of float32, y = 2x, took 6.0 ms
// on those pages and 4.1 ms on huge pages, where numpy's np.multiply ran.

#include <CL/cl.h>

#include <cstddef>

#include "backend/backend.hpp"
#include "backend/opencl/opencl_handle.hpp"

namespace kjarni::backend::opencl {

/// Buffers of at least this many bytes on CPU devices live in a mapping of their own (numpy's
/// threshold for huge pages): below it a mapping per buffer costs more than the pages save.
inline constexpr std::size_t cpu_mapped_min_bytes = std::size_t{4} << 20;

/// Whether a buffer of `size` bytes on `device`, made with `flags` (CL_MEM_COPY_HOST_PTR and
/// CL_MEM_ALLOC_HOST_PTR allowed, not CL_MEM_USE_HOST_PTR), lives in a mapping of its own.
bool cpu_mapped(const Device& device, std::size_t size, cl_mem_flags flags);

/// A buffer of `size` bytes over a fresh mapping, aligned to a huge page and advised to use them,
/// with `flags` less CL_MEM_COPY_HOST_PTR and CL_MEM_ALLOC_HOST_PTR (with `copy_from`'s bytes first
/// where it is not null); the mapping goes when the runtime destroys the buffer (its destructor
/// callback). A null handle, with nothing held, where the mapping or the buffer cannot be made: the
/// caller then asks the runtime for its own memory. The runtime's error status in `status`.
Handle<cl_mem> create_cpu_mapped_buffer(cl_context context, std::size_t size, cl_mem_flags flags, const void* copy_from,
                                        cl_int& status);

}  // namespace kjarni::backend::opencl
