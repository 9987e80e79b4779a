#pragma once
/// The words of a BLAS call that are not arrays (kjarni/blas.hpp has the calls): shared by the public
/// layer and the vendor libraries behind it. \file

#include <complex>

namespace kjarni::blas {

/// The operation applied to a matrix operand.
enum class Op {
    none,       // A
    transpose,  // A^T
    adjoint,    // A^H, the conjugate transpose (the same as transpose for real dtypes)
};

/// A scalar factor; for real dtypes the imaginary part must be zero (ArgumentError otherwise).
using Scalar = std::complex<double>;

}  // namespace kjarni::blas
