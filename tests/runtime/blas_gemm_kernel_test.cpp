// kjarni's own GEMM kernel (src/blas/gemm_kernel.hpp) against a CPU reference: several tile
// shapes, float32 and float64, every pair of transposes, odd sizes (every bounds check), leading
// dimensions beyond the extents, offsets, batches with strides, aligned problems (the vector-load
// form), beta = 0 over NaN (C not read), and the public calls routed to it by KJARNI_GEMM=kjarni.
//
// Tolerance: as blas_test.cpp's header derives (Higham 3.1), each element of
// alpha op(A) op(B) + beta C is checked against 2 eps (k + 3) (|alpha| (|op(A)| |op(B)|)_ij +
// |beta| |C_ij|), the reference computed in double from the values the device holds.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "blas/gemm_choice.hpp"
#include "blas/gemm_engine.hpp"
#include "blas/gemm_kernel.hpp"
#include "kjarni/blas.hpp"
#include "kjarni/kjarni.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

using blas::detail::GemmMatrix;
using blas::detail::GemmTiles;

/// `count` random values in [-1, 1) of the dtype, held as doubles (exactly the device's values).
std::vector<double> gemm_random_values(std::size_t count, DType::Kind kind) {
    auto v = random_vector<double>(count, -1.0, 1.0);
    if (kind == DType::Kind::float32)
        for (double& x : v) x = static_cast<float>(x);
    return v;
}

Array gemm_device_array(const Queue& q, DType::Kind kind, const std::vector<double>& values,
                        std::vector<std::size_t> shape = {}) {
    if (shape.empty()) shape = {values.size()};
    HostArray h(DType(kind), std::move(shape));
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (kind == DType::Kind::float32) reinterpret_cast<float*>(h.data())[i] = static_cast<float>(values[i]);
        else reinterpret_cast<double*>(h.data())[i] = values[i];
    }
    return Array::from_host(q, h);
}

std::vector<double> gemm_read_back(const Queue& q, const Array& a, DType::Kind kind) {
    const HostArray h = a.get(q);
    std::vector<double> out(h.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = kind == DType::Kind::float32 ? reinterpret_cast<const float*>(h.data())[i]
                                              : reinterpret_cast<const double*>(h.data())[i];
    return out;
}

struct GemmCase {
    GemmTiles tiles;
    DType::Kind kind;
    bool ta, tb;
    std::size_t m, n, k, batch;
    std::size_t pad;     // added to every leading dimension
    std::size_t offset;  // elements before every operand's first matrix
    double beta;
};

/// Runs one case through the kernel directly and compares every element with the reference.
void check_gemm_case(const Queue& q, const GemmCase& cs) {
    const std::string what = fmt::format("{} {}{} m={} n={} k={} batch={} pad={} offset={} beta={} {}",
                                         DType(cs.kind).name(), cs.ta ? "T" : "N", cs.tb ? "T" : "N", cs.m, cs.n, cs.k,
                                         cs.batch, cs.pad, cs.offset, cs.beta, cs.tiles.describe());
    SCOPED_TRACE(what);
    // Column-major stored shapes: A is m x k (k x m transposed), B k x n (n x k transposed).
    const std::size_t a_rows = cs.ta ? cs.k : cs.m, a_cols = cs.ta ? cs.m : cs.k;
    const std::size_t b_rows = cs.tb ? cs.n : cs.k, b_cols = cs.tb ? cs.k : cs.n;
    const std::size_t lda = a_rows + cs.pad, ldb = b_rows + cs.pad, ldc = cs.m + cs.pad;
    // Strides a little beyond each matrix (and a multiple of 4, so that pad 0 stays aligned).
    const std::size_t sa = (lda * a_cols + 7) / 4 * 4, sb = (ldb * b_cols + 7) / 4 * 4, sc = (ldc * cs.n + 7) / 4 * 4;
    const auto av = gemm_random_values(cs.offset + sa * cs.batch, cs.kind);
    const auto bv = gemm_random_values(cs.offset + sb * cs.batch, cs.kind);
    auto cv = gemm_random_values(cs.offset + sc * cs.batch, cs.kind);
    if (cs.beta == 0.0)  // C must not be read: NaN would otherwise carry through
        for (double& x : cv) x = std::numeric_limits<double>::quiet_NaN();
    const Array a = gemm_device_array(q, cs.kind, av), b = gemm_device_array(q, cs.kind, bv),
                c = gemm_device_array(q, cs.kind, cv);
    const double alpha = 0.75;
    blas::detail::kjarni_gemm(q, cs.kind, cs.tiles, cs.ta, cs.tb, cs.m, cs.n, cs.k, alpha,
                              GemmMatrix{a, cs.offset, lda, sa}, GemmMatrix{b, cs.offset, ldb, sb}, cs.beta,
                              GemmMatrix{c, cs.offset, ldc, sc}, cs.batch);
    const auto got = gemm_read_back(q, c, cs.kind);
    const double eps = cs.kind == DType::Kind::float32 ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
    int failures = 0;
    for (std::size_t p = 0; p < cs.batch; ++p) {
        const std::size_t a0 = cs.offset + p * sa, b0 = cs.offset + p * sb, c0 = cs.offset + p * sc;
        for (std::size_t j = 0; j < cs.n; ++j)
            for (std::size_t i = 0; i < cs.m; ++i) {
                double sum = 0, magnitude = 0;
                for (std::size_t l = 0; l < cs.k; ++l) {
                    const double x = cs.ta ? av[a0 + l + i * lda] : av[a0 + i + l * lda];
                    const double y = cs.tb ? bv[b0 + j + l * ldb] : bv[b0 + l + j * ldb];
                    sum += x * y;
                    magnitude += std::abs(x * y);
                }
                const std::size_t at = c0 + i + j * ldc;
                const double old = cs.beta == 0.0 ? 0.0 : cv[at];
                const double expected = alpha * sum + cs.beta * old;
                const double tolerance =
                    2 * eps * static_cast<double>(cs.k + 3) * (alpha * magnitude + std::abs(cs.beta * old)) + 1e-300;
                if (!(std::abs(got[at] - expected) <= tolerance) && failures++ < 3)
                    ADD_FAILURE() << "matrix " << p << " element (" << i << ", " << j << ") is " << got[at]
                                  << ", expected " << expected << " (tolerance " << tolerance << ")";
            }
        // The padding rows of C (ld beyond m) are not written.
        for (std::size_t j = 0; j < cs.n; ++j)
            for (std::size_t i = cs.m; i < ldc; ++i) {
                const std::size_t at = c0 + i + j * ldc;
                if (!(got[at] == cv[at] || (std::isnan(got[at]) && std::isnan(cv[at]))) && failures++ < 3)
                    ADD_FAILURE() << "padding element (" << i << ", " << j << ") of matrix " << p << " was written";
            }
    }
}

class BlasGemmKernelTest : public DeviceTest {};

TEST_P(BlasGemmKernelTest, MatchesTheReferenceForEveryShapeTransposeAndTile) {
    GemmTiles small;  // 32 x 32 tiles of 8 x 8 work items: odd sizes cross several tiles
    small.mwg = small.nwg = 32;
    small.kwg = 8;
    small.mdimc = small.ndimc = 8;
    small.vwm = small.vwn = 2;
    small.vwg = 2;
    GemmTiles scalar = small;  // no vectors anywhere, rectangular work-group
    scalar.mdimc = 16;
    scalar.ndimc = 4;
    scalar.nwg = 16;
    scalar.vwm = scalar.vwn = scalar.vwg = 1;
    GemmTiles wide = blas::detail::default_gemm_tiles();  // 64 x 64 tiles, 16 x 16 work items
    wide.vwm = wide.vwn = 4;
    wide.vwg = 4;
    wide.kwg = 16;

    // Each kernel is a compile (a second or two on PoCL): every transpose pair with odd sizes in
    // float32, and a spread of the rest, 13 kernels in all.
    constexpr auto f32 = DType::Kind::float32;
    constexpr auto f64 = DType::Kind::float64;
    const std::vector<GemmCase> cases{
        // Odd sizes: partial tiles in m, n and k, leading dimensions beyond the extents, offsets.
        {small, f32, false, false, 37, 29, 45, 2, 3, 5, -0.5},
        {small, f32, false, true, 37, 29, 45, 2, 3, 5, -0.5},
        {small, f32, true, false, 37, 29, 45, 2, 3, 5, 0.0},
        {small, f32, true, true, 37, 29, 45, 2, 3, 5, -0.5},
        {small, f64, false, false, 37, 29, 45, 2, 3, 5, 0.0},
        {small, f64, true, true, 37, 29, 45, 2, 3, 5, -0.5},
        {scalar, f32, false, true, 19, 23, 17, 2, 1, 1, 0.5},
        {wide, f32, true, true, 70, 65, 33, 1, 2, 3, 1.0},
        // Aligned: the vector-load form (sizes multiples of the tiles, everything of VWG).
        {small, f32, false, false, 64, 32, 24, 3, 0, 4, 0.0},
        {small, f32, true, true, 64, 32, 24, 3, 0, 4, -0.5},
        {small, f64, false, true, 64, 32, 24, 3, 0, 4, 0.0},
        {scalar, f64, true, false, 32, 32, 16, 1, 0, 0, 0.0},
        // Float64 vectors are at most 2 wide (16 bytes): the wide tiles are float32 only.
        {wide, f32, false, false, 128, 64, 32, 1, 0, 0, 0.0},
    };
    for (const GemmCase& cs : cases) {
        if (!blas::detail::kjarni_gemm_supports(queue(), cs.kind)) {
            std::cout << "[ note ] " << DType(cs.kind).name() << " not supported here\n";
            continue;
        }
        ASSERT_EQ(blas::detail::gemm_tiles_problem(cs.tiles, cs.kind, queue().device().params()), "");
        check_gemm_case(queue(), cs);
    }
}

/// The tensor-core form (src/blas/gemm_tensor.hpp): on a device without native DMMA (PoCL) its
/// emulation, which runs the kernel's own fragment layout, staging and epilogue; on an NVIDIA GPU
/// of compute capability 8.0 or later through OpenCL the DMMA itself. Every pair of transposes
/// ragged (partial tiles in m, n and k, k below a slice, leading dimensions beyond the extents,
/// offsets, batches), aligned (the vector loads), beta = 0 over NaN and beta != 0. Tolerance as
/// above: 2 eps (k + 3) sum |a||b| exceeds the k fma roundings of each 4-term DMMA chain.
TEST_P(BlasGemmKernelTest, TensorFormMatchesTheReference) {
    if (!blas::detail::kjarni_gemm_supports(queue(), DType::Kind::float64)) GTEST_SKIP() << "no float64 here";
    std::cout << "[ note ] tensor-core form: "
              << (blas::detail::kjarni_gemm_tensor_native(queue()) ? "native DMMA" : "emulated DMMA") << "\n";
    GemmTiles square = blas::detail::default_gemm_tensor_tiles();  // 2 x 2 warps of 4 x 4 fragments
    square.mwg = square.nwg = 32;  // 2 x 2 fragments a warp: odd sizes cross several tiles
    square.kwg = 8;
    GemmTiles tall = square;  // 4 x 1 warps, 2 x 4 fragments a warp, no vectors, slices of 4
    tall.mwg = 64;
    tall.nwg = 32;
    tall.kwg = 4;
    tall.warps_m = 4;
    tall.warps_n = 1;
    tall.vwg = 1;
    GemmTiles wide = square;  // 1 x 2 warps of 1 x 2 fragments, slices of 16
    wide.mwg = 8;
    wide.nwg = 32;
    wide.kwg = 16;
    wide.warps_m = 1;
    wide.warps_n = 2;
    constexpr auto f64 = DType::Kind::float64;
    GemmTiles defaults = blas::detail::default_gemm_tensor_tiles(blas::detail::kjarni_gemm_tensor_m16(queue()));
    // The m16n8k4 DMMA (pairs of 8-row blocks): emulated as two m8n8k4, native on cc 9.0.
    GemmTiles pairs = square;
    pairs.mma_m = 16;
    pairs.warps_m = 1;
    pairs.warps_n = 4;
    pairs.nwg = 32;
    const std::vector<GemmCase> cases{
        // Ragged: every transpose pair, beta = 0 (NaN in C) and beta != 0.
        {square, f64, false, false, 37, 29, 45, 2, 3, 5, -0.5},
        {square, f64, false, true, 37, 29, 45, 2, 3, 5, 0.0},
        {square, f64, true, false, 37, 29, 45, 2, 3, 5, 0.5},
        {square, f64, true, true, 37, 29, 45, 2, 3, 5, 0.0},
        {tall, f64, true, false, 70, 9, 3, 1, 1, 1, 1.0},    // k below one slice
        {wide, f64, false, true, 11, 65, 35, 3, 2, 0, 0.0},  // n over two tiles, k over two slices
        // Aligned: the vector loads (sizes multiples of the tiles, everything of VWG).
        {square, f64, false, false, 64, 32, 24, 3, 0, 4, 0.0},
        {square, f64, true, true, 64, 64, 16, 2, 0, 4, -0.5},
        {tall, f64, false, true, 64, 32, 12, 1, 0, 0, 0.0},
        {defaults, f64, true, false, 128, 64, 48, 1, 0, 0, 0.25},
    };
    std::vector<GemmCase> all = cases;
    GemmTiles single = square;  // one local buffer: two barriers a slice
    single.buffers = 1;
    all.push_back({single, f64, false, true, 37, 29, 45, 2, 3, 5, -0.5});
    all.push_back({single, f64, true, false, 64, 32, 24, 1, 0, 2, 0.0});
    // Swizzled local rows (no padding): 2 x 2 warps of 16 x 16.
    GemmTiles swizzled = square;
    swizzled.swizzle = 1;
    all.push_back({swizzled, f64, false, true, 37, 29, 45, 2, 3, 5, -0.5});
    all.push_back({swizzled, f64, true, false, 37, 29, 45, 1, 2, 1, 0.0});
    all.push_back({swizzled, f64, false, false, 64, 32, 24, 2, 0, 4, 0.5});
    all.push_back({swizzled, f64, true, true, 64, 64, 16, 1, 0, 2, 0.0});
    // cp.async (ASYNC 1): aligned problems copy the slices straight into local memory, 16 bytes
    // along the contiguous axis, 8 across it; 2 and 3 stages, k over several rounds of the stages
    // and below them; the ragged ones keep the register path.
    GemmTiles async2 = square;
    async2.async_copy = 1;
    all.push_back({async2, f64, false, false, 64, 32, 24, 2, 0, 4, 0.5});
    all.push_back({async2, f64, true, true, 64, 64, 16, 1, 0, 2, 0.0});
    all.push_back({async2, f64, false, true, 37, 29, 45, 2, 3, 5, -0.5});
    GemmTiles async3 = swizzled;
    async3.async_copy = 1;
    async3.buffers = 3;
    all.push_back({async3, f64, false, true, 64, 32, 40, 2, 0, 2, -0.5});
    all.push_back({async3, f64, true, false, 32, 64, 40, 1, 2, 0, 0.0});
    all.push_back({async3, f64, false, false, 32, 32, 8, 1, 0, 0, 0.0});
    all.push_back({async3, f64, true, true, 37, 29, 45, 2, 3, 5, 0.5});
    // PIPELINE 1: the next k-group's fragments read before this one's DMMAs, a slice's last group
    // multiplied after the barrier. Two groups a slice (slices of 8, m8n8k4) and one (slices of
    // 4), through registers and by cp.async in 2 and 3 stages; k below a slice, of one slice, of
    // one slice more than the stages, over several rounds.
    GemmTiles piped = square;
    piped.pipeline = 1;
    all.push_back({piped, f64, false, false, 37, 29, 45, 2, 3, 5, -0.5});
    all.push_back({piped, f64, true, true, 37, 29, 3, 1, 1, 1, 0.0});
    all.push_back({piped, f64, true, false, 64, 32, 8, 1, 0, 2, 0.5});
    all.push_back({piped, f64, false, true, 64, 64, 40, 2, 0, 4, 0.0});
    GemmTiles piped_tall = tall;
    piped_tall.pipeline = 1;
    all.push_back({piped_tall, f64, false, true, 70, 9, 13, 2, 1, 1, 1.0});
    all.push_back({piped_tall, f64, true, false, 64, 32, 12, 1, 0, 0, 0.0});
    GemmTiles piped_async2 = piped;
    piped_async2.async_copy = 1;
    all.push_back({piped_async2, f64, false, false, 64, 32, 24, 2, 0, 4, 0.5});
    all.push_back({piped_async2, f64, true, true, 64, 64, 8, 1, 0, 2, 0.0});
    all.push_back({piped_async2, f64, false, true, 37, 29, 45, 2, 3, 5, -0.5});
    GemmTiles piped_async3 = async3;
    piped_async3.pipeline = 1;
    all.push_back({piped_async3, f64, true, false, 64, 32, 24, 1, 0, 2, 0.0});
    all.push_back({piped_async3, f64, false, true, 64, 64, 16, 2, 0, 4, -0.5});
    all.push_back({piped_async3, f64, false, false, 32, 32, 56, 1, 0, 0, 0.0});
    if (!blas::detail::kjarni_gemm_tensor_native(queue()) || blas::detail::kjarni_gemm_tensor_m16(queue())) {
        all.push_back({pairs, f64, false, false, 45, 37, 29, 2, 1, 3, -0.5});
        all.push_back({pairs, f64, true, true, 64, 64, 16, 1, 0, 2, 0.0});
        // m16n8k8 and m16n8k16 (two and four k-steps of 4 in one DMMA; emulated step by step).
        GemmTiles k8 = pairs;
        k8.mma_k = 8;
        all.push_back({k8, f64, true, false, 45, 37, 29, 2, 1, 3, 0.0});
        all.push_back({k8, f64, false, true, 64, 32, 24, 1, 0, 2, -0.5});
        GemmTiles k16 = swizzled;  // 2 x 2 warps of 16 x 16, slices of 16, swizzled
        k16.mma_m = 16;
        k16.mma_k = 16;
        k16.kwg = 16;
        all.push_back({k16, f64, false, false, 45, 37, 29, 2, 1, 3, 0.5});
        all.push_back({k16, f64, true, true, 64, 64, 48, 1, 0, 2, 0.0});
        GemmTiles k16_padded = k16;
        k16_padded.swizzle = 0;
        all.push_back({k16_padded, f64, false, true, 37, 45, 70, 2, 3, 1, 0.0});
        // The shapes the H200's search weighs: 128 x 64 on 8 x 1 warps, slices of 16, double
        // buffered in 48 KiB only swizzled.
        GemmTiles tall16 = k16;
        tall16.mwg = 128;
        tall16.nwg = 64;
        tall16.warps_m = 8;
        tall16.warps_n = 1;
        // Emulated, the fragments' scratch joins the slices: one buffer keeps it within 48 KiB for
        // the suite's NVRTC cross-check of the emulated source.
        if (!blas::detail::kjarni_gemm_tensor_native(queue())) tall16.buffers = 1;
        all.push_back({tall16, f64, false, false, 128, 128, 64, 1, 0, 0, 0.0});
        all.push_back({tall16, f64, true, false, 130, 70, 40, 1, 1, 1, -0.5});
        // cp.async: 2 stages of 128 x 64 x 16 swizzled (48 KiB); emulated, with the scratch of the
        // fragments beside, slices of 8 (within 48 KiB for the NVRTC cross-check).
        const bool native = blas::detail::kjarni_gemm_tensor_native(queue());
        GemmTiles tall16_async = tall16;
        tall16_async.async_copy = 1;
        tall16_async.buffers = 2;
        if (!native) tall16_async.kwg = tall16_async.mma_k = 8;
        all.push_back({tall16_async, f64, false, false, 128, 128, 64, 1, 0, 0, 0.0});
        all.push_back({tall16_async, f64, true, true, 256, 64, 48, 2, 0, 2, 0.5});
        GemmTiles tall8_async = tall16_async;  // 3 stages of 128 x 64 x 8, m16n8k8
        tall8_async.kwg = 8;
        tall8_async.mma_k = 8;
        tall8_async.buffers = native ? 3 : 2;
        all.push_back({tall8_async, f64, false, true, 128, 64, 72, 1, 0, 0, 0.0});
        // PIPELINE 1 with m16n8k8 and m16n8k16: the shipped H200 tiles (128 x 64 x 8 on 8 x 1
        // warps, through registers), the same by cp.async in 3 stages, and slices of 16 swizzled.
        GemmTiles piped_tall8 = tall8_async;
        piped_tall8.pipeline = 1;
        piped_tall8.async_copy = 0;
        piped_tall8.buffers = 2;
        piped_tall8.swizzle = 0;
        all.push_back({piped_tall8, f64, false, false, 128, 128, 64, 1, 0, 0, 0.0});
        all.push_back({piped_tall8, f64, true, true, 130, 70, 21, 1, 1, 1, -0.5});
        GemmTiles piped_tall8_async = tall8_async;
        piped_tall8_async.pipeline = 1;
        all.push_back({piped_tall8_async, f64, true, false, 128, 64, 72, 1, 0, 0, 0.5});
        GemmTiles piped_k16 = k16;
        piped_k16.pipeline = 1;
        all.push_back({piped_k16, f64, false, true, 45, 37, 29, 2, 1, 3, 0.5});
        all.push_back({piped_k16, f64, true, false, 64, 64, 48, 1, 0, 2, 0.0});
    }
    for (const GemmCase& cs : all) {
        ASSERT_EQ(blas::detail::gemm_tiles_problem(cs.tiles, cs.kind, queue().device().params()), "");
        check_gemm_case(queue(), cs);
    }
}

TEST_P(BlasGemmKernelTest, RefusesInvalidTiles) {
    GemmTiles bad = blas::detail::default_gemm_tiles();
    bad.vwm = 3;
    EXPECT_NE(blas::detail::gemm_tiles_problem(bad, DType::Kind::float32, queue().device().params()), "");
    bad = blas::detail::default_gemm_tiles();
    bad.mwg = 48;  // not a multiple of MDIMC * VWM = 32
    EXPECT_NE(blas::detail::gemm_tiles_problem(bad, DType::Kind::float32, queue().device().params()), "");
    bad = blas::detail::default_gemm_tiles();
    bad.vwg = 4;  // 4 doubles: 32 bytes
    EXPECT_NE(blas::detail::gemm_tiles_problem(bad, DType::Kind::float64, queue().device().params()), "");
    GemmTiles tensor = blas::detail::default_gemm_tensor_tiles();
    EXPECT_EQ(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float32, queue().device().params()), "")
        << "the tensor-core form is float64 only";
    tensor.mwg = 40;  // not a multiple of 8 WARPSM = 16
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor = blas::detail::default_gemm_tensor_tiles();
    tensor.kwg = 6;  // not a multiple of 4
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor = blas::detail::default_gemm_tensor_tiles();
    tensor.mma_k = 8;  // m16n8k8 only
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor.mma_m = 16;
    EXPECT_EQ(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor.mma_k = 32;
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor = blas::detail::default_gemm_tensor_tiles();
    tensor.warps_n = 4;  // warp tiles 32 x 16, not 16 x 16 multiples along N: no swizzle
    tensor.nwg = 32;
    tensor.swizzle = 1;
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor = blas::detail::default_gemm_tensor_tiles();
    tensor.buffers = 3;  // 3 stages: cp.async only
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor.async_copy = 1;
    // Three stages of the default tiles take more than NVIDIA's OpenCL's 48 KiB of local memory:
    // the rule, not this device's room, is checked here.
    auto roomy = queue().device().params();
    roomy.local_mem_size = std::max<std::size_t>(roomy.local_mem_size, std::size_t{1} << 20);
    EXPECT_EQ(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, roomy), "");
    tensor.buffers = 1;
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor = blas::detail::default_gemm_tensor_tiles();
    tensor.pipeline = 1;
    EXPECT_EQ(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor.buffers = 1;  // the pipeline fills the next buffer while this slice's fragments wait
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor.buffers = 2;
    tensor.pipeline = 2;
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    tensor = blas::detail::default_gemm_tensor_tiles();
    tensor.form = 2;
    EXPECT_NE(blas::detail::gemm_tiles_problem(tensor, DType::Kind::float64, queue().device().params()), "");
    const Array x = Array::zeros(queue(), {16}, DType(DType::Kind::float32));
    EXPECT_THROW(blas::detail::kjarni_gemm(queue(), DType::Kind::float64, bad, false, false, 2, 2, 2, 1.0,
                                           GemmMatrix{x, 0, 2, 0}, GemmMatrix{x, 0, 2, 0}, 0.0, GemmMatrix{x, 0, 2, 0},
                                           1),
                 ArgumentError)
        << "float64 vectors of 4 must be refused";
}

/// The public calls with KJARNI_GEMM=kjarni on OpenCL: C- and Fortran-ordered operands, slices,
/// transposes and batches reach the kernel through blas.cpp's layout mapping.
TEST_P(BlasGemmKernelTest, PublicCallsThroughTheKernel) {
    if (queue().device().context().api().id() != ApiId::opencl()) GTEST_SKIP() << "CUDA always uses cuBLAS";
    ::setenv("KJARNI_GEMM", "kjarni", 1);
    struct Restore {
        ~Restore() { ::unsetenv("KJARNI_GEMM"); }
    } restore;
    for (const DType::Kind kind : {DType::Kind::float32, DType::Kind::float64}) {
        if (!blas::detail::kjarni_gemm_supports(queue(), kind)) continue;
        ASSERT_TRUE(blas::detail::kjarni_gemm_choice(queue(), kind, true).has_value());
        const DType d(kind);
        const std::size_t m = 21, n = 13, k = 34, batch = 3;
        const auto a_values = gemm_random_values(batch * m * k, kind);
        const auto b_values = gemm_random_values(batch * k * n, kind);
        const auto c_values = gemm_random_values(batch * m * n, kind);
        const Array a = gemm_device_array(queue(), kind, a_values, {batch, m, k});
        // B given as the transpose of a C-ordered n x k: a Fortran-ordered k x n per matrix.
        const Array bt = gemm_device_array(queue(), kind, b_values, {batch, n, k});
        const Array c = gemm_device_array(queue(), kind, c_values, {batch, m, n});
        blas::gemm_batched(queue(), 0.75, a, bt, -0.5, c, blas::Op::none, blas::Op::transpose);
        const auto got = gemm_read_back(queue(), c, kind);
        const double eps = kind == DType::Kind::float32 ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
        int failures = 0;
        for (std::size_t p = 0; p < batch; ++p)
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    double sum = 0, magnitude = 0;
                    for (std::size_t l = 0; l < k; ++l) {
                        const double x = a_values[p * m * k + i * k + l], y = b_values[p * n * k + j * k + l];
                        sum += x * y;
                        magnitude += std::abs(x * y);
                    }
                    const std::size_t at = p * m * n + i * n + j;
                    const double expected = 0.75 * sum - 0.5 * c_values[at];
                    const double tolerance =
                        2 * eps * static_cast<double>(k + 3) * (0.75 * magnitude + 0.5 * std::abs(c_values[at]));
                    if (!(std::abs(got[at] - expected) <= tolerance) && failures++ < 3)
                        ADD_FAILURE() << d.name() << " [" << p << ", " << i << ", " << j << "] is " << got[at]
                                      << ", expected " << expected;
                }
        // A plain gemm of a sliced, C-ordered A (leading dimension beyond the extent) and a new C.
        const Array big = gemm_device_array(queue(), kind, a_values, {m, batch * k});
        const std::vector<Slice> a_window{Slice{}, Slice{1, static_cast<std::ptrdiff_t>(1 + k)}};
        const std::vector<Slice> b_window{Slice{0, static_cast<std::ptrdiff_t>(k)}, Slice{}};
        const Array a2 = big.slice(a_window);
        const Array b2 = gemm_device_array(queue(), kind, b_values, {batch * k, n}).slice(b_window);
        const auto got2 = gemm_read_back(queue(), blas::gemm(queue(), 1.0, a2, b2), kind);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double sum = 0, magnitude = 0;
                for (std::size_t l = 0; l < k; ++l) {
                    const double x = a_values[i * batch * k + 1 + l], y = b_values[l * n + j];
                    sum += x * y;
                    magnitude += std::abs(x * y);
                }
                if (!(std::abs(got2[i * n + j] - sum) <= 2 * eps * static_cast<double>(k + 3) * magnitude) &&
                    failures++ < 6)
                    ADD_FAILURE() << d.name() << " gemm (" << i << ", " << j << ") is " << got2[i * n + j]
                                  << ", expected " << sum;
            }
    }
    ::setenv("KJARNI_GEMM", "bogus", 1);
    EXPECT_THROW(blas::detail::kjarni_gemm_choice(queue(), DType::Kind::float32, true), ArgumentError);
}

/// KJARNI_GEMM_FORM: tensor runs float64 through the tensor-core form where the DMMA is native
/// (and changes nothing elsewhere), simt never does, another value is refused.
TEST_P(BlasGemmKernelTest, FormSwitch) {
    if (queue().device().context().api().id() != ApiId::opencl()) GTEST_SKIP() << "CUDA always uses cuBLAS";
    struct Restore {
        ~Restore() { ::unsetenv("KJARNI_GEMM_FORM"); }
    } restore;
    const bool native = blas::detail::kjarni_gemm_tensor_native(queue());
    ::setenv("KJARNI_GEMM_FORM", "tensor", 1);
    EXPECT_EQ(blas::detail::gemm_form_setting(), "tensor");
    if (blas::detail::kjarni_gemm_supports(queue(), DType::Kind::float64)) {
        const auto tiles = blas::detail::kjarni_gemm_choice(queue(), DType::Kind::float64, true);
        if (native) {
            ASSERT_TRUE(tiles.has_value());
            EXPECT_EQ(tiles->form, 1U);
        } else {
            EXPECT_TRUE(!tiles || tiles->form == 0) << "no tensor-core form without a native DMMA";
        }
    }
    const auto single = blas::detail::kjarni_gemm_choice(queue(), DType::Kind::float32, true);
    EXPECT_TRUE(!single || single->form == 0);
    ::setenv("KJARNI_GEMM_FORM", "simt", 1);
    if (blas::detail::kjarni_gemm_supports(queue(), DType::Kind::float64)) {
        const auto tiles = blas::detail::kjarni_gemm_choice(queue(), DType::Kind::float64, false);
        ASSERT_TRUE(tiles.has_value()) << "without CLBlast kjarni's kernel runs";
        EXPECT_EQ(tiles->form, 0U);
    }
    ::setenv("KJARNI_GEMM_FORM", "fast", 1);
    EXPECT_THROW(blas::detail::gemm_form_setting(), ArgumentError);
    EXPECT_THROW(blas::detail::kjarni_gemm_choice(queue(), DType::Kind::float64, true), ArgumentError);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(BlasGemmKernelTest);

TEST(BlasGemmTuning, TilesRoundTripThroughTheParameterFile) {
    GemmTiles tiles;
    tiles.mwg = 128;
    tiles.nwg = 64;
    tiles.kwg = 32;
    tiles.vwm = 4;
    const auto entry = blas::detail::gemm_entry_of(tiles, 64, true);
    const auto [back, preferred] = blas::detail::gemm_tiles_of(entry, "test");
    EXPECT_EQ(back, tiles);
    EXPECT_TRUE(preferred);
    blas::detail::TunedKernel bad = entry;
    bad.parameters.emplace_back("XYZ", 1);
    EXPECT_THROW(blas::detail::gemm_tiles_of(bad, "test"), ArgumentError);
    // The tensor-core form: FORM 1 and its warps, nothing of the SIMT form's work-group shape.
    GemmTiles tensor = blas::detail::default_gemm_tensor_tiles();
    tensor.mwg = 128;
    tensor.kwg = 8;
    tensor.warps_n = 4;
    const auto tensor_entry = blas::detail::gemm_entry_of(tensor, 64, false);
    EXPECT_EQ(tensor_entry.parameters.front(), (std::pair<std::string, std::size_t>{"FORM", 1}));
    for (const auto& [name, value] : tensor_entry.parameters) EXPECT_NE(name, "MDIMC");
    const auto [tensor_back, tensor_preferred] = blas::detail::gemm_tiles_of(tensor_entry, "test");
    EXPECT_EQ(tensor_back, tensor);
    EXPECT_FALSE(tensor_preferred);
    EXPECT_EQ(tensor.describe(), "FORM=1 MWG=128 NWG=64 KWG=8 WARPSM=2 WARPSN=4 VWG=2 MMAM=8");
    tensor.mma_m = 16;
    EXPECT_EQ(blas::detail::gemm_tiles_of(blas::detail::gemm_entry_of(tensor, 64, true), "test").first, tensor);
    tensor.buffers = 1;
    EXPECT_EQ(blas::detail::gemm_tiles_of(blas::detail::gemm_entry_of(tensor, 64, true), "test").first, tensor);
    EXPECT_EQ(tensor.describe(), "FORM=1 MWG=128 NWG=64 KWG=8 WARPSM=2 WARPSN=4 VWG=2 MMAM=16 BUFFERS=1");
    tensor.mma_k = 8;
    tensor.swizzle = 1;
    EXPECT_EQ(blas::detail::gemm_tiles_of(blas::detail::gemm_entry_of(tensor, 64, true), "test").first, tensor);
    EXPECT_EQ(tensor.describe(),
              "FORM=1 MWG=128 NWG=64 KWG=8 WARPSM=2 WARPSN=4 VWG=2 MMAM=16 BUFFERS=1 MMAK=8 SWIZZLE=1");
    tensor.async_copy = 1;
    tensor.buffers = 3;
    EXPECT_EQ(blas::detail::gemm_tiles_of(blas::detail::gemm_entry_of(tensor, 64, true), "test").first, tensor);
    EXPECT_EQ(tensor.describe(),
              "FORM=1 MWG=128 NWG=64 KWG=8 WARPSM=2 WARPSN=4 VWG=2 MMAM=16 BUFFERS=3 MMAK=8 SWIZZLE=1 ASYNC=1");
    tensor.pipeline = 1;
    EXPECT_EQ(blas::detail::gemm_tiles_of(blas::detail::gemm_entry_of(tensor, 64, true), "test").first, tensor);
    EXPECT_EQ(tensor.describe(), "FORM=1 MWG=128 NWG=64 KWG=8 WARPSM=2 WARPSN=4 VWG=2 MMAM=16 BUFFERS=3 MMAK=8 "
                                 "SWIZZLE=1 ASYNC=1 PIPELINE=1");
    for (const auto& [name, value] : entry.parameters) EXPECT_NE(name, "FORM") << "SIMT entries stay as they were";
    const auto parsed =
        blas::detail::parse_tuned_parameters(R"({"device": "Some GPU", "driver": "550.1", "kernels": []})", "test");
    EXPECT_EQ(parsed.driver, "550.1");
    EXPECT_THROW(blas::detail::parse_tuned_parameters(R"({"device": "x", "driver": 3, "kernels": []})", "test"),
                 ArgumentError);
    EXPECT_EQ(blas::detail::tuning_cache_file_name("NVIDIA H200", "570.86.15"), "NVIDIA_H200--570.86.15.json");
}

}  // namespace
}  // namespace kjarni::test
