#pragma once
// kjarni's own GEMM kernel: the source of a register-tiled, local-memory-staged matrix product in
// kjarni's dialect (runs on CUDA and OpenCL), generated for one set of tile parameters, one dtype
// (float32 or float64) and one pair of transposes. The tuner (bench/gemm_tune.cpp) searches the
// parameters per device; blas.cpp runs the kernel where the tuning found it faster than CLBlast.
//
// The problem is column-major BLAS, as the vendors get it (vendor/blas_vendor.hpp):
//   C[i + j ldc] = alpha sum_p opA(i, p) opB(p, j) + beta C[i + j ldc]   (beta = 0: C not read)
//   opA(i, p) = A[i + p lda], or A[p + i lda] transposed; opB(p, j) = B[p + j ldb], or B[j + p ldb].
// Matrix b of a batch starts b * stride elements after the first.
//
// The shape of the work, in CLBlast's Xgemm vocabulary: a work-group of MDIMC x NDIMC work items
// computes an MWG x NWG tile of C; each work item an (MWG / MDIMC) x (NWG / NDIMC) micro-tile held
// in registers, made of VWM x VWN blocks spread MDIMC * VWM (NDIMC * VWN) apart, so that the work
// items of a warp read neighbouring vectors of local memory. K advances in slices of KWG: the work
// group copies the slices of A and B into local memory (vectors of VWG elements along the operand's
// contiguous axis when the problem is `aligned`, single bounds-checked elements otherwise), then
// every work item accumulates KWG outer products of its registers.
//
// FORM = 1 is the tensor-core form (gemm_tensor.hpp): float64 only, a work group of WARPSM x
// WARPSN warps, each computing its part of the MWG x NWG tile with the m8n8k4 DMMA (compute
// capability 8.0 and later, through NVIDIA's OpenCL or CUDA), emulated elsewhere. It uses MWG,
// NWG, KWG, WARPSM, WARPSN, VWG, MMAM (the DMMA's rows: 8 or 16), BUFFERS (local slices: 2,
// double buffered, or 1), MMAK, SWIZZLE, ASYNC and PIPELINE; MDIMC, NDIMC, VWM and VWN keep their
// defaults and mean nothing.

#include <cstddef>
#include <string>

#include "kjarni/device.hpp"
#include "kjarni/dtype.hpp"

namespace kjarni::blas::detail {

struct GemmTiles {
    std::size_t mwg = 64, nwg = 64, kwg = 16;  // the work-group's tile of C, and the K slice
    std::size_t mdimc = 16, ndimc = 16;        // the work-group's shape
    std::size_t vwm = 2, vwn = 2;              // vector widths of the local-memory reads
    std::size_t vwg = 2;                       // vector width of the global loads (aligned problems)
    std::size_t form = 0;                      // 0: the SIMT kernel above; 1: tensor cores (gemm_tensor.hpp)
    std::size_t warps_m = 2, warps_n = 2;      // form 1: the work group's warps along M and N
    std::size_t mma_m = 8;                     // form 1: the DMMA, m8n8k4 (8) or m16n8k4 (16, cc 9.0)
    std::size_t buffers = 2;                   // form 1: local slices, 2 (double buffered) or 1
    std::size_t mma_k = 4;                     // form 1, MMAM 16: m16n8k4 (4), m16n8k8 (8), m16n8k16 (16)
    std::size_t swizzle = 0;                   // form 1: local rows padded (0) or XOR-swizzled (1)
    std::size_t async_copy = 0;                // form 1: slices through registers (0) or cp.async (1)
    std::size_t pipeline = 0;                  // form 1: fragment reads a k-group ahead of the DMMAs (1)

    friend bool operator==(const GemmTiles&, const GemmTiles&) = default;
    friend auto operator<=>(const GemmTiles&, const GemmTiles&) = default;
    std::string describe() const;  // "MWG=64 NWG=64 ...", "FORM=1 MWG=64 ..." for the tensor-core form
};

/// Whether `y` is not zero and divides `x`: the tiles' constraints (a zero parameter divides nothing).
constexpr bool gemm_divides(std::size_t x, std::size_t y) { return y != 0 && x % y == 0; }

/// Defaults that are valid on any device with 256 work items and 32 KiB of local memory.
GemmTiles default_gemm_tiles();
/// The tensor-core form's defaults (64 x 64 x 16 tiles, 2 x 2 warps, VWG 2): 128 work items and
/// 34 KiB of local memory; the m16n8k4 DMMA with `m16` (compute capability 9.0), else m8n8k4.
GemmTiles default_gemm_tensor_tiles(bool m16 = false);

/// "" when the tiles are valid for `kind` (float32 or float64) on a device with these limits;
/// otherwise why not.
std::string gemm_tiles_problem(const GemmTiles& tiles, DType::Kind kind, const DeviceParameters& limits);

/// The kernel `kjarni_gemm`'s source (no prelude: Program adds it). Its arguments:
///   A, a_offset, lda, a_stride, B, b_offset, ldb, b_stride, C, c_offset, ldc, c_stride  (int64_t
///   offsets, leading dimensions and strides, in elements), m, n, k (int), alpha, beta (the real type)
/// launched with local size (MDIMC, NDIMC, 1) and global size
/// (ceil(m / MWG) MDIMC, ceil(n / NWG) NDIMC, batch). `aligned`: m, n, k are multiples of MWG, NWG,
/// KWG and every offset, leading dimension and stride a multiple of VWG (no bounds checks).
/// The tensor-core form (FORM 1) is launched with local size (32 WARPSM WARPSN, 1, 1) and global
/// size (ceil(m / MWG) 32 WARPSM WARPSN, ceil(n / NWG), batch); `native_mma` chooses the DMMA
/// itself (inline PTX) over its emulation in local memory (gemm_tensor.hpp); the SIMT form ignores it.
std::string gemm_kernel_source(const GemmTiles& tiles, DType::Kind kind, bool transpose_a, bool transpose_b,
                               bool aligned, bool native_mma = false);

/// The local size (x) of the tiles' work group: MDIMC NDIMC, or 32 WARPSM WARPSN.
std::size_t gemm_group_size(const GemmTiles& tiles);

}  // namespace kjarni::blas::detail
