// The tuner's search spaces (gemm_tune_space.hpp).

#include "gemm_tune_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <set>

namespace gemm_tune {

namespace {

using kjarni::blas::detail::gemm_divides;
using kjarni::blas::detail::GemmTiles;

/// Whether tiles of the tensor-core form (float64) are valid on a device with these limits.
bool tensor_fits(const GemmTiles& t, const kjarni::DeviceParameters& limits) {
    return kjarni::blas::detail::gemm_tiles_problem(t, kjarni::DType::Kind::float64, limits).empty();
}

/// Tiles of the tensor-core form; the other fields (DMMA shape, swizzle, copies) at their defaults.
GemmTiles tensor_tiles(std::size_t mwg, std::size_t nwg, std::size_t kwg, std::size_t warps_m, std::size_t warps_n,
                       std::size_t vwg, std::size_t buffers = 2) {
    GemmTiles t;
    t.buffers = buffers;
    t.form = 1;
    t.mwg = mwg;
    t.nwg = nwg;
    t.kwg = kwg;
    t.warps_m = warps_m;
    t.warps_n = warps_n;
    t.vwg = vwg;
    return t;
}

/// The tensor-core form's tiles (float64), in the order to try them.
std::vector<GemmTiles> tensor_candidates(const kjarni::DeviceParameters& limits, unsigned seed, bool m16) {
    // {MWG, NWG, KWG, WARPSM, WARPSN, VWG}
    std::vector<GemmTiles> out{
        kjarni::blas::detail::default_gemm_tensor_tiles(),
        tensor_tiles(128, 128, 8, 2, 4, 2),
        tensor_tiles(128, 128, 8, 4, 2, 2),
        tensor_tiles(128, 64, 16, 2, 2, 2),
        tensor_tiles(64, 128, 16, 2, 2, 2),
        tensor_tiles(128, 64, 16, 4, 2, 2),
        tensor_tiles(128, 128, 8, 2, 2, 2),
        tensor_tiles(64, 64, 16, 2, 2, 1),
        tensor_tiles(64, 64, 32, 2, 2, 2),
        tensor_tiles(128, 64, 8, 2, 2, 2),
        tensor_tiles(256, 64, 8, 4, 2, 2),
        tensor_tiles(64, 256, 8, 2, 4, 2),
        tensor_tiles(128, 128, 4, 2, 4, 2),
        // One local buffer: longer slices within 48 KiB.
        tensor_tiles(128, 128, 16, 2, 4, 2, 1),
        tensor_tiles(128, 128, 16, 4, 2, 2, 1),
        tensor_tiles(128, 64, 16, 2, 2, 2, 1),
        tensor_tiles(64, 64, 32, 2, 2, 2, 1),
        tensor_tiles(128, 128, 8, 2, 4, 2, 1),
    };
    std::vector<GemmTiles> rest;
    for (const std::size_t mwg : {32UL, 64UL, 128UL, 256UL})
        for (const std::size_t nwg : {32UL, 64UL, 128UL, 256UL})
            for (const std::size_t kwg : {4UL, 8UL, 16UL, 32UL})
                for (const std::size_t warps_m : {1UL, 2UL, 4UL, 8UL})
                    for (const std::size_t warps_n : {1UL, 2UL, 4UL, 8UL})
                        for (const std::size_t vwg : {1UL, 2UL}) {
                            // One buffer only where two do not fit (checked below, with the limits).
                            GemmTiles t = tensor_tiles(mwg, nwg, kwg, warps_m, warps_n, vwg);
                            if (!tensor_fits(t, limits)) t.buffers = 1;
                            const std::size_t warps = warps_m * warps_n;
                            const std::size_t fragments = (mwg / (8 * warps_m)) * (nwg / (8 * warps_n));
                            // 2 to 8 warps, 4 to 32 fragments a warp (8 to 64 accumulators a lane).
                            if (warps < 2 || warps > 8 || mwg % (8 * warps_m) != 0 || nwg % (8 * warps_n) != 0)
                                continue;
                            if (fragments < 4 || fragments > 32) continue;
                            rest.push_back(t);
                        }
    std::shuffle(rest.begin(), rest.end(), std::mt19937(seed));
    out.insert(out.end(), rest.begin(), rest.end());
    std::vector<GemmTiles> valid;
    for (const GemmTiles& t : out)
        for (const std::size_t mma_m : {16UL, 8UL}) {
            if (mma_m == 16 && !m16) continue;
            GemmTiles shaped = t;
            shaped.mma_m = mma_m;
            if (tensor_fits(shaped, limits)) valid.push_back(shaped);
        }
    return valid;
}

}  // namespace

std::vector<kjarni::blas::detail::GemmTiles> focused_tensor_candidates(const kjarni::DeviceParameters& limits,
                                                                       bool m16) {
    using kjarni::blas::detail::GemmTiles;
    struct Shape {
        std::size_t mwg, nwg, warps_m, warps_n;
    };
    // The first run's best first (43.8 TFLOP/s at 4096^3), then 128 x 64 on 2 x 2 warps (64 x 32 a
    // warp: the shape of CUTLASS's default Hopper DGEMM, with m16n8k16 and cp.async), the first
    // run's runners-up, then the rest.
    const std::vector<Shape> shapes{{128, 64, 8, 1}, {128, 64, 2, 2}, {128, 128, 4, 2}, {128, 128, 2, 4},
                                    {64, 128, 2, 2}, {128, 64, 4, 2}, {64, 128, 1, 8},  {256, 64, 8, 1},
                                    {256, 64, 4, 2}, {128, 64, 4, 1}, {128, 128, 8, 1}, {64, 128, 2, 4},
                                    {64, 64, 2, 2},  {64, 64, 4, 1},  {128, 32, 4, 1}};
    std::vector<GemmTiles> out;
    std::set<GemmTiles> seen;
    // First the pipelined tiles (PIPELINE 1: each slice's last DMMAs after the barrier, behind the
    // next slice's first fragment reads), new and so not yet measured: the winner's shape, then
    // the larger warp tiles (32 x 64, 64 x 32: fewer local reads a DMMA) that run one work group
    // of 256 work items per SM, whose barriers the pipeline is to hide; slices of 8 and 16, the
    // m16n8k4 and m16n8k8 DMMA, through registers (double buffered) or by cp.async in 3 or 2
    // stages, padded rows where they fit, else swizzled.
    if (m16) {
        const std::vector<Shape> piped{{128, 64, 8, 1}, {128, 128, 4, 2}, {128, 128, 2, 4}, {128, 64, 2, 2},
                                       {64, 128, 2, 2}, {128, 64, 4, 2},  {256, 64, 4, 2},  {256, 64, 8, 1}};
        for (const Shape& shape : piped)
            for (const std::size_t kwg : {8UL, 16UL})
                for (const std::size_t mma_k : {8UL, 4UL})
                    for (const std::size_t stages : {0UL, 3UL, 2UL}) {  // 0: through registers
                        // Slices of 16 only for warp tiles of fewer than 32 fragments: the larger
                        // ones spill their registers so (ptxas for sm_90, 255 a lane).
                        if (kwg == 16 && (shape.mwg / (8 * shape.warps_m)) * (shape.nwg / (8 * shape.warps_n)) >= 32)
                            continue;
                        GemmTiles t = tensor_tiles(shape.mwg, shape.nwg, kwg, shape.warps_m, shape.warps_n, 2,
                                                   stages == 0 ? 2 : stages);
                        t.mma_m = 16;
                        t.mma_k = mma_k;
                        t.async_copy = stages == 0 ? 0 : 1;
                        t.pipeline = 1;
                        if (!tensor_fits(t, limits)) t.swizzle = 1;
                        if (tensor_fits(t, limits) && seen.insert(t).second) out.push_back(t);
                    }
    }
    for (const Shape& shape : shapes)
        for (const std::size_t kwg : {8UL, 16UL, 32UL})
            for (const std::size_t mma_k : {4UL, 8UL, 16UL})
                for (const std::size_t swizzle : {0UL, 1UL})
                    for (const std::size_t stages : {0UL, 2UL, 3UL}) {  // 0: through registers
                        if (mma_k > kwg || (!m16 && mma_k != 4)) continue;
                        GemmTiles t = tensor_tiles(shape.mwg, shape.nwg, kwg, shape.warps_m, shape.warps_n, 2,
                                                   stages == 0 ? 2 : stages);
                        t.mma_m = m16 ? 16 : 8;
                        t.mma_k = mma_k;
                        t.swizzle = swizzle;
                        t.async_copy = stages == 0 ? 0 : 1;
                        if (stages == 0 && !tensor_fits(t, limits)) t.buffers = 1;
                        if (tensor_fits(t, limits) && seen.insert(t).second) out.push_back(t);
                    }
    return out;
}

std::vector<kjarni::blas::detail::GemmTiles> kjarni_candidates(kjarni::DType::Kind kind,
                                                               const kjarni::DeviceParameters& limits, unsigned seed,
                                                               bool tensor, bool m16) {
    using kjarni::blas::detail::GemmTiles;
    const bool single = kind == kjarni::DType::Kind::float32;
    const std::size_t v = single ? 4 : 2;  // the widest vector: 16 bytes
    // {MWG, NWG, KWG, MDIMC, NDIMC, VWM, VWN, VWG}
    // The defaults first: the mark to beat.
    const std::vector<GemmTiles> first{
        kjarni::blas::detail::default_gemm_tiles(),
        {128, 128, 16, 16, 16, v, v, v},
        {128, 128, 8, 16, 16, v, v, v},
        {128, 64, 16, 16, 16, v, v, v},
        {64, 128, 16, 16, 16, v, v, v},
        {128, 128, 32, 16, 16, v, v, v},
        {128, 64, 32, 16, 16, v, v, v},
        {64, 64, 16, 16, 16, v, v, v},
        {128, 128, 16, 32, 8, v, v, v},
        {128, 128, 16, 8, 32, v, v, v},
        {64, 64, 32, 16, 16, 2, 2, 2},
        {64, 64, 16, 8, 8, v, v, v},
        {32, 32, 16, 8, 8, 2, 2, 2},
    };
    std::vector<GemmTiles> rest;
    for (const std::size_t mwg : {32UL, 64UL, 128UL, 256UL})
        for (const std::size_t nwg : {32UL, 64UL, 128UL, 256UL})
            for (const std::size_t kwg : {8UL, 16UL, 32UL})
                for (const std::size_t mdimc : {8UL, 16UL, 32UL})
                    for (const std::size_t ndimc : {8UL, 16UL, 32UL})
                        for (const std::size_t vwm : {1UL, 2UL, 4UL})
                            for (const std::size_t vwn : {1UL, 2UL, 4UL})
                                for (const std::size_t vwg : {1UL, 2UL, 4UL}) {
                                    const GemmTiles t{mwg, nwg, kwg, mdimc, ndimc, vwm, vwn, vwg};
                                    const std::size_t threads = mdimc * ndimc;
                                    const std::size_t accumulators = (mwg / mdimc) * (nwg / ndimc);
                                    // Enough work items to hide latency, registers to spare.
                                    if (threads < 64 || threads > 256) continue;
                                    if (accumulators < 8 || accumulators > (single ? 128U : 64U)) continue;
                                    if (!kjarni::blas::detail::gemm_tiles_problem(t, kind, limits).empty()) continue;
                                    rest.push_back(t);
                                }
    std::shuffle(rest.begin(), rest.end(), std::mt19937(seed));
    std::vector<GemmTiles> out;
    std::set<GemmTiles> seen;
    const std::vector<GemmTiles> tensor_tiles = tensor && kind == kjarni::DType::Kind::float64
                                                    ? tensor_candidates(limits, seed, m16)
                                                    : std::vector<GemmTiles>{};
    for (const auto& list : {tensor_tiles, first, rest})
        for (const GemmTiles& t : list)
            if (kjarni::blas::detail::gemm_tiles_problem(t, kind, limits).empty() && seen.insert(t).second)
                out.push_back(t);
    return out;
}

std::vector<ClblastConfig> clblast_candidates(int precision, std::size_t local_mem_size, unsigned seed) {
    const std::size_t size = precision == 64 ? 8 : 4;
    std::vector<ClblastConfig> out;
    for (const std::size_t mwg : {64UL, 128UL})
        for (const std::size_t nwg : {64UL, 128UL})
            for (const std::size_t kwg : {16UL, 32UL})
                for (const std::size_t mdimc : {8UL, 16UL, 32UL})
                    for (const std::size_t ndimc : {8UL, 16UL, 32UL})
                        for (const std::size_t mdima : {8UL, 16UL, 32UL})
                            for (const std::size_t ndimb : {8UL, 16UL, 32UL})
                                for (const std::size_t vwm : {2UL, 4UL, 8UL})
                                    for (const std::size_t vwn : {2UL, 4UL, 8UL})
                                        for (const std::size_t kwi : {2UL, 8UL})
                                            for (const std::size_t strm : {0UL, 1UL})
                                                for (const std::size_t strn : {0UL, 1UL}) {
                                                    // CLBlast's constraints on Xgemm (its kernel's header).
                                                    const std::size_t threads = mdimc * ndimc;
                                                    if (threads < 128 || threads > 256) continue;
                                                    if (!gemm_divides(kwg, kwi) || !gemm_divides(mwg, mdimc * vwm) ||
                                                        !gemm_divides(nwg, ndimc * vwn) ||
                                                        !gemm_divides(mwg, mdima * vwm) ||
                                                        !gemm_divides(nwg, ndimb * vwn) ||
                                                        !gemm_divides(kwg, threads / mdima) ||
                                                        !gemm_divides(kwg, threads / ndimb) || threads % mdima != 0 ||
                                                        threads % ndimb != 0)
                                                        continue;
                                                    if (size * (kwg * mwg + kwg * nwg) > local_mem_size) continue;
                                                    if ((mwg / mdimc) * (nwg / ndimc) > (size == 8 ? 32U : 64U))
                                                        continue;
                                                    out.push_back(ClblastConfig{{"GEMMK", 0},
                                                                                {"KREG", 1},
                                                                                {"KWG", kwg},
                                                                                {"KWI", kwi},
                                                                                {"MDIMA", mdima},
                                                                                {"MDIMC", mdimc},
                                                                                {"MWG", mwg},
                                                                                {"NDIMB", ndimb},
                                                                                {"NDIMC", ndimc},
                                                                                {"NWG", nwg},
                                                                                {"SA", 1},
                                                                                {"SB", 1},
                                                                                {"STRM", strm},
                                                                                {"STRN", strn},
                                                                                {"VWM", vwm},
                                                                                {"VWN", vwn}});
                                                }
    std::shuffle(out.begin(), out.end(), std::mt19937(seed));
    return out;
}

std::string describe(const ClblastConfig& config) {
    std::string out;
    for (const auto& [name, value] : config) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
    return out;
}

}  // namespace gemm_tune
