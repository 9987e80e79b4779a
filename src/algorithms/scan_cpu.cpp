// The CPU form of a scan (cpu_code.hpp): the rows are cut into units (a row, or a piece of it when
// the rows are fewer than the work items), each work item walks whole units in order.
//   1. totals: each piece's total (a commutative scan_expr over 16 independent lanes, a loop the
//      kernel compiler vectorises; otherwise in order);
//   2. carries: per row, the pieces' totals turned into exclusive carries, in order, and the row's
//      total (last_item);
//   3. scan: each piece from its carry, position by position, through output_statement.
// With one piece per row and no last_item, only the third kernel runs. Three passes over a long row
// (two reads, one write) against the GPU forms' tiles staged in local memory, whose barriers a CPU
// runtime turns into loops over the work items. Rounding: a position's value has gone through at
// most (its piece's length) / 16 + 4 additions in its pieces' totals, one per earlier piece and
// one per earlier position of its piece: within cumsum's bound (j + 8 + log2 n roundings at
// position j). Deterministic: the same input gives the same bits every run.

#include "algorithms/scan_cpu.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "algorithms/cpu_code.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/indexing.hpp"
#include "algorithms/kernel_key_text.hpp"
#include "algorithms/kernel_templates.hpp"
#include "algorithms/reduction_types.hpp"
#include "base/ceil_div.hpp"
#include "kjarni/context.hpp"

namespace kjarni::detail {

// (a named namespace: in a unity batch beside reduction_engine.cpp / scan_engine.cpp, whose
// anonymous namespaces have helpers of the same names)
namespace scan_cpu_kernels {

enum class CpuScanMode { totals, carries, scan };

constexpr std::size_t lanes = 16;
constexpr std::size_t min_piece = 16384;  // the fewest positions a piece of a row is cut to

struct CpuScanShape {
    CpuScanMode mode = CpuScanMode::scan;
    std::size_t row_ndim = 0;
    bool table = false;        // the rows' layout comes in a table
    bool unit_stride = false;  // every array steps by one element along the scanned axis
    bool carried = false;      // scan: starts from the carries and reads the row totals
};

const char* cpu_scan_mode_name(CpuScanMode mode) {
    switch (mode) {
    case CpuScanMode::totals: return "totals";
    case CpuScanMode::carries: return "carries";
    case CpuScanMode::scan: return "scan";
    }
    return "";
}

/// The kernel of one mode: data/kernels/scan_cpu.mako, given the pieces of this scan (its
/// functions, the arguments' parameters and their shifts along the row, the rows' layout).
std::string kernel_source(const ScanSpec& spec, const CpuScanShape& k) {
    const char* idx = "int64_t";
    std::vector<std::string> operands;
    std::string params;
    std::string shifted;  // every array shifted so that x[e] is the element at position e of the row
    for (const CArgument& arg : spec.arguments) {
        if (arg.pointer) {
            const std::size_t a = operands.size();
            params +=
                fmt::format(", GLOBAL_MEM {}{}* a{}_base", arg.is_const ? "const " : "", storage_ctype(arg.dtype), a);
            shifted += k.unit_stride ? fmt::format(", a{0}_base + a{0}_o", a)
                                     : fmt::format(", a{0}_base + (a{0}_o + e * a{0}_ls - e)", a);
            operands.push_back(fmt::format("a{}", a));
        } else {
            params += fmt::format(", {} {}", storage_ctype(arg.dtype), arg.name);
            shifted += ", " + arg.name;
        }
    }
    const std::vector<std::string> layout = layout_names(k.row_ndim, operands);
    return render_kernel_template("scan_cpu.mako", {{"helpers", algorithm_helpers()},
                                                    {"item", spec.item_ctype},
                                                    {"code", spec.code},
                                                    {"mode", cpu_scan_mode_name(k.mode)},
                                                    {"commutative", spec.commutative},
                                                    {"carried", k.carried},
                                                    {"lanes", lanes},
                                                    {"params", params},
                                                    {"index_params", index_parameters(layout, idx, k.table)},
                                                    {"prologue", index_prologue(layout, idx, k.table)},
                                                    {"decode", decode_offsets(k.row_ndim, operands, idx, "row")},
                                                    {"arrays", operands.size()},
                                                    {"shifted", shifted},
                                                    {"bounds_rows", cpu_run_bounds(idx, "n_rows", 1)},
                                                    {"bounds_units", cpu_run_bounds(idx, "n_rows * pieces", 1)}});
}

std::string kernel_key(const ScanSpec& spec, const CpuScanShape& k) {
    return KeyText("cpu scan mode=", spec.code.size())
        .number("", static_cast<std::size_t>(k.mode))
        .number(" rows=", k.row_ndim)
        .flag(" table=", k.table)
        .flag(" unit=", k.unit_stride)
        .flag(" carried=", k.carried)
        .flag(" commutative=", spec.commutative)
        .text(" item=", spec.item_ctype)
        .arguments(" args=", spec.arguments, true)
        .finish(spec.code);
}

}  // namespace scan_cpu_kernels

bool run_cpu_scan(const Queue& queue, const ScanSpec& spec, const std::vector<Operand>& arguments,
                  const CpuScanSpace& space) {
    using scan_cpu_kernels::CpuScanMode, scan_cpu_kernels::CpuScanShape, scan_cpu_kernels::kernel_key,
        scan_cpu_kernels::kernel_source, scan_cpu_kernels::min_piece;
    if (!cpu_code(queue.device())) return false;
    const std::size_t n_rows = space.n_rows, length = space.length;
    const std::size_t workers = cpu_grid(queue.device(), n_rows * length, min_piece).global;
    std::size_t pieces = 1, chunk = length;
    if (n_rows < workers) {
        pieces = std::min(ceil_div(workers, n_rows), std::max<std::size_t>(length / min_piece, 1));
        chunk = ceil_div(ceil_div(length, pieces), cpu_run_granule) * cpu_run_granule;
        pieces = ceil_div(length, chunk);
    }
    const std::size_t units = n_rows * pieces;
    const bool carried = pieces > 1 || spec.uses_last_item;

    IterationSpace rows = space.rows;
    pad_table_axes(rows);
    const bool table = layout_in_table(rows.ndim());
    const bool unit_stride =
        std::all_of(space.axis_strides.begin(), space.axis_strides.end(), [](std::ptrdiff_t st) { return st == 1; });
    const Buffer partial = temporary_buffer(queue, carried ? units * spec.item_size : 16);
    const Buffer totals = temporary_buffer(queue, carried ? n_rows * spec.item_size : 16);

    const auto kernel = [&](CpuScanMode mode) {
        const CpuScanShape k{mode, rows.ndim(), table, unit_stride, carried};
        return generated_kernel(queue.device(), kernel_key(spec, k), "kjarni_scan_cpu",
                                [&] { return kernel_source(spec, k); });
    };
    const auto common = [&](std::vector<KernelArg>& args) {
        args.push_back(detail::pack(partial, LaunchTarget{}));
        args.push_back(detail::pack(totals, LaunchTarget{}));
        push_index(args, static_cast<std::int64_t>(n_rows), false);
        push_index(args, static_cast<std::int64_t>(length), false);
        push_index(args, static_cast<std::int64_t>(pieces), false);
        push_index(args, static_cast<std::int64_t>(chunk), false);
    };
    std::vector<std::vector<std::byte>> scalars;
    const auto launch_over_units = [&](CpuScanMode mode) {
        std::vector<KernelArg> args = argument_list();
        common(args);
        push_operands(args, spec.arguments, arguments, scalars);
        std::optional<Buffer> table_buffer;  // held until the launch is enqueued
        push_index_values(args, layout_values(rows, space.offsets), false, table, queue, table_buffer);
        for (const std::ptrdiff_t st : space.axis_strides) push_index(args, st, false);
        const std::size_t global[1] = {std::min(units, workers)};
        const std::size_t local[1] = {1};
        launch(queue, kernel(mode), global, local, args);
    };
    if (carried) {
        launch_over_units(CpuScanMode::totals);
        std::vector<KernelArg> args = argument_list();
        common(args);
        const std::size_t global[1] = {cpu_grid(queue.device(), n_rows, 64).global};
        const std::size_t local[1] = {1};
        launch(queue, kernel(CpuScanMode::carries), global, local, args);
    }
    launch_over_units(CpuScanMode::scan);
    return true;
}

}  // namespace kjarni::detail
