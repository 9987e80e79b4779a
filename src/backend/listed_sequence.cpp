// The recording every backend can replay: a list of launches, copies and fills, each with what the
// public layer checked and packed when it was recorded. A replay calls the backend's launch, copy
// and fill for each step in order, skipping every check already made (the saving is the public
// layer's argument checks and packing, not the driver's own cost per launch).

#include "backend/recorded_sequence.hpp"
#include "backend/recorded_steps.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

namespace {

class ListedSequence final : public RecordedSequence {
public:
    const char* mechanism() const noexcept override { return "launch list"; }

    void launch(Kernel& kernel, unsigned dims, const std::size_t* global_size, const std::size_t* local_size,
                std::size_t dynamic_local_mem, std::span<const KernelArg> args) override {
        steps_.add_launch(kernel, dims, global_size, local_size, dynamic_local_mem, args);
    }

    void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size) override {
        steps_.add_copy(dst, dst_offset, src, src_offset, size);
    }

    void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern,
              std::size_t pattern_size) override {
        steps_.add_fill(dst, offset, size, pattern, pattern_size);
    }

    void finish() override {}
    void abandon() noexcept override {}

    void set_argument(std::size_t launch, std::size_t argument, const KernelArg& value) override {
        steps_.set_argument(launch, argument, value);
    }

    void replay(Queue& queue) override { steps_.for_each(Replayer{queue}); }

private:
    // Each step through the backend's own calls, with no check (they were made when recording).
    struct Replayer {
        Queue& queue;
        void operator()(const RecordedLaunch& s) const {
            s.kernel->launch(queue, s.dims, s.global.data(), s.local.data(), s.dynamic_local_mem, s.args, false);
        }
        void operator()(const RecordedCopy& s) const {
            queue.copy(*s.dst, s.dst_offset, *s.src, s.src_offset, s.size, false);
        }
        void operator()(const RecordedFill& s) const {
            queue.fill(*s.dst, s.offset, s.size, s.pattern.data(), s.pattern_size, false);
        }
    };

    RecordedSteps steps_;
};

}  // namespace

std::unique_ptr<RecordedSequence> make_listed_sequence() { return std::make_unique<ListedSequence>(); }

}  // namespace kjarni::backend
