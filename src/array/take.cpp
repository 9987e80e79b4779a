// take: a gather along an axis by an integer index array, with numpy's index modes.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>

#include "array/axis.hpp"
#include "kjarni/array_operations.hpp"
#include "kjarni/program.hpp"
#include "kjarni/template.hpp"

namespace kjarni {

namespace {

// One work item per output element. The output's axes are the array's before the axis, the index
// array's, then the array's after it; the table holds, per output axis, its extent, its stride in
// the array (in units; 0 on index axes) and its stride in the index array (elements; 0 elsewhere).
// Elements move in units of U (the widest of 8, 4, 2, 1 bytes dividing the itemsize, strides and offset).
// The mode is an argument (0 raise, 1 wrap, 2 clip), not a template parameter: one program less to
// compile per mode, and the branch is the same for every work item.
constexpr const char* take_source = R"(
KERNEL void take(GLOBAL_MEM ${U}* out, GLOBAL_MEM const ${U}* array, GLOBAL_MEM const ${I}* indices,
                 GLOBAL_MEM const int64_t* table, GLOBAL_MEM uint32_t* out_of_range, int64_t array_offset,
                 int64_t indices_offset, int64_t extent, int64_t axis_stride, int32_t ndim, int32_t units, int32_t mode, uint64_t n)
{
    const SIZE_T gid = get_global_id(0);
    if (gid >= n) return;
    int64_t e = (int64_t)gid;
    int64_t s = array_offset;
    int64_t j = indices_offset;
    for (int32_t k = ndim - 1; k >= 0; --k) {
        const int64_t i = e % table[k];
        e /= table[k];
        s += i * table[ndim + k];
        j += i * table[2 * ndim + k];
    }
    int64_t v = (int64_t)indices[j];
    if (mode == 0) {  // raise
        if (v < 0) v += extent;
        if (v < 0 || v >= extent) {
            out_of_range[0] = 1;  // every writer writes the same value
            return;
        }
    } else if (mode == 1) {  // wrap
        v %= extent;
        if (v < 0) v += extent;
    } else {  // clip
        v = v < 0 ? 0 : (v >= extent ? extent - 1 : v);
    }
    s += v * axis_stride;
    for (int32_t c = 0; c < units; ++c) out[(int64_t)gid * units + c] = array[s + c];
}
)";

std::int32_t mode_code(TakeMode mode) {
    switch (mode) {
    case TakeMode::raise: return 0;
    case TakeMode::wrap: return 1;
    case TakeMode::clip: return 2;
    }
    return 0;
}

// The first index out of [-extent, extent), for the message (the index array on the host); none
// when every index is within.
std::optional<std::string> first_bad_index(const Queue& queue, const Array& indices, std::int64_t extent) {
    const Array as_int64 = indices.astype(queue, dtypes::int64);
    const auto values = as_int64.get(queue).to_vector<std::int64_t>();
    for (std::size_t p = 0; p < values.size(); ++p) {
        if (values[p] < -extent || values[p] >= extent)
            return fmt::format("index {} (at flat position {})", values[p], p);
    }
    return std::nullopt;
}

}  // namespace

Array take(const Queue& queue, const Array& array, const Array& indices, std::optional<std::ptrdiff_t> axis,
           TakeMode mode, const Allocator& allocator) {
    if (!is_integer(indices.dtype()))
        throw ArgumentError("indices",
                            fmt::format("has dtype {}: take needs an integer dtype", indices.dtype().name()));
    for (const auto& [a, name] : {std::pair{&array, "array"}, std::pair{&indices, "indices"}}) {
        if (!(a->device() == queue.device()))
            throw ArgumentError(name, "is on another device than the queue (transfer() it first)");
    }
    // Without an axis: the array flattened in C order (a view where one exists).
    const Array source = axis ? array : reshape(queue, array, {-1});
    const std::size_t ax = source.ndim() == 0 ? 0 : detail::normalize_axis(axis.value_or(0), source.ndim());
    if (source.ndim() == 0) throw ArgumentError("array", "is zero-dimensional: take needs an axis to gather along");
    const auto extent = static_cast<std::int64_t>(source.shape()[ax]);

    std::vector<std::size_t> shape(source.shape().begin(), source.shape().begin() + static_cast<std::ptrdiff_t>(ax));
    shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
    shape.insert(shape.end(), source.shape().begin() + static_cast<std::ptrdiff_t>(ax) + 1, source.shape().end());
    Array out = Array::empty(queue.device(), shape, source.dtype(), std::nullopt, 0, allocator);
    if (out.size() == 0) {
        // Nothing to gather, but mode raise still checks every index against the axis as numpy
        // does: once for each position of the axes before it (an index into an empty axis raises
        // although the result has no element), so not at all when those axes hold no element.
        const std::size_t before =
            std::accumulate(source.shape().begin(), source.shape().begin() + static_cast<std::ptrdiff_t>(ax),
                            std::size_t{1}, std::multiplies<>());
        if (mode == TakeMode::raise && indices.size() != 0 && before != 0) {
            if (const auto bad = first_bad_index(queue, indices, extent))
                throw IndexOutOfBoundsError("indices",
                                            fmt::format("{} is out of range for axis {} of extent {} (mode raise)",
                                                        *bad, ax, extent));
        }
        return out;
    }
    if (extent == 0)
        throw IndexOutOfBoundsError("indices", fmt::format("are not empty, but axis {} of the array is (shape ({}))",
                                                           ax, fmt::join(source.shape(), ", ")));

    // The index array C-contiguous, its first element at a whole element of its allocation.
    const std::size_t index_size = indices.dtype().itemsize();
    const Array idx = indices.is_c_contiguous() && indices.offset() % index_size == 0 ? indices : indices.copy(queue);

    const std::size_t itemsize = source.dtype().itemsize();
    std::size_t unit = 8;
    auto divides = [&](std::size_t u) {
        if (itemsize % u != 0 || source.offset() % u != 0) return false;
        for (auto s : source.strides()) {
            if (s % static_cast<std::ptrdiff_t>(u) != 0) return false;
        }
        return true;
    };
    while (unit > 1 && !divides(unit)) unit /= 2;
    const auto u = static_cast<std::int64_t>(unit);

    const std::size_t ndim = shape.size();
    std::vector<std::int64_t> table(3 * ndim, 0);
    const Layout idx_c = Layout::contiguous(idx.shape(), 1);  // strides in elements
    for (std::size_t k = 0; k < ndim; ++k) {
        table[k] = static_cast<std::int64_t>(shape[k]);
        if (k < ax) {
            table[ndim + k] = source.strides()[k] / u;
        } else if (k < ax + idx.ndim()) {
            table[2 * ndim + k] = idx_c.strides[k - ax];
        } else {
            table[ndim + k] = source.strides()[k - idx.ndim() + 1] / u;
        }
    }
    const Buffer table_buffer =
        Buffer::allocate(queue.device(), std::max<std::size_t>(table.size(), 1) * sizeof(std::int64_t));
    if (!table.empty()) table_buffer.set(queue, std::span<const std::int64_t>(table), false);
    const Buffer flag = Buffer::allocate(queue.device(), sizeof(std::uint32_t));
    const std::uint32_t zero = 0;
    flag.set(queue, std::span<const std::uint32_t>(&zero, 1), false);

    const char* unit_type = unit == 8 ? "uint64_t" : unit == 4 ? "uint32_t" : unit == 2 ? "uint16_t" : "uint8_t";
    // Identical sources hit the context's compiled-program cache.
    const Program program(queue.device(), TemplateSource{std::string(take_source)}, {},
                          {{"U", unit_type}, {"I", idx.dtype()}});
    const std::size_t n = out.size();
    program.kernel("take")(queue, {(n + 63) / 64 * 64}, std::nullopt, out.base(), source.base(), idx.base(),
                           table_buffer, flag, static_cast<std::int64_t>(source.offset()) / u,
                           static_cast<std::int64_t>(idx.offset() / index_size), extent,
                           static_cast<std::int64_t>(source.strides()[ax]) / u, static_cast<std::int32_t>(ndim),
                           static_cast<std::int32_t>(itemsize / unit), mode_code(mode), static_cast<std::uint64_t>(n));
    // The table, the flag and any copies above must outlive the kernel.
    queue.synchronize();
    if (mode == TakeMode::raise) {
        std::uint32_t raised = 0;
        flag.get(queue, std::span<std::uint32_t>(&raised, 1), false);
        if (raised != 0)
            throw IndexOutOfBoundsError("indices",
                                        fmt::format("{} is out of range for axis {} of extent {} (mode raise)",
                                                    first_bad_index(queue, idx, extent).value_or("an index"), ax,
                                                    extent));
    }
    return out;
}

}  // namespace kjarni
