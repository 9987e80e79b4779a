#pragma once
/// Prepared and bound kernels (reference: grunnur PreparedKernel): a kernel with its sizes fixed
/// and checked per device, launched with its arguments only; and a prepared kernel with its queue
/// and arguments fixed too (BoundKernel). Every launch goes through kjarni's one checked launch
/// path: the queue's device must be prepared, the arguments must fit the parameters the driver
/// reports (ArgumentError naming the first that does not), and a launch allocates nothing. \file

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

#include "kjarni/detail/kernel_packing.hpp"
#include "kjarni/event.hpp"
#include "kjarni/launch_sizes.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

namespace backend {
class Event;
}  // namespace backend

class Kernel;
class BoundKernel;
class StaticKernel;

namespace detail {
struct PreparedState;
struct BoundState;
struct PackedLaunch;
}  // namespace detail

/// A kernel with its sizes fixed and checked, per device: the fast launch path.
class PreparedKernel {
public:
    /// Launches on the queue's device; returns an event marking the launch's end.
    /// Host arguments (In, Out, InOut) are copied in before and out after the launch, which then
    /// returns once the kernel has finished.
    template <detail::KernelArgument... Args>
    Event operator()(const Queue& queue, const Args&... args) const {
        [[maybe_unused]] const detail::LaunchTarget target{0, queue.device().index()};
        if constexpr ((detail::HostArgumentType<Args> || ...)) {
            detail::HostArgumentStaging staging(queue);
            // Braced initialisation packs (and stages) the arguments in order.
            const std::array<detail::KernelArg, sizeof...(Args)> packed{staging.pack_staged(args, target)...};
            Event event = detail::BackendAccess::make<Event>(launch(queue, packed, true));
            staging.finish();
            return event;
        } else {
            const std::array<detail::KernelArg, sizeof...(Args)> packed{detail::pack(args, target)...};
            return detail::BackendAccess::make<Event>(
                launch(queue, packed, true, detail::argument_types(queue.device(), args...)));
        }
    }
    /// Launches on every device of the multi-queue (each must be prepared); one event per device.
    template <detail::KernelArgument... Args>
    std::vector<Event> operator()(const MultiQueue& queue, const Args&... args) const {
        static_assert(!(detail::HostArgumentType<Args> || ...),
                      "host arguments (In, Out, InOut) go to launches on a single Queue");
        std::vector<Event> events;
        for (std::size_t position = 0; position < queue.queues().size(); ++position) {
            [[maybe_unused]] const detail::LaunchTarget target{position, queue.queues()[position].device().index()};
            const std::array<detail::KernelArg, sizeof...(Args)> packed{detail::pack(args, target)...};
            events.push_back(detail::BackendAccess::make<Event>(launch(queue.queues()[position], packed, true)));
        }
        return events;
    }
    /// Launches, waits for the launch, and returns the seconds it took on the device, measured by
    /// events recorded around it (PyCUDA's time_kernel=True).
    template <detail::KernelArgument... Args>
    double timed(const Queue& queue, const Args&... args) const {
        const Event start = queue.record_event();
        enqueue(queue, args...);
        const Event end = queue.record_event();
        end.wait();
        return end.time_since(start) * 1e-3;
    }
    /// The hot path: launches without making an event (no allocation, no string work, no look-up
    /// by name).
    template <detail::KernelArgument... Args>
    void enqueue(const Queue& queue, const Args&... args) const {
        if constexpr ((detail::HostArgumentType<Args> || ...)) {
            (*this)(queue, args...);  // host arguments need the staged launch
        } else {
            [[maybe_unused]] const detail::LaunchTarget target{0, queue.device().index()};
            const std::array<detail::KernelArg, sizeof...(Args)> packed{detail::pack(args, target)...};
            launch(queue, packed, false, detail::argument_types(queue.device(), args...));
        }
    }

    /// The kernel with its queue and arguments fixed: they are checked and packed here, once, and
    /// the BoundKernel launches them as often as asked (for loops that launch a kernel with the
    /// same arguments, where packing and checking them would cost more than the launch's own
    /// driver call: see BoundKernel). The arguments are copied (handles share their memory, so
    /// buffers and arrays stay alive while the BoundKernel lives). No host arguments.
    template <detail::KernelArgument... Args>
    BoundKernel bind(const Queue& queue, const Args&... args) const;
    /// The sizes used on a device (context index).
    const Sizes& global_size(std::size_t device_index) const;
    const Sizes& local_size(std::size_t device_index) const;

private:
    friend class Kernel;
    friend class StaticKernel;           // launches its per-device prepared kernels with packed arguments
    friend struct detail::PackedLaunch;  // launches with arguments packed at run time (bindings)
    explicit PreparedKernel(std::shared_ptr<const detail::PreparedState> state) : state_(std::move(state)) {}
    /// The checked launch of packed arguments; with `want_event` the event marks the launch's end,
    /// else it is null. `types`: see detail::ArgumentTypes.
    std::shared_ptr<backend::Event> launch(const Queue& queue, std::span<const detail::KernelArg> args, bool want_event,
                                           detail::ArgumentTypes types = {}) const;
    /// Checks `args` as a launch would and binds them, with `owner`, which keeps alive whatever they
    /// point to (their buffers) as long as the BoundKernel and its copies live.
    BoundKernel bind_args(const Queue& queue, std::vector<detail::KernelArg> args,
                          std::shared_ptr<const void> owner) const;
    std::shared_ptr<const detail::PreparedState> state_;
};

/// A PreparedKernel bound to a queue and to arguments checked once (PreparedKernel::bind): a launch
/// hands the packed arguments to the driver as they are, at the cost of the raw driver call plus
/// a few nanoseconds. Copies share the binding.
class BoundKernel {
public:
    /// Launches; returns an event marking the launch's end.
    Event operator()() const;
    /// Launches without making an event.
    void enqueue() const;
    const Queue& queue() const;

private:
    friend class PreparedKernel;
    explicit BoundKernel(std::shared_ptr<const detail::BoundState> state) : state_(std::move(state)) {}
    std::shared_ptr<const detail::BoundState> state_;
};

template <detail::KernelArgument... Args>
BoundKernel PreparedKernel::bind(const Queue& queue, const Args&... args) const {
    static_assert(!(detail::HostArgumentType<Args> || ...),
                  "host arguments (In, Out, InOut) are staged per launch: use operator() or enqueue()");
    // Packed from the kept copies, so that what the packed arguments point to (a struct's bytes)
    // lives as long as they do.
    auto kept = std::make_shared<const std::tuple<Args...>>(args...);
    [[maybe_unused]] const detail::LaunchTarget target{0, queue.device().index()};
    std::vector<detail::KernelArg> packed =
        std::apply([&](const auto&... held) { return std::vector<detail::KernelArg>{detail::pack(held, target)...}; },
                   *kept);
    return bind_args(queue, std::move(packed), std::move(kept));
}

}  // namespace kjarni
