// Recorded launch sequences (kjarni/recording.hpp): a recording replays what eager calls do (the
// same results, bit for bit, on fresh random data, and what the CPU computes within float
// rounding), runs nothing before its first replay, takes changed arguments, and refuses what it
// cannot record with typed errors naming the culprit. Each test runs with the driver's mechanism
// (OpenCL command buffer on PoCL, CUDA graph on CUDA) and with the launch list.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "algorithms/cpu_code.hpp"
#include "kjarni/recording.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* recording_source = R"SRC(
KERNEL void axpb(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, float b, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + b;
}
KERNEL void advance(GLOBAL_MEM float* x, float a, float b, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) x[i] = x[i] * a + b;
}
)SRC";

constexpr std::size_t recording_n = 1024;

class RecordingTest : public DeviceTest {
protected:
    Program& program() {
        if (!program_) program_.emplace(bound_device(), recording_source);
        return *program_;
    }
    PreparedKernel axpb() { return program().kernel("axpb").prepare({recording_n}); }
    PreparedKernel step() { return program().kernel("advance").prepare({recording_n}); }
    Buffer upload(const std::vector<float>& host) {
        Buffer buffer = Buffer::allocate(bound_device(), host.size() * sizeof(float));
        buffer.set(queue(), std::span<const float>(host));
        return buffer;
    }
    std::vector<float> download(const Buffer& buffer) {
        std::vector<float> host(buffer.size() / sizeof(float));
        buffer.get(queue(), std::span<float>(host));
        return host;
    }

private:
    std::optional<Program> program_;
};
KJARNI_INSTANTIATE_DEVICE_TESTS(RecordingTest);

std::vector<RecordingOptions> both_mechanisms() { return {RecordingOptions{true}, RecordingOptions{false}}; }

// A chain of dependent launches in place, replayed twice: each replay applies the whole chain
// again, in order, so the result is the eager chain applied twice (bit for bit: the same kernel
// on the same data) and the CPU's within float rounding.
TEST_P(RecordingTest, DependentChainReplaysAsEagerLaunches) {
    const std::vector<float> start = random_vector<float>(recording_n, -1.0f, 1.0f);
    const std::vector<float> a = random_vector<float>(20, 0.5f, 1.5f);
    const std::vector<float> b = random_vector<float>(20, -0.5f, 0.5f);
    const PreparedKernel kernel = step();
    const auto n = static_cast<unsigned>(recording_n);

    Buffer eager = upload(start);
    for (int round = 0; round < 2; ++round) {
        for (std::size_t k = 0; k < a.size(); ++k) kernel.enqueue(queue(), eager, a[k], b[k], n);
    }
    const std::vector<float> expected = download(eager);

    std::vector<double> cpu(start.begin(), start.end());
    for (int round = 0; round < 2; ++round) {
        for (std::size_t k = 0; k < a.size(); ++k) {
            for (double& v : cpu) v = v * a[k] + b[k];
        }
    }
    for (const RecordingOptions& options : both_mechanisms()) {
        Buffer x = upload(start);
        Recorder recorder(queue(), options);
        for (std::size_t k = 0; k < a.size(); ++k) kernel.enqueue(queue(), x, a[k], b[k], n);
        EXPECT_EQ(recorder.launches(), a.size());
        const Recording recording = recorder.finish();
        SCOPED_TRACE(recording.mechanism());
        if (!options.native) {
            EXPECT_STREQ(recording.mechanism(), "launch list");
        } else if (is_cuda()) {
            EXPECT_STREQ(recording.mechanism(), "CUDA graph");
        }
        // Nothing ran while recording.
        EXPECT_EQ(download(x), start);
        recording.replay();
        recording.replay(queue());
        const std::vector<float> got = download(x);
        EXPECT_EQ(got, expected);
        // 40 steps of |x| <= ~5 in float: each step rounds once or twice (2^-24 relative), and
        // the error grows at most by the factor a <= 1.5 per step; 1e-3 absolute covers it.
        for (std::size_t i = 0; i < recording_n; ++i) ASSERT_NEAR(got[i], cpu[i], 1e-3 * (1.0 + std::abs(cpu[i])));
    }
}

// Launches, a device copy, a fill and kjarni's own kernels (an expression and a sum) recorded
// together; the recording's outputs, made while recording, are kept by it.
TEST_P(RecordingTest, CopiesFillsAndAlgorithmsReplayAsEager) {
    const std::vector<float> host_x = random_vector<float>(recording_n, -2.0f, 2.0f);
    const Buffer x = upload(host_x);
    const PreparedKernel kernel = axpb();
    const auto n = static_cast<unsigned>(recording_n);
    const Array xa = Array::from_host(queue(), std::span<const float>(host_x), {recording_n});

    auto run = [&](const Buffer& t, const Buffer& y, const Buffer& f) {
        t.set(queue(), x);                              // device copy
        kernel.enqueue(queue(), y, t, 1.5f, 0.25f, n);  // y = 1.5 t + 0.25
        const float pattern = 7.0f;
        f.fill(queue(), std::as_bytes(std::span<const float>(&pattern, 1)));
        const Array ya = Array::from_buffer(y, DType::of<float>(), Layout::contiguous({recording_n}, sizeof(float)));
        Array z = evaluate(queue(), ya * ya + xa);  // a generated kernel
        Array s = sum(queue(), z);                  // a reduction, result on the device
        return std::make_pair(z, s);
    };
    auto fresh = [&] { return Buffer::allocate(bound_device(), recording_n * sizeof(float)); };

    const Buffer et = fresh(), ey = fresh(), ef = fresh();
    auto [ez, es] = run(et, ey, ef);
    const std::vector<float> expected_y = download(ey);
    const std::vector<float> expected_z = ez.get(queue()).to_vector<float>();
    const std::vector<float> expected_s = es.get(queue()).to_vector<float>();
    for (std::size_t i = 0; i < recording_n; ++i) {
        ASSERT_NEAR(expected_y[i], 1.5f * host_x[i] + 0.25f, 1e-5f);
        const float yi = expected_y[i];
        ASSERT_NEAR(expected_z[i], yi * yi + host_x[i], 1e-4f * (1.0f + std::abs(yi * yi)));
    }

    for (const RecordingOptions& options : both_mechanisms()) {
        const Buffer t = fresh(), y = fresh(), f = fresh();
        Recorder recorder(queue(), options);
        auto [z, s] = run(t, y, f);
        const Recording recording = recorder.finish();
        SCOPED_TRACE(recording.mechanism());
        recording.replay();
        EXPECT_EQ(download(t), host_x);
        EXPECT_EQ(download(y), expected_y);
        EXPECT_EQ(download(f), std::vector<float>(recording_n, 7.0f));
        EXPECT_EQ(z.get(queue()).to_vector<float>(), expected_z);
        EXPECT_EQ(s.get(queue()).to_vector<float>(), expected_s);
    }
}

// The GPU forms of a reduction split into pieces and of a single-pass cumsum (forced on CPU
// devices), recorded: eager, they use memory of the queue that their kernels leave ready for the
// next (a counter, epoch-tagged status words); recorded, they take their own temporaries, zeroed
// in the recording, so replays give the eager bits even with eager calls between them.
TEST_P(RecordingTest, SumAndCumsumInGpuFormsReplayBetweenEagerCalls) {
    struct Restore {
        ~Restore() { detail::allow_cpu_code(true); }
    } restore;
    detail::allow_cpu_code(false);
    const std::size_t n = (std::size_t{1} << 20) + 17;
    const std::vector<float> host_x = random_vector<float>(n, -1.0f, 1.0f);
    const std::vector<float> host_w = random_vector<float>(n, -1.0f, 1.0f);
    const Array x = Array::from_host(queue(), std::span<const float>(host_x), {n});
    const Array w = Array::from_host(queue(), std::span<const float>(host_w), {n});
    const std::vector<float> eager_sum = sum(queue(), x).get(queue()).to_vector<float>();
    const std::vector<float> eager_cumsum = cumsum(queue(), x).get(queue()).to_vector<float>();
    const std::vector<float> eager_w = cumsum(queue(), w).get(queue()).to_vector<float>();
    for (const RecordingOptions& options : both_mechanisms()) {
        Recorder recorder(queue(), options);
        const Array s = sum(queue(), x);
        const Array c = cumsum(queue(), x);
        const Recording recording = recorder.finish();
        SCOPED_TRACE(recording.mechanism());
        for (int replay = 0; replay < 2; ++replay) {
            recording.replay();
            EXPECT_EQ(s.get(queue()).to_vector<float>(), eager_sum);
            EXPECT_EQ(c.get(queue()).to_vector<float>(), eager_cumsum);
            EXPECT_EQ(cumsum(queue(), w).get(queue()).to_vector<float>(), eager_w);
            EXPECT_EQ(sum(queue(), x).get(queue()).to_vector<float>(), eager_sum);
        }
    }
}

// The algorithms' temporaries come from a pool per context; a block another queue used last is
// handed to the recording queue only after that queue's work, waited for on the host (a CUDA
// capture refuses a wait for an event recorded outside it). A context of the test's own, so that
// the pool holds the other queue's blocks alone.
TEST_P(RecordingTest, TemporariesAnotherQueueUsedLastAreWaitedForOnTheHost) {
    struct Restore {
        ~Restore() { detail::allow_cpu_code(true); }
    } restore;
    detail::allow_cpu_code(false);
    const Context context = Context::from_devices(GetParam().device());
    const BoundDevice device = context.devices()[0];
    const Queue other(device);
    const Queue recorded(device);
    const std::size_t n = (std::size_t{1} << 20) + 17;
    const std::vector<float> host_x = random_vector<float>(n, -1.0f, 1.0f);
    const Array x = Array::from_host(other, std::span<const float>(host_x), {n});
    const std::vector<float> eager_sum = sum(other, x).get(other).to_vector<float>();
    const std::vector<float> eager_cumsum = cumsum(other, x).get(other).to_vector<float>();
    for (const RecordingOptions& options : both_mechanisms()) {
        Recorder recorder(recorded, options);
        const Array s = sum(recorded, x);
        const Array c = cumsum(recorded, x);
        const Recording recording = recorder.finish();
        SCOPED_TRACE(recording.mechanism());
        recording.replay();
        EXPECT_EQ(s.get(recorded).to_vector<float>(), eager_sum);
        EXPECT_EQ(c.get(recorded).to_vector<float>(), eager_cumsum);
    }
}

TEST_P(RecordingTest, ChangedArgumentsTakeEffect) {
    const std::vector<float> host_x = random_vector<float>(recording_n, -2.0f, 2.0f);
    const std::vector<float> host_x2 = random_vector<float>(recording_n, -2.0f, 2.0f);
    const Buffer x = upload(host_x);
    const Buffer x2 = upload(host_x2);
    const PreparedKernel kernel = axpb();
    const auto n = static_cast<unsigned>(recording_n);
    for (const RecordingOptions& options : both_mechanisms()) {
        const Buffer y = Buffer::allocate(bound_device(), recording_n * sizeof(float));
        const Buffer w = Buffer::allocate(bound_device(), recording_n * sizeof(float));
        Recorder recorder(queue(), options);
        kernel.enqueue(queue(), y, x, 2.0f, 0.0f, n);
        const RecordedArgument scale = recorder.argument(2);
        const RecordedArgument input = recorder.argument(1);
        kernel.enqueue(queue(), w, y, 1.0f, 1.0f, n);  // w = y + 1: depends on the first launch
        const RecordedArgument offset = recorder.argument(3);
        const Recording recording = recorder.finish();
        SCOPED_TRACE(recording.mechanism());
        EXPECT_EQ(scale.launch, 0u);
        EXPECT_EQ(offset.launch, 1u);

        auto check = [&](const std::vector<float>& in, float a, float b) {
            recording.replay();
            const std::vector<float> got_y = download(y);
            const std::vector<float> got_w = download(w);
            for (std::size_t i = 0; i < recording_n; ++i) {
                ASSERT_EQ(got_y[i], a * in[i]);  // exact: one rounding, as the CPU's
                ASSERT_EQ(got_w[i], got_y[i] + b);
            }
        };
        check(host_x, 2.0f, 1.0f);
        recording.set(scale, 3.0f);
        check(host_x, 3.0f, 1.0f);
        recording.set(input, x2);
        check(host_x2, 3.0f, 1.0f);
        recording.set(offset, -0.5f);
        check(host_x2, 3.0f, -0.5f);
    }
}

TEST_P(RecordingTest, ErrorsAreTypedAndNameTheCulprit) {
    const Buffer x = upload(random_vector<float>(recording_n, -1.0f, 1.0f));
    const Buffer y = Buffer::allocate(bound_device(), recording_n * sizeof(float));
    const PreparedKernel kernel = axpb();
    const auto n = static_cast<unsigned>(recording_n);
    auto culprit_of = [](auto&& action) -> std::string {
        try {
            action();
        } catch (const RecordingError& error) {
            return error.culprit();
        }
        return "(nothing thrown)";
    };

    {
        Recorder recorder(queue());
        EXPECT_EQ(culprit_of([&] { Recorder second(queue()); }), "queue");
        EXPECT_EQ(culprit_of([&] { recorder.argument(0); }), "argument");
        kernel.enqueue(queue(), y, x, 1.0f, 0.0f, n);
        EXPECT_EQ(culprit_of([&] { recorder.argument(5); }), "argument");
        std::vector<float> host(recording_n);
        EXPECT_EQ(culprit_of([&] { y.get(queue(), std::span<float>(host)); }), "Buffer::get");
        EXPECT_EQ(culprit_of([&] { y.set(queue(), std::span<const float>(host)); }), "Buffer::set (from the host)");
        EXPECT_EQ(culprit_of([&] { queue().synchronize(); }), "Queue::synchronize");
        EXPECT_EQ(culprit_of([&] { queue().record_event(); }), "Queue::record_event");
        EXPECT_EQ(culprit_of([&] { queue().native_handle(); }), "Queue::native_handle");
        EXPECT_NE(culprit_of([&] { kernel(queue(), y, x, 1.0f, 0.0f, n); }), "(nothing thrown)");
        // Dropped unfinished: the queue runs eagerly again.
    }
    kernel.enqueue(queue(), y, x, 1.0f, 0.0f, n);
    queue().synchronize();

    Recorder recorder(queue());
    kernel.enqueue(queue(), y, x, 1.0f, 0.0f, n);
    const Recording recording = recorder.finish();
    const Queue other(bound_device());
    EXPECT_EQ(culprit_of([&] { recording.replay(other); }), "queue");
    EXPECT_EQ(culprit_of([&] { recording.set(RecordedArgument{0, 2}, 1.0); }), "argument 2 of launch 0 (axpb)");
    EXPECT_EQ(culprit_of([&] { recording.set(RecordedArgument{0, 2}, x); }), "argument 2 of launch 0 (axpb)");
    EXPECT_EQ(culprit_of([&] { recording.set(RecordedArgument{0, 0}, 1.0f); }), "argument 0 of launch 0 (axpb)");
    EXPECT_EQ(culprit_of([&] { recording.set(RecordedArgument{0, 9}, 1.0f); }), "argument 9 of launch 0 (axpb)");
    EXPECT_EQ(culprit_of([&] { recording.set(RecordedArgument{3, 0}, 1.0f); }), "launch 3");
    // A recording that failed to change an argument still replays as recorded.
    recording.replay();
    queue().synchronize();
}

}  // namespace
}  // namespace kjarni::test
