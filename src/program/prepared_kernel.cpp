// PreparedKernel's and BoundKernel's launches: find the device's entry and launch it through the
// one checked launch path (program/checked_launch.hpp). A bound kernel is checked once and hands
// its arguments over as they are.

#include <fmt/format.h>

#include "kjarni/error.hpp"
#include "kjarni/program.hpp"
#include "program/program_state.hpp"

namespace kjarni {

namespace {

/// The entry of the queue's device; ArgumentError for a queue of another context or device.
const detail::PreparedEntry& entry_for(const detail::PreparedState& state, const Queue& queue) {
    const std::size_t device_index = queue.device().index();
    for (const auto& entry : state.entries) {
        if (entry.checked.device_index == device_index) return entry;
    }
    detail::queue_mismatch(state.entries.front().checked, queue);
}

/// A bound kernel's launch: its packed arguments as they are, checked when bound.
std::shared_ptr<backend::Event> launch_bound(const detail::BoundState& bound, bool want_event) {
    const detail::PreparedEntry& entry = *bound.entry;
    return detail::launch_or_record(entry.checked, bound.queue, entry.dims, entry.global.data(), entry.local.data(),
                                    bound.prepared->local_mem, bound.args, want_event, bound.prepared);
}

}  // namespace

std::shared_ptr<backend::Event> PreparedKernel::launch(const Queue& queue, std::span<const detail::KernelArg> args,
                                                       bool want_event, detail::ArgumentTypes types) const {
    const detail::PreparedState& state = *state_;
    const detail::PreparedEntry& entry = entry_for(state, queue);
    return detail::launch_checked(entry.checked, queue, entry.dims, entry.global.data(), entry.local.data(),
                                  state.local_mem, args, want_event, state_, types);
}

BoundKernel PreparedKernel::bind_args(const Queue& queue, std::vector<detail::KernelArg> args,
                                      std::shared_ptr<const void> owner) const {
    const detail::PreparedEntry& entry = entry_for(*state_, queue);
    detail::check_queue(entry.checked, queue);
    detail::check_args(entry.checked, args, queue);
    return BoundKernel(std::make_shared<const detail::BoundState>(
        detail::BoundState{state_, queue, &entry, std::move(args), std::move(owner)}));
}

Event BoundKernel::operator()() const { return detail::BackendAccess::make<Event>(launch_bound(*state_, true)); }

void BoundKernel::enqueue() const { launch_bound(*state_, false); }

const Queue& BoundKernel::queue() const { return state_->queue; }

const Sizes& PreparedKernel::global_size(std::size_t device_index) const {
    for (const auto& entry : state_->entries) {
        if (entry.checked.device_index == device_index) return entry.global_size;
    }
    throw ArgumentError("device_index", fmt::format("kernel not prepared for device {}", device_index));
}

const Sizes& PreparedKernel::local_size(std::size_t device_index) const {
    for (const auto& entry : state_->entries) {
        if (entry.checked.device_index == device_index) return entry.local_size;
    }
    throw ArgumentError("device_index", fmt::format("kernel not prepared for device {}", device_index));
}

}  // namespace kjarni
