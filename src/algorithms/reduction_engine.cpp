// The reduction engine. Two iteration spaces are built from the broadcast shape: the kept axes
// (the outputs, reordered and merged for the first array's memory order) and the reduced axes
// (merged, in their given order, so that the flat reduced index `i` is the C-order position over
// them). One generated kernel covers every shape of a layout class:
//
//   work item -> (output o, lane); LANES work items share an output and stride over its reduced
//   elements with 4 independent accumulators each, then combine through local memory in a fixed
//   tree (on CPU devices lane 0 combines them in order: see reduction.mako). Grid dimension 1
//   splits the reduced range of every output into S interleaved pieces when the outputs alone
//   cannot fill the device (piece p takes the LANES-long runs p, p + S, p + 2S, ...); the pieces'
//   partial results go to a temporary and are combined in a fixed order: by the last group of the
//   same kernel to finish (a counter that the queue's kernels leave at zero) where one column of
//   groups holds every output's pieces (the whole sum: a launch fewer, most of the host's work at
//   4-16 MiB) and the device has a device-wide fence, else by a second kernel. The counter only
//   picks which group combines, never the order: the same input gives the same bits every run, in
//   one kernel or two.
//
// S is a power of two and the grid many times what the device holds at once (about 64 groups
// per compute unit): in a raw CUDA sweep on an H100, a whole sum of 2 GiB read 3107 GB/s with 8192
// interleaved groups of 256, 3062 with 8448 (not a power of two) and 3009 with 1056 (one wave);
// PyTorch's sum, 4096 groups of 512 over the same grid-stride pattern, 3097-3107 in that run.
// kjarni's whole sum went from 3037-3059 GB/s (1024 contiguous pieces) to 3083-3094. Groups are
// 256 work items, 512 where long rows are split into pieces (below).
//
// A built-in reduction of one array of 4- or 8-byte items whose reduced run is contiguous, 16-byte
// aligned and a whole number of vectors loads 16 bytes at a time (ReductionSpec::value_code): the
// whole sum 3086 -> 3100 GB/s through CUDA, 3078 -> 3100 through NVIDIA's OpenCL (H100); rows of
// 4-12 items, one work item each, too: (2^26, 8) along axis 1 3765 -> 3932 GB/s through CUDA, 3738
// -> 3936 through OpenCL (H200, CuPy 3521 in that run). Two or four loads issued together gained
// nothing on either (H200, within 1%).
//
// The strategy is picked from the first array's strides: when the reduced axis is the faster one
// in memory, lanes run along it (LANES grows with its length: 1 for an 8-long axis, so that a
// (2^26, 8) sum gives each work item one row instead of wasting a warp per output); otherwise
// consecutive work items take consecutive outputs (LANES = 1), so that an outer reduction such as
// (8, 2^26) axis 0 reads coalesced rows, and the pieces split the reduced axis when outputs are few.

#include "algorithms/reduction_engine.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/cpu_code.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/indexing.hpp"
#include "algorithms/iteration_space.hpp"
#include "algorithms/kernel_key_text.hpp"
#include "algorithms/kernel_templates.hpp"
#include "algorithms/queue_scratch.hpp"
#include "algorithms/reduction_cpu.hpp"
#include "algorithms/reduction_types.hpp"
#include "algorithms/tuning_settings.hpp"
#include "base/ceil_div.hpp"
#include "core/context_state.hpp"
#include "core/recording_registry.hpp"
#include "kjarni/context.hpp"
#include "kjarni/error.hpp"
#include "kjarni/template.hpp"
#include "program/inline_ptx.hpp"

namespace kjarni::detail {

std::string reduction_code(const std::vector<CArgument>& arguments, const std::string& preamble,
                           const std::string& neutral, const std::string& reduce_expr, const std::string& map_expr,
                           const std::string& finish_expr, const DType& result, const Globals& render_globals,
                           const std::string& what) {
    std::string params;
    for (const CArgument& a : arguments) {
        if (a.name == "i" || a.name.rfind("kjarni_", 0) == 0)
            throw ArgumentError(a.name, fmt::format("{}: the argument name '{}' is reserved", what, a.name));
        params += a.pointer ? fmt::format(", GLOBAL_MEM const {}* {}", storage_ctype(a.dtype), a.name)
                            : fmt::format(", {} {}", storage_ctype(a.dtype), a.name);
    }
    const std::string text =
        fmt::format(R"({}
FUNCTION INLINE KJARNI_ACC kjarni_neutral() {{ return ({}); }}
FUNCTION INLINE KJARNI_ACC kjarni_reduce(KJARNI_ACC a, KJARNI_ACC b) {{ return ({}); }}
FUNCTION INLINE KJARNI_ACC kjarni_map(KJARNI_IDX i{}) {{ return ({}); }}
FUNCTION INLINE {} kjarni_finish(KJARNI_ACC a, int64_t count) {{ return ({}); }}
)",
                    preamble, neutral, reduce_expr, params, map_expr, compute_ctype(result), finish_expr);
    return render_user_code(text, render_globals, what);
}

namespace {

constexpr std::size_t accumulators = 4;

struct KernelShape {
    std::size_t kept_ndim = 0;
    std::size_t reduced_ndim = 0;
    bool use_32_bits = true;
    std::size_t group = 256;
    bool final_pass = true;      // writes the result (else the partial results)
    bool from_partials = false;  // reads the partial results (second pass)
    bool table = false;          // the layout comes in a table (more than max_scalar_axes axes)
    std::size_t vector = 0;      // items per 16-byte load along contiguous memory (0: one item at a time)
    bool lanes_in_order = false;  // lane 0 combines its output's lanes in order (CPU devices), not a tree
    // The last group combines the pieces (a launch of one group along the outputs), the groups
    // signalling behind this device-wide fence (device_wide_fence); null: a second kernel does.
    const char* combine = nullptr;
    bool barriers_in_branches = true;  // the device runs a group's work items together (see reduction.mako)
    const char* shuffles = "";         // how warps of 32 shuffle: "native", "ptx", or "" (lane_shuffles)
    bool count_acq_rel = false;        // combine's groups count with one acquire-release atomic, no fences
};

/// The names of the layout values a kernel takes, in order: the kept space's layout over the arrays
/// (not in the second pass) and the result, then the reduced extents and each array's reduced strides.
std::vector<std::string> layout_names_of(const KernelShape& k, std::size_t arrays) {
    std::vector<std::string> kept_operands;
    if (!k.from_partials)
        for (std::size_t a = 0; a < arrays; ++a) kept_operands.push_back(fmt::format("a{}", a));
    kept_operands.push_back("res");
    std::vector<std::string> names = layout_names(k.kept_ndim, kept_operands);
    if (!k.from_partials) {
        for (std::size_t d = 0; d < k.reduced_ndim; ++d) names.push_back(fmt::format("rn{}", d));
        for (std::size_t a = 0; a < arrays; ++a)
            for (std::size_t d = 0; d < k.reduced_ndim; ++d) names.push_back(fmt::format("a{}_rs{}", a, d));
    }
    return names;
}

/// The kernel: data/kernels/reduction.mako, given the pieces of this reduction (its functions, the
/// arguments' parameters, the layouts, the result's store).
std::string kernel_source(const ReductionSpec& spec, const KernelShape& k) {
    const char* idx = index_type(k.use_32_bits);
    std::vector<std::string> kept_operands;  // the arrays' names in the kernel (a0, a1, ...), then res
    std::vector<Value> args;                 // every argument as [is an array, its name]
    std::string params;
    for (const CArgument& arg : spec.arguments) {
        if (arg.pointer) {
            const std::string name = fmt::format("a{}", kept_operands.size());
            params += fmt::format(", GLOBAL_MEM const {}* {}_base", storage_ctype(arg.dtype), name);
            args.push_back(Value::list({Value(true), Value(name)}));
            kept_operands.push_back(name);
        } else {
            params += fmt::format(", {} {}", storage_ctype(arg.dtype), arg.name);
            args.push_back(Value::list({Value(false), Value(arg.name)}));
        }
    }
    const std::size_t arrays = kept_operands.size();
    if (k.from_partials) {
        kept_operands.clear();
        params.clear();
    }
    kept_operands.push_back("res");
    const std::vector<std::string> layout = layout_names_of(k, arrays);
    return render_kernel_template(
        "reduction.mako",
        {{"helpers", algorithm_helpers()},
         {"acc", spec.acc_ctype},
         {"idx", idx},
         {"result", storage_ctype(spec.result)},
         {"code", spec.code},
         {"value_code", spec.value_code},
         {"params", params},
         {"index_params", index_parameters(layout, idx, k.table)},
         {"prologue", index_prologue(layout, idx, k.table)},
         {"decode", decode_offsets(k.kept_ndim, kept_operands, idx, "o")},
         {"arrays", arrays},
         {"args", Value::list(std::move(args))},
         {"reduced_ndim", k.reduced_ndim},
         {"group", k.group},
         {"vector", k.vector},
         {"vector_item", k.vector != 0 ? storage_ctype(spec.arguments[0].dtype) : std::string()},
         {"from_partials", k.from_partials},
         {"lanes_in_order", k.lanes_in_order},
         {"combine", k.combine != nullptr},
         {"global_fence", k.combine != nullptr ? k.combine : ""},
         {"combine_decode", k.combine != nullptr ? decode_offsets(k.kept_ndim, {"res"}, idx, "oc") : ""},
         {"barriers_in_branches", k.barriers_in_branches},
         {"shuffles", std::string(k.shuffles)},
         {"count_acq_rel", k.count_acq_rel},
         {"store", k.final_pass || k.combine != nullptr ? Value(store_result_code(spec)) : Value()}});
}

std::string kernel_key(const ReductionSpec& spec, const KernelShape& k) {
    const bool identified = !spec.identity.empty();
    const std::string& code = identified ? spec.identity : spec.code;
    KeyText key("kept=", code.size());
    key.number("", k.kept_ndim)
        .number(" red=", k.reduced_ndim)
        .flag(" idx=", k.use_32_bits)
        .number(" group=", k.group)
        .flag(" final=", k.final_pass)
        .flag(" partials=", k.from_partials)
        .flag(" table=", k.table)
        .number(" vector=", k.vector)
        .flag(" in_order=", k.lanes_in_order)
        .text(" combine=", k.combine != nullptr ? k.combine : "")
        .flag(" branch_barriers=", k.barriers_in_branches)
        .text(" shuffles=", k.shuffles)
        .flag(" acq_rel=", k.count_acq_rel);
    // An identity names one spec, accumulator, result and arguments included (the spec cache
    // makes each once); a spec without one is told apart by all of them and its code.
    if (identified) return key.text(" identity ", "").finish(code);
    return key.text(" acc=", spec.acc_ctype)
        .dtype(" result=", spec.result)
        .arguments(" args=", spec.arguments, false)
        .finish(code);
}

std::atomic<bool> combine_in_kernel_allowed{true};

std::atomic<bool> lane_shuffles_forced{false};

/// How a group's lanes combine (KernelShape::shuffles) for outputs of `n_red` reduced elements: by
/// warp shuffles where the device has warps of 32 that kernels can reach ("native": CUDA's
/// intrinsics; "ptx": PTX through NVIDIA's OpenCL, whose groups run together), the group is whole
/// warps and n_red is at most 2^22; through local memory otherwise, or "native" there too where a
/// test forces it (the warps then emulated in local memory). The whole float32 sum on an H200
/// through CUDA, one stream beside CuPy (bench/python/sweep_one_stream.py, two alternations, ratio
/// to the best peer, tree / shuffles): 16 MiB 0.950-0.963 / 1.008-1.029, 64 MiB 0.978-0.985 /
/// 0.969-0.974, 256 MiB 0.977-0.979 / 0.932-0.937, 1 GiB 0.998-0.999 / 0.950-0.951 (kernel time at
/// 256 MiB 64.0 / 66.8 us; the same 29-30 registers, no spills): past 2^22 the tree stays.
/// KJARNI_REDUCTION_SHUFFLES=0 keeps local memory everywhere (to measure one against the other).
const char* lane_shuffles(const BoundDevice& device, std::size_t group, std::size_t n_red) {
    static const bool allowed = tuning_setting("KJARNI_REDUCTION_SHUFFLES", "1") != "0";
    if (!allowed || group % 32 != 0 || n_red > (std::size_t{1} << 22)) return "";
    if (is_cuda(device.context())) return "native";
    if (runs_groups_together(device) && takes_inline_ptx(device)) return "ptx";
    return lane_shuffles_forced.load(std::memory_order_relaxed) ? "native" : "";
}

std::size_t reach(const std::vector<std::size_t>& shape, const std::vector<std::ptrdiff_t>& strides) {
    std::size_t r = 0;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (shape[d] > 0) r += static_cast<std::size_t>(std::llabs(strides[d])) * (shape[d] - 1);
    return r;
}

/// How a launch covers the outputs and their reduced ranges.
struct Strategy {
    std::size_t group = 256;   // work items per group
    std::size_t lanes = 1;     // work items per output
    std::size_t groups_x = 1;  // groups along the outputs
    std::size_t pieces = 1;    // interleaved pieces of each reduced range (grid dimension 1)
    std::size_t step = 1;      // pieces * lanes
};

Strategy strategy(std::size_t group, bool lanes_along_reduced, std::size_t n_out, std::size_t n_red,
                  std::size_t target_groups) {
    Strategy st;
    st.group = group;
    st.lanes = lanes_along_reduced ? std::min(group, floor_pow2(std::max<std::size_t>(n_red / 8, 1))) : 1;
    // About 64 groups per compute unit (target_groups; many waves, see the top of the file), each
    // work item taking at least `items` elements: fewer, longer pieces where the input is smaller
    // than the many waves need. Past 2^22 reduced elements, 128: the whole float32 sum on an H200
    // against 64 (events around batches, medians of 3 alternating rounds, CUDA / NVIDIA OpenCL,
    // GB/s): 64 MiB 3050 -> 3134 / 2999 -> 3115, 256 MiB 3957 -> 4012 / 3884 -> 4035 (CuPy 4033);
    // 2 GiB keeps its 8192 pieces; 256 lost at 64 MiB and 2 GiB. Up to 2^22, 32: kernel time on
    // one stream beside CuPy's (call N3 of 2026-12-02, through CUDA, bench/python/
    // sweep_one_stream.py, ratio to CuPy with 32 / 64 / 128): 1 MiB 0.81 / 0.75 / 0.69, 4 MiB
    // 0.87 / 0.79 / 0.72, 16 MiB 0.94 / 0.93 / 0.88 (the batch timing had preferred 128 at 4-16
    // MiB, where the host's gaps between launches weighed in). Up to 2^18, 16: with the lanes
    // combined by warp shuffles, the whole float32 sum's one kernel at 1 MiB (a CUDA C++ copy of
    // it built by nvcc, 200 launches in a row, medians of 15 interleaved, H200, 2026-12-02) took
    // 4.61 us with 32 and 4.43 with 16 (CUB's two kernels 4.46); at 4 MiB 5.00 against 5.14.
    // KJARNI_REDUCTION_ITEMS: another least number, for measuring (read once a process; the grid
    // only, the kernels stay the same).
    static const std::size_t items_setting = tuning_count("KJARNI_REDUCTION_ITEMS", 1 << 20);
    const std::size_t items = items_setting != 0                ? items_setting
                              : n_red <= (std::size_t{1} << 18) ? 16
                              : n_red <= (std::size_t{1} << 22) ? 32
                                                                : 128;
    st.groups_x = ceil_div(n_out, group / st.lanes);
    if (st.groups_x < target_groups && n_red >= st.lanes * items)
        st.pieces = floor_pow2(std::min(ceil_div(target_groups, st.groups_x), n_red / (st.lanes * items)));
    st.step = st.pieces * st.lanes;
    return st;
}

/// The result array: options.out checked against the result's shape and dtype (ArgumentError
/// naming "out"), or a new array.
Array reduction_output(const Queue& queue, const ReductionSpec& spec, const ReduceOptions& options,
                       const std::vector<std::size_t>& result_shape) {
    if (!options.out)
        return Array::empty(queue.device(), result_shape, spec.result, std::nullopt, 0, options.allocator);
    const Array& given = *options.out;
    check_device(queue, given, "out");
    given.require_writeable("out");
    if (given.shape() != result_shape)
        throw ArgumentError("out", fmt::format("{}: has shape ({}), the result has shape ({})", spec.what,
                                               fmt::join(given.shape(), ", "), fmt::join(result_shape, ", ")));
    if (!(given.dtype() == spec.result))
        throw ArgumentError("out", fmt::format("{}: has dtype {}, the result has dtype {}", spec.what,
                                               given.dtype().name(), spec.result.name()));
    return given;
}

/// The kept axes (the outputs: one stride list per array, then the result's) and the reduced axes
/// (one stride list per array), each array's offset and the result's last.
struct ReductionGeometry {
    std::vector<ArrayOperand> arrays;
    IterationSpace kept;
    IterationSpace red;
    std::vector<std::ptrdiff_t> offsets;
    std::size_t n_out = 0;
    std::size_t n_red = 0;
};

ReductionGeometry reduction_geometry(const ReductionSpec& spec, const ReduceOptions& options,
                                     std::vector<ArrayOperand> arrays, const std::vector<std::size_t>& shape,
                                     const std::vector<bool>& reduced, const Array& out) {
    ReductionGeometry g;
    g.arrays = std::move(arrays);
    std::vector<std::size_t> kept_shape, red_shape;
    for (std::size_t d = 0; d < shape.size(); ++d) (reduced[d] ? red_shape : kept_shape).push_back(shape[d]);
    g.n_red = std::accumulate(red_shape.begin(), red_shape.end(), std::size_t{1}, std::multiplies<>());
    g.n_out = std::accumulate(kept_shape.begin(), kept_shape.end(), std::size_t{1}, std::multiplies<>());
    if (kept_shape.empty() && g.n_red > 1 && g.arrays.size() == 1 && g.arrays[0].array->is_c_contiguous() &&
        out.is_c_contiguous()) {
        // The usual sum(x): one C-contiguous array reduced whole. The spaces make_iteration_space
        // would give (no kept axis; one reduced axis of stride 1), made without splitting and
        // merging axes.
        g.offsets = {element_offset(*g.arrays[0].array, spec.arguments[g.arrays[0].argument].name),
                     element_offset(out, "out")};
        g.kept.strides.resize(2);
        g.red = contiguous_space(g.n_red, 1);
        return g;
    }
    // Strides in elements over the broadcast shape, split between kept and reduced axes.
    std::vector<std::vector<std::ptrdiff_t>> kept_strides, red_strides;
    for (const auto& a : g.arrays) {
        const std::string& name = spec.arguments[a.argument].name;
        const auto strides = element_strides(a.array->layout(), a.array->dtype().itemsize(), shape, name);
        std::vector<std::ptrdiff_t> ks, rs;
        for (std::size_t d = 0; d < shape.size(); ++d) (reduced[d] ? rs : ks).push_back(strides[d]);
        kept_strides.push_back(std::move(ks));
        red_strides.push_back(std::move(rs));
        g.offsets.push_back(element_offset(*a.array, name));
    }
    {
        const auto strides = element_strides(out.layout(), out.dtype().itemsize(), out.shape(), "out");
        std::vector<std::ptrdiff_t> ks;
        if (options.keepdims) {
            for (std::size_t d = 0; d < shape.size(); ++d)
                if (!reduced[d]) ks.push_back(strides[d]);
        } else {
            ks = strides;
        }
        kept_strides.push_back(std::move(ks));
        g.offsets.push_back(element_offset(out, "out"));
    }
    g.kept = make_iteration_space(kept_shape, kept_strides);
    g.red = make_iteration_space(red_shape, red_strides, {}, true);
    check_axis_count(g.kept, spec.what);
    check_axis_count(g.red, spec.what);
    return g;
}

/// The first pass's strategy (see the top of the file) and its 16-byte loads, before pad_axes.
struct ReductionPlan {
    Strategy narrow;  // groups of at most 256
    Strategy chosen;  // groups of 512 where long rows are split into pieces and the device allows
    bool lanes_along_reduced = false;
    std::size_t vector = 0;
};

ReductionPlan plan_reduction(const Queue& queue, const ReductionSpec& spec, const std::vector<Operand>& arguments,
                             const ReductionGeometry& g) {
    ReductionPlan plan;
    const std::size_t compute_units = std::max<std::size_t>(queue.device().params().compute_units, 1);
    const std::size_t device_group = floor_pow2(queue.device().params().max_total_local_size);
    const IterationSpace& kept = g.kept;
    const IterationSpace& red = g.red;
    const std::ptrdiff_t red_inner = red.ndim() > 0 && !g.arrays.empty() ? std::llabs(red.strides[0].back()) : 0;
    const std::ptrdiff_t kept_inner = kept.ndim() > 0 ? std::llabs(kept.strides[0].back()) : 0;
    plan.lanes_along_reduced = kept.ndim() == 0 || (red.ndim() > 0 && red_inner != 0 && red_inner < kept_inner);
    const std::size_t target_groups = compute_units * 64;
    plan.narrow =
        strategy(std::min<std::size_t>(256, device_group), plan.lanes_along_reduced, g.n_out, g.n_red, target_groups);
    // Long reduced rows split into pieces take groups of 512 where the device allows: a whole sum
    // of 2 GiB float32 on an H100 read 3075-3090 GB/s with 8192 groups of 256, 3105-3119 with
    // 8192 of 512 (4096 of 512: 3096-3106; 16384 of 256: 3081-3092).
    plan.chosen = plan.narrow;
    if (plan.narrow.lanes == plan.narrow.group && plan.narrow.pieces > 1 && device_group >= 512)
        plan.chosen = strategy(512, plan.lanes_along_reduced, g.n_out, g.n_red, target_groups);

    // 16-byte loads where the one array's reduced run is contiguous, starts 16-byte aligned for
    // every output and is a whole number of vectors.
    if (!spec.value_code.empty() && arguments.size() == 1 && g.arrays.size() == 1 && red.ndim() == 1 &&
        red.strides[0][0] == 1) {
        const auto v = static_cast<std::ptrdiff_t>(16 / g.arrays[0].array->dtype().itemsize());
        bool aligned =
            static_cast<std::ptrdiff_t>(g.n_red) % v == 0 && lies_aligned(*g.arrays[0].array, g.offsets[0], 16);
        for (const std::ptrdiff_t stride : kept.strides[0]) aligned = aligned && stride % v == 0;
        if (aligned) plan.vector = static_cast<std::size_t>(v);
    }
    return plan;
}

/// 32-bit indices when every offset, count and partial index of `st` fits (after pad_axes).
bool reduction_fits_32_bits(const ReductionGeometry& g, const Strategy& st) {
    constexpr std::size_t limit = std::size_t{1} << 31;
    const IterationSpace& kept = g.kept;
    const IterationSpace& red = g.red;
    bool fits = g.n_out < limit && g.n_red + accumulators * st.step < limit && g.n_out * st.pieces < limit;
    for (std::size_t a = 0; a < g.arrays.size(); ++a)
        fits = fits && static_cast<std::size_t>(std::llabs(g.offsets[a])) + reach(kept.shape, kept.strides[a]) +
                               (red.ndim() ? reach(red.shape, red.strides[a]) : 0) + 4 * st.group <
                           limit;
    return fits &&
           static_cast<std::size_t>(std::llabs(g.offsets.back())) + reach(kept.shape, kept.strides.back()) < limit;
}

/// Work items per output that combine the pieces' partial results (the second pass's lanes): all
/// of a group's on a single output, else one per output.
std::size_t combine_lanes(std::size_t n_out, const Strategy& st) {
    return n_out == 1 ? std::min(st.group, floor_pow2(st.pieces)) : 1;
}

/// The first pass: every output's reduced range (or, with pieces, each piece's partial result into
/// `partials`).
void launch_first_pass(const Queue& queue, const ReductionSpec& spec, const std::vector<Operand>& arguments,
                       const ReductionGeometry& g, const Strategy& st, const KernelShape& shape,
                       const GeneratedKernel& kernel, const Array& out, const Buffer& partials) {
    const bool use_32 = shape.use_32_bits;
    const auto count = static_cast<std::int64_t>(g.n_red);
    std::vector<KernelArg> args = argument_list();
    args.push_back(whole_allocation(out));
    args.push_back(detail::pack(partials, LaunchTarget{}));
    push_index(args, static_cast<std::int64_t>(g.n_out), use_32);
    push_index(args, static_cast<std::int64_t>(g.n_red), use_32);
    push_index(args, static_cast<std::int64_t>(st.step), use_32);
    args.push_back(scalar_arg(&count, sizeof(count)));
    push_index(args, static_cast<std::int64_t>(st.lanes), use_32);
    if (shape.combine != nullptr) {
        args.push_back(self_resetting_counters(queue, 1));
        push_index(args, static_cast<std::int64_t>(combine_lanes(g.n_out, st)), use_32);
    }
    std::vector<std::vector<std::byte>> scalars;
    push_operands(args, spec.arguments, arguments, scalars);
    std::vector<std::int64_t> layout = layout_values(g.kept, g.offsets);
    for (const std::size_t extent : g.red.shape) layout.push_back(static_cast<std::int64_t>(extent));
    for (std::size_t a = 0; a < g.arrays.size(); ++a)
        for (const std::ptrdiff_t stride : g.red.strides[a]) layout.push_back(stride);
    std::optional<Buffer> table;  // held until the launch is enqueued
    push_index_values(args, layout, use_32, shape.table, queue, table);
    const std::size_t global[2] = {st.groups_x * st.group, st.pieces};
    const std::size_t local[2] = {st.group, 1};
    launch(queue, kernel, global, local, args);
}

/// The second pass: the pieces' partial results combined in order, one output per work item, or
/// all lanes on one output.
void launch_combine_pass(const Queue& queue, const ReductionSpec& spec, const ReductionGeometry& g, const Strategy& st,
                         bool use_32, const Array& out, const Buffer& partials) {
    const std::size_t n_out = g.n_out, group = st.group;
    const auto count = static_cast<std::int64_t>(g.n_red);
    const std::size_t lanes2 = combine_lanes(n_out, st);
    KernelShape shape2{g.kept.ndim(), 0, use_32, group, true, true, layout_in_table(g.kept.ndim())};
    shape2.lanes_in_order = cpu_code(queue.device());
    shape2.barriers_in_branches = runs_groups_together(queue.device());
    shape2.shuffles = lane_shuffles(queue.device(), group, st.pieces);
    const GeneratedKernel k2 = generated_kernel(queue.device(), kernel_key(spec, shape2), "kjarni_reduction",
                                                [&] { return kernel_source(spec, shape2); });
    IterationSpace out_space = g.kept;
    out_space.strides = {g.kept.strides.back()};
    std::vector<KernelArg> args = argument_list();
    args.push_back(whole_allocation(out));
    args.push_back(detail::pack(partials, LaunchTarget{}));
    push_index(args, static_cast<std::int64_t>(n_out), use_32);
    push_index(args, static_cast<std::int64_t>(st.pieces), use_32);
    push_index(args, static_cast<std::int64_t>(lanes2), use_32);  // one piece: step = lanes
    args.push_back(scalar_arg(&count, sizeof(count)));
    push_index(args, static_cast<std::int64_t>(lanes2), use_32);
    std::optional<Buffer> table;  // held until the launch is enqueued
    push_index_values(args, layout_values(out_space, {g.offsets.back()}), use_32, shape2.table, queue, table);
    const std::size_t global[2] = {ceil_div(n_out, group / lanes2) * group, 1};
    const std::size_t local[2] = {group, 1};
    launch(queue, k2, global, local, args);
}

}  // namespace

void allow_combine_in_kernel(bool allow) { combine_in_kernel_allowed.store(allow, std::memory_order_relaxed); }

void force_lane_shuffles(bool force) { lane_shuffles_forced.store(force, std::memory_order_relaxed); }

std::string store_result_code(const ReductionSpec& spec) {
    const std::string value = "kjarni_finish(acc, count)";
    if (spec.result.kind() == DType::Kind::float16)
        return fmt::format("        res_base[res_o] = kjarni_f2h({});\n", value);
    return fmt::format("        res_base[res_o] = ({})({});\n", storage_ctype(spec.result), value);
}

Array run_reduction(const Queue& queue, const ReductionSpec& spec, const std::vector<Operand>& arguments,
                    const ReduceOptions& options) {
    std::vector<ArrayOperand> arrays = check_arguments(queue, spec.arguments, arguments, spec.what);
    std::vector<std::size_t> shape;
    if (arrays.size() == 1) {
        shape = arrays[0].array->shape();  // one shape broadcasts to itself
    } else {
        std::vector<std::vector<std::size_t>> shapes;
        shapes.reserve(arrays.size());
        for (const auto& a : arrays) shapes.push_back(a.array->shape());
        shape = broadcast_shapes(shapes, spec.what);
    }
    const std::vector<bool> reduced = reduced_axes(options.axes, shape.size(), spec.what);
    std::vector<std::size_t> result_shape;
    std::size_t n_red = 1, n_out = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        (reduced[d] ? n_red : n_out) *= shape[d];
        if (!reduced[d]) result_shape.push_back(shape[d]);
        else if (options.keepdims) result_shape.push_back(1);
    }
    Array out = reduction_output(queue, spec, options, result_shape);
    // numpy refuses an empty reduced axis whenever there is no identity, even where the result is
    // empty too (min over axis 1 of shape (2, 0, 0)).
    if (n_red == 0 && spec.refuse_empty)
        throw ArgumentError("array", fmt::format("{}: the reduction of an empty set has no identity", spec.what));
    if (n_out == 0) return out;  // nothing to compute, nothing launched

    ReductionGeometry g = reduction_geometry(spec, options, std::move(arrays), shape, reduced, out);
    if (run_cpu_reduction(queue, spec, arguments, CpuReductionSpace{g.kept, g.red, g.offsets, g.n_out, g.n_red}, out))
        return out;
    const ReductionPlan plan = plan_reduction(queue, spec, arguments, g);
    pad_axes(g.kept);
    pad_axes(g.red);

    // One kernel where the pieces of every output are in one column of groups: its last group
    // combines them (reduction.mako). Not while the queue records: a replay may run beside other
    // work of the queue that uses its counter (queue_scratch.hpp).
    // Only where the device has a device-wide fence. KJARNI_REDUCTION_KERNELS=2 takes two kernels
    // everywhere, for measuring (read once a process; 1 is the default).
    static const bool two_kernels = tuning_count("KJARNI_REDUCTION_KERNELS", 2) == 2;
    const char* fence = combine_in_kernel_allowed.load(std::memory_order_relaxed) && !two_kernels &&
                                recording_on(backend_of(queue).get()) == nullptr
                            ? device_wide_fence(queue.device())
                            : nullptr;
    const bool barriers_in_branches = runs_groups_together(queue.device());
    const bool acquire_release = counts_acquire_release(queue.device());
    const auto first_pass = [&](const Strategy& st) {
        const KernelShape ks{g.kept.ndim(),
                             g.red.ndim(),
                             reduction_fits_32_bits(g, st),
                             st.group,
                             st.pieces == 1,
                             false,
                             layout_in_table(std::max(g.kept.ndim(), g.red.ndim())),
                             plan.vector,
                             cpu_code(queue.device()),
                             st.pieces > 1 && st.groups_x == 1 ? fence : nullptr,
                             barriers_in_branches,
                             lane_shuffles(queue.device(), st.group, g.n_red),
                             fence != nullptr && acquire_release};
        return std::pair{ks, generated_kernel(queue.device(), kernel_key(spec, ks), "kjarni_reduction",
                                              [&] { return kernel_source(spec, ks); })};
    };
    Strategy chosen = plan.chosen;
    auto [shape1, k1] = first_pass(chosen);
    // A kernel may take fewer work items per group than the device: NVIDIA's OpenCL gives these
    // kernels at most 256 of its 1024 on an H100, even with reqd_work_group_size(512, 1, 1)
    // (tried); then the narrow groups.
    if (k1.max_local_size < chosen.group && chosen.group > plan.narrow.group) {
        chosen = plan.narrow;
        std::tie(shape1, k1) = first_pass(chosen);
    }
    if (k1.max_local_size < chosen.group)
        throw UnsupportedError(fmt::format("{}: the device takes at most {} work items per group for this kernel, "
                                           "the reduction needs {}",
                                           spec.what, k1.max_local_size, chosen.group));
    const Buffer partials =
        chosen.pieces > 1 ? temporary_buffer(queue, chosen.pieces * g.n_out * spec.acc_size) : out.base();
    launch_first_pass(queue, spec, arguments, g, chosen, shape1, k1, out, partials);
    if (chosen.pieces > 1 && shape1.combine == nullptr)
        launch_combine_pass(queue, spec, g, chosen, shape1.use_32_bits, out, partials);
    return out;
}

}  // namespace kjarni::detail
