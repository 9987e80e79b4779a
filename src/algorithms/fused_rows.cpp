// The one-kernel plan: softmax, layer normalisation and the like, where every reduction reduces
// the same trailing axes (a "row") of the result's shape. Work group g takes rows g, g + groups,
// ...; its G work items load the row's elements of every array once into registers (work item l
// holds elements l, l + G, ..., per_item of them: consecutive work items read consecutive
// elements; where every row is contiguous and aligned, `vector` consecutive elements at a time,
// 16 bytes per load), then compute the reductions in dependency order (each: pairwise over the
// work item's elements, then over the group in two stages through local memory, its value seen
// by every work item; var and std a second round for the squared deviations from the mean), then
// write the row. One read of each array and one write of the result, no temporaries; the same
// order of combination on every run (deterministic). Only where a row fits: G * per_item >= the
// row's length with per_item <= 16 (16 values per array per work item stay in registers).

#include "algorithms/fused_rows.hpp"

#include "algorithms/fused_rows_source.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/expression_math.hpp"
#include "algorithms/indexing.hpp"
#include "algorithms/reduction_types.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

using Kind = DType::Kind;

// Elements per work item: as many as registers comfortably hold, so that a row takes few work
// items and each reduction's tree in local memory few levels (a 4096-long row: 256 work items,
// 8 levels). A work item holds per_item values of every array, so with many arrays fewer each
// (about held_values in all). Not yet tuned on a GPU.
constexpr std::size_t most_per_item = 16;
constexpr std::size_t held_values = 48;

bool is_float(const DType& d) {
    return d.kind() == Kind::float16 || d.kind() == Kind::float32 || d.kind() == Kind::float64;
}

std::size_t reach(const std::vector<std::size_t>& shape, const std::vector<std::ptrdiff_t>& strides) {
    std::size_t r = 0;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (shape[d] > 0) r += static_cast<std::size_t>(std::llabs(strides[d])) * (shape[d] - 1);
    return r;
}

// Elements a work item reads at once (16 bytes of the widest dtype): more than 1 where every
// operand's row is contiguous (one reduced axis after merging, stride 1), the row's length a
// multiple of it, and every row of every operand starts on a multiple of its bytes.
// KJARNI_FUSION_ROW_VECTOR=0 reads one element at a time.
std::size_t vector_width(const RowPlan& plan, const Array* out, const DType& out_dtype) {
    if (const char* setting = std::getenv("KJARNI_FUSION_ROW_VECTOR");
        setting != nullptr && std::string(setting) == "0")
        return 1;
    if (plan.reduced.ndim() != 1) return 1;
    std::size_t widest = out_dtype.itemsize();
    for (const Array& a : plan.code.arrays) widest = std::max(widest, a.dtype().itemsize());
    const std::size_t vec = 16 / widest;
    if (vec < 2 || plan.row_length % vec != 0) return 1;
    for (std::size_t k = 0; k < plan.offsets.size(); ++k) {
        if (plan.reduced.strides[k][0] != 1) return 1;
        for (const std::ptrdiff_t stride : plan.kept.strides[k])
            if (stride % static_cast<std::ptrdiff_t>(vec) != 0) return 1;
        const Array* array = k == 0 ? out : &plan.code.arrays[k - 1];
        const std::size_t bytes = vec * (k == 0 ? out_dtype.itemsize() : array->dtype().itemsize());
        // A new result (out == nullptr) starts its own allocation: aligned.
        if (array != nullptr && !lies_aligned(*array, plan.offsets[k], bytes)) return 1;
    }
    return vec;
}

// Whether a node reads no array outside its reductions (its value is the same along a row);
// `uses_reduction` set when it uses one.
bool same_along_row(const ExprNode& node, bool& uses_reduction) {
    if (node.op == ExprOp::reduction) {
        uses_reduction = true;
        return true;
    }
    if (node.op == ExprOp::array) return false;
    for (const auto& child : node.children)
        if (!same_along_row(*child, uses_reduction)) return false;
    return true;
}

// The largest operations of `node`'s tree that use a reduction and are the same along a row.
void find_row_values(const ExprNode& node, std::vector<const ExprNode*>& found) {
    if (node.op == ExprOp::reduction || node.op == ExprOp::array || node.op == ExprOp::scalar) return;
    bool uses_reduction = false;
    if (same_along_row(node, uses_reduction)) {
        if (uses_reduction && std::find(found.begin(), found.end(), &node) == found.end()) found.push_back(&node);
        return;
    }
    for (const auto& child : node.children) find_row_values(*child, found);
}

}  // namespace

RowPlan plan_rows(const Queue& queue, const Array* out, const Expr& expression) {
    RowPlan plan;
    const ExprNode& root = *expression.node();
    const std::vector<std::size_t>& shape = root.shape;
    if (out != nullptr && out->shape() != shape) {
        plan.refused = "the expression is broadcast into a larger `out`";
        return plan;
    }
    // What is the same along a row is computed once per row rather than per element: the same
    // operations on the same values, so the same bits (layer normalisation's correctly rounded
    // sqrt(var + eps) per element took 30% of the kernel's time through CUDA on an H200).
    std::vector<const ExprNode*> row_nodes;
    find_row_values(root, row_nodes);
    std::vector<std::string> row_names, row_codes;
    for (std::size_t i = 0; i < row_nodes.size(); ++i) row_names.push_back(fmt::format("kj_h{}", i));
    plan.code.value = generate_more(root, plan.code, row_nodes, row_names, row_codes);
    for (std::size_t i = 0; i < row_nodes.size(); ++i)
        plan.row_values.emplace_back(compute_ctype(row_nodes[i]->dtype), std::move(row_codes[i]));
    for (std::size_t k = 0; k < plan.code.reductions.size(); ++k)
        plan.reduced_values.push_back(generate_more(*plan.code.reductions[k]->children[0], plan.code));
    std::optional<std::vector<bool>> mask;
    for (const ExprNode* node : plan.code.reductions) {
        const ReductionNode& r = *node->reduction;
        const ExprNode& child = *node->children[0];
        if (r.kind != ReductionKind::sum && r.kind != ReductionKind::prod && r.kind != ReductionKind::mean &&
            r.kind != ReductionKind::min && r.kind != ReductionKind::max && r.kind != ReductionKind::var &&
            r.kind != ReductionKind::std) {
            plan.refused = "a reduction other than sum, prod, mean, min, max, var, std";
            return plan;
        }
        if (!is_float(child.dtype) || !is_float(node->dtype)) {
            plan.refused = fmt::format("a reduction of {} values into {} (float16, float32 and float64 only)",
                                       child.dtype.name(), node->dtype.name());
            return plan;
        }
        if (child.shape != shape) {
            plan.refused = "a reduction of a shape other than the result's";
            return plan;
        }
        if (!r.keepdims) {
            plan.refused = "a reduction without keepdims (broadcast along other axes than it reduced)";
            return plan;
        }
        if (mask && *mask != r.reduced) {
            plan.refused = "reductions over different axes";
            return plan;
        }
        mask = r.reduced;
    }
    if (!mask) {
        plan.refused = "no reduction";
        return plan;
    }
    for (const Array& a : plan.code.arrays)
        if (is_complex(a.dtype()) || a.dtype().is_struct()) {
            plan.refused = fmt::format("an operand of dtype {} (the row kernel reads real values)", a.dtype().name());
            return plan;
        }
    // The reduced axes must be the trailing ones (rows in C order).
    const std::size_t ndim = shape.size();
    std::size_t first_reduced = ndim;
    while (first_reduced > 0 && (*mask)[first_reduced - 1]) --first_reduced;
    for (std::size_t d = 0; d < first_reduced; ++d)
        if ((*mask)[d]) {
            plan.refused = "the reduced axes are not the trailing ones";
            return plan;
        }
    std::vector<std::size_t> kept_shape(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(first_reduced));
    std::vector<std::size_t> red_shape(shape.begin() + static_cast<std::ptrdiff_t>(first_reduced), shape.end());
    plan.rows = std::accumulate(kept_shape.begin(), kept_shape.end(), std::size_t{1}, std::multiplies<>());
    plan.row_length = std::accumulate(red_shape.begin(), red_shape.end(), std::size_t{1}, std::multiplies<>());
    if (plan.rows == 0 || plan.row_length == 0) {
        plan.refused = "an empty result or row";
        return plan;
    }

    // Strides over the result's shape: out's (C order for a new array), then each array's.
    const DType& out_dtype = root.dtype;
    std::vector<std::vector<std::ptrdiff_t>> strides;
    if (out != nullptr) {
        strides.push_back(element_strides(out->layout(), out->dtype().itemsize(), shape, "out"));
        plan.offsets.push_back(element_offset(*out, "out"));
    } else {
        std::vector<std::ptrdiff_t> c(ndim);
        std::ptrdiff_t step = 1;
        for (std::size_t d = ndim; d-- > 0;) {
            c[d] = step;
            step *= static_cast<std::ptrdiff_t>(shape[d]);
        }
        strides.push_back(std::move(c));
        plan.offsets.push_back(0);
    }
    for (const Array& a : plan.code.arrays) {
        strides.push_back(element_strides(a.layout(), a.dtype().itemsize(), shape, "operand"));
        plan.offsets.push_back(element_offset(a, "operand"));
    }
    std::vector<std::vector<std::ptrdiff_t>> kept_strides, red_strides;
    for (const auto& st : strides) {
        kept_strides.emplace_back(st.begin(), st.begin() + static_cast<std::ptrdiff_t>(first_reduced));
        red_strides.emplace_back(st.begin() + static_cast<std::ptrdiff_t>(first_reduced), st.end());
    }
    plan.kept = make_iteration_space(kept_shape, kept_strides);
    plan.reduced = make_iteration_space(red_shape, red_strides);
    if (plan.kept.ndim() > max_scalar_axes || plan.reduced.ndim() > max_scalar_axes) {
        plan.refused = "more axes than the row kernel takes after merging";
        return plan;
    }
    {
        constexpr std::size_t limit = std::size_t{1} << 31;
        bool fits = plan.rows < limit / 2 && plan.row_length < limit / 2;
        for (std::size_t k = 0; k < strides.size(); ++k)
            fits = fits && static_cast<std::size_t>(std::llabs(plan.offsets[k])) +
                                   reach(plan.kept.shape, plan.kept.strides[k]) +
                                   reach(plan.reduced.shape, plan.reduced.strides[k]) <
                               limit;
        plan.use_32_bits = fits;
    }

    // Reductions by level: one that uses r<m> comes a level after m (a tree: no cycles).
    {
        const std::size_t count = plan.code.reductions.size();
        std::vector<std::optional<std::size_t>> level(count);
        std::function<std::size_t(std::size_t)> level_of = [&](std::size_t k) {
            if (level[k]) return *level[k];
            std::size_t l = 0;
            for (std::size_t m = 0; m < count; ++m)
                if (m != k && names_variable(plan.reduced_values[k], "r", m)) l = std::max(l, level_of(m) + 1);
            level[k] = l;
            return l;
        };
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t l = level_of(k);
            if (plan.levels.size() <= l) plan.levels.resize(l + 1);
            plan.levels[l].push_back(k);
        }
    }

    // Where the row kernel runs: on GPUs by default. On PoCL's CPU device its barriers (work-item
    // loops around each level of the trees) cost more than the temporaries' traffic: (256, 4096)
    // float32 softmax 2x, layer normalisation 4x slower than the unfused kernels (a loaded
    // 2-core machine, bench/fusion_bench.cpp). KJARNI_FUSION_ROWS=always / never overrides.
    {
        const char* setting = std::getenv("KJARNI_FUSION_ROWS");
        const std::string where = setting != nullptr ? setting : "gpu";
        if (where != "gpu" && where != "always" && where != "never")
            throw ArgumentError("KJARNI_FUSION_ROWS",
                                fmt::format("is '{}': gpu (the default), always or never", where));
        if (where == "never") {
            plan.refused = "KJARNI_FUSION_ROWS=never";
            return plan;
        }
        if (where == "gpu" && queue.device().params().type != DeviceType::gpu) {
            plan.refused = "not a GPU (the row kernel runs on GPUs; KJARNI_FUSION_ROWS=always runs it anywhere)";
            return plan;
        }
    }
    // G work items per row, per_item elements each (about target_per_item; at most most_per_item).
    // KJARNI_FUSION_ROW_GROUP sets G (a power of two; then per_item up to 2 * most_per_item), to
    // measure the choice on a device.
    const std::size_t device_group =
        std::min<std::size_t>(1024, floor_pow2(std::max<std::size_t>(queue.device().params().max_total_local_size, 1)));
    std::size_t group = 32;
    std::size_t per_item_limit = most_per_item;
    if (const char* forced = std::getenv("KJARNI_FUSION_ROW_GROUP")) {
        const long value = std::strtol(forced, nullptr, 10);
        if (value < 1 || value > 1024 || (value & (value - 1)) != 0)
            throw ArgumentError("KJARNI_FUSION_ROW_GROUP",
                                fmt::format("is '{}': a power of two from 1 to 1024", forced));
        group = std::min(static_cast<std::size_t>(value), device_group);
        per_item_limit = 2 * most_per_item;
    } else {
        const std::size_t target_per_item =
            std::clamp<std::size_t>(held_values / std::max<std::size_t>(plan.code.arrays.size(), 1), 2, most_per_item);
        while (group < device_group && group * target_per_item < plan.row_length) group *= 2;
        group = std::min(group, device_group);
    }
    plan.vector = vector_width(plan, out, out_dtype);
    // Each reduction keeps one partial per work item in local memory (var and std two: the sum
    // and the squares), a float or a double; CUDA's static local memory stops at 48 KiB.
    std::size_t scratch_per_item = 0;
    for (const ExprNode* node : plan.code.reductions) {
        const bool wide = node->dtype.kind() == Kind::float64;  // float16 accumulates in float32
        const ReductionKind kind = node->reduction->kind;
        scratch_per_item += (kind == ReductionKind::var || kind == ReductionKind::std ? 2u : 1u) * (wide ? 8u : 4u);
    }
    const std::size_t local_limit = std::min<std::size_t>(queue.device().params().local_mem_size, 48 * 1024);
    while (true) {
        if (group > 1 && scratch_per_item * group > local_limit) {
            group /= 2;
            continue;
        }
        plan.group = group;
        plan.per_item = (plan.row_length + group * plan.vector - 1) / (group * plan.vector) * plan.vector;
        if (plan.per_item > per_item_limit) {
            plan.refused = fmt::format("a row of {} elements is longer than {} work items x {} elements",
                                       plan.row_length, group, per_item_limit);
            return plan;
        }
        const std::string text = row_kernel_source(plan, out_dtype);
        // A multiprocessor holds 65536 registers (every NVIDIA GPU since Kepler).
        const std::size_t resident = row_resident_work_items(plan);
        plan.kernel = generated_kernel(
            queue.device(), text, "kjarni_fused_rows",
            [&] { return algorithm_preamble() + expression_math_preamble() + "\n" + text; },
            /*allow_contraction=*/false, resident == 0 ? 0 : 65536 / resident);
        if (plan.kernel.max_local_size >= group) return plan;
        if (group == 1) break;
        group /= 2;  // the kernel takes fewer work items per group than the device
    }
    plan.refused = "the device takes too few work items per group for the row kernel";
    return plan;
}

void run_rows(const Queue& queue, const Array& out, const RowPlan& plan) {
    std::vector<KernelArg> args = argument_list();
    args.push_back(whole_allocation(out));
    for (const Array& a : plan.code.arrays) args.push_back(whole_allocation(a));
    std::vector<std::vector<std::byte>> scalars;
    for (const auto& s : plan.code.scalars) {
        const DType passed = scalar_parameter_dtype(s.dtype);
        const auto bytes = s.value.write_parameter(s.dtype, passed);
        scalars.emplace_back(bytes.begin(), bytes.end());
        args.push_back(scalar_arg(scalars.back().data(), passed.itemsize()));
    }
    const bool use_32 = plan.use_32_bits;
    push_index(args, static_cast<std::int64_t>(plan.rows), use_32);
    push_index(args, static_cast<std::int64_t>(plan.row_length), use_32);
    for (const std::int64_t v : layout_values(plan.kept, plan.offsets)) push_index(args, v, use_32);
    for (const std::size_t extent : plan.reduced.shape) push_index(args, static_cast<std::int64_t>(extent), use_32);
    for (const auto& st : plan.reduced.strides)
        for (const std::ptrdiff_t v : st) push_index(args, v, use_32);
    const std::size_t groups = std::min<std::size_t>(plan.rows, std::size_t{1} << 20);
    const std::size_t global[1] = {groups * plan.group};
    const std::size_t local[1] = {plan.group};
    launch(queue, plan.kernel, global, local, args);
}

}  // namespace kjarni::detail
