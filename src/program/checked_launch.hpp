#pragma once
// The one checked launch path. Every kernel kjarni launches, a user's PreparedKernel, BoundKernel
// or StaticKernel and the kernels the algorithm layer generates, goes through launch_checked: the
// queue must be of the kernel's context and device, the arguments must fit the parameters the
// driver reports, the dynamic local memory must fit the kernel's limit. On success nothing is
// allocated, formatted or looked up by name; the error paths format their messages.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/recording_registry.hpp"
#include "kjarni/context.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

/// What a launch checks of a kernel parameter: ParamInfo without its names, so that the checks of
/// a launch read a few words per argument (the names are read only to report a mismatch).
struct ParamCheck {
    backend::ParamInfo::Kind kind = backend::ParamInfo::Kind::unknown;
    bool sampler_next = false;  // the next parameter is a sampler (an OpenCL sampled image's)
    /// Derived from kind and size for the launch's first, quick pass (see check_args): a Buffer
    /// fits (a global pointer, or a parameter CUDA reports only as 8 bytes or no size), a scalar
    /// of `size` bytes fits (any size where `size` is 0).
    bool takes_buffer = false;
    bool takes_scalar = false;
    std::size_t size = 0;
};

/// The checks of `params`, in order.
std::vector<ParamCheck> param_checks(const std::vector<backend::ParamInfo>& params);

/// A backend kernel on one device of a context, with what every launch of it checks. The backend
/// kernel is kept alive by whoever holds this (a Program's state, the generated-kernel cache).
struct CheckedKernel {
    backend::Kernel* kernel = nullptr;
    const backend::Context* context = nullptr;
    std::size_t device_index = 0;
    std::string name;                // for the error messages
    std::vector<ParamCheck> checks;  // of kernel->params()
};

/// The checked form of `kernel`, compiled for `device`.
CheckedKernel checked_kernel(backend::Kernel& kernel, const BoundDevice& device, std::string name);

/// ArgumentError naming "local_mem" when `local_mem` bytes of dynamic local memory are more than
/// the kernel has left on its device.
void check_local_mem(const CheckedKernel& kernel, const BoundDevice& device, std::size_t local_mem);

/// The ArgumentError of check_queue.
[[noreturn]] void queue_mismatch(const CheckedKernel& kernel, const Queue& queue);

/// ArgumentError naming "queue" when the queue is of another context or device than the kernel.
inline void check_queue(const CheckedKernel& kernel, const Queue& queue) {
    if (backend_of(queue.device().context()).get() != kernel.context || queue.device().index() != kernel.device_index) {
        queue_mismatch(kernel, queue);
    }
}

/// ArgumentError naming "global_size" or "local_size" unless `dims` is 1 to 3, every local extent
/// is positive and divides its global extent, and the local total is within the kernel's limit on
/// its device (the sizes of a kernel launched with new sizes each time: a generated kernel's).
void check_sizes(const CheckedKernel& kernel, std::size_t dims, const std::size_t* global, const std::size_t* local);

/// ArgumentError naming the first argument that does not fit its parameter (count, kind, size, the
/// memory's context and device). The queue must have passed check_queue.
void check_args(const CheckedKernel& kernel, std::span<const KernelArg> args, const Queue& queue);

/// The launch of a kernel whose queue and arguments were checked (a BoundKernel's, checked once).
inline std::shared_ptr<backend::Event> launch_prechecked(const CheckedKernel& kernel, const Queue& queue, unsigned dims,
                                                         const std::size_t* global, const std::size_t* local,
                                                         std::size_t local_mem, std::span<const KernelArg> args,
                                                         bool want_event) {
    return kernel.kernel->launch(*backend_of(queue), dims, global, local, local_mem, args, want_event);
}

/// launch_prechecked, unless the queue is recording (kjarni::Recorder): then the recording takes
/// the launch, `owner` keeping the backend kernel alive in it, and nothing runs now. A launch that
/// wants an Event cannot be recorded (RecordingError).
inline std::shared_ptr<backend::Event> launch_or_record(const CheckedKernel& kernel, const Queue& queue, unsigned dims,
                                                        const std::size_t* global, const std::size_t* local,
                                                        std::size_t local_mem, std::span<const KernelArg> args,
                                                        bool want_event, const std::shared_ptr<const void>& owner) {
    if (ActiveRecording* recording = recording_on(backend_of(queue).get())) {
        if (want_event) refuse_recording_call("a launch that returns an Event (use enqueue)");
        recording->launch(*kernel.kernel, owner, kernel.name, dims, global, local, local_mem, args);
        return nullptr;
    }
    return launch_prechecked(kernel, queue, dims, global, local, local_mem, args, want_event);
}

/// The checked launch: check_queue, check_args, then the backend's launch (or the recording's:
/// launch_or_record). Sizes are OpenCL's (global = the total work items, a multiple of local),
/// `dims` of them, checked by the caller (PreparedKernel when it is prepared, check_sizes for a
/// generated kernel); `local_mem` checked by the caller with check_local_mem. With `want_event`
/// the event marks the launch's end.
inline std::shared_ptr<backend::Event> launch_checked(const CheckedKernel& kernel, const Queue& queue, unsigned dims,
                                                      const std::size_t* global, const std::size_t* local,
                                                      std::size_t local_mem, std::span<const KernelArg> args,
                                                      bool want_event, const std::shared_ptr<const void>& owner) {
    check_queue(kernel, queue);
    check_args(kernel, args, queue);
    return launch_or_record(kernel, queue, dims, global, local, local_mem, args, want_event, owner);
}

}  // namespace kjarni::detail
