// The parameter counts kjarni reads from a CUDA module image instead of probing the driver past the
// last parameter: checked on cubins and PTX that NVRTC makes here (no GPU needed), against the
// parameter lists written in the source.

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#ifdef KJARNI_WITH_CUDA
#include "backend/cuda/kernel_param_counts.hpp"
#include "backend/cuda/nvrtc_library.hpp"

namespace {

using kjarni::backend::cuda::kernel_param_counts;

// Parameters of every kind that changes how they are laid out: pointers, scalars of each size,
// a struct passed by value, unused parameters, none at all.
const char* const source = R"(
struct Mixed { char c; double d; int i; };
extern "C" __global__ void scale(float* y, const float* x, float a) { y[threadIdx.x] = a * x[threadIdx.x]; }
extern "C" __global__ void nothing() {}
extern "C" __global__ void many(Mixed s, char c, short h, double* p, int n, char c2) { if (n) p[0] = s.d + c + h + c2; }
extern "C" __global__ void unused(int a, int b, float* z) {}
extern "C" __global__ void wide(long long a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9,
                                int a10, int a11, float* out) { out[0] = a0 + a1 + a5 + a11; }
)";

std::vector<std::string> options(std::vector<std::string> list) { return list; }

std::vector<std::byte> bytes(const std::vector<char>& chars) {
    std::vector<std::byte> out(chars.size());
    for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
    return out;
}

void expect_source_counts(const std::map<std::string, std::size_t, std::less<>>& counts) {
    EXPECT_EQ(counts.size(), 5u);
    EXPECT_EQ(counts.at("scale"), 3u);
    EXPECT_EQ(counts.at("nothing"), 0u);
    EXPECT_EQ(counts.at("many"), 6u);
    EXPECT_EQ(counts.at("unused"), 3u);
    EXPECT_EQ(counts.at("wide"), 13u);
}

TEST(KernelParamCounts, ReadFromACubin) {
    const auto* nvrtc = kjarni::backend::cuda::nvrtc_library();
    if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC not found";
    for (const int arch : nvrtc->supported_architectures()) {
        if (arch < 70) continue;
        SCOPED_TRACE("sm_" + std::to_string(arch));
        const auto output =
            nvrtc->compile(source, "counts.cu", options({"--gpu-architecture=sm_" + std::to_string(arch)}));
        ASSERT_TRUE(output.compiled) << output.log;
        expect_source_counts(kernel_param_counts(bytes(output.cubin)));
    }
}

TEST(KernelParamCounts, ReadFromPtx) {
    const auto* nvrtc = kjarni::backend::cuda::nvrtc_library();
    if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC not found";
    const auto output = nvrtc->compile(source, "counts.cu", options({"--gpu-architecture=compute_90"}), {}, true);
    ASSERT_TRUE(output.compiled) << output.log;
    std::vector<char> ptx(output.ptx.begin(), output.ptx.end());
    ptx.push_back('\0');  // as cuModuleLoadData reads it
    expect_source_counts(kernel_param_counts(bytes(ptx)));
}

TEST(KernelParamCounts, DamagedImagesGiveNothingWrong) {
    const auto* nvrtc = kjarni::backend::cuda::nvrtc_library();
    if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC not found";
    const auto output = nvrtc->compile(source, "counts.cu", options({"--gpu-architecture=sm_90"}));
    ASSERT_TRUE(output.compiled) << output.log;
    const std::vector<std::byte> cubin = bytes(output.cubin);
    // Every truncation: never a read outside the image (AddressSanitizer), and never a count that
    // differs from the truth (a kernel is either right or left out).
    const auto truth = kernel_param_counts(cubin);
    for (std::size_t length = 0; length < cubin.size(); length += 7) {
        const auto counts = kernel_param_counts(std::span<const std::byte>(cubin.data(), length));
        for (const auto& [name, count] : counts) {
            EXPECT_EQ(count, truth.at(name)) << name << " at length " << length;
        }
    }
    EXPECT_TRUE(kernel_param_counts({}).empty());
    const std::vector<std::byte> text = {std::byte{'x'}, std::byte{0}};
    EXPECT_TRUE(kernel_param_counts(text).empty());
}

}  // namespace
#endif
