// The kernels the algorithm layer generates launch through the one checked launch path that
// PreparedKernel uses: their sizes, dynamic local memory, queue and arguments are checked (an
// ArgumentError naming the culprit, never a driver error or a silent wrong launch), and a good
// launch computes what it should. Also: the public handles hash as they compare.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "algorithms/generated_kernel.hpp"
#include "kjarni/detail/kernel_packing.hpp"
#include "support/argument_errors.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* generated_axpy_source = R"(
KERNEL void kjarni_test_axpy(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

/// Expects `call` to throw an ArgumentError naming an argument that starts with `argument` (the
/// parameter's name follows its index where the driver reports names) and saying `says`.
template <class Call>
void expect_argument_error(Call&& call, const std::string& argument, const std::string& says) {
    const std::string named = argument_named_by(call);
    EXPECT_EQ(named.substr(0, argument.size()), argument) << named;
    const std::string message = argument_error_message(call);
    EXPECT_NE(message.find(says), std::string::npos) << message;
}

class GeneratedLaunch : public DeviceTest {
protected:
    detail::GeneratedKernel axpy() {
        return detail::generated_kernel(bound_device(), "generated_launch_test/axpy", "kjarni_test_axpy",
                                        [] { return std::string(generated_axpy_source); });
    }
};

TEST_P(GeneratedLaunch, ComputesWhatItShouldAndIsFoundAgain) {
    const std::size_t n = 1000;
    const auto x = random_vector<float>(n, -10.0f, 10.0f);
    const auto y0 = random_vector<float>(n, -10.0f, 10.0f);
    auto xb = Buffer::allocate(bound_device(), n * sizeof(float));
    auto yb = Buffer::allocate(bound_device(), n * sizeof(float));
    xb.set(queue(), std::span<const float>(x));
    yb.set(queue(), std::span<const float>(y0));
    int renders = 0;
    const auto render = [&] {
        ++renders;
        return std::string(generated_axpy_source);
    };
    const detail::GeneratedKernel kernel =
        detail::generated_kernel(bound_device(), "generated_launch_test/found_again", "kjarni_test_axpy", render);
    const detail::GeneratedKernel again =
        detail::generated_kernel(bound_device(), "generated_launch_test/found_again", "kjarni_test_axpy", render);
    EXPECT_EQ(renders, 1);
    EXPECT_EQ(kernel.kernel.get(), again.kernel.get());
    const float a = 0.5f;  // a power of two: a * x + y rounds once, as the reference does
    const detail::LaunchTarget target{0, bound_device().index()};
    const std::array<detail::KernelArg, 4> args{detail::pack(yb, target), detail::pack(xb, target),
                                                detail::scalar_arg(&a, sizeof a),
                                                detail::pack(static_cast<unsigned>(n), target)};
    const std::size_t local = 1;
    const std::size_t global = n;
    detail::launch(queue(), kernel, std::span(&global, 1), std::span(&local, 1), args);
    std::vector<float> y(n);
    yb.get(queue(), std::span<float>(y));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], a * x[i] + y0[i]) << i;
}

TEST_P(GeneratedLaunch, BadLaunchesAreRefusedNamingTheCulprit) {
    const detail::GeneratedKernel kernel = axpy();
    auto yb = Buffer::allocate(bound_device(), 64 * sizeof(float));
    const detail::LaunchTarget target{0, bound_device().index()};
    const float a = 1.0f;
    const std::array<detail::KernelArg, 4> good{detail::pack(yb, target), detail::pack(yb, target),
                                                detail::scalar_arg(&a, sizeof a), detail::pack(64u, target)};
    std::size_t global = 64;
    std::size_t local = 16;
    const auto launch = [&](std::span<const detail::KernelArg> args, std::size_t local_mem = 0) {
        detail::launch(queue(), kernel, std::span(&global, 1), std::span(&local, 1), args, local_mem);
    };
    EXPECT_NO_THROW(launch(good));
    // One argument missing.
    expect_argument_error([&] { launch(std::span(good).first(3)); }, "args", "takes 4 arguments, 3 given");
    // A double where the float goes.
    const double wide = 1.0;
    std::array<detail::KernelArg, 4> bad = good;
    bad[2] = detail::scalar_arg(&wide, sizeof wide);
    expect_argument_error([&] { launch(bad); }, "argument 2", "");
    // A scalar where a buffer goes.
    bad = good;
    bad[0] = detail::scalar_arg(&a, sizeof a);
    expect_argument_error([&] { launch(bad); }, "argument 0", "");
    // A local size that does not divide the global one, and more work items per group than the
    // kernel takes.
    local = 24;
    expect_argument_error([&] { launch(good); }, "local_size", "does not divide");
    local = kernel.max_local_size * 2;
    global = local;
    expect_argument_error([&] { launch(good); }, "local_size", "at most");
    global = 64;
    local = 16;
    // More dynamic local memory than the kernel has.
    const std::size_t too_much = bound_device().params().local_mem_size * 4 + (1u << 20);
    expect_argument_error([&] { launch(good, too_much); }, "local_mem", "dynamic local memory");
    // A queue of another context.
    const Context other = Context::from_devices(GetParam().device());
    const Queue other_queue(other.devices()[0]);
    try {
        detail::launch(other_queue, kernel, std::span(&global, 1), std::span(&local, 1), good);
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "queue");
        EXPECT_NE(std::string(e.what()).find("another context"), std::string::npos) << e.what();
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(GeneratedLaunch);

class HandleHashes : public DeviceTest {};

TEST_P(HandleHashes, EqualHandlesHashEqualAndSetsKeepThemOnce) {
    const BoundDevice device = bound_device();
    const Queue second(device);
    std::unordered_set<Queue> queues{queue(), queue(), second};
    EXPECT_EQ(queues.size(), 2u);
    EXPECT_EQ(std::hash<Queue>{}(queue()), std::hash<Queue>{}(Queue(queue())));
    std::unordered_set<Device> devices{device.device(), device.device()};
    EXPECT_EQ(devices.size(), 1u);
    std::unordered_set<Platform> platforms{device.device().platform(), device.device().platform()};
    EXPECT_EQ(platforms.size(), 1u);
    std::unordered_set<Api> apis{context().api(), context().api()};
    EXPECT_EQ(apis.size(), 1u);
    const Context other = Context::from_devices(GetParam().device());
    std::unordered_set<Context> contexts{context(), Context(context()), other};
    EXPECT_EQ(contexts.size(), 2u);
    std::unordered_set<BoundDevice> bound{device, BoundDevice(context(), device.index()), other.devices()[0]};
    EXPECT_EQ(bound.size(), 2u);
    const Event event = queue().record_event();
    std::unordered_set<Event> events{event, Event(event), queue().record_event()};
    EXPECT_EQ(events.size(), 2u);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(HandleHashes);

}  // namespace
}  // namespace kjarni::test
