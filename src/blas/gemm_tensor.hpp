#pragma once
// kjarni's GEMM kernel, tensor-core form (GemmTiles::form = 1): float64 products through the
// FP64 tensor cores of NVIDIA GPUs of compute capability 8.0 and later, which OpenCL C reaches only
// through inline PTX: the m8n8k4 DMMA,
//   mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {d0, d1}, {a0}, {b0}, {c0, c1};
// in which lane l of a warp, with g = l / 4 and t = l % 4, gives A[g][t] of the 8x4 A (row major)
// and B[t][g] of the 4x8 B (column major), and holds D[g][2t] and D[g][2t + 1] of the 8x8 D (PTX
// ISA, "Matrix fragments for mma.m8n8k4 with .f64"). With MMAM = 16 (compute capability 9.0) the
// m16n8k4 DMMA instead, the same product on two 8-row blocks that share B: lane (g, t) gives
// A[g][t] and A[g + 8][t] and holds D[g][2t + {0, 1}] and D[g + 8][2t + {0, 1}]. On Hopper the
// m8n8k4 DMMA is reported to run at about half the FP64 tensor-core rate, m16n8k4 at about full
// (the tuner measures both).
//
// The shape of the work: a work group of WARPSM x WARPSN warps computes an MWG x NWG tile of C;
// warp (wm, wn) the (MWG / WARPSM) x (NWG / WARPSN) part at (wm MWG / WARPSM, wn NWG / WARPSN), as
// a grid of FM x FN 8x8 accumulators (two registers a lane each). K advances in slices of KWG,
// copied into local memory as a_local[p][r] (row r of op(A)'s tile) and b_local[p][c] (column c of
// op(B)'s tile), each row padded to 4 mod 16 doubles so that a warp's fragment reads (4 rows t,
// 8 consecutive elements g) touch every bank pair exactly twice: free of conflicts. The slices are
// double buffered: slice s + 1 is loaded from global memory into registers while slice s is
// multiplied, then stored into the other buffer; one barrier per slice. With BUFFERS = 1 the
// next slice waits in registers until every warp is done with this one (a second barrier): half
// the local memory, so that longer slices fit NVIDIA's OpenCL's 48 KiB (128 x 128 x 16). Every k-step of 4 reads FM
// fragments of A and FN of B and issues FM x FN DMMAs. The code is straight-line (no indexed
// private arrays); the source is data/kernels/gemm_tensor.mako, rendered by kjarni's template engine.
//
// With ASYNC = 1 (aligned problems) the slices go from global into local memory by cp.async
// (compute capability 8.0) instead of through registers, BUFFERS (2 or 3) stages in flight, one
// barrier per slice; bounds-checked problems keep the register path. MMAK 8 or 16 (with MMAM 16)
// issues the m16n8k8 or m16n8k16 DMMA of compute capability 9.0 on two or four k-steps' fragments
// at once; SWIZZLE 1 drops the padding of the local rows for an XOR of the row index (r ^ 4 (p % 4)),
// just as free of bank conflicts, 4 doubles a row less (128 x 64 x 16 double buffered in 48 KiB).
//
// PIPELINE = 1 software-pipelines the fragments, as CUTLASS's warp-level loops do: the fragments of
// k-group q + 1 are read into a second set of registers before the DMMAs of group q are issued, and
// at a slice's last group the order is: the next slice stored (registers) or waited for (cp.async),
// the barrier, the next slice's first fragments read, the global loads (or copies) of the slice
// after it issued, and only then the last group's DMMAs, so that they keep the tensor cores busy
// through the barrier's wait and the latency of the local reads. Unpipelined, every warp meets the
// barrier with its DMMAs issued and starts the next slice with a local read whose result its first
// DMMA waits for: with 8 warps of one work group per SM (the tiles of 32 x 64 or 64 x 32 a warp,
// fewer local bytes a DMMA, which need about 200 registers a lane) nothing covers that gap, with
// two work groups (the H200's tiles, 128 registers) the other one in part. It costs the second set
// of fragment registers (sm_90, ptxas: 128 -> 144-178 for the H200's tiles, about 250 without
// spills for 128 x 128 on 4 x 2 warps with m16n8k4) and needs BUFFERS 2 or more: the next slice is
// written while this one's last fragments wait in registers, into the buffer that every warp was
// done reading at the barrier before. The global loads of the next slice but one are issued right
// after the barrier, as far from their stores (a slice of DMMAs) as unpipelined.
//
// Emulated form (native = false), for devices without NVIDIA's warps (CPUs, PoCL): the same kernel,
// its indexing unchanged, but each k-step's fragments are exchanged through local memory (a barrier
// before and after) and each lane computes its two elements of each DMMA as an fma chain over
// k = 0..3 from the fragments of the lanes that hold them. So the CPU tests check the fragment
// layout, the staging and the epilogue that the GPU runs; the suite compiles the native form for
// sm_90 with NVRTC.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blas/gemm_kernel.hpp"

namespace kjarni::blas::detail {

/// The embedded BLAS kernel templates (data/kernels/gemm_*.mako) as (file name, text), in the
/// generated blas_kernel_templates_data.cpp.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_blas_kernel_templates();

/// The rows of a local slice: `extent` padded to 4 mod 16 doubles, or unpadded where swizzled.
std::size_t gemm_tensor_local_ld(std::size_t extent, bool swizzle = false);

/// "" when tensor-core tiles are valid on a device with these limits (float64 only), else why not.
std::string gemm_tensor_tiles_problem(const GemmTiles& tiles, DType::Kind kind, const DeviceParameters& limits);

/// The tensor-core form's `kjarni_gemm` source (gemm_kernel_source's arguments and launch).
std::string gemm_tensor_source(const GemmTiles& tiles, bool transpose_a, bool transpose_b, bool aligned, bool native);

}  // namespace kjarni::blas::detail
