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
#include "kjarni/kjarni.hpp"
#include "program/program_source.hpp"
#include "support/nvrtc_sm90.hpp"

namespace kjarni {
namespace {

TEST(OnesweepSortNvrtc, MatchPassWithNativeWarpsCompilesForSm90) {
    std::string why_not;
    const auto* nvrtc = test::nvrtc_for_sm90(why_not);
    if (nvrtc == nullptr) GTEST_SKIP() << why_not;
    const std::vector<std::string> options = {"--gpu-architecture=sm_90", "--std=c++17"};
    // The widths sort and argsort take (1-8 byte keys, 4-byte positions), and the radix sort's
    // 8-byte values; a group larger than 256, values staged apart, lanes matched through masks or ballots.
    // Early counts and split loads (the match pass's other settings that change its source).
    struct Case {
        std::size_t key_bytes, value_bytes, group;
        bool apart, or_masks, early = false, split = false, ballot = false;
    };
    for (const Case c : {Case{1, 0, 256, false, false}, Case{2, 4, 256, false, true}, Case{4, 0, 256, false, false},
                         Case{4, 0, 256, false, true}, Case{4, 4, 256, false, false}, Case{4, 4, 512, true, true},
                         Case{8, 8, 256, true, false}, Case{4, 0, 256, false, true, true, true},
                         Case{4, 4, 256, false, true, true, true}, Case{4, 4, 384, true, false, true, true},
                         Case{8, 0, 256, false, false, true, false}, Case{4, 0, 256, false, false, true, true, true},
                         Case{4, 4, 256, true, false, true, true, true}}) {
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
            shape.early_counts = c.early;
            shape.split_loads = c.split;
            shape.ballot = c.ballot;
            SCOPED_TRACE(shape.key());
            const std::string full =
                detail::full_source(ApiId::cuda(), detail::onesweep::pass_source(shape), ProgramOptions{});
            const auto output = nvrtc->compile(full, "onesweep.cu", options, {}, true);
            ASSERT_TRUE(output.compiled) << output.log;
            // The warps' instructions are in the code (and not an emulation of them).
            EXPECT_NE(output.ptx.find(c.or_masks ? "bar.warp.sync"
                                      : c.ballot ? "vote.sync.ballot"
                                                 : "match.any.sync"),
                      std::string::npos);
            EXPECT_NE(output.ptx.find("shfl.sync"), std::string::npos);
        }
    }
}

TEST(OnesweepSortNvrtc, CountingKernelWithSeveralKeysPerWorkItemCompilesForSm90) {
    // The counting kernel's KJARNI_SORT_HIST_ITEMS form, which the suite's devices build only in
    // the one test that sets it.
    std::string why_not;
    const auto* nvrtc = test::nvrtc_for_sm90(why_not);
    if (nvrtc == nullptr) GTEST_SKIP() << why_not;
    for (const std::size_t key_bytes : {std::size_t{1}, std::size_t{4}, std::size_t{8}}) {
        detail::onesweep::Shape shape;
        shape.key_bytes = key_bytes;
        shape.items = 1;
        shape.hist_items = 16;
        SCOPED_TRACE(shape.key());
        const std::string full =
            detail::full_source(ApiId::cuda(), detail::onesweep::histogram_source(shape), ProgramOptions{});
        const std::vector<std::string> options = {"--gpu-architecture=sm_90", "--std=c++17"};
        const auto output = nvrtc->compile(full, "onesweep_histogram.cu", options, {}, true);
        ASSERT_TRUE(output.compiled) << output.log;
    }
}

}  // namespace
}  // namespace kjarni

#endif
