// In / Out / InOut: host ranges staged through temporary device buffers around one launch.

#include <fmt/format.h>

#include "kjarni/detail/kernel_packing.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail {

const Buffer& HostArgumentStaging::stage(const HostArgument& argument) {
    const std::span<std::byte> bytes = argument.bytes();
    if (bytes.empty()) {
        throw ArgumentError("host argument", fmt::format("argument {} of the launch is an empty host range (a kernel "
                                                         "cannot be given an empty buffer)",
                                                         staged_.size()));
    }
    // From the pool for this queue: queue-ordered reuse makes the block safe to hand out again as
    // soon as it returns, whatever the kernel is still doing.
    Buffer buffer = argument.pool() ? argument.pool()->allocate(queue_, bytes.size())
                                    : Buffer::allocate(queue_.device(), bytes.size());
    if (argument.direction() != HostArgument::Direction::out) {
        // Synchronous: the host range need not stay unchanged past this call.
        buffer.set(queue_, std::span<const std::byte>(bytes));
    }
    staged_.emplace_back(std::move(buffer), &argument);
    return staged_.back().first;
}

void HostArgumentStaging::finish() {
    bool copied_back = false;
    for (const auto& [buffer, argument] : staged_) {
        if (argument->direction() == HostArgument::Direction::in) continue;
        // Queue order puts the copy after the kernel; a synchronous copy returns when it is done.
        buffer.get(queue_, argument->bytes());
        copied_back = true;
    }
    // Only inputs: wait for the kernel so that the temporary buffers may go.
    if (!copied_back) queue_.synchronize();
}

}  // namespace kjarni::detail
