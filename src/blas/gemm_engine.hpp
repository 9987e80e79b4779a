#pragma once
// Running kjarni's own GEMM kernel (gemm_kernel.hpp) on a queue: the kernel for each set of tiles,
// dtype, transposes and alignment is compiled once per context and device and kept by the context.

#include <cstddef>

#include "blas/gemm_kernel.hpp"
#include "kjarni/array.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::blas::detail {

/// A column-major operand: the array whose allocation holds it, the element offset of its first
/// element in that allocation, its leading dimension and, for a batch, its batch stride.
struct GemmMatrix {
    Array array;
    std::size_t offset = 0;
    std::size_t ld = 1;
    std::size_t stride = 0;
};

/// The offset of `array`'s first element from the start of its allocation, in elements; nullopt
/// when it is not a whole number of elements.
std::optional<std::size_t> gemm_element_offset(const Array& array);

/// Whether kjarni's kernel handles `kind` (float32, float64) on the queue's device (float64 needs
/// cl_khr_fp64 on OpenCL).
bool kjarni_gemm_supports(const Queue& queue, DType::Kind kind);

/// Whether the queue's device runs the tensor-core form's DMMA natively: an NVIDIA GPU of compute
/// capability 8.0 or later with 32-lane warps, through CUDA or NVIDIA's OpenCL (inline PTX both).
/// Elsewhere kjarni_gemm runs that form with the DMMA emulated (gemm_tensor.hpp).
bool kjarni_gemm_tensor_native(const Queue& queue);
/// Whether the native DMMA includes m16n8k4 (GemmTiles::mma_m = 16): compute capability 9.0 or later.
bool kjarni_gemm_tensor_m16(const Queue& queue);

/// C = alpha op(A) op(B) + beta C over `batch` matrices (vendor_blas.hpp's column-major problem),
/// enqueued on the queue. The tiles must be valid for the device (gemm_tiles_problem); m, n, k,
/// batch > 0. ArgumentError when they are not, or m, n, k exceed 2^31 - 1.
void kjarni_gemm(const Queue& queue, DType::Kind kind, const GemmTiles& tiles, bool transpose_a, bool transpose_b,
                 std::size_t m, std::size_t n, std::size_t k, double alpha, const GemmMatrix& a, const GemmMatrix& b,
                 double beta, const GemmMatrix& c, std::size_t batch);

}  // namespace kjarni::blas::detail
