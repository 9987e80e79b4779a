// KJARNI_TEST_GPU_FORMS=1 runs the whole suite with the GPU forms of the generated kernels on CPU
// devices too (detail::allow_cpu_code(false)): on a machine without a GPU, every suite then
// exercises the kernels a GPU would take (cpu_forms_test.cpp covers both forms in every run).

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "algorithms/cpu_code.hpp"

namespace kjarni::test {
namespace {

class GpuFormsSwitch : public ::testing::Environment {
public:
    void SetUp() override {
        const char* value = std::getenv("KJARNI_TEST_GPU_FORMS");
        if (value == nullptr || std::strcmp(value, "1") != 0) return;
        std::printf("GPU forms forced on every device (KJARNI_TEST_GPU_FORMS=1)\n");
        detail::allow_cpu_code(false);
    }
};

[[maybe_unused]] const auto* const gpu_forms_registered = ::testing::AddGlobalTestEnvironment(new GpuFormsSwitch);

}  // namespace
}  // namespace kjarni::test
