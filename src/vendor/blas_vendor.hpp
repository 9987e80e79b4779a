#pragma once
// The one interface the public BLAS layer (src/blas/blas.cpp) calls, implemented once per vendor library
// (cublas.cpp, clblast.cpp). Everything here is column-major BLAS: the public layer has already
// turned the arrays' layouts into leading dimensions, transposes and offsets, checked the shapes,
// and dropped empty problems, so a vendor only translates the call and reports its status.

#include <complex>
#include <cstddef>
#include <cstdint>

#include "kjarni/blas_types.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::blas::detail {

/// Memory of an operand: the allocation's native handle (CUdeviceptr / cl_mem) and the byte
/// offset of its first element, a whole number of elements.
struct Memory {
    std::uintptr_t handle = 0;
    std::size_t offset = 0;
};

/// A column-major matrix; `ld` >= max(1, rows).
struct Matrix {
    Memory memory;
    std::size_t ld = 1;
};

/// A vector; `inc` > 0, in elements.
struct Vector {
    Memory memory;
    std::size_t inc = 1;
};

class Vendor {
public:
    virtual ~Vendor() = default;
    virtual void gemm(const Queue& queue, DType::Kind kind, Op op_a, Op op_b, std::size_t m, std::size_t n,
                      std::size_t k, Scalar alpha, const Matrix& a, const Matrix& b, Scalar beta, const Matrix& c) = 0;
    /// Matrix i of each operand starts `stride_*` elements after matrix i - 1.
    virtual void gemm_strided_batched(const Queue& queue, DType::Kind kind, Op op_a, Op op_b, std::size_t m,
                                      std::size_t n, std::size_t k, Scalar alpha, const Matrix& a, std::size_t stride_a,
                                      const Matrix& b, std::size_t stride_b, Scalar beta, const Matrix& c,
                                      std::size_t stride_c, std::size_t batch) = 0;
    /// y = alpha op(a) x + beta y with a m x n.
    virtual void gemv(const Queue& queue, DType::Kind kind, Op op_a, std::size_t m, std::size_t n, Scalar alpha,
                      const Matrix& a, const Vector& x, Scalar beta, const Vector& y) = 0;
    /// a += alpha x y^T with a m x n.
    virtual void ger(const Queue& queue, DType::Kind kind, std::size_t m, std::size_t n, Scalar alpha, const Vector& x,
                     const Vector& y, const Matrix& a) = 0;
    /// result[0] = sum conj?(x) y, written on the device.
    virtual void dot(const Queue& queue, DType::Kind kind, bool conjugate_x, std::size_t n, const Vector& x,
                     const Vector& y, const Memory& result) = 0;
};

/// The vendor library of the queue's API, loaded on first use. UnsupportedError naming the
/// library when it cannot be loaded, or for an API without one.
Vendor& vendor_for(const Queue& queue);

/// The library of each API (defined in cublas.cpp / clblast.cpp).
Vendor& cublas_vendor();
Vendor& clblast_vendor();

/// A human name for messages ("float32").
inline std::string kind_name(DType::Kind kind) { return DType(kind).name(); }

}  // namespace kjarni::blas::detail
