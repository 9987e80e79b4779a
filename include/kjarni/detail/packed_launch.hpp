#pragma once
// Launches and bindings with arguments packed at run time, for language bindings (where the count
// and the kinds of the arguments are known only then): the same checked launch path and checks as
// the variadic launches of PreparedKernel and StaticKernel. Not part of the user-facing API.

#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/event.hpp"
#include "kjarni/prepared_kernel.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/static_kernel.hpp"

namespace kjarni::detail {

struct PackedLaunch {
    static std::shared_ptr<backend::Event> launch(const PreparedKernel& kernel, const Queue& queue,
                                                  std::span<const KernelArg> args, bool want_event) {
        return kernel.launch(queue, args, want_event);
    }
    static BoundKernel bind(const PreparedKernel& kernel, const Queue& queue, std::vector<KernelArg> args,
                            std::shared_ptr<const void> owner) {
        return kernel.bind_args(queue, std::move(args), std::move(owner));
    }
    static const PreparedKernel& prepared(const StaticKernel& kernel, const Queue& queue) {
        return kernel.prepared(queue);
    }
};

/// Launches `kernel` on the queue's device with `args`; returns an event marking the launch's end.
inline Event launch_packed(const PreparedKernel& kernel, const Queue& queue, std::span<const KernelArg> args) {
    return BackendAccess::make<Event>(PackedLaunch::launch(kernel, queue, args, true));
}
inline Event launch_packed(const StaticKernel& kernel, const Queue& queue, std::span<const KernelArg> args) {
    return launch_packed(PackedLaunch::prepared(kernel, queue), queue, args);
}

/// As launch_packed, without making an event (the hot path).
inline void enqueue_packed(const PreparedKernel& kernel, const Queue& queue, std::span<const KernelArg> args) {
    PackedLaunch::launch(kernel, queue, args, false);
}
inline void enqueue_packed(const StaticKernel& kernel, const Queue& queue, std::span<const KernelArg> args) {
    enqueue_packed(PackedLaunch::prepared(kernel, queue), queue, args);
}

/// bind() with packed arguments: checks `args` as a launch would, and keeps `owner`, which must keep
/// alive whatever the packed arguments point to (their buffers), as long as the BoundKernel and
/// its copies live.
inline BoundKernel bind_packed(const PreparedKernel& kernel, const Queue& queue, std::vector<KernelArg> args,
                               std::shared_ptr<const void> owner) {
    return PackedLaunch::bind(kernel, queue, std::move(args), std::move(owner));
}
inline BoundKernel bind_packed(const StaticKernel& kernel, const Queue& queue, std::vector<KernelArg> args,
                               std::shared_ptr<const void> owner) {
    return bind_packed(PackedLaunch::prepared(kernel, queue), queue, std::move(args), std::move(owner));
}

}  // namespace kjarni::detail
