#include "algorithms/reduction_out.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/promotion.hpp"
#include "algorithms/reduction_types.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"

namespace kjarni::detail {

std::optional<DType> accumulation_for_out(const DType& array, const DType& out) {
    const DType loop = promote_types(out, array);
    if (loop.kind() == DType::Kind::bool_) return std::nullopt;
    return loop;
}

void convert_into_out(const Queue& queue, const Array& result, const Array& out, const char* what) {
    check_device(queue, out, "out");
    out.require_writeable("out");
    if (out.shape() != result.shape())
        throw ArgumentError("out", fmt::format("{}: has shape ({}), the result has shape ({})", what,
                                               fmt::join(out.shape(), ", "), fmt::join(result.shape(), ", ")));
    // fill converts whatever the kinds, as astype does (complex to real drops the imaginary part;
    // float to integer gives numpy's x86-64 results).
    fill(queue, out, Expr(result));
}

}  // namespace kjarni::detail
