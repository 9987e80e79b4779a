// The tensor-core form of kjarni's GEMM kernel with the native DMMA (inline PTX, as NVIDIA's
// OpenCL takes it) compiles for CUDA (sm_90) through NVRTC, and the PTX holds the m8n8k4 DMMA (or
// m16n8k4, MMAM = 16):
// no GPU here runs it, and the suite's NVRTC cross-check only sees the sources a test device
// builds (the emulated DMMA on CPU devices). Every pair of transposes, aligned and bounds-checked,
// a spread of tiles. Runs wherever NVRTC is found (CI).

#include <gtest/gtest.h>

#ifdef KJARNI_WITH_CUDA

#include <algorithm>
#include <string>
#include <vector>

#include "blas/gemm_kernel.hpp"
#include "kjarni/kjarni.hpp"
#include "program/program_source.hpp"
#include "support/nvrtc_sm90.hpp"

namespace kjarni {
namespace {

TEST(BlasGemmTensorNvrtc, NativeDmmaCompilesForSm90) {
    std::string why_not;
    const auto* nvrtc = test::nvrtc_for_sm90(why_not);
    if (nvrtc == nullptr) GTEST_SKIP() << why_not;
    const std::vector<std::string> options = {"--gpu-architecture=sm_90", "--std=c++17"};
    using blas::detail::GemmTiles;
    GemmTiles big = blas::detail::default_gemm_tensor_tiles();
    big.mwg = big.nwg = 128;
    big.kwg = 8;
    big.warps_n = 4;
    GemmTiles scalar = blas::detail::default_gemm_tensor_tiles();
    scalar.vwg = 1;
    scalar.kwg = 4;
    GemmTiles pairs = big;  // the m16n8k4 DMMA (sm_90)
    pairs.mma_m = 16;
    pairs.kwg = 16;  // in one local buffer
    pairs.buffers = 1;
    int compiled = 0;
    for (const GemmTiles& tiles : {blas::detail::default_gemm_tensor_tiles(), big, scalar, pairs})
        for (const bool ta : {false, true})
            for (const bool tb : {false, true})
                for (const bool aligned : {false, true}) {
                    if (tiles != blas::detail::default_gemm_tensor_tiles() && (ta != tb)) continue;
                    SCOPED_TRACE(tiles.describe() + (ta ? " T" : " N") + (tb ? "T" : "N") +
                                 (aligned ? " aligned" : " checked"));
                    const std::string source =
                        blas::detail::gemm_kernel_source(tiles, DType::Kind::float64, ta, tb, aligned, true);
                    const std::string full = detail::full_source(ApiId::cuda(), source, ProgramOptions{});
                    const auto output = nvrtc->compile(full, "gemm_tensor.cu", options, {}, true);
                    ASSERT_TRUE(output.compiled) << output.log << "\n--- source ---\n" << full;
                    EXPECT_NE(output.ptx.find(tiles.mma_m == 16 ? "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64"
                                                                : "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"),
                              std::string::npos);
                    ++compiled;
                }
    EXPECT_EQ(compiled, 20);
}

}  // namespace
}  // namespace kjarni

#endif
