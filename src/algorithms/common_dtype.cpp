// pygpu's get_common_dtype: numpy's promotion, demoted to single precision where doubles are not allowed.

#include "algorithms/promotion.hpp"
#include "kjarni/device_specifier.hpp"
#include "kjarni/expression.hpp"

namespace kjarni {

namespace {

DType without_double(const DType& dtype, bool allow_double) {
    if (allow_double) return dtype;
    if (dtype == DType(dtypes::float64)) return dtypes::float32;
    if (dtype == DType(dtypes::complex128)) return dtypes::complex64;
    return dtype;
}

}  // namespace

DType get_common_dtype(const DType& a, const DType& b, bool allow_double) {
    return without_double(detail::promote_types(a, b), allow_double);
}

DType get_common_dtype(const Expr& a, const Expr& b, bool allow_double) {
    return without_double((a + b).dtype(), allow_double);
}

DType get_common_dtype(const DType& a, const DType& b, const Device& device) {
    return get_common_dtype(a, b, have_double(device));
}

DType get_common_dtype(const Expr& a, const Expr& b, const Device& device) {
    return get_common_dtype(a, b, have_double(device));
}

}  // namespace kjarni
