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

/// A float sum or product of one array of float32 or float64 (ReductionSpec::float_operator): the
/// lanes are one OpenCL vector of 16 accumulators, loaded 16 elements at a time from `row` (the
/// row's first element), combined as the scalar lanes are (lane q with q + 8, then q + 4, ...):
/// the same values in the same order, vectorised by construction.
struct FloatVectors {
    char op = 0;
    std::string element;  // "float" or "double"
    std::string acc;      // the same for the accumulator
    std::string row;
};

std::string vector_block(const FloatVectors& v, const std::string& from, const std::string& to) {
    const std::string acc16 = v.acc + "16";
    std::string s;
    s += fmt::format("        for (int64_t kj_b = {0}; kj_b < {1}; kj_b += {2}) {{\n", from, to, block);
    s += fmt::format("            {0} kj_lv = ({0})(kjarni_neutral());\n", acc16);
    s += fmt::format("            const int64_t kj_stop = kj_b + {0} < {1} ? kj_b + {0} : {1};\n", block, to);
    s += "            int64_t kj_k = kj_b;\n";
    s += fmt::format("            for (; kj_stop - kj_k >= {0}; kj_k += {0})\n", lanes);
    s += fmt::format("                kj_lv = kj_lv {} convert_{}(vload16(0, {} + kj_k));\n", v.op, acc16, v.row);
    // A short block's last elements, one per lane (a private vector's components through a pointer).
    s += "            for (int64_t kj_j = kj_k; kj_j < kj_stop; ++kj_j) {\n";
    s += "                KJARNI_ACC* const kj_lane = (KJARNI_ACC*)&kj_lv + (kj_j - kj_k);\n";
    s += fmt::format("                *kj_lane = *kj_lane {} ({})({}[kj_j]);\n            }}\n", v.op, v.acc, v.row);
    s += fmt::format("            const {0}8 kj_l8 = kj_lv.lo {1} kj_lv.hi;\n", v.acc, v.op);
    s += fmt::format("            const {0}4 kj_l4 = kj_l8.lo {1} kj_l8.hi;\n", v.acc, v.op);
    s += fmt::format("            const {0}2 kj_l2 = kj_l4.lo {1} kj_l4.hi;\n", v.acc, v.op);
    s += fmt::format("            KJARNI_ACC kj_s = kj_l2.x {} kj_l2.y;\n", v.op);
    return s;
}

/// The statements that fold `count_expr` values `value(j)` (j from `from` below `to`, `value` of
/// index `kj_j`) into `KJARNI_ACC acc` pairwise; `blocked`: in blocks of `block` over the lanes
/// (as vectors where `vectors` is given).
std::string pairwise_fold(bool blocked, const std::string& from, const std::string& to, const std::string& value,
                          const FloatVectors* vectors = nullptr) {
    std::string s = fmt::format("        KJARNI_ACC kj_stack[{}];\n        int64_t kj_blocks = 0;\n", stack_levels);
    // (OpenCL's vector types: CUDA, which never runs a CPU form but compiles every source in the
    // test suite's cross-check, takes the scalar lanes, which give the same values)
    if (blocked && vectors != nullptr) s += "#ifdef KJARNI_OPENCL_API\n" + vector_block(*vectors, from, to) + "#else\n";
    if (blocked) {
        // The lanes are separate variables (a private array indexed in a loop is not vectorised):
        // 16 independent chains of consecutive loads, which an SLP vectoriser may pack (PoCL 3.1
        // packs the loads only; float sums take the vectors above).
        const auto each_lane = [](const std::string& pattern) {  // `pattern` once per lane, its @ the lane
            std::string out;
            for (std::size_t q = 0; q < lanes; ++q)
                for (const char c : pattern) out += c == '@' ? std::to_string(q) : std::string(1, c);
            return out;
        };
        s += fmt::format("        for (int64_t kj_b = {0}; kj_b < {1}; kj_b += {2}) {{\n", from, to, block);
        s += each_lane("            KJARNI_ACC kj_l@ = kjarni_neutral();\n");
        s += fmt::format("            const int64_t kj_stop = kj_b + {0} < {1} ? kj_b + {0} : {1};\n", block, to);
        s += "            int64_t kj_k = kj_b;\n";
        s += fmt::format("            for (; kj_stop - kj_k >= {0}; kj_k += {0}) {{\n", lanes);
        s += each_lane("                { const int64_t kj_j = kj_k + @; kj_l@ = kjarni_reduce(kj_l@, " + value + "); }\n");
        s += "            }\n";
        // A short block's last elements, one per lane.
        s += each_lane("            if (kj_k + @ < kj_stop) { const int64_t kj_j = kj_k + @; kj_l@ = kjarni_reduce(kj_l@, " + value +
                       "); }\n");
        for (std::size_t h = lanes / 2; h > 0; h /= 2)
            for (std::size_t q = 0; q < h; ++q) s += fmt::format("            kj_l{0} = kjarni_reduce(kj_l{0}, kj_l{1});\n", q, q + h);
        s += "            KJARNI_ACC kj_s = kj_l0;\n";
        if (vectors != nullptr) s += "#endif\n";
    } else {
        s += fmt::format("        for (int64_t kj_j = {0}; kj_j < {1}; ++kj_j) {{\n", from, to);
        s += fmt::format("            KJARNI_ACC kj_s = {};\n", value);
    }
    s += "            int kj_level = 0;\n";
    s += "            for (int64_t kj_c = kj_blocks; (kj_c & 1) != 0; kj_c >>= 1) kj_s = kjarni_reduce(kj_stack[kj_level++], kj_s);\n";
    s += "            kj_stack[kj_level] = kj_s;\n            ++kj_blocks;\n        }\n";
    // The earliest blocks sit highest: folded from there down.
    s += "        KJARNI_ACC acc = kjarni_neutral();\n";
    s += fmt::format("        for (int kj_level = {}; kj_level >= 0; --kj_level)\n", stack_levels - 1);
    s += "            if (((kj_blocks >> kj_level) & 1) != 0) acc = kjarni_reduce(acc, kj_stack[kj_level]);\n";
    return s;
}

struct CpuShape {
    std::size_t kept_ndim = 0;
    bool from_partials = false;  // the second kernel: folds each output's pieces, then finishes
    bool final_pass = true;      // stores the result (else the partial values)
};

std::string kernel_source(const ReductionSpec& spec, const CpuShape& k) {
    const char* idx = "int64_t";
    std::vector<std::string> operands;
    std::size_t arrays = 0;
    if (!k.from_partials)
        for (const CArgument& arg : spec.arguments)
            if (arg.pointer) operands.push_back(fmt::format("a{}", arrays++));
    operands.push_back("res");
    const bool table = layout_in_table(k.kept_ndim);
    const std::vector<std::string> layout = layout_names(k.kept_ndim, operands);

    std::string s = algorithm_helpers();
    s += "#define KJARNI_ACC " + spec.acc_ctype + "\n#define KJARNI_IDX int64_t\n";
    s += spec.code;
    s += fmt::format("KERNEL void kjarni_reduction_cpu(GLOBAL_MEM {}* res_base, GLOBAL_MEM KJARNI_ACC* partial, int64_t n_out, "
                     "int64_t n_red, int64_t pieces, int64_t chunk, int64_t count",
                     storage_ctype(spec.result));
    std::string call = "kjarni_map(kj_j";
    if (!k.from_partials) {
        std::size_t a = 0;
        for (const CArgument& arg : spec.arguments) {
            if (arg.pointer) {
                s += fmt::format(", GLOBAL_MEM const {}* a{}_base", storage_ctype(arg.dtype), a);
                call += fmt::format(", a{0}_base + a{0}_o", a);
                ++a;
            } else {
                s += fmt::format(", {} {}", storage_ctype(arg.dtype), arg.name);
                call += ", " + arg.name;
            }
        }
    }
    call += ")";
    s += index_parameters(layout, idx, table) + ")\n{\n" + index_prologue(layout, idx, table);
    // Units: (output, piece) pairs, or in the second kernel outputs.
    s += cpu_run_bounds(idx, k.from_partials ? "n_out" : "n_out * pieces", 1);
    s += "    for (int64_t kj_unit = kj_begin; kj_unit < kj_end; ++kj_unit) {\n";
    s += k.from_partials ? "        const int64_t o = kj_unit;\n" : "        const int64_t o = kj_unit / pieces;\n";
    s += decode_offsets(k.kept_ndim, operands, idx, "o");
    if (k.from_partials) {
        s += pairwise_fold(false, "0", "pieces", "partial[o * pieces + kj_j]");
    } else {
        s += "        const int64_t kj_from = (kj_unit % pieces) * chunk;\n";
        s += "        const int64_t kj_to = kj_from + chunk < n_red ? kj_from + chunk : n_red;\n";
        std::optional<FloatVectors> vectors;
        if (spec.float_operator != 0 && spec.arguments.size() == 1 && spec.arguments[0].pointer &&
            (spec.arguments[0].dtype.kind() == DType::Kind::float32 || spec.arguments[0].dtype.kind() == DType::Kind::float64))
            vectors = FloatVectors{spec.float_operator, storage_ctype(spec.arguments[0].dtype), spec.acc_ctype, "(a0_base + a0_o)"};
        s += pairwise_fold(true, "kj_from", "kj_to", call, vectors ? &*vectors : nullptr);
    }
    if (k.final_pass) {
        s += store_result_code(spec);
    } else {
        s += "        partial[kj_unit] = acc;\n";
    }
    s += "    }\n}\n";
    return s;
}

std::string kernel_key(const ReductionSpec& spec, const CpuShape& k) {
    std::string types;
    for (const CArgument& a : spec.arguments) types += fmt::format("{}{} {},", a.pointer ? "*" : "", a.dtype.name(), a.name);
    return fmt::format("cpu kept={} partials={} final={} acc={} result={} float_operator={} args={}\n{}", k.kept_ndim,
                       k.from_partials, k.final_pass, spec.acc_ctype, spec.result.name(), static_cast<int>(spec.float_operator),
                       types, spec.code);
}

}  // namespace reduction_cpu_kernels

bool run_cpu_reduction(const Queue& queue, const ReductionSpec& spec, const std::vector<Operand>& arguments,
                       const CpuReductionSpace& space, const Array& out) {
    using reduction_cpu_kernels::block, reduction_cpu_kernels::CpuShape,
        reduction_cpu_kernels::kernel_key, reduction_cpu_kernels::kernel_source, reduction_cpu_kernels::min_piece,
        reduction_cpu_kernels::most_pieces;
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
        std::vector<KernelArg> args;
        common(args, pieces);
        std::vector<std::vector<std::byte>> scalars;
        for (std::size_t k = 0; k < arguments.size(); ++k) {
            if (const Array* a = arguments[k].is_array() ? &arguments[k].array() : nullptr) {
                args.push_back(whole_allocation(*a));
            } else {
                scalars.push_back(convert_scalar(arguments[k], spec.arguments[k].dtype));
                args.push_back(scalar_arg(scalars.back().data(), scalars.back().size()));
            }
        }
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
        std::vector<KernelArg> args;
        common(args, pieces);
        std::optional<Buffer> table;
        push_index_values(args, layout_values(out_space, {space.offsets.back()}), false, layout_in_table(kept.ndim()), queue,
                          table);
        const std::size_t global[1] = {cpu_grid(queue.device(), n_out, 64).global};
        const std::size_t local[1] = {1};
        launch(queue, kernel, global, local, args);
    }
    return true;
}

}  // namespace kjarni::detail
