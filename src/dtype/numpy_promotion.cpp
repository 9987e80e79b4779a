// numpy's promotion of scalar dtypes: the pairwise table and numpy's algorithm for several dtypes.

#include "dtype/numpy_promotion.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

DType integer_of(bool is_signed_, std::size_t size) {
    switch (size) {
    case 1: return is_signed_ ? dtypes::int8 : dtypes::uint8;
    case 2: return is_signed_ ? dtypes::int16 : dtypes::uint16;
    case 4: return is_signed_ ? dtypes::int32 : dtypes::uint32;
    default: return is_signed_ ? dtypes::int64 : dtypes::uint64;
    }
}

DType floating_of(std::size_t size) {
    return size <= 2 ? DType(dtypes::float16) : size <= 4 ? DType(dtypes::float32) : DType(dtypes::float64);
}

// numpy's __common_dtype__ of two builtin DType classes: the one of the larger type number decides
// (float16's, 23, is the largest); nullopt is its NotImplemented, the other's turn.
std::optional<DType> class_common_dtype(const DType& a, const DType& b) {
    if (a == b) return a;
    if (dtype_to_typecode(b) > dtype_to_typecode(a)) return std::nullopt;
    return numpy_promote_types(a, b);
}

// numpy's reduce_dtypes_to_most_knowledgeable over the first n entries: pairs from both ends, the
// more knowledgeable moved to the front, entries that cannot change the result cleared; the last
// pair's common DType (nullopt: NotImplemented).
std::optional<DType> most_knowledgeable(std::vector<std::optional<DType>>& d, std::size_t n) {
    const std::size_t half = n / 2;
    std::optional<DType> res;
    for (std::size_t low = 0; low < half; ++low) {
        const std::size_t high = n - 1 - low;
        res = *d[high] == *d[low] ? d[low] : class_common_dtype(*d[low], *d[high]);
        if (!res) std::swap(d[low], d[high]);
        else if (*res == *d[low]) d[high].reset();
    }
    if (n == 2) return res;
    return most_knowledgeable(d, n - half);
}

}  // namespace

DType numpy_promote_types(const DType& a, const DType& b) {
    if (a.kind() == DType::Kind::bool_) return b;
    if (b.kind() == DType::Kind::bool_) return a;
    const bool ai = is_integer(a), bi = is_integer(b);
    if (ai && bi) {
        const bool as = is_signed(a), bs = is_signed(b);
        if (as == bs) return integer_of(as, std::max(a.itemsize(), b.itemsize()));
        const DType& s = as ? a : b;
        const DType& u = as ? b : a;
        if (u.itemsize() < s.itemsize()) return s;
        if (u.itemsize() == 8) return dtypes::float64;
        return integer_of(true, u.itemsize() * 2);
    }
    // The float size that holds an integer: 1 byte -> float16, 2 -> float32, 4 and 8 -> float64.
    auto float_size_for = [](const DType& d) -> std::size_t {
        if (is_integer(d)) return d.itemsize() == 1 ? 2 : d.itemsize() == 2 ? 4 : 8;
        return is_complex(d) ? d.itemsize() / 2 : d.itemsize();
    };
    const std::size_t size = std::max(float_size_for(a), float_size_for(b));
    if (is_complex(a) || is_complex(b)) return size <= 4 ? DType(dtypes::complex64) : DType(dtypes::complex128);
    return floating_of(size);
}

DType numpy_result_type(std::span<const DType> dtypes_) {
    if (dtypes_.empty()) throw ArgumentError("dtypes", "result_type needs at least one dtype");
    for (const DType& d : dtypes_)
        if (d.is_struct()) throw ArgumentError("dtypes", fmt::format("{} takes no part in promotion", d.name()));
    if (dtypes_.size() == 1) return dtypes_[0];
    std::vector<std::optional<DType>> d(dtypes_.begin(), dtypes_.end());
    std::optional<DType> result = most_knowledgeable(d, d.size());
    // d[0] is the main DType: every other one promoted with it, the results with each other.
    const DType main = *d[0];
    for (std::size_t i = result ? 2 : 1; i < d.size(); ++i) {
        if (!d[i]) continue;
        const DType promotion = class_common_dtype(main, *d[i]).value_or(numpy_promote_types(main, *d[i]));
        result = result ? numpy_promote_types(*result, promotion) : promotion;
    }
    return *result;
}

}  // namespace kjarni::detail
