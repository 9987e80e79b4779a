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
    GemmTiles k8 = pairs;  // m16n8k8
    k8.mma_k = 8;
    GemmTiles k16 = big;  // m16n8k16, 128 x 64 x 16 on 8 x 1 warps, swizzled, double buffered
    k16.mma_m = 16;
    k16.mma_k = 16;
    k16.kwg = 16;
    k16.nwg = 64;
    k16.warps_m = 8;
    k16.warps_n = 1;
    k16.swizzle = 1;
    GemmTiles async = k16;  // cp.async, 3 stages of 128 x 64 x 8 swizzled, m16n8k8
    async.kwg = 8;
    async.mma_k = 8;
    async.async_copy = 1;
    async.buffers = 3;
    GemmTiles async_scalar = scalar;  // cp.async of 8 bytes, m8n8k4, padded rows
    async_scalar.async_copy = 1;
    GemmTiles piped = big;  // PIPELINE 1: m8n8k4, two k-groups a slice, through registers
    piped.pipeline = 1;
    GemmTiles piped_shipped = k16;  // the H200's tiles (128 x 64 x 8, 8 x 1 warps, m16n8k8) pipelined
    piped_shipped.kwg = 8;
    piped_shipped.mma_k = 8;
    piped_shipped.swizzle = 0;
    piped_shipped.pipeline = 1;
    GemmTiles piped_async = async;  // and by cp.async in 3 stages, swizzled
    piped_async.pipeline = 1;
    int compiled = 0;
    for (const GemmTiles& tiles : {blas::detail::default_gemm_tensor_tiles(), big, scalar, pairs, k8, k16, async,
                                   async_scalar, piped, piped_shipped, piped_async})
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
                    const std::string shape =
                        tiles.mma_m == 16 ? "m16n8k" + std::to_string(tiles.mma_k) : std::string("m8n8k4");
                    EXPECT_NE(output.ptx.find("mma.sync.aligned." + shape + ".row.col.f64.f64.f64.f64"),
                              std::string::npos);
                    if (tiles.async_copy == 1 && aligned) {
                        EXPECT_NE(output.ptx.find(tiles.vwg == 2 ? "cp.async.cg.shared.global"
                                                                 : "cp.async.ca.shared.global"),
                                  std::string::npos);
                    }
                    // Pipelined, a slice's last DMMAs come after its last barrier; through registers
                    // unpipelined, every DMMA before it (cp.async waits at the top of a slice).
                    const std::size_t last_barrier = output.ptx.rfind("bar.sync");
                    ASSERT_NE(last_barrier, std::string::npos);
                    const bool dmma_after = output.ptx.find("mma.sync", last_barrier) != std::string::npos;
                    if (tiles.pipeline == 1) {
                        EXPECT_TRUE(dmma_after);
                    } else if (tiles.async_copy == 0 || !aligned) {
                        EXPECT_FALSE(dmma_after);
                    }
                    ++compiled;
                }
    EXPECT_EQ(compiled, 48);
}

}  // namespace
}  // namespace kjarni

#endif
