#pragma once
/// GoogleTest helpers that run a test once per selected device (as PyOpenCL's
/// pytest_generate_tests_for_pyopencl and PYOPENCL_TEST; pytest-grunnur): the DeviceTest fixture,
/// KJARNI_INSTANTIATE_DEVICE_TESTS, and contexts shared by all tests of one process. Link the CMake
/// target kjarni::testing (built where GoogleTest is found), which brings GoogleTest with it:
///
///   class MyTest : public kjarni::test::DeviceTest {};
///   TEST_P(MyTest, Scales) { kjarni::Buffer b = kjarni::Buffer::allocate(bound_device(), 64); ... }
///   KJARNI_INSTANTIATE_DEVICE_TESTS(MyTest);
///
/// KJARNI_TEST selects devices in the spirit of PYOPENCL_TEST: a comma-separated list of device
/// specifiers (kjarni/device_specifier.hpp):
///   api[:platform_regex[:device_regex]], pygpu's cudaN / openclP:D, or pci:BUS_ID
/// e.g. "opencl", "cuda", "opencl:Portable", "opencl:NVIDIA:H100", "cuda,opencl:NVIDIA", "cuda0,opencl0:1".
/// Unset or empty: every device of every available API. A specifier naming an unavailable API or
/// matching no device is an error (the suite fails rather than silently testing nothing). \file

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "kjarni/api.hpp"
#include "kjarni/context.hpp"
#include "kjarni/device.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::test {

/// A device the tests run on, named by API, platform and device index (KJARNI_TEST_DEVICES
/// selects them).
struct TestDevice {
    std::string api;
    std::size_t platform_index;
    std::size_t device_index;
    std::string name;  // for messages

    Device device() const;
};

/// For gtest's messages.
void PrintTo(const TestDevice& device, std::ostream* out);

/// The selected devices, in a stable order.
const std::vector<TestDevice>& test_devices();

/// A single-device context for the device, created once per process.
Context& shared_context(const TestDevice& device);

/// A context over every selected device of the platform with at least two selected devices (the
/// first such platform), created once; nullptr when no platform has two.
Context* shared_multi_device_context();

/// gtest parameter names: "opencl_0_1_pthread_haswell_AMD_EPYC".
std::string test_device_name(const ::testing::TestParamInfo<TestDevice>& info);

/// Base fixture of device-parametrized tests.
class DeviceTest : public ::testing::TestWithParam<TestDevice> {
protected:
    Context& context() { return shared_context(GetParam()); }
    BoundDevice bound_device() { return context().devices()[0]; }
    /// A queue on bound_device(), made on first use, one per test.
    Queue& queue() {
        if (!queue_) queue_.emplace(bound_device());
        return *queue_;
    }
    /// True when the device is a CUDA device (for tests of what only one API has).
    bool is_cuda() { return context().api().id() == ApiId::cuda(); }

private:
    std::optional<Queue> queue_;
};

}  // namespace kjarni::test

/// Instantiates a DeviceTest-derived suite once per selected device.
#define KJARNI_INSTANTIATE_DEVICE_TESTS(suite)                                                    \
    INSTANTIATE_TEST_SUITE_P(Devices, suite, ::testing::ValuesIn(::kjarni::test::test_devices()), \
                             ::kjarni::test::test_device_name);                                   \
    GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(suite)
