#pragma once
// Device-to-device copies on CPU devices through a kernel of the backend's own, run on every core.
// A CPU OpenCL runtime may copy a buffer on one of its threads: PoCL 3.1's clEnqueueCopyBuffer is one
// memcpy, so on the 2-core CI machine a 64 MiB copy took 7.8 ms where numpy's (one memcpy, on huge
// pages) took 6.4 and a kernel of one contiguous run per work item 4.8. The kernel gives each work
// item one run of bytes (a loop the kernel compiler turns into a memcpy or vectorises), a few runs
// per compute unit, in groups of one work item: what a CPU runtime spreads over its threads.

#include <CL/cl.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include "backend/backend.hpp"
#include "backend/opencl/opencl_handle.hpp"

namespace kjarni::backend::opencl {

class OpenClContext;

/// Copies of at least this many bytes go through the kernel on CPU devices; below it the runtime's
/// own copy is as fast (PoCL 3.1, 2 cores: equal at 1 MiB, the kernel 20% faster at 4 MiB).
inline constexpr std::size_t cpu_copy_min_bytes = std::size_t{1} << 20;

/// The fewest bytes worth a work item of its own: below it another group's launch costs more.
inline constexpr std::size_t cpu_copy_min_run = std::size_t{256} << 10;

/// The copy kernel's program of one context, per device, built at the first copy that wants it.
/// Thread-safe. A build that fails is not retried, and its device copies through the runtime's
/// clEnqueueCopyBuffer from then on: a copy must not fail because a faster way could not compile.
class CpuCopyPrograms {
public:
    /// A kernel object for one queue of device `device_index` (a kernel's arguments are state that
    /// two threads must not share), or a null handle where the program cannot be built.
    Handle<cl_kernel> kernel(const OpenClContext& context, std::size_t device_index);

private:
    struct Entry {
        bool tried = false;
        Handle<cl_program> program;  // null after a failed build
    };
    std::mutex mutex_;
    std::vector<Entry> entries_;
};

/// Whether a copy of `size` bytes on `device` goes through the kernel: a CPU device, a large copy.
bool copy_by_kernel(const Device& device, std::size_t size);

/// Enqueues the copy of `size` bytes from `src` at `src_offset` to `dst` at `dst_offset` through
/// `kernel` (from CpuCopyPrograms) on `queue`, over a few runs per compute unit. The regions must not
/// overlap (as for clEnqueueCopyBuffer). BackendError where the runtime refuses.
void enqueue_cpu_copy(cl_command_queue queue, cl_kernel kernel, cl_mem dst, std::size_t dst_offset, cl_mem src,
                      std::size_t src_offset, std::size_t size, std::size_t compute_units);

}  // namespace kjarni::backend::opencl
