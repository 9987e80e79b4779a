#include "algorithms/reduction_out.hpp"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/promotion.hpp"
#include "algorithms/reduction_types.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/fusion.hpp"

namespace kjarni::detail {

using Kind = DType::Kind;

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

Array into_out(const Queue& queue, const ReduceOptions& options, const DType& result, const char* what,
               const Reduce& reduce, const std::optional<DType>& loop) {
    if (!options.out || options.out->dtype() == result) return reduce(options);
    ReduceOptions temporary = options;
    temporary.out.reset();
    Array value = reduce(temporary);
    if (loop && !(*loop == result) && !(*loop == options.out->dtype())) value = value.astype(queue, *loop);
    convert_into_out(queue, value, *options.out, what);
    return *options.out;
}

Array extremum_into_out(const Queue& queue, const Array& array, const ReduceOptions& options, const char* what,
                        const ArrayReduce& reduce) {
    const auto plain = [&](const ReduceOptions& o) { return reduce(array, o); };
    if (!options.out || options.out->dtype() == array.dtype()) return plain(options);
    const Array& out = *options.out;
    const DType loop = promote_types(out.dtype(), array.dtype());
    // An empty reduction is the reduction's error.
    if (promote_types(array.dtype(), out.dtype()) == out.dtype() || array.size() == 0)
        return into_out(queue, options, array.dtype(), what, plain, loop);
    // Index 0 along the reduced axes (kept with extent 1 under keepdims), the others whole.
    const std::vector<bool> reduced = reduced_axes(options.axes, array.ndim(), what);
    std::vector<Index> first_index;
    for (const bool r : reduced) {
        if (!r) first_index.emplace_back(Slice{});
        else if (options.keepdims) first_index.emplace_back(Slice{0, 1});
        else first_index.emplace_back(0);
    }
    const Array first = array.index(first_index);
    if (out.shape() != first.shape())  // the usual error naming out
        return into_out(queue, options, array.dtype(), what, plain, loop);
    check_device(queue, out, "out");
    out.require_writeable("out");
    // The loop runs over a copy of the array in the loop's dtype whose first elements are their
    // values cast into out's dtype; out is written last (it may share memory with the array).
    const Array compared = array.astype(queue, loop);
    fill(queue, compared.index(first_index), Expr(first.astype(queue, out.dtype())));
    ReduceOptions into_loop = options;
    into_loop.out.reset();
    convert_into_out(queue, reduce(compared, into_loop), out, what);
    return out;
}

void check_index_out(const ReduceOptions& options, const char* what) {
    if (!options.out) return;
    const Kind k = options.out->dtype().kind();
    const bool takes = k == Kind::bool_ || k == Kind::int8 || k == Kind::uint8 || k == Kind::int16 ||
                       k == Kind::uint16 || k == Kind::int32 || k == Kind::uint32 || k == Kind::int64;
    if (!takes)
        throw ArgumentTypeError("out", fmt::format("{}: has dtype {}; indices go into bool or an integer type that "
                                                   "converts to int64 safely (numpy's rule)",
                                                   what, options.out->dtype().name()));
}

Array count_not_nan(const Queue& queue, const Array& array, const ReduceOptions& options) {
    ReduceOptions counted = options;
    counted.out.reset();
    return sum(queue, logical_not(isnan(Expr(array))), counted, DType(Kind::int64));
}

}  // namespace kjarni::detail
