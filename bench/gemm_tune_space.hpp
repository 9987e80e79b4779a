#pragma once
// The search spaces of kjarni_gemm_tune (bench/gemm_tune.cpp): kjarni's own GEMM tiles and
// CLBlast's Xgemm parameters, each valid for the device, in the order to try them.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "blas/gemm_kernel.hpp"

namespace gemm_tune {

/// CLBlast parameters by name, in the order its Xgemm kernel lists them.
using ClblastConfig = std::vector<std::pair<std::string, std::size_t>>;

/// kjarni's tiles for `kind` that are valid on a device with `limits`: first the defaults, then the
/// shapes that register-tiled SIMT GEMMs run well with on today's GPUs (CUTLASS's SIMT tiles and
/// CLBlast's tuned Xgemm parameters: 128 x 128 or 128 x 64 work-group tiles of 8 x 8 or 8 x 4 micro-tiles,
/// 256 work items, K slices of 8 to 32), then the rest of the space in an order shuffled by `seed`.
/// With `tensor` (float64 on a device whose DMMA is native), the tensor-core form's tiles come
/// first: its defaults, then the shapes that DMMA GEMMs use (128 x 128 or 128 x 64 work-group tiles
/// of 4 to 8 warps, warp tiles of 32 x 32 to 64 x 32, K slices of 8 or 16), then the rest of its
/// space shuffled by `seed`; then the SIMT tiles. With `m16` (compute capability 9.0) each comes
/// with the m16n8k4 DMMA first, then with m8n8k4.
std::vector<kjarni::blas::detail::GemmTiles> kjarni_candidates(kjarni::DType::Kind kind,
                                                               const kjarni::DeviceParameters& limits, unsigned seed,
                                                               bool tensor = false, bool m16 = false);

/// The tensor-core form's tiles near what won on the H200 (128 x 64 x 8 on 8 x 1 warps, m16n8k4),
/// for a short search (kjarni_gemm_tune --focus): the work-group tiles and warp shapes that DMMA
/// GEMMs use (warp tiles of 16 x 64 to 64 x 32), each with K slices of 8, 16 and 32, the m16n8k4,
/// m16n8k8 and m16n8k16 DMMA (MMAK; m8n8k4 only without `m16`), padded or swizzled local rows, and
/// the slices through registers (double buffered where that fits the local memory, else one
/// buffer) or by cp.async in 2 or 3 stages (ASYNC); the shapes in the order of their promise, so
/// that a budget that runs out drops the least promising. With `m16`, first the pipelined tiles
/// (PIPELINE 1) of the winner's shape and of warp tiles of 32 x 64 and 64 x 32.
std::vector<kjarni::blas::detail::GemmTiles> focused_tensor_candidates(const kjarni::DeviceParameters& limits,
                                                                       bool m16);

/// CLBlast Xgemm (GEMMK 0) configurations that its constraints allow with large work-group tiles,
/// within `local_mem_size` bytes, shuffled by `seed`.
std::vector<ClblastConfig> clblast_candidates(int precision, std::size_t local_mem_size, unsigned seed);

/// "KWG=32 MWG=64 ..."
std::string describe(const ClblastConfig& config);

}  // namespace gemm_tune
