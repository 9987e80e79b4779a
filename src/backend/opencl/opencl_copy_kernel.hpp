#pragma once
// Device-to-device copies through a kernel of the backend's own, where the runtime's
// clEnqueueCopyBuffer is slower than a kernel on the same device:
// - CPU devices: a CPU OpenCL runtime may copy a buffer on one of its threads: PoCL 3.1's
//   clEnqueueCopyBuffer is one memcpy, so on the 2-core CI machine a 64 MiB copy took 7.8 ms where
//   numpy's (one memcpy, on huge pages) took 6.4 and a kernel of one contiguous run per work item
//   4.8. The kernel gives each work item one run of bytes (a loop the kernel compiler turns into a
//   memcpy or vectorises), a few runs per compute unit, in groups of one work item: what a CPU
//   runtime spreads over its threads.
// - GPU devices: NVIDIA's OpenCL copies through a path that costs ~16 us a call and reaches half the
//   memory bandwidth below 64 MiB (H200: 127 GB/s at 1 MiB, 1983 at 16 MiB, 3489 at 64 MiB, where
//   CUDA's copy reaches 416, 4739 and 3827 and kjarni's own a + b kernel through the same OpenCL
//   driver 296, 3500 and 3994). The kernel moves 16-byte vectors, one per work item (2 GiB and
//   more: several each, four loads at once); it takes copies whose two offsets are multiples of 16
//   bytes (any size: the last bytes one by one).

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "backend/backend.hpp"
#include "backend/opencl/opencl_handle.hpp"

namespace kjarni::backend::opencl {

class OpenClBuffer;
class OpenClContext;

/// Copies of at least this many bytes go through the kernel on CPU devices; below it the runtime's
/// own copy is as fast (PoCL 3.1, 2 cores: equal at 1 MiB, the kernel 20% faster at 4 MiB).
inline constexpr std::size_t cpu_copy_min_bytes = std::size_t{1} << 20;

/// The fewest bytes worth a work item of its own on a CPU device: below it another group's launch
/// costs more.
inline constexpr std::size_t cpu_copy_min_run = std::size_t{256} << 10;

/// Copies of at least this many bytes go through the kernel on GPU devices: a launch costs about
/// what the runtime's copy costs a call, so the kernel is no slower from here on.
inline constexpr std::size_t gpu_copy_min_bytes = std::size_t{64} << 10;

/// The copy kernel's program of one context, per device (the CPU or the GPU form by the device's
/// type), built at the first copy that wants it. Thread-safe. A build that fails is not retried, and
/// its device copies through the runtime's clEnqueueCopyBuffer from then on: a copy must not fail
/// because a faster way could not compile.
class CopyKernelPrograms {
public:
    /// A kernel object for one queue of device `device_index` (a kernel's arguments are state that
    /// two threads must not share), or a null handle where the program cannot be built.
    Handle<cl_kernel> kernel(const OpenClContext& context, std::size_t device_index);

private:
    struct Entry {
        bool tried = false;
        Handle<cl_program> program;  // null after a failed build
        const char* name = nullptr;  // the kernel of the form built
    };
    std::mutex mutex_;
    std::vector<Entry> entries_;
};

/// Whether a copy of `size` bytes between these offsets on `device` goes through the kernel: a large
/// copy on a CPU device, or on a GPU device one whose offsets are multiples of 16 bytes.
bool copy_by_kernel(const Device& device, std::size_t size, std::size_t dst_offset, std::size_t src_offset);

/// What a copy kernel was last given, argument by argument (buffers by their serial, since a
/// released cl_mem's value may come back for another buffer), so that a copy sets only the
/// arguments that changed: NVIDIA's OpenCL charges each clSetKernelArg, and a loop of copies
/// between the same buffers changes none. Belongs to one kernel object; a fresh one knows nothing.
struct CopyKernelArguments {
    std::array<std::uint64_t, 6> values{};
    std::array<bool, 6> known{};
};

/// Enqueues the copy of `size` bytes from `src` at `src_offset` to `dst` at `dst_offset` through
/// `kernel` (from CopyKernelPrograms, for `device`; `given`: what it was last given) on `queue`,
/// where copy_by_kernel said so. The regions must not overlap (as for clEnqueueCopyBuffer).
/// BackendError where the runtime refuses.
void enqueue_copy_kernel(const Device& device, cl_command_queue queue, cl_kernel kernel, CopyKernelArguments& given,
                         OpenClBuffer& dst, std::size_t dst_offset, OpenClBuffer& src, std::size_t src_offset,
                         std::size_t size);

}  // namespace kjarni::backend::opencl
