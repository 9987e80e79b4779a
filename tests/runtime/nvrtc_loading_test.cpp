// NVRTC is loaded at run time, independently of the CUDA driver: CI has the toolkit but no GPU, and
// compiles every kernel with it. These tests need no device.

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#ifdef KJARNI_WITH_CUDA
#include "backend/cuda/nvrtc_library.hpp"

namespace {

using kjarni::backend::cuda::nvrtc_library;
using kjarni::backend::cuda::NvrtcLibrary;

const NvrtcLibrary* nvrtc_or_reason(std::string& why_not) { return nvrtc_library(&why_not); }

TEST(NvrtcLoading, ReportsItsVersion) {
    std::string why_not;
    const NvrtcLibrary* nvrtc = nvrtc_or_reason(why_not);
    if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC not found: " << why_not;

    // kjarni targets CUDA 12 and later (sm_90 and cuGetProcAddress_v2 need it).
    EXPECT_GE(nvrtc->major_version(), 12);
    EXPECT_EQ(nvrtc->version(), std::to_string(nvrtc->major_version()) + "." + std::to_string(nvrtc->minor_version()));
    EXPECT_FALSE(nvrtc->library_name().empty());
    EXPECT_FALSE(nvrtc->supported_architectures().empty());
    std::cout << "NVRTC " << nvrtc->version() << " from " << nvrtc->library_name() << "\n";
}

TEST(NvrtcLoading, CompilesAKernelToACubin) {
    std::string why_not;
    const NvrtcLibrary* nvrtc = nvrtc_or_reason(why_not);
    if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC not found: " << why_not;

    const std::string source = R"(extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; })";
    const std::vector<std::string> options = {"--gpu-architecture=sm_90"};
    const auto output = nvrtc->compile(source, "k.cu", options);
    ASSERT_TRUE(output.compiled) << output.log;
    ASSERT_GE(output.cubin.size(), 4u);
    // A cubin is an ELF image.
    EXPECT_EQ(std::string(output.cubin.data(), 4), "\x7f"
                                                   "ELF");
}

TEST(NvrtcLoading, ReportsCompilationErrorsWithTheLog) {
    std::string why_not;
    const NvrtcLibrary* nvrtc = nvrtc_or_reason(why_not);
    if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC not found: " << why_not;

    const std::string source = R"(extern "C" __global__ void k(float* x) { x[threadIdx.x] = undeclared; })";
    const std::vector<std::string> options = {"--gpu-architecture=sm_90"};
    const auto output = nvrtc->compile(source, "broken.cu", options);
    EXPECT_FALSE(output.compiled);
    EXPECT_TRUE(output.cubin.empty());
    EXPECT_NE(output.log.find("undeclared"), std::string::npos) << output.log;
}

TEST(NvrtcLoading, LowersNameExpressions) {
    std::string why_not;
    const NvrtcLibrary* nvrtc = nvrtc_or_reason(why_not);
    if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC not found: " << why_not;

    const std::string source = R"(template <class T> __global__ void scale(T* x) { x[threadIdx.x] *= T(2); })";
    const std::vector<std::string> options = {"--gpu-architecture=sm_90"};
    const std::vector<std::string> names = {"scale<float>"};
    const auto output = nvrtc->compile(source, "template.cu", options, names);
    ASSERT_TRUE(output.compiled) << output.log;
    ASSERT_EQ(output.lowered_names.size(), 1u);
    EXPECT_EQ(output.lowered_names[0], "_Z5scaleIfEvPT_");
}

}  // namespace

#else

TEST(NvrtcLoading, NeedsTheCudaBackend) { GTEST_SKIP() << "this build of kjarni has no CUDA backend"; }

#endif
