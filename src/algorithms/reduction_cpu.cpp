// The CPU form of a reduction (cpu_code.hpp) whose reduced run is contiguous for every array:
// each work item takes whole units (an output's row, or a piece of it when the outputs are fewer
// than the work items) and walks each unit in order, in blocks of 128 elements spread over 16
// independent accumulators (a loop the kernel compiler vectorises: 16 lanes of one vector
// register or a few). The blocks' values combine pairwise, as a binary counter merges them (block
// k merges with the stack's top while k has trailing ones), and the pieces of a row the same way
// in a second kernel: an element goes through at most 8 sequential additions, 4 of the lanes'
// tree and 2 log2(blocks) + 2 log2(pieces) of the merges, within the pairwise-like bound the
// reductions promise (16 + 2 log2 n roundings; numpy's pairwise sum takes 16 + log2 n). No atomics:
// the same input gives the same bits every run.
//
// The GPU engine (reduction_engine.cpp) gives a CPU thread elements a grid apart and 4 scalar
// accumulators: PoCL, 2 cores, sum of 64 MiB float32 into float64 16.5 ms against numpy's 15.2.

#include "algorithms/reduction_cpu.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "algorithms/cpu_code.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/indexing.hpp"
#include "algorithms/kernel_key_text.hpp"
#include "algorithms/kernel_templates.hpp"
#include "base/ceil_div.hpp"
#include "kjarni/context.hpp"

namespace kjarni::detail {

// (a named namespace: in a unity batch beside reduction_engine.cpp / scan_engine.cpp, whose
// anonymous namespaces have helpers of the same names)
namespace reduction_cpu_kernels {

constexpr std::size_t lanes = 16;
constexpr std::size_t block = 128;  // lanes x 8 sequential additions
// The fewest elements a piece of a row is cut to, and the most pieces (the second kernel's
// merges stay within the bound above: 2 log2(256) = 16 roundings).
constexpr std::size_t min_piece = 16384;
constexpr std::size_t most_pieces = 256;
constexpr int stack_levels = 48;  // blocks of one unit below 2^48

struct CpuShape {
    std::size_t kept_ndim = 0;
    bool from_partials = false;  // the second kernel: folds each output's pieces, then finishes
    bool final_pass = true;      // stores the result (else the partial values)
};

/// The kernel: data/kernels/reduction_cpu.mako, given the pieces of this reduction (its functions,
/// the arguments' parameters and the call of kjarni_map, the layout, the result's store).
std::string kernel_source(const ReductionSpec& spec, const CpuShape& k) {
    const char* idx = "int64_t";
    std::vector<std::string> operands;
    std::string params;
    std::string call = "kjarni_map(kj_j";
    if (!k.from_partials) {
        for (const CArgument& arg : spec.arguments) {
            if (arg.pointer) {
                const std::size_t a = operands.size();
                params += fmt::format(", GLOBAL_MEM const {}* a{}_base", storage_ctype(arg.dtype), a);
                call += fmt::format(", a{0}_base + a{0}_o", a);
                operands.push_back(fmt::format("a{}", a));
            } else {
                params += fmt::format(", {} {}", storage_ctype(arg.dtype), arg.name);
                call += ", " + arg.name;
            }
        }
    }
    call += ")";
    operands.push_back("res");
    const bool table = layout_in_table(k.kept_ndim);
    const std::vector<std::string> layout = layout_names(k.kept_ndim, operands);
    // A float sum or product of one array of float32 or float64 (ReductionSpec::float_operator)
    // folds its lanes as one OpenCL vector.
    const bool vectors = !k.from_partials && spec.float_operator != 0 && spec.arguments.size() == 1 &&
                         spec.arguments[0].pointer &&
                         (spec.arguments[0].dtype.kind() == DType::Kind::float32 ||
                          spec.arguments[0].dtype.kind() == DType::Kind::float64);
    return render_kernel_template("reduction_cpu.mako",
                                  {{"helpers", algorithm_helpers()},
                                   {"acc", spec.acc_ctype},
                                   {"result", storage_ctype(spec.result)},
                                   {"code", spec.code},
                                   {"params", params},
                                   {"index_params", index_parameters(layout, idx, table)},
                                   {"prologue", index_prologue(layout, idx, table)},
                                   {"decode", decode_offsets(k.kept_ndim, operands, idx, "o")},
                                   {"bounds", cpu_run_bounds(idx, k.from_partials ? "n_out" : "n_out * pieces", 1)},
                                   {"call", call},
                                   {"lanes", lanes},
                                   {"block", block},
                                   {"stack_levels", stack_levels},
                                   {"vector_op", vectors ? Value(std::string(1, spec.float_operator)) : Value()},
                                   {"vector_row", "(a0_base + a0_o)"},
                                   {"from_partials", k.from_partials},
                                   {"store", k.final_pass ? Value(store_result_code(spec)) : Value()}});
}

std::string kernel_key(const ReductionSpec& spec, const CpuShape& k) {
    const std::string& code = spec.identity.empty() ? spec.code : spec.identity;
    return KeyText("cpu kept=", code.size())
        .number("", k.kept_ndim)
        .flag(" partials=", k.from_partials)
        .flag(" final=", k.final_pass)
        .text(" acc=", spec.acc_ctype)
        .dtype(" result=", spec.result)
        .number(" float_operator=", static_cast<std::size_t>(spec.float_operator))
        .arguments(" args=", spec.arguments, false)
        .flag(" identity=", !spec.identity.empty())
        .finish(code);
}

}  // namespace reduction_cpu_kernels

bool run_cpu_reduction(const Queue& queue, const ReductionSpec& spec, const std::vector<Operand>& arguments,
                       const CpuReductionSpace& space, const Array& out) {
    using reduction_cpu_kernels::block, reduction_cpu_kernels::CpuShape, reduction_cpu_kernels::kernel_key,
        reduction_cpu_kernels::kernel_source, reduction_cpu_kernels::min_piece, reduction_cpu_kernels::most_pieces;
    const IterationSpace& red = space.reduced;
    if (!cpu_code(queue.device()) || red.ndim() != 1 || space.n_red == 0) return false;
    for (const auto& strides : red.strides)
        if (strides[0] != 1) return false;

    // Pieces: as many as give the work items enough units when the outputs are few.
    const std::size_t n_out = space.n_out, n_red = space.n_red;
    const std::size_t workers = cpu_grid(queue.device(), n_out * n_red, min_piece).global;
    std::size_t pieces = 1, chunk = n_red;
    if (n_out < workers) {
        pieces = std::min({ceil_div(workers, n_out), std::max<std::size_t>(n_red / min_piece, 1), most_pieces});
        chunk = ceil_div(ceil_div(n_red, pieces), block) * block;
        pieces = ceil_div(n_red, chunk);
    }
    const std::size_t units = n_out * pieces;

    IterationSpace kept = space.kept;
    pad_table_axes(kept);
    const Buffer partials = pieces > 1 ? temporary_buffer(queue, units * spec.acc_size) : out.base();
    const auto count = static_cast<std::int64_t>(n_red);
    const auto common = [&](std::vector<KernelArg>& args, std::size_t pieces_value) {
        args.push_back(whole_allocation(out));
        args.push_back(detail::pack(partials, LaunchTarget{}));
        push_index(args, static_cast<std::int64_t>(n_out), false);
        push_index(args, static_cast<std::int64_t>(n_red), false);
        push_index(args, static_cast<std::int64_t>(pieces_value), false);
        push_index(args, static_cast<std::int64_t>(chunk), false);
        args.push_back(scalar_arg(&count, sizeof(count)));
    };
    {
        const CpuShape shape{kept.ndim(), false, pieces == 1};
        const GeneratedKernel kernel = generated_kernel(queue.device(), kernel_key(spec, shape), "kjarni_reduction_cpu",
                                                        [&] { return kernel_source(spec, shape); });
        std::vector<KernelArg> args = argument_list();
        common(args, pieces);
        std::vector<std::vector<std::byte>> scalars;
        push_operands(args, spec.arguments, arguments, scalars);
        std::optional<Buffer> table;  // held until the launch is enqueued
        push_index_values(args, layout_values(kept, space.offsets), false, layout_in_table(kept.ndim()), queue, table);
        const std::size_t global[1] = {std::min(units, workers)};
        const std::size_t local[1] = {1};
        launch(queue, kernel, global, local, args);
    }
    if (pieces > 1) {
        const CpuShape shape{kept.ndim(), true, true};
        const GeneratedKernel kernel = generated_kernel(queue.device(), kernel_key(spec, shape), "kjarni_reduction_cpu",
                                                        [&] { return kernel_source(spec, shape); });
        IterationSpace out_space = kept;
        out_space.strides = {kept.strides.back()};
        std::vector<KernelArg> args = argument_list();
        common(args, pieces);
        std::optional<Buffer> table;
        push_index_values(args, layout_values(out_space, {space.offsets.back()}), false, layout_in_table(kept.ndim()),
                          queue, table);
        const std::size_t global[1] = {cpu_grid(queue.device(), n_out, 64).global};
        const std::size_t local[1] = {1};
        launch(queue, kernel, global, local, args);
    }
    return true;
}

}  // namespace kjarni::detail
