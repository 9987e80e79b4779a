#pragma once
/// Dense linear algebra on Arrays through the vendor BLAS of the queue's API: cuBLAS on CUDA
/// (libcublas.so.13, else libcublas.so.12), CLBlast on OpenCL (libclblast.so.1). Both are loaded at
/// run time on first use; a missing library is an UnsupportedError naming it.
///
/// Every call enqueues its work on the given queue and returns without waiting (the results are
/// there once the queue has passed that point), except where a copy described below needs a
/// temporary: the call then keeps it alive by synchronizing the queue before it returns.
///
/// Dtypes: float32, float64, complex64, complex128 everywhere; float16 for gemm and gemm_batched on
/// both APIs (cuBLAS accumulates in float32, CLBlast in float16), and for dot, gemv and ger on
/// OpenCL only (cuBLAS has no half-precision gemv or ger). Every array of a call must have the same
/// dtype (ArgumentError otherwise) and lie on the queue's device.
///
/// Layouts: BLAS reads column-major matrices with a leading dimension, optionally transposed, so a
/// 2-d view is used in place when one of its axes has unit stride (one element) and the other a
/// positive stride that is a whole number of elements, at least the extent of the first: C-ordered
/// and Fortran-ordered arrays, their transposes, and views of rows or columns (a[:, 2:7],
/// a[1:5, :]) all qualify. A vector is used in place when its stride is a positive whole number of
/// elements (a[::3] qualifies). Anything else — negative strides, a zero stride (broadcast), a
/// matrix whose inner stride is not one element (a[:, ::2]), a first element not at a whole number
/// of elements from the allocation's start — is first copied into a contiguous temporary (and an
/// output written back from one). A conjugate transpose of a C-ordered operand can be expressed as
/// a BLAS operation only in half the cases; the other half copies that operand to Fortran order.
///
/// On OpenCL, float32 and float64 gemm and gemm_batched run kjarni's own GEMM kernel instead of
/// CLBlast where the device's tuning found it faster, or where CLBlast is missing
/// (KJARNI_GEMM=kjarni|clblast forces one; docs/blas.md, scripts/tune-gemm.sh).
///
/// Outputs must not overlap the inputs (BLAS's own rule; the result is undefined otherwise). With
/// beta = 0 the output's old contents are ignored by cuBLAS and kjarni's kernel, while CLBlast
/// computes beta * C, so NaN or infinity in an output CLBlast writes carry through: zero it first
/// (new outputs are made zeroed). \file

#include <complex>
#include <optional>

#include "kjarni/array.hpp"
#include "kjarni/blas_types.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::blas {

/// A result the call makes (no `out`, `y`, `c` or `a` given) takes its memory from `allocator`
/// (Buffer::allocate when empty); an output given must be writeable (Array::writeable).

/// x . y over two 1-d arrays of the same length (conjugating x first when `conjugate_x`: x^H y,
/// numpy's vdot). The result goes into `out`, a 1-element array (any shape), or into a new 0-d
/// array, which is returned.
Array dot(const Queue& queue, const Array& x, const Array& y, const std::optional<Array>& out = std::nullopt,
          bool conjugate_x = false, const Allocator& allocator = {});

/// y = alpha op(a) x + beta y, with a 2-d and x, y 1-d. Without `y` a new zeroed array of op(a)'s
/// row count is made (beta is then irrelevant). Returns y.
Array gemv(const Queue& queue, Scalar alpha, const Array& a, const Array& x, Scalar beta = 0.0,
           const std::optional<Array>& y = std::nullopt, Op op_a = Op::none, const Allocator& allocator = {});

/// c = alpha op(a) op(b) + beta c, all 2-d: op(a) is M x K, op(b) K x N, c M x N. Without `c` a
/// new zeroed C-ordered M x N array is made. Returns c.
Array gemm(const Queue& queue, Scalar alpha, const Array& a, const Array& b, Scalar beta = 0.0,
           const std::optional<Array>& c = std::nullopt, Op op_a = Op::none, Op op_b = Op::none,
           const Allocator& allocator = {});

/// a += alpha x y^T (no conjugation, numpy's outer), with x of length M, y of length N and a an
/// M x N array; without `a` a new zeroed one is made. Returns a.
Array ger(const Queue& queue, Scalar alpha, const Array& x, const Array& y,
          const std::optional<Array>& a = std::nullopt, const Allocator& allocator = {});

/// gemm on each of a batch of matrices: c[i] = alpha op(a[i]) op(b[i]) + beta c[i] for 3-d arrays
/// whose first axis is the batch (the same length in all three). The batch stride may be any
/// non-negative whole number of elements (0 repeats one matrix of an input); the last two axes
/// follow gemm's layout rules. Without `c` a new zeroed C-ordered array is made. Returns c.
Array gemm_batched(const Queue& queue, Scalar alpha, const Array& a, const Array& b, Scalar beta = 0.0,
                   const std::optional<Array>& c = std::nullopt, Op op_a = Op::none, Op op_b = Op::none,
                   const Allocator& allocator = {});

}  // namespace kjarni::blas
