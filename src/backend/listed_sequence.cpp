// The recording every backend can replay: a list of launches, copies and fills, each with what the
// public layer checked and packed when it was recorded. A replay calls the backend's launch, copy
// and fill for each step in order, skipping every check already made (the saving is the public
// layer's argument checks and packing, not the driver's own cost per launch).

#include <array>
#include <cstring>
#include <variant>
#include <vector>

#include "backend/recorded_sequence.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

namespace {

struct ListedLaunch {
    Kernel* kernel = nullptr;
    unsigned dims = 1;
    std::array<std::size_t, 3> global{1, 1, 1};
    std::array<std::size_t, 3> local{1, 1, 1};
    std::size_t dynamic_local_mem = 0;
    std::vector<KernelArg> args;
};

struct ListedCopy {
    Buffer* dst = nullptr;
    std::size_t dst_offset = 0;
    Buffer* src = nullptr;
    std::size_t src_offset = 0;
    std::size_t size = 0;
};

struct ListedFill {
    Buffer* dst = nullptr;
    std::size_t offset = 0;
    std::size_t size = 0;
    std::array<std::byte, 128> pattern{};
    std::size_t pattern_size = 0;
};

class ListedSequence final : public RecordedSequence {
public:
    const char* mechanism() const noexcept override { return "launch list"; }

    void launch(Kernel& kernel, unsigned dims, const std::size_t* global_size, const std::size_t* local_size,
                std::size_t dynamic_local_mem, std::span<const KernelArg> args) override {
        ListedLaunch step;
        step.kernel = &kernel;
        step.dims = dims;
        for (unsigned d = 0; d < dims && d < 3; ++d) {
            step.global[d] = global_size[d];
            step.local[d] = local_size[d];
        }
        step.dynamic_local_mem = dynamic_local_mem;
        step.args.assign(args.begin(), args.end());
        launches_.push_back(steps_.size());
        steps_.emplace_back(std::move(step));
    }

    void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size) override {
        steps_.emplace_back(ListedCopy{&dst, dst_offset, &src, src_offset, size});
    }

    void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern,
              std::size_t pattern_size) override {
        ListedFill step{&dst, offset, size, {}, pattern_size};
        std::memcpy(step.pattern.data(), pattern, pattern_size);
        steps_.emplace_back(step);
    }

    void finish() override {}
    void abandon() noexcept override {}

    void set_argument(std::size_t launch, std::size_t argument, const KernelArg& value) override {
        std::get<ListedLaunch>(steps_.at(launches_.at(launch))).args.at(argument) = value;
    }

    void replay(Queue& queue) override {
        for (const auto& step : steps_) {
            if (const auto* launch = std::get_if<ListedLaunch>(&step)) {
                launch->kernel->launch(queue, launch->dims, launch->global.data(), launch->local.data(),
                                       launch->dynamic_local_mem, launch->args, false);
            } else if (const auto* copy = std::get_if<ListedCopy>(&step)) {
                queue.copy(*copy->dst, copy->dst_offset, *copy->src, copy->src_offset, copy->size, false);
            } else {
                const auto& fill = std::get<ListedFill>(step);
                queue.fill(*fill.dst, fill.offset, fill.size, fill.pattern.data(), fill.pattern_size, false);
            }
        }
    }

private:
    std::vector<std::variant<ListedLaunch, ListedCopy, ListedFill>> steps_;
    std::vector<std::size_t> launches_;  // the step of each launch, in recording order
};

}  // namespace

std::unique_ptr<RecordedSequence> make_listed_sequence() { return std::make_unique<ListedSequence>(); }

}  // namespace kjarni::backend
