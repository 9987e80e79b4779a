// The scan engine. The broadcast shape splits into rows (every axis but the scanned one: an
// iteration space reordered and merged like an elementwise one) and the scanned axis (its length
// and each array's stride along it). Two strategies, both deterministic:
//
// - sequential: one work item per row walks it in order (two walks when last_item is used).
//   Taken for short rows, or when there are rows enough to fill the device and the rows, not the
//   scanned axis, are contiguous in memory (consecutive work items then read consecutive memory).
// - tiled, for long rows: a row is cut into `pieces` chunks of whole tiles (a tile: GROUP work
//   items x ITEMS positions). Kernel 1: one work group per (row, chunk) scans its
//   tiles in order and stores the chunk's total; for a commutative scan_expr (cumsum, cumprod) it
//   only sums the chunk, coalesced, in a fixed order (no staging: it reads at memory speed).
//   Kernel 2: one work item per row turns the totals
//   into exclusive carries (and the row total). Kernel 3: kernel 1 again, starting from the
//   chunk's carry, writing every position through output_statement.
//   Within a tile (staged in local memory, so that global accesses are coalesced) each work item
//   scans ITEMS consecutive positions in order, the work items' totals are scanned in local memory
//   (Hillis-Steele, left operand first): the order of combination is fixed and scan_expr need
//   not be commutative.
// - single pass, for scans of 4-, 8- and 16-byte items: one kernel, a tile per work group in the
//   order the groups start, each tile's prefix combined from its predecessors' published totals over
//   a fixed hierarchy of blocks (see data/kernels/scan.mako's lookback), so the bits do not depend
//   on timing, floats included.
//   It reads and writes every position once (the tiled strategy reads twice). It needs only that a
//   started group keeps running while others wait for it (see run_scan for the devices that give
//   that), not forward progress for groups that have not started.

#include "algorithms/scan_engine.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>

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
#include "algorithms/reduction_types.hpp"
#include "algorithms/scan_cpu.hpp"
#include "algorithms/tuning_settings.hpp"
#include "base/ceil_div.hpp"
#include "core/context_state.hpp"
#include "core/recording_registry.hpp"
#include "kjarni/error.hpp"
#include "kjarni/template.hpp"

namespace kjarni::detail {

std::string scan_code(const std::vector<CArgument>& arguments, const std::string& preamble, const std::string& neutral,
                      const std::string& scan_expr, const std::string& input_expr, const std::string& output_statement,
                      const Globals& render_globals, const std::string& what) {
    std::string params;
    for (const CArgument& a : arguments) {
        if (a.name == "i" || a.name == "item" || a.name == "prev_item" || a.name == "last_item" ||
            a.name.rfind("kjarni_", 0) == 0)
            throw ArgumentError(a.name, fmt::format("{}: the argument name '{}' is reserved", what, a.name));
        params += a.pointer
                      ? fmt::format(", GLOBAL_MEM {}{}* {}", a.is_const ? "const " : "", storage_ctype(a.dtype), a.name)
                      : fmt::format(", {} {}", storage_ctype(a.dtype), a.name);
    }
    const std::string text = fmt::format(R"({}
FUNCTION INLINE KJARNI_ITEM kjarni_neutral() {{ return ({}); }}
FUNCTION INLINE KJARNI_ITEM kjarni_scan_op(KJARNI_ITEM a, KJARNI_ITEM b) {{ return ({}); }}
FUNCTION INLINE KJARNI_ITEM kjarni_input(KJARNI_IDX i{}) {{ return ({}); }}
FUNCTION INLINE void kjarni_output(KJARNI_IDX i, KJARNI_ITEM item, KJARNI_ITEM prev_item, KJARNI_ITEM last_item{})
{{
    {}
}}
)",
                                         preamble, neutral, scan_expr, params, input_expr, params, output_statement);
    return render_user_code(text, render_globals, what);
}

namespace {

/// Positions each work item scans per tile, as many as keep the staged tile within 16 KiB of local
/// memory, at most 8 through CUDA and 16 elsewhere: measured on the H100 (int32 and float32 cumsum
/// of 2^28), 16 instead of 8 is 7-8% faster through NVIDIA's OpenCL and 6-9% slower through CUDA.
std::size_t items_per_thread(std::size_t item_size, std::size_t group, bool cuda) {
    return std::clamp<std::size_t>(16384 / (group * std::max<std::size_t>(item_size, 1)), 4, cuda ? 8 : 16);
}

/// Positions per work item of the single-pass scan, counted in 4-byte positions (wider items take
/// as many bytes, at least one position). CPUs: 40 (a tile of 40 KiB). GPUs: 32 for items of 4
/// and 8 bytes; items of 16 bytes 40, or 16 where the multiprocessors would each get fewer than 8
/// tiles of 40 (`positions` in all, `compute_units` multiprocessors, groups of `group`).
///
/// Why: a tile's time grows with its size and a multiprocessor keeps only a few tile groups
/// resident, so the tiles run in rounds, and a last round that is partly empty leaves the GPU
/// idle for a whole tile's time: with few rounds smaller tiles waste less. H200, cumsum of float32,
/// GB/s, medians of 3 (CUDA / NVIDIA OpenCL; 16 / 32 / 40 positions), before the axis step was
/// compiled in: 4 MiB 733 / 754 / 695 and 364 / 419 / 368; 8 MiB 1134 / 1371 / 1206 and 737 / 957
/// / 857; 16 MiB 1606 / 1711 / 1524 and 1377 / 1652 / 1386; 64 MiB 1736 / 2138 / 2038 through CUDA.
/// Tiles of 40 then won from 256 MiB on (2544 against 2510 at 256 MiB; 2 GiB 2739 against 2670),
/// but since whole tiles are read without bound checks and the axis step is compiled in, a work
/// item holds its loads in more registers (47 -> 60 a work item at 40 positions, 5 -> 4 groups per
/// multiprocessor, Nsight Compute) and 32 wins there too (2026-12-01, cumsum float32, GB/s, the
/// range of two rounds, CUDA / OpenCL): 256 MiB 2640-2666 / 2661-2668 with 32 against 2474-2493 /
/// 2491-2495 with 40 (the code before, with 40: 2553-2556 / 2551-2553); 1 GiB 2756-2765 /
/// 2766-2768 against 2636-2645 / 2643-2644 (before: 2724-2727 / 2721-2722).
/// int32 into int64 (8-byte items), 2 GiB: 2115 with 32 against 1904 with 40 through CUDA, 2106
/// against 1868 through OpenCL (before the change; not measured after).
/// KJARNI_SCAN_ITEMS sets the positions of 4 bytes instead (1 to 40), to measure other tiles.
std::size_t lookback_items(std::size_t item_size, std::size_t positions, std::size_t compute_units, std::size_t group,
                           bool gpu) {
    // Read once a process: getenv walks the whole environment, on every scan otherwise.
    static const std::size_t items_setting = tuning_count("KJARNI_SCAN_ITEMS", 40);
    std::size_t four_byte_items = items_setting;
    if (four_byte_items == 0) {
        if (!gpu) {
            four_byte_items = 40;
        } else if (item_size <= 8) {
            four_byte_items = 32;
        } else {
            // The multiprocessors' share of tiles of 40 positions of 4 bytes.
            const std::size_t tiles_of_40 = positions * item_size / 4 / (group * 40);
            const std::size_t per_unit = tiles_of_40 / std::max<std::size_t>(compute_units, 1);
            four_byte_items = per_unit < 8 ? 16 : 40;
        }
    }
    return std::max<std::size_t>(4 * four_byte_items / item_size, 1);
}

/// Items of a staged tile of `group` x `items` positions: a padding slot every 32 (KJARNI_PAD).
std::size_t padded_stage_items(std::size_t group, std::size_t items) { return group * items + group * items / 32; }

enum class Mode { sequential, chunk_totals, carries, chunk_scan, lookback };

struct ScanShape {
    Mode mode = Mode::sequential;
    std::size_t items = 8;     // positions per work item in a tile
    bool commutative = false;  // chunk_totals may sum in any fixed order
    bool prefetch = false;     // a tile's reads are issued while the previous tile is scanned
    std::size_t row_ndim = 0;
    bool use_32_bits = true;
    std::size_t group = 256;
    bool table = false;  // the rows' layout comes in a table (more than max_scalar_axes axes)
    /// The device runs a group's work items together (CUDA devices, OpenCL GPUs), so a barrier may
    /// stand in a branch every work item of the group takes alike (see scan.mako's lookback).
    bool barriers_in_branches = true;
    /// Every array steps by one element along the scanned axis: its step is compiled in.
    bool unit_axis = false;
};

/// Tiles per block and blocks per superblock of the single pass's look-back (data/kernels/scan.mako).
constexpr std::size_t lookback_fan_out = 32;

/// The mode as scan.mako names it.
const char* scan_mode_name(Mode mode) {
    switch (mode) {
    case Mode::sequential: return "sequential";
    case Mode::chunk_totals: return "chunk_totals";
    case Mode::carries: return "carries";
    case Mode::chunk_scan: return "chunk_scan";
    case Mode::lookback: return "lookback";
    }
    return "";
}

/// The kernel of one mode: data/kernels/scan.mako, given the pieces of this scan (its functions,
/// the arguments' parameters and their shifts along the row, the rows' layout).
std::string kernel_source(const ScanSpec& spec, const ScanShape& k) {
    const char* idx = index_type(k.use_32_bits);
    std::vector<std::string> operands;  // the arrays' names in the kernel: a0, a1, ...
    std::vector<Value> args;            // every argument as [is an array, its name]
    std::string params;
    for (const CArgument& a : spec.arguments) {
        if (a.pointer) {
            const std::string name = fmt::format("a{}", operands.size());
            params +=
                fmt::format(", GLOBAL_MEM {}{}* {}_base", a.is_const ? "const " : "", storage_ctype(a.dtype), name);
            args.push_back(Value::list({Value(true), Value(name)}));
            operands.push_back(name);
        } else {
            params += fmt::format(", {} {}", storage_ctype(a.dtype), a.name);
            args.push_back(Value::list({Value(false), Value(a.name)}));
        }
    }
    const std::vector<std::string> layout = layout_names(k.row_ndim, operands);
    return render_kernel_template("scan.mako", {{"helpers", algorithm_helpers()},
                                                {"item", spec.item_ctype},
                                                {"idx", idx},
                                                {"code", spec.code},
                                                {"mode", scan_mode_name(k.mode)},
                                                {"status_words", spec.item_size / 4},
                                                {"fan", lookback_fan_out},
                                                {"params", params},
                                                {"index_params", index_parameters(layout, idx, k.table)},
                                                {"prologue", index_prologue(layout, idx, k.table)},
                                                {"decode", decode_offsets(k.row_ndim, operands, idx, "row")},
                                                {"arrays", operands.size()},
                                                {"args", Value::list(std::move(args))},
                                                {"items", k.items},
                                                {"group", k.group},
                                                {"commutative", k.commutative},
                                                {"prefetch", k.prefetch},
                                                {"uses_last_item", spec.uses_last_item},
                                                {"barriers_in_branches", k.barriers_in_branches},
                                                {"unit_axis", k.unit_axis}});
}

std::string kernel_key(const ScanSpec& spec, const ScanShape& k) {
    return KeyText("scan mode=", spec.code.size())
        .number("", static_cast<std::size_t>(k.mode))
        .number(" items=", k.items)
        .flag(" commutative=", k.commutative)
        .flag(" prefetch=", k.prefetch)
        .number(" rows=", k.row_ndim)
        .flag(" idx=", k.use_32_bits)
        .number(" group=", k.group)
        .flag(" table=", k.table)
        .flag(" branch_barriers=", k.barriers_in_branches)
        .flag(" unit_axis=", k.unit_axis)
        .text(" item=", spec.item_ctype)
        .arguments(" args=", spec.arguments, true)
        .finish(spec.code);
}

std::atomic<bool> single_pass_allowed{true};

/// The broadcast shape split into rows (every axis but the scanned one: an iteration space over the
/// arrays) and the scanned axis (each array's stride along it), with each array's offset.
struct ScanGeometry {
    std::vector<ArrayOperand> arrays;
    IterationSpace rows;
    std::vector<std::ptrdiff_t> axis_strides;
    std::vector<std::ptrdiff_t> offsets;
    std::size_t n_rows = 0;
    std::size_t length = 0;
};

/// Checks the arguments and the axis (ArgumentError naming the culprit) and splits the shape;
/// nullopt when there is nothing to scan (no rows, or rows of length 0).
std::optional<ScanGeometry> scan_geometry(const Queue& queue, const ScanSpec& spec,
                                          const std::vector<Operand>& arguments, int axis) {
    ScanGeometry g;
    g.arrays = check_arguments(queue, spec.arguments, arguments, spec.what);
    if (g.arrays.empty())
        throw ArgumentError("arguments", fmt::format("{}: a scan needs at least one array", spec.what));
    std::vector<std::vector<std::size_t>> shapes;
    for (const auto& a : g.arrays) shapes.push_back(a.array->shape());
    const std::vector<std::size_t> shape = broadcast_shapes(shapes, spec.what);
    if (shape.empty()) throw ArgumentError("axis", fmt::format("{}: a 0-d array has no axis to scan", spec.what));
    const std::vector<bool> scanned = reduced_axes(std::vector<int>{axis}, shape.size(), spec.what, "axis");
    const std::size_t axis_index =
        static_cast<std::size_t>(std::find(scanned.begin(), scanned.end(), true) - scanned.begin());
    g.length = shape[axis_index];
    std::vector<std::size_t> row_shape;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (d != axis_index) row_shape.push_back(shape[d]);
    g.n_rows = std::accumulate(row_shape.begin(), row_shape.end(), std::size_t{1}, std::multiplies<>());
    if (g.n_rows == 0 || g.length == 0) return std::nullopt;  // nothing to scan, nothing launched

    std::vector<std::vector<std::ptrdiff_t>> row_strides;
    for (const auto& a : g.arrays) {
        const CArgument& d = spec.arguments[a.argument];
        const auto strides = element_strides(a.array->layout(), a.array->dtype().itemsize(), shape, d.name);
        if (!d.is_const && strides[axis_index] == 0 && g.length > 1)
            throw ArgumentError(d.name,
                                fmt::format("{}: a written array is broadcast along the scanned axis", spec.what));
        std::vector<std::ptrdiff_t> rs;
        for (std::size_t k = 0; k < shape.size(); ++k)
            if (k != axis_index) rs.push_back(strides[k]);
        row_strides.push_back(std::move(rs));
        g.axis_strides.push_back(strides[axis_index]);
        g.offsets.push_back(element_offset(*a.array, d.name));
    }
    g.rows = make_iteration_space(row_shape, row_strides);
    check_axis_count(g.rows, spec.what);
    return g;
}

/// How the launches cover the rows: the strategy (see the top of the file) and its sizes.
struct ScanPlan {
    bool sequential = true;
    bool single_pass = false;
    bool cuda = false;
    bool barriers_in_branches = true;  // ScanShape's: the device runs a group's work items together
    std::size_t group = 256;           // work items per group of the tiled kernels
    std::size_t items = 8;    // positions per work item in a tile
    std::size_t tile = 0;     // group * items
    std::size_t pieces = 1;   // chunks per row
    std::size_t chunk = 0;    // positions per chunk
};

ScanPlan plan_scan(const Queue& queue, const ScanSpec& spec, const ScanGeometry& g) {
    ScanPlan plan;
    const std::size_t compute_units = std::max<std::size_t>(queue.device().params().compute_units, 1);
    // KJARNI_SCAN_GROUP (a power of two, to measure other shapes) sets the work items per group instead of 256.
    static const std::size_t group = tuning_count("KJARNI_SCAN_GROUP", 1024);  // read once, as KJARNI_SCAN_ITEMS
    plan.group = std::min<std::size_t>(group != 0 ? floor_pow2(group) : 256,
                                       floor_pow2(queue.device().params().max_total_local_size));
    // Through CUDA a tile's reads are issued while the previous tile is scanned (H100, cumsum of 2^28:
    // int32 1.70 -> 1.81 TB/s, float32 1.67 -> 1.78); NVIDIA's OpenCL lost about 1% with it.
    plan.cuda = is_cuda(queue.device().context());
    // The single pass (items of 4, 8 or 16 bytes): at most 40 positions of 4 bytes per work item (lookback_items
    // says how many), a tile of at most 10240 items (41 KiB staged, within the 48 KiB every CUDA device and
    // NVIDIA's OpenCL give a group); wider items take as many bytes. Measured on the H100 (cumsum of 2^28, GB/s,
    // int32 / float32): 32 positions 2264 / 2268 through NVIDIA's OpenCL, 40 positions 2251 / 2251 (small tiles
    // wait on the look-back; 48 would not fit 48 KiB); at 40, 2384 / 2382 through CUDA and 2401 / 2392 through
    // OpenCL in a later run, against the three kernels' 1849 / 1826 through OpenCL and 1776 for float32 through
    // CUDA. Items of 8 bytes (int32 into int64): 1810 through CUDA and 1761 through OpenCL, the three kernels 1849
    // and 1537. The stage, the scratch of the group's totals and the look-back's slots must fit the group's local
    // memory. A tile waits for tiles whose groups have started, so the device must keep a started group running
    // while others wait: CUDA devices and OpenCL GPUs do (their multiprocessors interleave every resident group),
    // OpenCL CPU devices do (a group runs on one thread from its start to its end); other OpenCL devices keep the
    // three kernels.
    const DeviceType type = queue.device().params().type;
    plan.barriers_in_branches = runs_groups_together(queue.device());
    // (a published item takes 1, 2 or 4 whole status words)
    const bool in_status_words = spec.item_size == 4 || spec.item_size == 8 || spec.item_size == 16;
    const std::size_t single_pass_items =
        lookback_items(spec.item_size, g.n_rows * g.length, compute_units, plan.group, type != DeviceType::cpu);
    const bool lookback =
        single_pass_allowed.load(std::memory_order_relaxed) &&
        (plan.cuda || type == DeviceType::gpu || type == DeviceType::cpu) && in_status_words && !spec.uses_last_item &&
        plan.group >= 2 * lookback_fan_out &&
        (padded_stage_items(plan.group, single_pass_items) + plan.group + 2 * lookback_fan_out) * spec.item_size + 64 <=
            queue.device().params().local_mem_size;
    plan.items = lookback ? single_pass_items : items_per_thread(spec.item_size, plan.group, plan.cuda);
    plan.tile = plan.group * plan.items;
    const std::size_t target_groups = compute_units * 8;
    const IterationSpace& rows = g.rows;
    const std::ptrdiff_t row_inner = rows.ndim() > 0 ? std::llabs(rows.strides[0].back()) : 0;
    const bool rows_contiguous = rows.ndim() > 0 && row_inner != 0 && row_inner < std::llabs(g.axis_strides[0]);
    plan.sequential = g.length <= 64 || (g.n_rows >= target_groups * plan.group && rows_contiguous);
    plan.chunk = g.length;
    plan.single_pass = lookback && !plan.sequential;
    if (plan.single_pass) {
        plan.pieces = ceil_div(g.length, plan.tile);  // a tile per work group
        plan.chunk = plan.tile;
    } else if (!plan.sequential) {
        plan.pieces = std::clamp<std::size_t>(ceil_div(target_groups, g.n_rows), 1, ceil_div(g.length, plan.tile));
        plan.chunk = ceil_div(ceil_div(g.length, plan.pieces), plan.tile) * plan.tile;
        plan.pieces = ceil_div(g.length, plan.chunk);
    }
    return plan;
}

/// Whether every index of the launches fits 32 bits (after pad_axes).
bool scan_fits_32_bits(const ScanGeometry& g, const ScanPlan& plan) {
    constexpr std::size_t limit = std::size_t{1} << 31;
    // (2 * n_rows * pieces slots of up to 4 words bound the single pass's status words)
    bool fits = 8 * g.n_rows * plan.pieces < limit && g.length + plan.tile < limit && g.n_rows < limit;
    for (std::size_t a = 0; a < g.arrays.size(); ++a) {
        std::size_t reach = static_cast<std::size_t>(std::llabs(g.offsets[a])) +
                            static_cast<std::size_t>(std::llabs(g.axis_strides[a])) * (g.length + plan.tile);
        for (std::size_t d = 0; d < g.rows.ndim(); ++d)
            reach += static_cast<std::size_t>(std::llabs(g.rows.strides[a][d])) * (g.rows.shape[d] - 1);
        fits = fits && reach < limit;
    }
    return fits;
}

/// Launches the plan's kernels: one (sequential, single pass) or three (chunk totals, carries,
/// chunk scan).
void launch_scan(const Queue& queue, const ScanSpec& spec, const std::vector<Operand>& arguments, const ScanGeometry& g,
                 const ScanPlan& plan) {
    const bool use_32 = scan_fits_32_bits(g, plan);
    const std::size_t n_rows = g.n_rows, pieces = plan.pieces, group = plan.group;
    // The single pass's state: the ticket counter (16 bytes), then a status slot (8 bytes for every
    // 4 of the item) per tile, per block of tiles and per superblock (see data/kernels/scan.mako's
    // lookback). The queue's own, left ready by the launch before (queue_scratch.hpp: the ticket
    // back at zero, the status words tagged with that launch's epoch); while the queue records, a
    // temporary zeroed for the launch (epoch 1), as a replay needs.
    const std::size_t blocks = ceil_div(pieces, lookback_fan_out);
    const std::size_t state_bytes =
        16 + 2 * spec.item_size * n_rows * (pieces + blocks + ceil_div(blocks, lookback_fan_out));
    const bool recording = recording_on(backend_of(queue).get()) != nullptr;
    std::optional<TaggedState> state;
    if (plan.single_pass && !recording) state = single_pass_state(queue, state_bytes);
    std::optional<Buffer> partial, totals;  // the temporaries (none for the queue's state)
    if (!state) {
        partial = plan.sequential    ? temporary_buffer(queue, 16)
                  : plan.single_pass ? temporary_buffer(queue, state_bytes)
                                     : temporary_buffer(queue, n_rows * pieces * spec.item_size);
        totals = plan.sequential || plan.single_pass ? *partial : temporary_buffer(queue, n_rows * spec.item_size);
    }
    std::vector<std::vector<std::byte>> scalars;
    const bool table = layout_in_table(g.rows.ndim());
    std::optional<Buffer> table_buffer;  // the last launch's layout table, held until it is enqueued
    const std::uint32_t epoch = state ? state->epoch : 1;
    const auto common = [&](std::vector<KernelArg>& args) {
        args.push_back(state ? state->buffer : detail::pack(*partial, LaunchTarget{}));
        args.push_back(state ? state->buffer : detail::pack(*totals, LaunchTarget{}));
        push_index(args, static_cast<std::int64_t>(n_rows), use_32);
        push_index(args, static_cast<std::int64_t>(g.length), use_32);
        push_index(args, static_cast<std::int64_t>(pieces), use_32);
        push_index(args, static_cast<std::int64_t>(plan.chunk), use_32);
        if (plan.single_pass) args.push_back(scalar_arg(&epoch, sizeof epoch));
    };
    const auto with_arrays = [&](std::vector<KernelArg>& args) {
        common(args);
        push_operands(args, spec.arguments, arguments, scalars);
        push_index_values(args, layout_values(g.rows, g.offsets), use_32, table, queue, table_buffer);
        for (const std::ptrdiff_t st : g.axis_strides) push_index(args, st, use_32);
    };
    const bool unit_axis =
        std::all_of(g.axis_strides.begin(), g.axis_strides.end(), [](std::ptrdiff_t s) { return s == 1; });
    const auto kernel = [&](Mode mode) {
        const ScanShape k{mode,
                          plan.items,
                          spec.commutative,
                          plan.cuda && mode != Mode::lookback,
                          g.rows.ndim(),
                          use_32,
                          group,
                          mode != Mode::carries && table,
                          plan.barriers_in_branches,
                          unit_axis};
        const GeneratedKernel gk = generated_kernel(queue.device(), kernel_key(spec, k), "kjarni_scan",
                                                    [&] { return kernel_source(spec, k); });
        if (gk.max_local_size < group && mode != Mode::sequential && mode != Mode::carries)
            throw UnsupportedError(fmt::format("{}: the device takes at most {} work items per group for this kernel, "
                                               "the scan needs {}",
                                               spec.what, gk.max_local_size, group));
        return gk;
    };
    const std::size_t local_1d[1] = {std::min<std::size_t>(group, 128)};
    if (plan.sequential) {
        std::vector<KernelArg> args = argument_list();
        with_arrays(args);
        const std::size_t global[1] = {ceil_div(n_rows, local_1d[0]) * local_1d[0]};
        launch(queue, kernel(Mode::sequential), global, local_1d, args);
        return;
    }
    const std::size_t global_chunks[1] = {n_rows * pieces * group};
    const std::size_t local_chunks[1] = {group};
    if (plan.single_pass) {
        if (!state) {
            const std::byte zero[4] = {};
            partial->get_sub_region(0, state_bytes).fill(queue, zero, true);
        }
        std::vector<KernelArg> args = argument_list();
        with_arrays(args);
        launch(queue, kernel(Mode::lookback), global_chunks, local_chunks, args);
        return;
    }
    {
        std::vector<KernelArg> args = argument_list();
        with_arrays(args);
        launch(queue, kernel(Mode::chunk_totals), global_chunks, local_chunks, args);
    }
    {
        std::vector<KernelArg> args = argument_list();
        common(args);
        const std::size_t global[1] = {ceil_div(n_rows, local_1d[0]) * local_1d[0]};
        launch(queue, kernel(Mode::carries), global, local_1d, args);
    }
    {
        std::vector<KernelArg> args = argument_list();
        with_arrays(args);
        launch(queue, kernel(Mode::chunk_scan), global_chunks, local_chunks, args);
    }
}

}  // namespace

void allow_single_pass_scans(bool allow) { single_pass_allowed.store(allow, std::memory_order_relaxed); }

void run_scan(const Queue& queue, const ScanSpec& spec, const std::vector<Operand>& arguments, int axis) {
    std::optional<ScanGeometry> geometry = scan_geometry(queue, spec, arguments, axis);
    if (!geometry) return;
    ScanGeometry& g = *geometry;
    if (run_cpu_scan(queue, spec, arguments, CpuScanSpace{g.rows, g.axis_strides, g.offsets, g.n_rows, g.length}))
        return;
    const ScanPlan plan = plan_scan(queue, spec, g);
    pad_axes(g.rows);
    launch_scan(queue, spec, arguments, g, plan);
}

}  // namespace kjarni::detail
