#pragma once
// The steps of a recording kept for replaying or re-recording them: launches with their packed
// arguments, copies and fills with their pattern. The launch list replays them one by one; the
// OpenCL command buffer records them again after an argument changed. Internal to the backends.

#include <array>
#include <cstddef>
#include <cstring>
#include <span>
#include <variant>
#include <vector>

#include "backend/backend.hpp"

namespace kjarni::backend {

struct RecordedLaunch {
    Kernel* kernel = nullptr;
    unsigned dims = 1;
    std::array<std::size_t, 3> global{1, 1, 1};
    std::array<std::size_t, 3> local{1, 1, 1};
    std::size_t dynamic_local_mem = 0;
    std::vector<KernelArg> args;
};

struct RecordedCopy {
    Buffer* dst = nullptr;
    std::size_t dst_offset = 0;
    Buffer* src = nullptr;
    std::size_t src_offset = 0;
    std::size_t size = 0;
};

struct RecordedFill {
    Buffer* dst = nullptr;
    std::size_t offset = 0;
    std::size_t size = 0;
    std::array<std::byte, 128> pattern{};  // Queue::fill's patterns are at most 128 bytes
    std::size_t pattern_size = 0;
};

using RecordedStep = std::variant<RecordedLaunch, RecordedCopy, RecordedFill>;

/// The steps in queue order, and where each launch is among them (set_argument counts launches).
class RecordedSteps {
public:
    const RecordedLaunch& add_launch(Kernel& kernel, unsigned dims, const std::size_t* global_size,
                                     const std::size_t* local_size, std::size_t dynamic_local_mem,
                                     std::span<const KernelArg> args) {
        RecordedLaunch step{&kernel, dims, {1, 1, 1}, {1, 1, 1}, dynamic_local_mem, {args.begin(), args.end()}};
        for (unsigned d = 0; d < dims && d < 3; ++d) {
            step.global[d] = global_size[d];
            step.local[d] = local_size[d];
        }
        launches_.push_back(steps_.size());
        return std::get<RecordedLaunch>(steps_.emplace_back(std::move(step)));
    }

    const RecordedCopy& add_copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset,
                                 std::size_t size) {
        return std::get<RecordedCopy>(steps_.emplace_back(RecordedCopy{&dst, dst_offset, &src, src_offset, size}));
    }

    const RecordedFill& add_fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern,
                                 std::size_t pattern_size) {
        RecordedFill step{&dst, offset, size, {}, pattern_size};
        std::memcpy(step.pattern.data(), pattern, pattern_size);
        return std::get<RecordedFill>(steps_.emplace_back(step));
    }

    /// Argument `argument` of launch number `launch` (checked by the public layer) becomes `value`.
    void set_argument(std::size_t launch, std::size_t argument, const KernelArg& value) {
        std::get<RecordedLaunch>(steps_.at(launches_.at(launch))).args.at(argument) = value;
    }

    /// Calls `visitor` with each step in queue order (an overload per step type).
    template <class Visitor>
    void for_each(Visitor&& visitor) const {
        for (const RecordedStep& step : steps_) std::visit(visitor, step);
    }

private:
    std::vector<RecordedStep> steps_;
    std::vector<std::size_t> launches_;  // the step of each launch, in recording order
};

}  // namespace kjarni::backend
