// copy_if, boolean and integer-array indexing, nonzero, argwhere, count_nonzero: compactions
// (compaction.cpp) and a scatter kernel for assignment.

#include "kjarni/selection.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/compaction.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/reduction_types.hpp"
#include "array/axis.hpp"
#include "kjarni/array_operations.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/program.hpp"
#include "kjarni/reduction.hpp"

namespace kjarni {

using detail::KernelArg;
using detail::LaunchTarget;
using Kind = DType::Kind;

namespace {

std::size_t product(const std::vector<std::size_t>& shape, std::size_t from = 0, std::size_t to = SIZE_MAX) {
    to = std::min(to, shape.size());
    std::size_t p = 1;
    for (std::size_t k = from; k < to; ++k) p *= shape[k];
    return p;
}

/// The array flattened in C order, as a contiguous 1-d array (a temporary copy when needed).
Array flat(const Queue& queue, const Array& array) { return detail::contiguous_temporary(queue, array).reshape({-1}); }

void check_mask(const Array& array, const Array& mask, const char* what) {
    if (mask.dtype().kind() != Kind::bool_)
        throw ArgumentError("mask", fmt::format("{}: has dtype {}, a boolean index must be bool (integer arrays index "
                                                "through integer_index)",
                                                what, mask.dtype().name()));
    if (!(mask.device() == array.device()))
        throw ArgumentError("mask", fmt::format("{}: is on another device than the array", what));
    bool fits = mask.ndim() <= array.ndim();
    for (std::size_t k = 0; fits && k < mask.ndim(); ++k) fits = mask.shape()[k] == array.shape()[k];
    if (!fits)
        throw IndexOutOfBoundsError("mask",
                                    fmt::format("{}: has shape ({}), which is not the shape of the leading axes "
                                                "of the array's ({})",
                                                what, fmt::join(mask.shape(), ", "), fmt::join(array.shape(), ", ")));
}

/// The flat positions (int64, C order) of the non-zero elements of `array`, and their count (read
/// back): positions[:count] are valid.
std::pair<Array, std::size_t> nonzero_positions(const Queue& queue, const Array& array) {
    const Array x = flat(queue, array);
    const std::size_t n = x.size();
    const Array positions = Array::empty(queue.device(), {std::max<std::size_t>(n, 1)}, DType(Kind::int64));
    const Array count = detail::compaction_count(queue);
    detail::Compaction c;
    c.name = "nonzero";
    c.arguments = fmt::format("const {}* x, int64_t* positions", detail::c_type_name(array.dtype()));
    c.condition = detail::nonzero_condition(array.dtype(), "x");
    c.write = "positions[rank] = (int64_t)i;";
    if (n > 0) detail::run_compaction(queue, c, {x, positions[{Slice{0, static_cast<std::ptrdiff_t>(n)}}]}, n, count);
    return {positions, detail::read_count(queue, count)};
}

Array first(const Array& array, std::size_t count) { return array[{Slice{0, static_cast<std::ptrdiff_t>(count)}}]; }

/// Calls `work` with a C-contiguous array of `shape` whose elements are `array`'s in C order and
/// whose writes reach `array`: a view where one exists, else a temporary copy written back.
void with_contiguous(const Queue& queue, const Array& array, const std::vector<std::size_t>& shape,
                     const std::function<void(const Array&)>& work) {
    std::vector<std::ptrdiff_t> s(shape.begin(), shape.end());
    if (array.is_c_contiguous()) {
        work(array.reshape(std::span<const std::ptrdiff_t>(s)));
        return;
    }
    const Array copy =
        Array::empty(queue.device(), array.shape(), array.dtype(), std::nullopt, 0, detail::temporary_allocator(queue));
    copy.set(queue, array, true);
    work(copy.reshape(std::span<const std::ptrdiff_t>(s)));
    array.set(queue, copy);
}

/// ArgumentError unless an array of `given` shape broadcasts to `shape` by numpy's rule for
/// assignment through an index array: axes aligned at the end, extent-1 axes stretch; axes beyond
/// the selection's are dropped where that leaves the number of elements as it is (extent-1 ones,
/// or any in front of an empty rest: numpy takes values of (2, 0) for a selection of (0,)).
void check_broadcast(const std::vector<std::size_t>& given, const std::vector<std::size_t>& shape) {
    bool fits = true;
    if (given.size() > shape.size()) {
        const std::size_t leading = given.size() - shape.size();
        std::size_t lead = 1, rest = 1;
        for (std::size_t k = 0; k < given.size(); ++k) (k < leading ? lead : rest) *= given[k];
        fits = lead == 1 || rest == 0;
    }
    for (std::size_t k = 0; k < std::min(given.size(), shape.size()); ++k) {
        const std::size_t g = given[given.size() - 1 - k], s = shape[shape.size() - 1 - k];
        fits = fits && (g == s || g == 1);
    }
    if (!fits)
        throw ArgumentError("values", fmt::format("have shape ({}), which does not broadcast to the selection's ({})",
                                                  fmt::join(given, ", "), fmt::join(shape, ", ")));
}

/// What can be checked of array values before anything runs: their device, and that their dtype
/// converts to the array's (complex into a real array is refused, where numpy drops the imaginary
/// part with a ComplexWarning).
void check_value_array(const Queue& queue, const Operand& values, const DType& dtype) {
    if (!values.is_array()) return;
    const Array& given = values.array();
    if (!(given.device() == queue.device())) throw ArgumentError("values", "is on another device than the array");
    if (is_complex(given.dtype()) && !is_complex(dtype))
        throw ArgumentError("values", fmt::format("has dtype {}: complex values cannot be assigned to a {} array",
                                                  given.dtype().name(), dtype.name()));
}

/// numpy's rule for a mask over every axis of the array (its boolean assignment, which does not
/// broadcast): values 0-d, or 1-d of one element or of `count` (the true elements; nullopt while
/// not counted yet, when only the number of axes is checked). numpy's TypeError and ValueError.
void check_whole_mask_values(const Operand& values, std::optional<std::size_t> count) {
    if (!values.is_array()) return;
    const Array& given = values.array();
    if (given.ndim() > 1)
        throw ArgumentError("values", fmt::format("have shape ({}): assignment through a mask over every axis takes "
                                                  "0-d or 1-d values (numpy raises TypeError)",
                                                  fmt::join(given.shape(), ", ")));
    if (count && given.ndim() == 1 && given.size() != 1 && given.size() != *count)
        throw ArgumentError("values", fmt::format("cannot assign {} values to the {} elements where the mask is true",
                                                  given.size(), *count));
}

/// `values` (scalar or array) as an array of the dtype broadcast to `shape` (a view with stride-0
/// axes; ArgumentError, before anything is launched, when it does not broadcast).
Array broadcast_values(const Queue& queue, const Operand& values, const DType& dtype,
                       const std::vector<std::size_t>& shape) {
    check_value_array(queue, values, dtype);
    if (values.is_array()) check_broadcast(values.array().shape(), shape);
    const Array v = [&] {
        if (!values.is_array()) {
            const auto bytes = values.converted(dtype);
            HostArray h(dtype, {1});
            std::memcpy(h.data(), bytes.data(), dtype.itemsize());
            return Array::from_host(queue, h);
        }
        const Array& given = values.array();
        if (given.dtype() == dtype) return given;
        const Array converted =
            Array::empty(queue.device(), given.shape(), dtype, std::nullopt, 0, detail::temporary_allocator(queue));
        fill(queue, converted, astype(Expr(given), dtype));
        return converted;
    }();
    // Stride-0 axes where the values stretch (check_broadcast has vouched for the shapes).
    Layout layout;
    layout.offset = v.offset();
    layout.shape = shape;
    layout.strides.assign(shape.size(), 0);
    for (std::size_t k = 0; k < std::min(v.ndim(), shape.size()); ++k) {
        const std::size_t vk = v.ndim() - 1 - k, sk = shape.size() - 1 - k;
        if (v.shape()[vk] == shape[sk]) layout.strides[sk] = v.strides()[vk];
    }
    return Array::from_buffer(v.base(), dtype, layout);
}

/// The unsigned C type elements move in (the widest of 8, 4, 2, 1 bytes dividing the itemsize).
std::size_t move_unit(std::size_t itemsize) {
    for (const std::size_t u : {std::size_t{8}, std::size_t{4}, std::size_t{2}})
        if (itemsize % u == 0) return u;
    return 1;
}

/// target[positions[f] (from the end when negative), r] = values[f, r] for f < positions.size() and r
/// < the row size, target being C-contiguous (rows of `row` elements) and values C-contiguous of
/// (positions.size(), row) elements. `positions` int64, contiguous, already checked in range. Where
/// a position repeats, the last f holding it writes (numpy's result): a first kernel keeps the
/// largest f per target row (atomic_max), the second writes only the rows' owners.
void scatter_rows(const Queue& queue, const Array& target, const Array& positions, const Array& values,
                  std::size_t extent, std::size_t row) {
    const std::size_t m = positions.size();
    const std::size_t itemsize = target.dtype().itemsize();
    const std::size_t unit = move_unit(itemsize);
    const std::size_t units = itemsize / unit;
    const std::size_t total = m * row * units;
    if (total == 0) return;
    if (m >= (std::size_t{1} << 31))
        throw UnsupportedError(fmt::format("assignment through {} indices: at most 2^31 - 1 are supported", m));
    const char* u = unit == 8 ? "uint64_t" : unit == 4 ? "uint32_t" : unit == 2 ? "uint16_t" : "uint8_t";
    const std::string source = fmt::format(R"({0}
#ifdef KJARNI_CUDA_API
#define KJARNI_ATOMIC_MAX(p, v) atomicMax((int*)(p), (v))
#else
#define KJARNI_ATOMIC_MAX(p, v) atomic_max((volatile GLOBAL_MEM int*)(p), (v))
#endif
KERNEL void kjarni_scatter_owners(GLOBAL_MEM int32_t* owner, GLOBAL_MEM const int64_t* positions, int64_t positions_offset,
    int64_t extent, int64_t m)
{{
    for (int64_t f = (int64_t)get_global_id(0); f < m; f += (int64_t)get_global_size(0)) {{
        int64_t t = positions[positions_offset + f];
        if (t < 0) t += extent;
        KJARNI_ATOMIC_MAX(owner + t, (int)f);
    }}
}}
KERNEL void kjarni_scatter_rows(GLOBAL_MEM {1}* target, int64_t target_offset, GLOBAL_MEM const int64_t* positions,
    int64_t positions_offset, GLOBAL_MEM const {1}* values, int64_t values_offset, int64_t extent, int64_t row,
    int64_t units, int64_t total, GLOBAL_MEM const int32_t* owner)
{{
    for (int64_t g = (int64_t)get_global_id(0); g < total; g += (int64_t)get_global_size(0)) {{
        const int64_t e = g / units, c = g % units;
        const int64_t f = e / row, r = e % row;
        int64_t t = positions[positions_offset + f];
        if (t < 0) t += extent;
        if ((int64_t)owner[t] != f) continue;
        target[target_offset + (t * row + r) * units + c] = values[values_offset + g];
    }}
}}
)",
                                           detail::algorithm_helpers(), u);
    const detail::GeneratedKernel owners =
        detail::generated_kernel(queue.device(), source, "kjarni_scatter_owners", [&] { return source; });
    const detail::GeneratedKernel kernel =
        detail::generated_kernel(queue.device(), source, "kjarni_scatter_rows", [&] { return source; });
    const auto offset = [&](const Array& a) {
        return static_cast<std::int64_t>((a.base().offset() + a.offset()) / unit);
    };
    // Every owner -1 (all bits set) to start with.
    const Buffer owner = detail::temporary_buffer(queue, std::max<std::size_t>(extent, 1) * 4);
    const std::byte ones[4] = {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}};
    owner.get_sub_region(0, std::max<std::size_t>(extent, 1) * 4).fill(queue, ones, true);
    const auto positions_offset = static_cast<std::int64_t>(detail::element_offset(positions, "indices"));
    {
        const KernelArg args[] = {detail::pack(owner, LaunchTarget{}), detail::whole_allocation(positions),
                                  detail::pack(positions_offset, LaunchTarget{}),
                                  detail::pack(static_cast<std::int64_t>(extent), LaunchTarget{}),
                                  detail::pack(static_cast<std::int64_t>(m), LaunchTarget{})};
        const detail::Grid grid = detail::grid_for(owners, m);
        const std::size_t global[1] = {grid.global};
        const std::size_t local[1] = {grid.local};
        detail::launch(queue, owners, global, local, args);
    }
    const KernelArg args[] = {detail::whole_allocation(target),
                              detail::pack(offset(target), LaunchTarget{}),
                              detail::whole_allocation(positions),
                              detail::pack(positions_offset, LaunchTarget{}),
                              detail::whole_allocation(values),
                              detail::pack(offset(values), LaunchTarget{}),
                              detail::pack(static_cast<std::int64_t>(extent), LaunchTarget{}),
                              detail::pack(static_cast<std::int64_t>(row), LaunchTarget{}),
                              detail::pack(static_cast<std::int64_t>(units), LaunchTarget{}),
                              detail::pack(static_cast<std::int64_t>(total), LaunchTarget{}),
                              detail::pack(owner, LaunchTarget{})};
    const detail::Grid grid = detail::grid_for(kernel, total);
    const std::size_t global[1] = {grid.global};
    const std::size_t local[1] = {grid.local};
    detail::launch(queue, kernel, global, local, args);
}

/// ArgumentError unless every index lies in [-extent, extent) (one read of the extremes).
void check_index_range(const Queue& queue, const Array& indices, std::size_t extent, std::size_t axis) {
    if (indices.size() == 0) return;
    const auto at = [&](const Array& a) {
        std::int64_t v = 0;
        a.astype(queue, DType(Kind::int64)).get(queue, std::span<std::int64_t>(&v, 1));
        return v;
    };
    const std::int64_t low = at(min(queue, indices)), high = at(max(queue, indices));
    const auto e = static_cast<std::int64_t>(extent);
    if (indices.dtype().kind() == Kind::uint64) {
        std::uint64_t h = 0;
        max(queue, indices).get(queue, std::span<std::uint64_t>(&h, 1));
        if (h >= extent)
            throw IndexOutOfBoundsError("indices", fmt::format("index {} is out of bounds for axis {} with size {}", h,
                                                               axis, extent));
        return;
    }
    for (const std::int64_t v : {low, high})
        if (v < -e || v >= e)
            throw IndexOutOfBoundsError("indices", fmt::format("index {} is out of bounds for axis {} with size {}", v,
                                                               axis, extent));
}

void check_indices(const Queue& queue, const Array& array, const Array& indices) {
    if (indices.dtype().kind() == Kind::bool_)
        throw ArgumentError("indices", "are bool: boolean masks index through boolean_index");
    if (!is_integer(indices.dtype()))
        throw ArgumentError("indices", fmt::format("have dtype {}: arrays used as indices must be of an integer dtype",
                                                   indices.dtype().name()));
    detail::check_device(queue, array, "array");
    detail::check_device(queue, indices, "indices");
    if (array.ndim() == 0) throw ArgumentError("array", "is 0-d: there is no axis to index");
}

}  // namespace

CopyIfResult copy_if(const Queue& queue, const Array& array, const std::string& predicate,
                     const std::string& extra_arguments, const std::vector<Operand>& extra, const std::string& preamble,
                     const Allocator& allocator) {
    detail::check_device(queue, array, "array");
    if (array.dtype().is_struct()) throw ArgumentError("array", "copy_if: struct arrays are not supported");
    const Array x = flat(queue, array);
    const std::size_t n = x.size();
    CopyIfResult result{Array::empty(queue.device(), {n}, array.dtype(), std::nullopt, 0, allocator),
                        detail::compaction_count(queue)};
    detail::Compaction c;
    c.name = "copy_if";
    const std::string t = detail::c_type_name(array.dtype());
    c.arguments = fmt::format("const {0}* ary, {0}* out", t) + (extra_arguments.empty() ? "" : ", " + extra_arguments);
    c.condition = predicate;
    c.write = "out[rank] = ary[i];";
    c.preamble = preamble;
    std::vector<Operand> operands{x, result.out};
    operands.insert(operands.end(), extra.begin(), extra.end());
    detail::run_compaction(queue, c, operands, n, result.count);
    return result;
}

Array boolean_index(const Queue& queue, const Array& array, const Array& mask, const Allocator& allocator) {
    detail::check_device(queue, array, "array");
    check_mask(array, mask, "boolean_index");
    std::vector<std::size_t> rest(array.shape().begin() + static_cast<std::ptrdiff_t>(mask.ndim()),
                                  array.shape().end());
    if (mask.ndim() == 0) {
        const bool on = mask.get(queue).data()[0] != std::byte{0};
        std::vector<std::size_t> shape{on ? 1u : 0u};
        shape.insert(shape.end(), rest.begin(), rest.end());
        const Array out = Array::empty(queue.device(), shape, array.dtype(), std::nullopt, 0, allocator);
        if (on && array.size() > 0)
            out.reshape(std::vector<std::ptrdiff_t>(array.shape().begin(), array.shape().end())).set(queue, array);
        return out;
    }
    if (mask.ndim() == array.ndim()) {
        const Array m = flat(queue, mask);
        const Array x = flat(queue, array);
        const std::size_t n = x.size();
        const Array out =
            Array::empty(queue.device(), {std::max<std::size_t>(n, 1)}, array.dtype(), std::nullopt, 0, allocator);
        const Array count = detail::compaction_count(queue);
        // Elements move as unsigned integers of their size: one kernel per size, not per dtype.
        const std::size_t size = array.dtype().itemsize();
        const DType moved = size == 1   ? DType(Kind::uint8)
                            : size == 2 ? DType(Kind::uint16)
                            : size == 4 ? DType(Kind::uint32)
                            : size == 8 ? DType(Kind::uint64)
                                        : array.dtype();
        detail::Compaction c;
        c.name = "boolean_index";
        const std::string t = detail::c_type_name(moved);
        c.arguments = fmt::format("const {0}* x, const bool* mask, {0}* out", t);
        c.condition = "mask[i] != 0";
        c.write = "out[rank] = x[i];";
        if (n > 0) detail::run_compaction(queue, c, {x.view(moved), m, first(out, n).view(moved)}, n, count);
        return first(out, detail::read_count(queue, count));
    }
    const auto [positions, count] = nonzero_positions(queue, mask);
    // The mask's elements as the rows (not -1: an array with no element past the mask's axes, (2, 0)
    // under a mask of 2, leaves nothing to infer it from).
    std::vector<std::ptrdiff_t> rows{static_cast<std::ptrdiff_t>(mask.size())};
    rows.insert(rows.end(), rest.begin(), rest.end());
    return take(queue, reshape(queue, array, std::span<const std::ptrdiff_t>(rows)), first(positions, count), 0,
                TakeMode::raise, allocator);
}

void boolean_index_assign(const Queue& queue, const Array& array, const Array& mask, const Operand& value) {
    array.require_writeable("array");
    detail::check_device(queue, array, "array");
    check_mask(array, mask, "boolean_index_assign");
    // numpy checks the value against the selection even when nothing is selected: everything the
    // shapes decide is checked before anything is launched (numpy_index_assign.txt).
    check_value_array(queue, value, array.dtype());
    const bool whole = mask.ndim() == array.ndim();  // numpy's boolean assignment, which does not broadcast
    if (whole) check_whole_mask_values(value, std::nullopt);
    std::vector<std::size_t> rest(array.shape().begin() + static_cast<std::ptrdiff_t>(mask.ndim()),
                                  array.shape().end());
    if (!whole && value.is_array()) {
        // The selection's leading extent (the count) is not known yet: the value's own stands in.
        const Array& given = value.array();
        std::vector<std::size_t> any_count{rest.size() < given.ndim() ? given.shape()[given.ndim() - rest.size() - 1]
                                                                      : 1};
        any_count.insert(any_count.end(), rest.begin(), rest.end());
        check_broadcast(given.shape(), any_count);
    }
    if (!value.is_array()) {
        // A scalar: where(mask, value, array) in place, the mask broadcast over the remaining axes.
        std::vector<std::ptrdiff_t> shape(mask.shape().begin(), mask.shape().end());
        shape.resize(array.ndim(), 1);
        const Array m = mask.reshape(std::span<const std::ptrdiff_t>(shape));
        const Array v = broadcast_values(queue, value, array.dtype(), {});
        if (array.size() == 0) return;
        assign(queue, array, where(Expr(m), Expr(v), Expr(array)));
        queue.synchronize();  // v is a device copy of the scalar
        return;
    }
    if (mask.ndim() == 0) {
        const bool on = mask.get(queue).data()[0] != std::byte{0};
        std::vector<std::size_t> shape{on ? 1u : 0u};
        shape.insert(shape.end(), array.shape().begin(), array.shape().end());
        if (whole) check_whole_mask_values(value, shape[0]);
        else check_broadcast(value.array().shape(), shape);
        if (!on || array.size() == 0) return;
        const Array v = broadcast_values(queue, value, array.dtype(), shape);
        array.set(queue, detail::contiguous_temporary(queue, v).reshape(
                             std::vector<std::ptrdiff_t>(array.shape().begin(), array.shape().end())));
        return;
    }
    // An empty mask selects nothing: known without counting.
    // (Named, not a structured binding: the lambda below captures them, which clang 14 refuses.)
    const std::pair<Array, std::size_t> found =
        mask.size() == 0 ? std::pair<Array, std::size_t>{mask, 0} : nonzero_positions(queue, mask);
    const Array& positions = found.first;
    const std::size_t count = found.second;
    std::vector<std::size_t> selection{count};
    selection.insert(selection.end(), rest.begin(), rest.end());
    if (whole) check_whole_mask_values(value, count);
    else check_broadcast(value.array().shape(), selection);
    if (count == 0 || array.size() == 0) return;
    const std::size_t rows = product(array.shape(), 0, mask.ndim());
    const Array v = detail::contiguous_temporary(queue, broadcast_values(queue, value, array.dtype(), selection));
    const std::size_t row = product(rest);
    with_contiguous(queue, array, {rows, row},
                    [&](const Array& target) { scatter_rows(queue, target, first(positions, count), v, rows, row); });
    queue.synchronize();
}

Array integer_index(const Queue& queue, const Array& array, const Array& indices, int axis,
                    const Allocator& allocator) {
    check_indices(queue, array, indices);
    const std::size_t a = detail::normalize_axis(axis, array.ndim());
    // numpy checks every index even where the selection holds no element (a[:, [0]] of a (0, 0)
    // array is an IndexError); the take below reads none of them then.
    if (array.size() == 0) check_index_range(queue, indices, array.shape()[a], a);
    return take(queue, array, indices, static_cast<std::ptrdiff_t>(a), TakeMode::raise, allocator);
}

void integer_index_assign(const Queue& queue, const Array& array, const Array& indices, const Operand& values,
                          int axis) {
    array.require_writeable("array");
    check_indices(queue, array, indices);
    const std::size_t a = detail::normalize_axis(axis, array.ndim());
    const std::size_t extent = array.shape()[a];
    // The selection in numpy's order, shape[:a] + indices.shape + shape[a+1:], and in the order the
    // scatter takes it: the index positions first, then the array's other axes in order.
    std::vector<std::size_t> selection(array.shape().begin(), array.shape().begin() + static_cast<std::ptrdiff_t>(a));
    selection.insert(selection.end(), indices.shape().begin(), indices.shape().end());
    selection.insert(selection.end(), array.shape().begin() + static_cast<std::ptrdiff_t>(a) + 1, array.shape().end());
    // numpy checks the values against the selection even when nothing is selected, before anything
    // is launched (numpy_index_assign.txt); no indices: nothing more to check or do.
    check_value_array(queue, values, array.dtype());
    if (values.is_array()) check_broadcast(values.array().shape(), selection);
    if (indices.size() == 0) return;
    check_index_range(queue, indices, extent, a);
    if (array.size() == 0) return;  // indices in range of an array with an empty axis elsewhere
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < indices.ndim(); ++k) order.push_back(a + k);
    for (std::size_t k = 0; k < a; ++k) order.push_back(k);
    for (std::size_t k = a + indices.ndim(); k < selection.size(); ++k) order.push_back(k);
    const Array v =
        detail::contiguous_temporary(queue, broadcast_values(queue, values, array.dtype(), selection).transpose(order));
    const Array positions = detail::contiguous_temporary(queue, indices.dtype().kind() == Kind::int64
                                                                    ? indices
                                                                    : indices.astype(queue, DType(Kind::int64)));
    std::vector<std::size_t> to_front{a};
    for (std::size_t k = 0; k < array.ndim(); ++k)
        if (k != a) to_front.push_back(k);
    const Array moved = array.transpose(to_front);
    const std::size_t row = array.size() / std::max<std::size_t>(extent, 1);
    with_contiguous(queue, moved, {extent, row},
                    [&](const Array& target) { scatter_rows(queue, target, positions.reshape({-1}), v, extent, row); });
    queue.synchronize();
}

Array count_nonzero(const Queue& queue, const Array& array, const std::optional<std::vector<int>>& axes,
                    const Allocator& allocator) {
    detail::check_device(queue, array, "array");
    const Array nonzero_mask = evaluate(queue, Expr(array) != Expr(0), detail::temporary_allocator(queue));
    ReduceOptions options;
    options.axes = axes;
    options.allocator = allocator;
    return sum(queue, nonzero_mask, options, DType(Kind::int64));
}

Array argwhere(const Queue& queue, const Array& array, const Allocator& allocator) {
    detail::check_device(queue, array, "array");
    if (array.ndim() == 0) throw ArgumentError("array", "argwhere: a 0-d array has no indices (use atleast_1d first)");
    const auto [positions, count] = nonzero_positions(queue, array);
    const std::size_t nd = array.ndim();
    const Array out = Array::empty(queue.device(), {count, nd}, DType(Kind::int64), std::nullopt, 0, allocator);
    if (count == 0) return out;
    // Row k of the result is the C-order unravelling of positions[k]: divisors and extents per axis.
    std::vector<std::int64_t> table(2 * nd);
    std::int64_t divisor = 1;
    for (std::size_t d = nd; d-- > 0;) {
        table[d] = divisor;
        table[nd + d] = static_cast<std::int64_t>(array.shape()[d]);
        divisor *= static_cast<std::int64_t>(array.shape()[d]);
    }
    const Array t = Array::from_host(queue, HostArray::from(table));
    const std::string source = fmt::format(R"({}
KERNEL void kjarni_unravel(GLOBAL_MEM int64_t* out, GLOBAL_MEM const int64_t* positions, GLOBAL_MEM const int64_t* table,
    int64_t ndim, int64_t total)
{{
    for (int64_t g = (int64_t)get_global_id(0); g < total; g += (int64_t)get_global_size(0)) {{
        const int64_t k = g / ndim, d = g % ndim;
        out[g] = (positions[k] / table[d]) % table[ndim + d];
    }}
}}
)",
                                           detail::algorithm_helpers());
    const detail::GeneratedKernel kernel =
        detail::generated_kernel(queue.device(), source, "kjarni_unravel", [&] { return source; });
    const std::size_t total = count * nd;
    const KernelArg args[] = {detail::whole_allocation(out), detail::whole_allocation(positions),
                              detail::whole_allocation(t), detail::pack(static_cast<std::int64_t>(nd), LaunchTarget{}),
                              detail::pack(static_cast<std::int64_t>(total), LaunchTarget{})};
    const detail::Grid grid = detail::grid_for(kernel, total);
    const std::size_t global[1] = {grid.global};
    const std::size_t local[1] = {grid.local};
    detail::launch(queue, kernel, global, local, args);
    queue.synchronize();  // the table is this call's
    return out;
}

std::vector<Array> nonzero(const Queue& queue, const Array& array, const Allocator& allocator) {
    detail::check_device(queue, array, "array");
    if (array.ndim() == 0)
        throw ArgumentError("array",
                            "nonzero: not defined for a 0-d array (numpy refuses it too; use atleast_1d first)");
    const Array rows = argwhere(queue, array, detail::temporary_allocator(queue));
    std::vector<Array> result;
    for (std::size_t d = 0; d < array.ndim(); ++d)
        result.push_back(rows[{Slice{}, static_cast<std::ptrdiff_t>(d)}].copy(queue, Order::C, allocator));
    return result;
}

}  // namespace kjarni
