#pragma once
// The one checked launch path. Every kernel kjarni launches, a user's PreparedKernel, BoundKernel
// or StaticKernel and the kernels the algorithm layer generates, goes through launch_checked: the
// queue must be of the kernel's context and device, the arguments must fit the parameters the
// driver reports, the dynamic local memory must fit the kernel's limit. On success nothing is
// allocated, formatted or looked up by name; the error paths format their messages.

#include <atomic>
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
    /// fits (a global pointer, or a parameter CUDA reports only as 8 bytes or no size); a scalar
    /// of `scalar_size` bytes fits, of any size where it is 0, of none where it is no_scalar.
    bool takes_buffer = false;
    std::size_t scalar_size = no_scalar;
    std::size_t size = 0;  // as the driver reports it (0: not reported)
    static constexpr std::size_t no_scalar = ~std::size_t{0};
};

/// The checks of `params`, in order.
std::vector<ParamCheck> param_checks(const std::vector<backend::ParamInfo>& params);

/// The ArgumentTypes tag of the last launch of a kernel whose arguments passed its checks (set by
/// any thread; a stale or lost tag only costs a launch the full checks). A copy starts empty.
class PassedArgumentTypes {
public:
    PassedArgumentTypes() noexcept = default;
    PassedArgumentTypes(const PassedArgumentTypes&) noexcept {}
    PassedArgumentTypes& operator=(const PassedArgumentTypes&) noexcept { return *this; }
    ~PassedArgumentTypes() = default;

    bool holds(ArgumentTypes types) const noexcept {
        return types.tag != nullptr && types.tag == tag_.load(std::memory_order_relaxed);
    }
    void remember(ArgumentTypes types) const noexcept {
        if (types.tag != nullptr) tag_.store(types.tag, std::memory_order_relaxed);
    }

private:
    mutable std::atomic<const void*> tag_{nullptr};
};

/// A backend kernel on one device of a context, with what every launch of it checks. The backend
/// kernel is kept alive by whoever holds this (a Program's state, the generated-kernel cache).
struct CheckedKernel {
    backend::Kernel* kernel = nullptr;
    const backend::Context* context = nullptr;
    std::size_t device_index = 0;
    std::string name;                // for the error messages
    std::vector<ParamCheck> checks;  // of kernel->params()
    PassedArgumentTypes passed_types;
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

/// Whether every argument is a usual one that fits its parameter at once: a Buffer of the kernel's
/// context and device for a pointer parameter, a scalar of the parameter's size. A few
/// instructions per argument, inlined into every launch; false sends the launch to the full checks.
inline bool args_fit_at_once(const CheckedKernel& kernel, std::span<const KernelArg> args) noexcept {
    const std::vector<ParamCheck>& checks = kernel.checks;
    // Parameters are unknown where the driver cannot tell them (no checks): the full checks then
    // look at the memory alone.
    if (checks.size() != args.size()) return false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const KernelArg& arg = args[i];
        const ParamCheck& param = checks[i];
        if (arg.param_count != 1) return false;
        if (arg.kind == KernelArg::Kind::scalar) {
            if (param.scalar_size != 0 && param.scalar_size != arg.size) return false;
        } else if (arg.kind != KernelArg::Kind::buffer || !param.takes_buffer ||
                   arg.device_index != kernel.device_index ||
                   (arg.context != nullptr && arg.context != kernel.context)) {
            return false;
        }
    }
    return true;
}

/// The checks of every kind of argument against every kind of parameter (images, managed memory,
/// unknown parameters); ArgumentError naming the first that does not fit.
void check_args_fully(const CheckedKernel& kernel, std::span<const KernelArg> args, const Queue& queue);

/// ArgumentError naming the first argument that does not fit its parameter (count, kind, size, the
/// memory's context and device). The queue must have passed check_queue, so the kernel's context
/// and device are the queue's.
inline void check_args(const CheckedKernel& kernel, std::span<const KernelArg> args, const Queue& queue) {
    if (!args_fit_at_once(kernel, args)) check_args_fully(kernel, args, queue);
}

/// The launch of a kernel whose queue and arguments were checked (a BoundKernel's, checked once).
inline std::shared_ptr<backend::Event> launch_prechecked(const CheckedKernel& kernel, const Queue& queue, unsigned dims,
                                                         const std::size_t* global, const std::size_t* local,
                                                         std::size_t local_mem, std::span<const KernelArg> args,
                                                         bool want_event) {
    return kernel.kernel->launch(*backend_of(queue), dims, global, local, local_mem, args, want_event);
}

/// launch_prechecked, unless the queue is recording (kjarni::Recorder): then the recording takes
/// the launch, `owner` keeping the backend kernel alive in it, and nothing runs now. A launch that
/// wants an Event cannot be recorded (RecordingError). `owner` becomes the recording's
/// shared_ptr<const void> only there: taken as one, every launch would make a temporary (two
/// reference-count updates, atomic ones once the driver has started its threads).
template <class Owner>
inline std::shared_ptr<backend::Event> launch_or_record(const CheckedKernel& kernel, const Queue& queue, unsigned dims,
                                                        const std::size_t* global, const std::size_t* local,
                                                        std::size_t local_mem, std::span<const KernelArg> args,
                                                        bool want_event, const std::shared_ptr<Owner>& owner) {
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
/// the event marks the launch's end. Arguments of the types of the kernel's last launch that
/// passed, all on the queue's device (`types`, see ArgumentTypes), are not checked again.
template <class Owner>
inline std::shared_ptr<backend::Event> launch_checked(const CheckedKernel& kernel, const Queue& queue, unsigned dims,
                                                      const std::size_t* global, const std::size_t* local,
                                                      std::size_t local_mem, std::span<const KernelArg> args,
                                                      bool want_event, const std::shared_ptr<Owner>& owner,
                                                      ArgumentTypes types = {}) {
    check_queue(kernel, queue);
    if (!kernel.passed_types.holds(types)) {
        check_args(kernel, args, queue);
        kernel.passed_types.remember(types);
    }
    return launch_or_record(kernel, queue, dims, global, local, local_mem, args, want_event, owner);
}

}  // namespace kjarni::detail
