// Context, queue, event and kernel knobs: Queue::is_done, queue priorities, event flags, context
// limits, cache preferences and the shared memory carveout, the profiler, and timed launches. CUDA
// has them all; on OpenCL each (but is_done, timed launches and default settings) is
// UnsupportedError.

#include <gtest/gtest.h>

#include <vector>

#include "kjarni/device_settings.hpp"
#include "support/random_data.hpp"
#include "support/suite_programs.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* scale_source = R"(
KERNEL void scale(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a)
{
    const SIZE_T i = get_global_id(0);
    y[i] = a * x[i];
}
)";

class Knobs : public DeviceTest {
protected:
    static SuitePrograms& programs() {
        static auto* programs = new SuitePrograms;
        return *programs;
    }
    static void TearDownTestSuite() { programs().clear(); }
    const Program& program() {
        return programs().get(context(), [&] { return Program(bound_device(), scale_source); });
    }

    // Scales random data by a power of two on `queue` (exact in float) and checks it.
    void check_scale(const Queue& on) {
        const std::size_t n = 4096;
        const auto x = random_vector<float>(n, -1000.0f, 1000.0f);
        Buffer xs = Buffer::allocate(bound_device(), n * 4);
        Buffer ys = Buffer::allocate(bound_device(), n * 4);
        xs.set(on, std::span<const float>(x));
        program().kernel("scale")(on, {n}, std::nullopt, ys, xs, 4.0f);
        std::vector<float> y(n);
        ys.get(on, std::span<float>(y));
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 4.0f * x[i]) << i;
    }
};

TEST_P(Knobs, QueueIsDone) {
    const Queue fresh(bound_device());
    EXPECT_TRUE(fresh.is_done());
    check_scale(queue());
    queue().synchronize();
    EXPECT_TRUE(queue().is_done());
}

TEST_P(Knobs, QueuePriorities) {
    const auto [least, greatest] = queue_priority_range(bound_device());
    EXPECT_EQ(Queue(bound_device(), {}).priority(), 0);
    if (!is_cuda()) {
        EXPECT_EQ(least, 0);
        EXPECT_EQ(greatest, 0);
        EXPECT_THROW(Queue(bound_device(), {.priority = -1}), UnsupportedError);
        return;
    }
    EXPECT_LE(greatest, least);  // CUDA: lower is more urgent
    const Queue urgent(bound_device(), {.priority = greatest});
    EXPECT_EQ(urgent.priority(), greatest);
    check_scale(urgent);
}

TEST_P(Knobs, EventFlags) {
    const Event untimed = queue().record_event({.timing = false});
    untimed.wait();
    EXPECT_TRUE(untimed.is_complete());
    if (!is_cuda()) {
        EXPECT_THROW(queue().record_event({.blocking_sync = true}), UnsupportedError);
        return;
    }
    const Event sleeping = queue().record_event({.blocking_sync = true});
    sleeping.wait();
    EXPECT_TRUE(sleeping.is_complete());
    const Event timed = queue().record_event();
    timed.wait();
    // An event without timing cannot be timed: the driver's error, not garbage.
    EXPECT_THROW(static_cast<void>(timed.time_since(untimed)), BackendError);
}

TEST_P(Knobs, TimedLaunch) {
    const std::size_t n = 1 << 16;
    const auto x = random_vector<float>(n, -1.0f, 1.0f);
    Buffer xs = Buffer::allocate(bound_device(), n * 4);
    Buffer ys = Buffer::allocate(bound_device(), n * 4);
    xs.set(queue(), std::span<const float>(x));
    const PreparedKernel scale = program().kernel("scale").prepare({n});
    const double seconds = scale.timed(queue(), ys, xs, 0.5f);
    EXPECT_GE(seconds, 0.0);
    EXPECT_LT(seconds, 60.0);
    std::vector<float> y(n);
    ys.get(queue(), std::span<float>(y));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 0.5f * x[i]) << i;  // exact: a power of two
}

TEST_P(Knobs, ContextLimitsCacheAndProfiler) {
    if (!is_cuda()) {
        EXPECT_THROW(context_limit(bound_device(), ContextLimit::stack_size), UnsupportedError);
        EXPECT_THROW(set_context_limit(bound_device(), ContextLimit::printf_fifo_size, 1 << 20), UnsupportedError);
        EXPECT_THROW(set_cache_preference(bound_device(), CachePreference::l1), UnsupportedError);
        EXPECT_THROW(start_profiler(bound_device()), UnsupportedError);
        EXPECT_THROW(stop_profiler(bound_device()), UnsupportedError);
        return;
    }
    const std::size_t stack = context_limit(bound_device(), ContextLimit::stack_size);
    set_context_limit(bound_device(), ContextLimit::stack_size, stack + 1024);
    EXPECT_GE(context_limit(bound_device(), ContextLimit::stack_size), stack + 1024);  // the driver may round up
    set_context_limit(bound_device(), ContextLimit::stack_size, stack);
    EXPECT_GT(context_limit(bound_device(), ContextLimit::malloc_heap_size), 0u);
    EXPECT_GT(context_limit(bound_device(), ContextLimit::printf_fifo_size), 0u);
    EXPECT_NO_THROW(set_cache_preference(bound_device(), CachePreference::shared));
    EXPECT_NO_THROW(set_cache_preference(bound_device(), CachePreference::none));
    EXPECT_NO_THROW(start_profiler(bound_device()));
    EXPECT_NO_THROW(stop_profiler(bound_device()));
    check_scale(queue());
}

TEST_P(Knobs, KernelCachePreferenceAndCarveout) {
    const Kernel kernel = program().kernel("scale");
    EXPECT_THROW(kernel.set_shared_memory_carveout(bound_device(), 101), ArgumentError);
    EXPECT_THROW(kernel.set_shared_memory_carveout(bound_device(), -2), ArgumentError);
    if (!is_cuda()) {
        EXPECT_THROW(kernel.set_cache_preference(bound_device(), CachePreference::l1), UnsupportedError);
        EXPECT_THROW(kernel.set_shared_memory_carveout(bound_device(), 50), UnsupportedError);
        return;
    }
    kernel.set_cache_preference(bound_device(), CachePreference::l1);
    kernel.set_shared_memory_carveout(bound_device(), 50);
    check_scale(queue());
    kernel.set_shared_memory_carveout(bound_device(), -1);
    kernel.set_cache_preference(bound_device(), CachePreference::none);
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(Knobs);

}  // namespace kjarni::test
