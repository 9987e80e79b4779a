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

    friend bool operator==(const GemmTiles&, const GemmTiles&) = default;
    friend auto operator<=>(const GemmTiles&, const GemmTiles&) = default;
    std::string describe() const;  // "MWG=64 NWG=64 ..."
};

/// Defaults that are valid on any device with 256 work items and 32 KiB of local memory.
GemmTiles default_gemm_tiles();

/// "" when the tiles are valid for `kind` (float32 or float64) on a device with these limits;
/// otherwise why not.
std::string gemm_tiles_problem(const GemmTiles& tiles, DType::Kind kind, const DeviceParameters& limits);

/// The kernel `kjarni_gemm`'s source (no prelude: Program adds it). Its arguments:
///   A, a_offset, lda, a_stride, B, b_offset, ldb, b_stride, C, c_offset, ldc, c_stride  (int64_t
///   offsets, leading dimensions and strides, in elements), m, n, k (int), alpha, beta (the real type)
/// launched with local size (MDIMC, NDIMC, 1) and global size
/// (ceil(m / MWG) MDIMC, ceil(n / NWG) NDIMC, batch). `aligned`: m, n, k are multiples of MWG, NWG,
/// KWG and every offset, leading dimension and stride a multiple of VWG (no bounds checks).
std::string gemm_kernel_source(const GemmTiles& tiles, DType::Kind kind, bool transpose_a, bool transpose_b,
                               bool aligned);

}  // namespace kjarni::blas::detail
