// pygpu's type codes (libgpuarray's GA_* numbers, which are numpy's type numbers on Linux x86-64).

#include <array>
#include <string>
#include <utility>

#include "kjarni/dtype.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace {

// GA_BOOL .. GA_CDOUBLE and GA_HALF; GA_LONGDOUBLE (13) and GA_CLONGDOUBLE (16) have no kjarni dtype.
constexpr std::array<std::pair<DType::Kind, int>, 14> typecodes{{
    {DType::Kind::bool_, 0},
    {DType::Kind::int8, 1},
    {DType::Kind::uint8, 2},
    {DType::Kind::int16, 3},
    {DType::Kind::uint16, 4},
    {DType::Kind::int32, 5},
    {DType::Kind::uint32, 6},
    {DType::Kind::int64, 7},
    {DType::Kind::uint64, 8},
    {DType::Kind::float32, 11},
    {DType::Kind::float64, 12},
    {DType::Kind::complex64, 14},
    {DType::Kind::complex128, 15},
    {DType::Kind::float16, 23},
}};

}  // namespace

int dtype_to_typecode(const DType& dtype) {
    for (const auto& [kind, code] : typecodes) {
        if (dtype == DType(kind)) return code;
    }
    throw ArgumentError("dtype", dtype.name() + " has no typecode (struct dtypes are named with register_dtype)");
}

DType typecode_to_dtype(int typecode) {
    for (const auto& [kind, code] : typecodes) {
        if (code == typecode) return DType(kind);
    }
    throw ArgumentError("typecode", std::to_string(typecode) + " is no typecode of a kjarni dtype");
}

}  // namespace kjarni
