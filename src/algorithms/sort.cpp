// sort, argsort, unique and searchsorted: keys made from the values, the radix sort
// (sort_radix.cpp), and the kernels that turn sorted keys back into results.

#include "kjarni/sorting.hpp"

#include <map>
#include <mutex>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/compaction.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/reduction_types.hpp"
#include "algorithms/sort_onesweep.hpp"
#include "algorithms/sort_radix.hpp"
#include "array/axis.hpp"
#include "kjarni/array_operations.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/program.hpp"

namespace kjarni {

using detail::FloatKeys;
using detail::KernelArg;
using detail::LaunchTarget;
using Kind = DType::Kind;

namespace {

/// The values to sort as a C-contiguous array with the sorted axis last, and how to put a result
/// of that shape back.
struct Rows {
    Array input;                    // C-contiguous, the sorted axis last (1-d when flattened)
    std::vector<std::size_t> back;  // the axes permutation that restores the caller's order (empty: none)
    std::size_t n = 0;
    std::size_t row_length = 0;
};

DType unsigned_dtype(std::size_t bytes) {
    return bytes == 1   ? DType(Kind::uint8)
           : bytes == 2 ? DType(Kind::uint16)
           : bytes == 4 ? DType(Kind::uint32)
                        : DType(Kind::uint64);
}

Rows rows_of(const Queue& queue, const Array& array, std::optional<int> axis, const char* what) {
    detail::check_device(queue, array, "array");
    std::vector<std::size_t> back;
    const Array input = [&] {
        if (!axis) return detail::contiguous_temporary(queue, array).reshape({-1});
        if (array.ndim() == 0)
            throw AxisError("axis", fmt::format("{}: a 0-d array has no axis {} (sort it with axis = std::nullopt)",
                                                what, *axis));
        const std::size_t a = detail::normalize_axis(*axis, array.ndim());
        if (a + 1 == array.ndim()) return detail::contiguous_temporary(queue, array);
        std::vector<std::size_t> perm;
        for (std::size_t k = 0; k < array.ndim(); ++k)
            if (k != a) perm.push_back(k);
        perm.push_back(a);
        back.assign(perm.size(), std::size_t{0});
        for (std::size_t k = 0; k < perm.size(); ++k) back[perm[k]] = k;
        return detail::contiguous_temporary(queue, array.transpose(perm));
    }();
    const std::size_t row_length = input.ndim() == 0 ? 1 : input.shape().back();
    return Rows{input, back, input.size(), row_length};
}

/// A new array for a result of the rows' shape: a temporary when restore() will copy it.
Array result_array(const Queue& queue, const Rows& r, const DType& dtype, const Allocator& allocator) {
    return r.back.empty() ? Array::empty(queue.device(), r.input.shape(), dtype, std::nullopt, 0, allocator)
                          : Array::empty(queue.device(), r.input.shape(), dtype, std::nullopt, 0,
                                         detail::temporary_allocator(queue));
}

Array restore(const Queue& queue, const Rows& r, const Array& result, const Allocator& allocator) {
    return r.back.empty() ? result : result.transpose(r.back).copy(queue, Order::C, allocator);
}

const char* index_ctype(bool wide) { return wide ? "uint64_t" : "uint32_t"; }

/// A kernel over n positions (a grid-stride loop with `i` of type KJARNI_IDX), compiled once per key.
void run_flat(const Queue& queue, const std::string& key, const std::string& name, const std::string& head,
              const std::string& params, const std::string& body, std::size_t n, bool wide,
              std::vector<KernelArg> args) {
    if (n == 0) return;
    const std::string full_key = fmt::format("{} wide={}\n{}\n{}\n{}", key, wide, head, params, body);
    const detail::GeneratedKernel kernel = detail::generated_kernel(queue.device(), full_key, name, [&] {
        std::string s = detail::algorithm_helpers();
        s += fmt::format("#define KJARNI_IDX {}\n", index_ctype(wide));
        s += head;
        s += fmt::format("KERNEL void {}({}, KJARNI_IDX n)\n{{\n", name, params);
        s += "    for (KJARNI_IDX i = (KJARNI_IDX)get_global_id(0); i < n; i += (KJARNI_IDX)get_global_size(0)) {\n";
        s += body;
        s += "    }\n}\n";
        return s;
    });
    args.push_back(wide ? detail::pack(static_cast<std::uint64_t>(n), LaunchTarget{})
                        : detail::pack(static_cast<std::uint32_t>(n), LaunchTarget{}));
    const detail::Grid grid = detail::grid_for(kernel, n);
    const std::size_t global[1] = {grid.global};
    const std::size_t local[1] = {grid.local};
    detail::launch(queue, kernel, global, local, args);
}

KernelArg index_arg(std::size_t value, bool wide) {
    return wide ? detail::pack(static_cast<std::uint64_t>(value), LaunchTarget{})
                : detail::pack(static_cast<std::uint32_t>(value), LaunchTarget{});
}

/// Keys (and, with `positions`, the positions 0..n-1 as values) of a C-contiguous array.
detail::RadixResult make_keys(const Queue& queue, const Array& input, FloatKeys mode, bool positions,
                              const char* what) {
    const std::size_t n = input.size();
    const std::size_t kb = input.dtype().itemsize();
    const bool wide = detail::needs_wide_indices(n);
    const std::string functions = detail::key_functions(input.dtype(), mode, what);
    detail::RadixResult keys{detail::temporary_buffer(queue, n * kb), std::nullopt};
    if (positions) keys.values = detail::temporary_buffer(queue, n * (wide ? 8 : 4));
    const std::string head = fmt::format("#define KJARNI_KEY {}\n#define KJARNI_VALUE {}\n{}", detail::key_ctype(kb),
                                         index_ctype(wide), functions);
    const std::string params = "GLOBAL_MEM const KJARNI_KEY* x, KJARNI_IDX x_offset, GLOBAL_MEM KJARNI_KEY* keys, "
                               "GLOBAL_MEM KJARNI_VALUE* values";
    std::string body = "        keys[i] = kjarni_to_key(x[x_offset + i]);\n";
    if (positions) body += "        values[i] = (KJARNI_VALUE)i;\n";
    run_flat(queue, "sort keys " + detail::key_class(input.dtype(), mode), "kjarni_sort_keys", head, params, body, n,
             wide,
             {detail::whole_allocation(input),
              index_arg(static_cast<std::size_t>(detail::element_offset(input, "array")), wide),
              detail::pack(keys.keys, LaunchTarget{}),
              detail::pack(positions ? *keys.values : keys.keys, LaunchTarget{})});
    return keys;
}

}  // namespace

Array sort(const Queue& queue, const Array& array, std::optional<int> axis, const Allocator& allocator) {
    const Rows r = rows_of(queue, array, axis, "sort");
    const Array out = result_array(queue, r, r.input.dtype(), allocator);
    if (r.n == 0) return restore(queue, r, out, allocator);
    const bool segmented = r.row_length < r.n;
    const std::size_t kb = r.input.dtype().itemsize();
    if (!segmented && detail::onesweep_supported(queue, r.n, kb, 0)) {
        detail::onesweep_sort_elements(queue, r.input, out, detail::OnesweepOutput::sorted);
        return restore(queue, r, out, allocator);
    }
    const bool wide = detail::needs_wide_indices(r.n);
    detail::RadixResult keys = make_keys(queue, r.input, FloatKeys::exact, segmented, "sort");
    keys = detail::radix_sort(queue, keys.keys, kb, keys.values, wide ? 8 : 4, r.n, r.row_length);
    const std::string head = fmt::format("#define KJARNI_KEY {}\n{}", detail::key_ctype(kb),
                                         detail::key_functions(r.input.dtype(), FloatKeys::exact, "sort"));
    run_flat(queue, "sort values " + detail::key_class(r.input.dtype(), FloatKeys::exact), "kjarni_sort_values", head,
             "GLOBAL_MEM const KJARNI_KEY* keys, GLOBAL_MEM KJARNI_KEY* y",
             "        y[i] = kjarni_from_key(keys[i]);\n", r.n, wide,
             {detail::pack(keys.keys, LaunchTarget{}), detail::whole_allocation(out)});
    return restore(queue, r, out, allocator);
}

Array argsort(const Queue& queue, const Array& array, std::optional<int> axis, const Allocator& allocator) {
    const Rows r = rows_of(queue, array, axis, "argsort");
    const Array out = result_array(queue, r, DType(Kind::int64), allocator);
    if (r.n == 0) return restore(queue, r, out, allocator);
    const std::size_t kb = r.input.dtype().itemsize();
    if (r.row_length >= r.n && detail::onesweep_supported(queue, r.n, kb, 4)) {
        detail::onesweep_sort_elements(queue, r.input, out, detail::OnesweepOutput::positions);
        return restore(queue, r, out, allocator);
    }
    const bool wide = detail::needs_wide_indices(r.n);
    detail::RadixResult keys = make_keys(queue, r.input, FloatKeys::canonical, true, "argsort");
    keys = detail::radix_sort(queue, keys.keys, kb, keys.values, wide ? 8 : 4, r.n, r.row_length);
    run_flat(queue, "argsort positions", "kjarni_argsort_positions",
             fmt::format("#define KJARNI_VALUE {}\n", index_ctype(wide)),
             "GLOBAL_MEM const KJARNI_VALUE* values, GLOBAL_MEM int64_t* y, KJARNI_IDX row_length",
             "        y[i] = (int64_t)(values[i] % row_length);\n", r.n, wide,
             {detail::pack(*keys.values, LaunchTarget{}), detail::whole_allocation(out),
              index_arg(r.row_length, wide)});
    return restore(queue, r, out, allocator);
}

UniqueResult unique(const Queue& queue, const Array& array, const UniqueOptions& options) {
    const Rows r = rows_of(queue, array, std::nullopt, "unique");
    const std::size_t n = r.n;
    const std::size_t kb = r.input.dtype().itemsize();
    const bool wide = detail::needs_wide_indices(n);
    const DType index_dtype = wide ? DType(Kind::uint64) : DType(Kind::uint32);
    const std::size_t ib = index_dtype.itemsize();
    // What is returned comes from options.allocator; what is not is a temporary.
    const Allocator& allocator = options.allocator;
    const auto for_result = [&](bool returned) { return returned ? allocator : Allocator{}; };
    UniqueResult result{Array::empty(queue.device(), {0}, r.input.dtype(), std::nullopt, 0, allocator), std::nullopt,
                        std::nullopt, std::nullopt};
    const Array inverse = Array::empty(queue.device(), array.shape(), DType(Kind::int64), std::nullopt, 0,
                                       for_result(options.return_inverse));
    if (n == 0) {
        const Array none = Array::empty(queue.device(), {0}, DType(Kind::int64), std::nullopt, 0,
                                        for_result(options.return_index || options.return_counts));
        if (options.return_index) result.index = none;
        if (options.return_inverse) result.inverse = inverse;
        if (options.return_counts) result.counts = none;
        return result;
    }
    detail::RadixResult keys = make_keys(queue, r.input, FloatKeys::canonical, true, "unique");
    keys = detail::radix_sort(queue, keys.keys, kb, keys.values, ib, n, n);
    const Array sorted_keys = Array::from_buffer(keys.keys, unsigned_dtype(kb), Layout::contiguous({n}, kb));
    const Array positions = Array::from_buffer(*keys.values, index_dtype, Layout::contiguous({n}, ib));
    // Where each run of equal keys starts (in the sorted order), and each element's run.
    const Array starts =
        Array::from_buffer(detail::temporary_buffer(queue, n * ib), index_dtype, Layout::contiguous({n}, ib));
    const std::string k = detail::key_ctype(kb), v = index_ctype(wide);
    detail::Compaction runs;
    runs.name = "unique_runs";
    runs.arguments = fmt::format("const {0}* keys, const {1}* positions, {1}* starts, int64_t* inverse", k, v);
    runs.condition = "i == 0 || keys[i] != keys[i - 1]";
    runs.write = fmt::format("starts[rank] = ({})i;", v);
    runs.every = "inverse[positions[i]] = (int64_t)selected_through - 1;";
    const Array count = detail::compaction_count(queue);
    detail::run_compaction(queue, runs, {sorted_keys, positions, starts, reshape(queue, inverse, {-1})}, n, count);
    const std::size_t m = detail::read_count(queue, count);

    result.values = Array::empty(queue.device(), {m}, r.input.dtype(), std::nullopt, 0, allocator);
    const Array index =
        Array::empty(queue.device(), {m}, DType(Kind::int64), std::nullopt, 0, for_result(options.return_index));
    const Array counts =
        Array::empty(queue.device(), {m}, DType(Kind::int64), std::nullopt, 0, for_result(options.return_counts));
    // Each run's value is its first element's (the first occurrence: the sort is stable).
    run_flat(queue, "unique values", "kjarni_unique_values",
             fmt::format("#define KJARNI_KEY {}\n#define KJARNI_VALUE {}\n", k, v),
             "GLOBAL_MEM const KJARNI_KEY* x, KJARNI_IDX x_offset, GLOBAL_MEM const KJARNI_VALUE* positions, "
             "GLOBAL_MEM const KJARNI_VALUE* starts, GLOBAL_MEM KJARNI_KEY* values, GLOBAL_MEM int64_t* index, "
             "GLOBAL_MEM int64_t* counts, KJARNI_IDX total, KJARNI_IDX runs",
             "        const KJARNI_VALUE p = positions[starts[i]];\n"
             "        values[i] = x[x_offset + p];\n"
             "        index[i] = (int64_t)p;\n"
             "        counts[i] = (int64_t)((i + 1 < runs ? starts[i + 1] : total) - starts[i]);\n",
             m, wide,
             {detail::whole_allocation(r.input),
              index_arg(static_cast<std::size_t>(detail::element_offset(r.input, "array")), wide),
              detail::whole_allocation(positions), detail::whole_allocation(starts),
              detail::whole_allocation(result.values), detail::whole_allocation(index),
              detail::whole_allocation(counts), index_arg(n, wide), index_arg(m, wide)});
    if (options.return_index) result.index = index;
    if (options.return_inverse) result.inverse = inverse;
    if (options.return_counts) result.counts = counts;
    return result;
}

Array searchsorted(const Queue& queue, const Array& sorted, const Array& values, Side side,
                   const Allocator& allocator) {
    detail::check_device(queue, sorted, "sorted");
    detail::check_device(queue, values, "values");
    if (sorted.ndim() != 1)
        throw ArgumentError("sorted", fmt::format("searchsorted: has {} dimensions, it must be 1-d", sorted.ndim()));
    const DType common = result_type({sorted.dtype(), values.dtype()});
    const auto converted = [&](const Array& x) {
        if (x.dtype() == common) return detail::contiguous_temporary(queue, x);
        const Array c =
            Array::empty(queue.device(), x.shape(), common, std::nullopt, 0, detail::temporary_allocator(queue));
        assign(queue, c, Expr(x));
        return c;
    };
    const Array a = converted(sorted);
    const Array v = converted(values);
    const Array out = Array::empty(queue.device(), values.shape(), DType(Kind::int64), std::nullopt, 0, allocator);
    const std::size_t n = a.size(), m = v.size();
    const bool wide = detail::needs_wide_indices(std::max(n, m) + 1);
    const std::size_t kb = common.itemsize();
    const std::string head = fmt::format("#define KJARNI_KEY {}\n{}", detail::key_ctype(kb),
                                         detail::key_functions(common, FloatKeys::canonical, "searchsorted"));
    const std::uint32_t right = side == Side::right ? 1 : 0;
    // Binary search on the keys (numpy's order): the first position whose key is >= (left) or >
    // (right) the value's.
    run_flat(queue, "searchsorted " + detail::key_class(common, FloatKeys::canonical), "kjarni_searchsorted", head,
             "GLOBAL_MEM const KJARNI_KEY* a, KJARNI_IDX a_offset, KJARNI_IDX a_size, GLOBAL_MEM const KJARNI_KEY* v, "
             "KJARNI_IDX v_offset, GLOBAL_MEM int64_t* y, uint32_t right",
             "        const KJARNI_KEY key = kjarni_to_key(v[v_offset + i]);\n"
             "        KJARNI_IDX low = 0, high = a_size;\n"
             "        while (low < high) {\n"
             "            const KJARNI_IDX middle = low + (high - low) / 2;\n"
             "            const KJARNI_KEY at = kjarni_to_key(a[a_offset + middle]);\n"
             "            if (right ? at <= key : at < key) low = middle + 1; else high = middle;\n"
             "        }\n"
             "        y[i] = (int64_t)low;\n",
             m, wide,
             {detail::whole_allocation(a),
              index_arg(static_cast<std::size_t>(detail::element_offset(a, "sorted")), wide), index_arg(n, wide),
              detail::whole_allocation(v),
              index_arg(static_cast<std::size_t>(detail::element_offset(v, "values")), wide),
              detail::whole_allocation(out), detail::pack(right, LaunchTarget{})});
    return out;
}

}  // namespace kjarni
