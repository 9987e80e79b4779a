// The onesweep sort's match pass with native warps compiles for CUDA (sm_90) through NVRTC, both
// through CUDA's intrinsics and through the inline PTX that NVIDIA's OpenCL takes: no GPU here runs
// them, and the suite's NVRTC cross-check only sees the sources a test device builds (emulated warps
// on CPU devices). Runs wherever NVRTC is found (CI).

#include <gtest/gtest.h>

#ifdef KJARNI_WITH_CUDA

#include <algorithm>
#include <string>
#include <vector>

#include "algorithms/sort_onesweep_source.hpp"
#include "backend/cuda/nvrtc_library.hpp"
#include "kjarni/kjarni.hpp"
#include "program/program_source.hpp"

namespace kjarni {
namespace {

TEST(OnesweepSortNvrtc, MatchPassWithNativeWarpsCompilesForSm90) {
    std::string why_not;
    const auto* nvrtc = backend::cuda::nvrtc_library(&why_not);
    if (nvrtc == nullptr) GTEST_SKIP() << "NVRTC not found: " << why_not;
    const auto& archs = nvrtc->supported_architectures();
    if (std::find(archs.begin(), archs.end(), 90) == archs.end()) GTEST_SKIP() << "this NVRTC lacks sm_90";
    const std::vector<std::string> options = {"--gpu-architecture=sm_90", "--std=c++17"};
    // The widths sort and argsort take (1-8 byte keys, 4-byte positions), and the radix sort's
    // 8-byte values; a group larger than 256, values staged apart, lanes matched through masks.
    struct Case {
        std::size_t key_bytes, value_bytes, group;
        bool apart, or_masks;
    };
    for (const Case c : {Case{1, 0, 256, false, false}, Case{2, 4, 256, false, true}, Case{4, 0, 256, false, false},
                         Case{4, 0, 256, false, true}, Case{4, 4, 256, false, false}, Case{4, 4, 512, true, true},
                         Case{8, 8, 256, true, false}}) {
        for (const bool ptx : {false, true}) {
            detail::onesweep::Shape shape;
            shape.key_bytes = c.key_bytes;
            shape.value_bytes = c.value_bytes;
            shape.group = c.group;
            shape.items = 8;
            shape.rank = detail::onesweep::Rank::match;
            shape.warp = detail::onesweep::Warp::native;
            shape.ptx = ptx;
            shape.values_apart = c.apart;
            shape.or_masks = c.or_masks;
            SCOPED_TRACE(shape.key());
            const std::string full =
                detail::full_source(ApiId::cuda(), detail::onesweep::pass_source(shape), ProgramOptions{});
            const auto output = nvrtc->compile(full, "onesweep.cu", options, {}, true);
            ASSERT_TRUE(output.compiled) << output.log;
            // The warps' instructions are in the code (and not an emulation of them).
            EXPECT_NE(output.ptx.find(c.or_masks ? "bar.warp.sync" : "match.any.sync"), std::string::npos);
            EXPECT_NE(output.ptx.find("shfl.sync"), std::string::npos);
        }
    }
}

}  // namespace
}  // namespace kjarni

#endif
