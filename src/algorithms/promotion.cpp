#include "algorithms/promotion.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "dtype/numpy_promotion.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

using K = DType::Kind;

enum class Category { boolean, unsigned_integer, signed_integer, floating, complex };

Category category(const DType& d) {
    switch (d.kind()) {
    case K::bool_: return Category::boolean;
    case K::uint8:
    case K::uint16:
    case K::uint32:
    case K::uint64: return Category::unsigned_integer;
    case K::int8:
    case K::int16:
    case K::int32:
    case K::int64: return Category::signed_integer;
    case K::float16:
    case K::float32:
    case K::float64: return Category::floating;
    case K::complex64:
    case K::complex128: return Category::complex;
    case K::struct_: break;
    }
    throw ArgumentError("dtype", fmt::format("{} takes no part in arithmetic", d.name()));
}

DType signed_of_size(std::size_t bytes) {
    switch (bytes) {
    case 1: return dtypes::int8;
    case 2: return dtypes::int16;
    case 4: return dtypes::int32;
    default: return dtypes::int64;
    }
}

DType unsigned_of_size(std::size_t bytes) {
    switch (bytes) {
    case 1: return dtypes::uint8;
    case 2: return dtypes::uint16;
    case 4: return dtypes::uint32;
    default: return dtypes::uint64;
    }
}

DType float_of_size(std::size_t bytes) {
    return bytes <= 2 ? DType(dtypes::float16) : bytes == 4 ? DType(dtypes::float32) : DType(dtypes::float64);
}

DType complex_of_float(const DType& f) {
    return f.itemsize() <= 4 ? DType(dtypes::complex64) : DType(dtypes::complex128);
}

}  // namespace

DType dot_accumulator(const DType& result) {
    switch (category(result)) {
    case Category::boolean:
    case Category::signed_integer: return dtypes::int64;
    case Category::unsigned_integer: return dtypes::uint64;
    case Category::floating: return result.kind() == DType::Kind::float16 ? DType(dtypes::float32) : result;
    case Category::complex: return result;
    }
    return result;
}

DType float_type_for(const DType& dtype) {
    switch (category(dtype)) {
    case Category::boolean: return dtypes::float16;
    case Category::unsigned_integer:
    case Category::signed_integer:
        return dtype.itemsize() == 1   ? DType(dtypes::float16)
               : dtype.itemsize() == 2 ? DType(dtypes::float32)
                                       : DType(dtypes::float64);
    case Category::floating:
    case Category::complex: return dtype;
    }
    return dtype;
}

DType promote_types(const DType& a, const DType& b) {
    if (a == b) {
        category(a);  // refuses structs
        return a;
    }
    Category ca = category(a);
    Category cb = category(b);
    const DType* x = &a;
    const DType* y = &b;
    if (ca > cb) {
        std::swap(ca, cb);
        std::swap(x, y);
    }
    // Now x's category is the lower one.
    switch (cb) {
    case Category::boolean: return *y;
    case Category::unsigned_integer:
        if (ca == Category::boolean) return *y;
        return unsigned_of_size(std::max(x->itemsize(), y->itemsize()));
    case Category::signed_integer:
        if (ca == Category::boolean) return *y;
        if (ca == Category::signed_integer) return signed_of_size(std::max(x->itemsize(), y->itemsize()));
        // unsigned x with signed y: a signed type wider than x, or float64 past 64 bits.
        if (x->itemsize() < y->itemsize()) return *y;
        if (x->itemsize() == 8) return dtypes::float64;
        return signed_of_size(x->itemsize() * 2);
    case Category::floating: {
        const DType fx = ca == Category::floating  ? *x
                         : ca == Category::boolean ? DType(dtypes::float16)
                                                   : float_type_for(*x);
        return float_of_size(std::max(fx.itemsize(), y->itemsize()));
    }
    case Category::complex: {
        if (ca == Category::complex)
            return std::max(x->itemsize(), y->itemsize()) == 8 ? DType(dtypes::complex64) : DType(dtypes::complex128);
        const DType fx = ca == Category::floating  ? *x
                         : ca == Category::boolean ? DType(dtypes::float16)
                                                   : float_type_for(*x);
        const DType fy = real_for(*y);
        return complex_of_float(float_of_size(std::max(fx.itemsize(), fy.itemsize())));
    }
    }
    return *y;
}

DType promote_types_sequence(std::span<const DType> dtypes) {
    if (dtypes.empty()) throw ArgumentError("dtypes", "no dtypes to promote");
    for (const DType& d : dtypes) (void)category(d);  // ArgumentError for a struct
    return numpy_result_type(dtypes);
}

DType default_dtype(WeakKind weak) {
    switch (weak) {
    case WeakKind::boolean: return dtypes::bool_;
    case WeakKind::integer: return dtypes::int64;
    case WeakKind::floating: return dtypes::float64;
    case WeakKind::complex: return dtypes::complex128;
    }
    return dtypes::float64;
}

DType promote_weak(const DType& array_dtype, WeakKind weak) {
    const Category c = category(array_dtype);
    switch (weak) {
    case WeakKind::boolean: return promote_types(array_dtype, dtypes::bool_);
    case WeakKind::integer: return c == Category::boolean ? DType(dtypes::int64) : array_dtype;
    case WeakKind::floating:
        return c == Category::floating || c == Category::complex ? array_dtype : DType(dtypes::float64);
    case WeakKind::complex:
        if (c == Category::complex) return array_dtype;
        if (c == Category::floating) return complex_of_float(array_dtype);
        return dtypes::complex128;
    }
    return array_dtype;
}

}  // namespace kjarni::detail
