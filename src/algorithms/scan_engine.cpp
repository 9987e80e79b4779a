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
//   a fixed hierarchy of blocks (see lookback_code), so the bits do not depend on timing, floats
//   included.
//   It reads and writes every position once (the tiled strategy reads twice). It needs only that a
//   started group keeps running while others wait for it (see run_scan for the devices that give
//   that), not forward progress for groups that have not started.

#include "algorithms/scan_engine.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/generated_kernel.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/indexing.hpp"
#include "algorithms/iteration_space.hpp"
#include "algorithms/reduction_types.hpp"
#include "algorithms/scan_cpu.hpp"
#include "base/ceil_div.hpp"
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
        params += a.pointer ? fmt::format(", GLOBAL_MEM {}{}* {}", a.is_const ? "const " : "", storage_ctype(a.dtype), a.name)
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

/// Positions per work item of the single-pass scan: 40 of 4 bytes (see run_scan), as many bytes
/// for wider items (a tile of 40 KiB).
std::size_t lookback_items(std::size_t item_size) { return 160 / item_size; }

/// Items of a staged tile of `group` x `items` positions: a padding slot every 32 (KJARNI_PAD).
std::size_t padded_stage_items(std::size_t group, std::size_t items) { return group * items + group * items / 32; }

enum class Mode { sequential, chunk_totals, carries, chunk_scan, lookback };

struct ScanShape {
    Mode mode = Mode::sequential;
    std::size_t items = 8;       // positions per work item in a tile
    bool commutative = false;    // chunk_totals may sum in any fixed order
    bool prefetch = false;       // a tile's reads are issued while the previous tile is scanned
    std::size_t row_ndim = 0;
    bool use_32_bits = true;
    std::size_t group = 256;
    bool table = false;  // the rows' layout comes in a table (more than max_scalar_axes axes)
};

/// Tiles per block and blocks per superblock of the single pass's look-back (see lookback_code).
constexpr std::size_t lookback_fan_out = 32;

/// Device functions of the single pass. A published item is KJARNI_STATUS_WORDS status words,
/// each 4 bytes of the item in its low half and 1 in its high half (0: nothing yet), written and
/// read as one 64-bit word, so a reader never sees a flag without its bytes and no fence is needed
/// (each word is written once per launch); the ticket that orders tiles.
const char* lookback_functions() {
    return R"(typedef union { KJARNI_ITEM item; uint32_t bits[KJARNI_STATUS_WORDS]; } kjarni_item_bits;
FUNCTION INLINE void kjarni_publish(volatile GLOBAL_MEM uint64_t* slot, KJARNI_ITEM value) {
    kjarni_item_bits u;
    u.item = value;
    for (int w = 0; w < KJARNI_STATUS_WORDS; ++w) slot[w] = ((uint64_t)1 << 32) | (uint64_t)u.bits[w];
}
FUNCTION INLINE KJARNI_ITEM kjarni_wait_status(volatile GLOBAL_MEM uint64_t* slot) {
    kjarni_item_bits u;
    for (int w = 0; w < KJARNI_STATUS_WORDS; ++w) {
        uint64_t x;
        do x = slot[w]; while ((x >> 32) == 0);
        u.bits[w] = (uint32_t)x;
    }
    return u.item;
}
#define KJARNI_SLOT(i) (kjarni_status + (i) * KJARNI_STATUS_WORDS)
#ifdef KJARNI_CUDA_API
#define KJARNI_TAKE_TICKET(p) atomicAdd((unsigned int*)(p), 1u)
#else
#define KJARNI_TAKE_TICKET(p) atomic_inc((volatile GLOBAL_MEM unsigned int*)(p))
#endif
)";
}

/// The single pass's look-back, run once the tile's own scan has given its total (`aggregate`, an
/// expression every work item can read); it sets `carry` to the combination of every earlier tile
/// of the row. The tiles of a row form blocks of F = 32 tiles and superblocks of F blocks. A tile
/// publishes its aggregate at once; the last tile of a block publishes the block's total, the last
/// tile of a superblock the prefix of the next superblock (everything before it). A tile's prefix
/// is (superblock prefix + the earlier block totals of its superblock) + the earlier aggregates of
/// its block, each sum over a fixed tree of F slots: every value is the same function of the input
/// whoever computes it and whenever, so the result has the same bits on every run for any
/// associative scan_expr, floats included (decoupled look-back's grouping depends on timing). Only
/// the superblock prefixes form a chain (one link per 1024 tiles). A tile waits only for tiles of
/// smaller tickets, whose groups have started.
std::string lookback_code(const std::string& aggregate, const char* idx) {
    std::string s;
    s += fmt::format("    const {0} blocks = (pieces + {1}) / {2}, supers = (blocks + {1}) / {2};\n", idx,
                     lookback_fan_out - 1, lookback_fan_out);
    // The status slots: every tile's total, then every block's, then every superblock's prefix.
    s += "    volatile GLOBAL_MEM uint64_t* kjarni_status = (volatile GLOBAL_MEM uint64_t*)partial + 2;\n";
    s += fmt::format("    const {0} tile_slots = row * pieces, block_slots = n_rows * pieces + row * blocks,\n"
                     "        super_slots = n_rows * pieces + n_rows * blocks + row * supers;\n",
                     idx);
    s += fmt::format("    LOCAL_MEM_DECL KJARNI_ITEM kjarni_look[{}];\n", 2 * lookback_fan_out);
    s += "    LOCAL_MEM_DECL KJARNI_ITEM kjarni_prefix;\n";
    s += fmt::format("    const KJARNI_ITEM aggregate = {};\n", aggregate);
    s += fmt::format("    const {0} block = piece / {1}, in_block = piece % {1}, super = block / {1}, in_super = block % {1};\n",
                     idx, lookback_fan_out);
    s += "    if (lid == 0) kjarni_publish(KJARNI_SLOT(tile_slots + piece), aggregate);\n";
    // The earlier aggregates of the block and block totals of the superblock, each summed over the
    // same fixed tree of 32 slots in local memory (neighbours first, then pairs of pairs, ...; empty
    // slots neutral). (CUDA warp shuffles in place of local memory, here and for the work items'
    // totals, were measured slower on the H100: cumsum of 2^28 int32 2253 against 2384 GB/s,
    // int32 into int64 1145 against 1810.)
    const std::string tile_slot = "lid < in_block ? kjarni_wait_status(KJARNI_SLOT(tile_slots + piece - in_block + lid)) : kjarni_neutral()";
    const std::string block_slot =
        "lid < in_super ? kjarni_wait_status(KJARNI_SLOT(block_slots + block - in_super + lid)) : kjarni_neutral()";
    s += fmt::format("    if (lid < {}) {{\n", lookback_fan_out);
    s += fmt::format("        kjarni_look[lid] = {};\n", tile_slot);
    s += fmt::format("        kjarni_look[{} + lid] = {};\n", lookback_fan_out, block_slot);
    s += "    }\n    LOCAL_BARRIER;\n";
    s += fmt::format("    for (int d = 1; d < {}; d <<= 1) {{\n", lookback_fan_out);
    s += fmt::format("        if (lid < {} && (lid & (2 * d - 1)) == 0) kjarni_look[lid] = kjarni_scan_op(kjarni_look[lid], "
                     "kjarni_look[lid + d]);\n",
                     2 * lookback_fan_out);
    s += "        LOCAL_BARRIER;\n    }\n";
    s += "    if (lid == 0) {\n";
    s += fmt::format("        if (in_block == {}) kjarni_publish(KJARNI_SLOT(block_slots + block), kjarni_scan_op(kjarni_look[0], aggregate));\n",
                     lookback_fan_out - 1);
    s += "        const KJARNI_ITEM before_super = super > 0 ? kjarni_wait_status(KJARNI_SLOT(super_slots + super)) : kjarni_neutral();\n";
    s += fmt::format("        const KJARNI_ITEM found = kjarni_scan_op(kjarni_scan_op(before_super, kjarni_look[{}]), kjarni_look[0]);\n",
                     lookback_fan_out);
    s += fmt::format("        if (in_block == {0} && in_super == {0} && super + 1 < supers)\n", lookback_fan_out - 1);
    s += "            kjarni_publish(KJARNI_SLOT(super_slots + super + 1), kjarni_scan_op(found, aggregate));\n";
    s += "        kjarni_prefix = found;\n";
    s += "    }\n";
    s += "    LOCAL_BARRIER;\n";
    s += "    carry = kjarni_prefix;\n";
    return s;
}

std::string kernel_source(const ScanSpec& spec, const ScanShape& k) {
    const char* idx = index_type(k.use_32_bits);
    std::vector<std::string> operands;
    std::size_t arrays = 0;
    for (const CArgument& a : spec.arguments)
        if (a.pointer) operands.push_back(fmt::format("a{}", arrays++));
    std::string s = algorithm_helpers();
    s += fmt::format("#define KJARNI_ITEM {}\n#define KJARNI_IDX {}\n", spec.item_ctype, idx);
    s += spec.code;
    if (k.mode == Mode::lookback) {
        s += fmt::format("#define KJARNI_STATUS_WORDS {}\n", spec.item_size / 4);
        s += lookback_functions();
    }
    // Kernel parameters: rows, row length, pieces, chunk, the temporaries, the arguments, layouts.
    s += fmt::format("KERNEL void kjarni_scan(GLOBAL_MEM KJARNI_ITEM* partial, GLOBAL_MEM KJARNI_ITEM* totals, {0} n_rows, "
                     "{0} length, {0} pieces, {0} chunk",
                     idx);
    if (k.mode == Mode::carries) {
        s += ")\n{\n";
        s += fmt::format("    const {0} row = ({0})get_global_id(0);\n", idx);
        s += "    if (row >= n_rows) return;\n";
        s += "    KJARNI_ITEM carry = kjarni_neutral();\n";
        s += fmt::format("    for ({} p = 0; p < pieces; ++p) {{\n", idx);
        s += "        const KJARNI_ITEM t = partial[row * pieces + p];\n";
        s += "        partial[row * pieces + p] = carry;\n";
        s += "        carry = kjarni_scan_op(carry, t);\n    }\n";
        s += "    totals[row] = carry;\n}\n";
        return s;
    }
    std::size_t a = 0;
    for (const CArgument& arg : spec.arguments) {
        if (arg.pointer)
            s += fmt::format(", GLOBAL_MEM {}{}* a{}_base", arg.is_const ? "const " : "", storage_ctype(arg.dtype), a++);
        else s += fmt::format(", {} {}", storage_ctype(arg.dtype), arg.name);
    }
    const std::vector<std::string> layout = layout_names(k.row_ndim, operands);
    s += index_parameters(layout, idx, k.table);
    for (std::size_t j = 0; j < arrays; ++j) s += fmt::format(", {} a{}_ls", idx, j);
    s += ")\n{\n";
    s += index_prologue(layout, idx, k.table);
    // Calls with every array shifted to the element at position `e` of the row.
    const auto shifted = [&](const std::string& e) {
        std::string out;
        std::size_t j = 0;
        for (const CArgument& arg : spec.arguments) {
            if (arg.pointer) {
                out += fmt::format(", a{0}_base + (a{0}_o + ({1}) * a{0}_ls - ({1}))", j, e);
                ++j;
            } else {
                out += ", " + arg.name;
            }
        }
        return out;
    };
    const auto input = [&](const std::string& e) { return fmt::format("kjarni_input({}{})", e, shifted(e)); };
    const auto output = [&](const std::string& e, const std::string& item, const std::string& prev,
                            const std::string& last) {
        return fmt::format("kjarni_output({}, {}, {}, {}{});", e, item, prev, last, shifted(e));
    };
    if (k.mode == Mode::sequential) {
        s += fmt::format("    const {0} row = ({0})get_global_id(0);\n", idx);
        s += "    if (row >= n_rows) return;\n";
        s += decode_offsets(k.row_ndim, operands, idx, "row");
        s += "    KJARNI_ITEM last = kjarni_neutral();\n";
        if (spec.uses_last_item)
            s += fmt::format("    for ({} e = 0; e < length; ++e) last = kjarni_scan_op(last, {});\n", idx, input("e"));
        s += "    KJARNI_ITEM acc = kjarni_neutral();\n";
        s += fmt::format("    for ({} e = 0; e < length; ++e) {{\n", idx);
        s += fmt::format("        const KJARNI_ITEM item = kjarni_scan_op(acc, {});\n", input("e"));
        s += "        " + output("e", "item", "acc", "last") + "\n";
        s += "        acc = item;\n    }\n}\n";
        return s;
    }
    // chunk_totals / chunk_scan: one work group per (row, piece). A tile is staged through local
    // memory so that global reads and writes are coalesced (position q of the tile is read by work
    // item q % GROUP) while each work item scans ITEMS consecutive positions; a padding slot every
    // 32 keeps those strided local accesses free of bank conflicts.
    const bool lookback = k.mode == Mode::lookback;
    const bool write = k.mode == Mode::chunk_scan || lookback;
    const std::size_t n = k.items;
    const std::size_t g = k.group;
    // A work group's (row, piece), its arrays' offsets and the scratch of its work items' totals.
    // The single pass takes tiles in the order groups start (a ticket), not by group id.
    const auto group_of_chunk = [&] {
        std::string out = fmt::format("    const {0} lid = ({0})get_local_id(0);\n", idx);
        std::string tile_id = "get_group_id(0)";
        if (lookback) {
            out += "    LOCAL_MEM_DECL unsigned int kjarni_ticket;\n";
            out += "    if (lid == 0) kjarni_ticket = KJARNI_TAKE_TICKET(partial);\n";
            out += "    LOCAL_BARRIER;\n";
            out += fmt::format("    const {0} ticket = ({0})kjarni_ticket;\n", idx);
            tile_id = "ticket";
        }
        out += fmt::format("    const {0} row = ({0}){1} / pieces;\n", idx, tile_id);
        out += fmt::format("    const {0} piece = ({0}){1} % pieces;\n", idx, tile_id);
        out += decode_offsets(k.row_ndim, operands, idx, "row");
        out += fmt::format("    LOCAL_MEM_DECL KJARNI_ITEM scratch[{}];\n", g);
        return out;
    };
    const std::string chunk_bounds =
        fmt::format("    const {0} begin = piece * chunk;\n    const {0} end = length - begin < chunk ? length : begin + chunk;\n",
                    idx);
    // Pieces of a tile's code both tiled kernels share, at indentation `in`: reading the tile into
    // the stage (coalesced), each work item's scan of its ITEMS positions in the stage, and adding
    // `prefix` to them and writing them out through output_statement (coalesced).
    const auto read_tile = [&](const std::string& in) {
        return fmt::format("{0}for (int j = 0; j < {1}; ++j) {{\n{0}    const {2} q = j * {3} + lid;\n", in, n, idx, g) + in +
               "    stage[KJARNI_PAD(q)] = tile + q < end ? " + input("tile + q") + " : kjarni_neutral();\n" + in + "}\n" + in +
               "LOCAL_BARRIER;\n";
    };
    const auto scan_own_items = [&](const std::string& in, bool keep) {
        return fmt::format("{0}KJARNI_ITEM run = kjarni_neutral();\n{0}for (int j = 0; j < {1}; ++j) {{\n"
                           "{0}    const {2} q = lid * {1} + j;\n{0}    run = kjarni_scan_op(run, stage[KJARNI_PAD(q)]);\n",
                           in, n, idx) +
               (keep ? in + "    stage[KJARNI_PAD(q)] = run;\n" : std::string()) + in + "}\n";
    };
    const auto write_tile = [&](const std::string& in) {
        return fmt::format("{0}for (int j = 0; j < {1}; ++j) {{\n{0}    const {2} q = lid * {1} + j;\n"
                           "{0}    stage[KJARNI_PAD(q)] = kjarni_scan_op(prefix, stage[KJARNI_PAD(q)]);\n{0}}}\n{0}LOCAL_BARRIER;\n"
                           "{0}for (int j = 0; j < {3}; ++j) {{\n{0}    const {2} q = j * {4} + lid;\n{0}    if (tile + q < end) {{\n"
                           "{0}        const KJARNI_ITEM item = stage[KJARNI_PAD(q)];\n"
                           "{0}        const KJARNI_ITEM prev = q > 0 ? stage[KJARNI_PAD(q - 1)] : carry;\n",
                           in, n, idx, n, g) +
               in + "        " + output("tile + q", "item", "prev", "last") + "\n" + in + "    }\n" + in + "}\n";
    };
    // The work items' totals (`run`) scanned in `scratch`: inclusive Hillis-Steele, the left
    // operand first.
    const auto scan_totals = [&](const std::string& in) {
        return fmt::format("{0}scratch[lid] = run;\n{0}LOCAL_BARRIER;\n{0}for ({1} offset = 1; offset < {2}; offset <<= 1) {{\n"
                           "{0}    const KJARNI_ITEM left = lid >= offset ? scratch[lid - offset] : kjarni_neutral();\n"
                           "{0}    LOCAL_BARRIER;\n{0}    if (lid >= offset) scratch[lid] = kjarni_scan_op(left, scratch[lid]);\n"
                           "{0}    LOCAL_BARRIER;\n{0}}}\n",
                           in, idx, g);
    };
    if (!write && k.commutative) {
        // The chunk's total in a fixed order that reads coalesced: work item `lid` sums positions
        // lid, lid + GROUP, ... with 4 accumulators, then the group combines its sums in a tree.
        s += group_of_chunk();
        s += chunk_bounds;
        s += "    KJARNI_ITEM acc0 = kjarni_neutral(), acc1 = kjarni_neutral(), acc2 = kjarni_neutral(), "
             "acc3 = kjarni_neutral();\n";
        s += fmt::format("    {} e = begin + lid;\n", idx);
        s += fmt::format("    for (; end - e > 3 * {0}; e += 4 * {0}) {{\n", g);
        for (std::size_t j = 0; j < 4; ++j)
            s += fmt::format("        acc{0} = kjarni_scan_op(acc{0}, {1});\n", j, input(fmt::format("e + {} * {}", j, g)));
        s += "    }\n";
        s += fmt::format("    for (; e < end; e += {}) acc0 = kjarni_scan_op(acc0, {});\n", g, input("e"));
        s += "    scratch[lid] = kjarni_scan_op(kjarni_scan_op(acc0, acc1), kjarni_scan_op(acc2, acc3));\n";
        s += "    LOCAL_BARRIER;\n";
        s += fmt::format("    for ({} step = {} / 2; step > 0; step >>= 1) {{\n", idx, g);
        s += "        if (lid < step) scratch[lid] = kjarni_scan_op(scratch[lid], scratch[lid + step]);\n";
        s += "        LOCAL_BARRIER;\n    }\n";
        s += "    if (lid == 0) partial[row * pieces + piece] = scratch[0];\n}\n";
        return s;
    }
    if (lookback) {
        // The single pass: one tile per group. The tile is staged so that reads and writes are
        // coalesced; each work item scans its ITEMS positions in the stage, the group scans the
        // work items' totals (Hillis-Steele in local memory), the look-back finds the tile's
        // prefix, and the positions go out through the stage again. (Not taken when
        // output_statement reads last_item.)
        s += "#define KJARNI_PAD(q) ((q) + (q) / 32)\n";
        s += group_of_chunk();
        s += fmt::format("    LOCAL_MEM_DECL KJARNI_ITEM stage[{}];\n", padded_stage_items(g, n));
        s += chunk_bounds;
        s += "    const KJARNI_ITEM last = kjarni_neutral();\n";
        s += fmt::format("    const {} tile = begin;\n", idx);
        s += read_tile("    ");
        s += scan_own_items("    ", true);
        s += scan_totals("    ");
        s += "    const KJARNI_ITEM before = lid > 0 ? scratch[lid - 1] : kjarni_neutral();\n";
        s += fmt::format("    const KJARNI_ITEM tile_total = scratch[{}];\n", g - 1);
        s += "    KJARNI_ITEM carry = kjarni_neutral();\n";
        s += lookback_code("tile_total", idx);
        s += "    const KJARNI_ITEM prefix = kjarni_scan_op(carry, before);\n";
        s += write_tile("    ");
        s += "}\n";
        return s;
    }
    s += fmt::format("#define KJARNI_PAD(q) ((q) + (q) / 32)\n");
    s += group_of_chunk();
    s += fmt::format("    LOCAL_MEM_DECL KJARNI_ITEM stage[{}];\n", padded_stage_items(g, n));
    s += fmt::format("    KJARNI_ITEM carry = {};\n", write ? "partial[row * pieces + piece]" : "kjarni_neutral()");
    if (write) s += "    const KJARNI_ITEM last = totals[row];\n";
    s += chunk_bounds;
    if (k.prefetch) {
        // The next tile's positions are read into registers while this tile is scanned, so that
        // a group's reads overlap its own work instead of waiting at the start of every tile.
        s += fmt::format("    KJARNI_ITEM ahead[{}];\n", n);
        s += fmt::format("    for (int j = 0; j < {}; ++j) {{\n", n);
        s += fmt::format("        const {} q = j * {} + lid;\n", idx, g);
        s += "        ahead[j] = begin + q < end ? " + input("begin + q") + " : kjarni_neutral();\n";
        s += "    }\n";
    }
    s += fmt::format("    for ({} tile = begin; tile < end; tile += {}) {{\n", idx, g * n);
    if (k.prefetch) {
        s += fmt::format("        for (int j = 0; j < {}; ++j) stage[KJARNI_PAD(j * {} + lid)] = ahead[j];\n", n, g);
        s += "        LOCAL_BARRIER;\n";
        s += fmt::format("        {{ const {} next = tile + {};\n", idx, g * n);
        s += fmt::format("          for (int j = 0; j < {}; ++j) {{\n", n);
        s += fmt::format("            const {} q = j * {} + lid;\n", idx, g);
        s += "            ahead[j] = next < end && end - next > q ? " + input("next + q") + " : kjarni_neutral();\n";
        s += "          }\n        }\n";
    } else {
        s += read_tile("        ");
    }
    s += scan_own_items("        ", write);
    s += scan_totals("        ");
    if (write) {
        s += "        const KJARNI_ITEM prefix = lid > 0 ? kjarni_scan_op(carry, scratch[lid - 1]) : carry;\n";
        s += write_tile("        ");
    }
    s += fmt::format("        carry = kjarni_scan_op(carry, scratch[{}]);\n", g - 1);
    s += "        LOCAL_BARRIER;\n    }\n";
    if (!write) s += "    if (lid == 0) partial[row * pieces + piece] = carry;\n";
    s += "}\n";
    return s;
}

std::string kernel_key(const ScanSpec& spec, const ScanShape& k) {
    std::string types;
    for (const CArgument& a : spec.arguments)
        types += fmt::format("{}{}{} {},", a.pointer ? "*" : "", a.is_const ? "const " : "", a.dtype.name(), a.name);
    return fmt::format("scan mode={} items={} commutative={} prefetch={} rows={} idx={} group={} table={} item={} "
                       "args={}\n{}",
                       static_cast<int>(k.mode), k.items, k.commutative, k.prefetch, k.row_ndim, k.use_32_bits, k.group, k.table,
                       spec.item_ctype, types, spec.code);
}

std::atomic<bool> single_pass_allowed{true};

}  // namespace

void allow_single_pass_scans(bool allow) { single_pass_allowed.store(allow, std::memory_order_relaxed); }

void run_scan(const Queue& queue, const ScanSpec& spec, const std::vector<Operand>& arguments, int axis) {
    const std::vector<ArrayOperand> arrays = check_arguments(queue, spec.arguments, arguments, spec.what);
    if (arrays.empty()) throw ArgumentError("arguments", fmt::format("{}: a scan needs at least one array", spec.what));
    std::vector<std::vector<std::size_t>> shapes;
    for (const auto& a : arrays) shapes.push_back(a.array->shape());
    const std::vector<std::size_t> shape = broadcast_shapes(shapes, spec.what);
    if (shape.empty()) throw ArgumentError("axis", fmt::format("{}: a 0-d array has no axis to scan", spec.what));
    const std::vector<bool> scanned = reduced_axes(std::vector<int>{axis}, shape.size(), spec.what, "axis");
    const std::size_t axis_index = static_cast<std::size_t>(std::find(scanned.begin(), scanned.end(), true) - scanned.begin());
    const std::size_t length = shape[axis_index];
    std::vector<std::size_t> row_shape;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (d != axis_index) row_shape.push_back(shape[d]);
    const std::size_t n_rows = std::accumulate(row_shape.begin(), row_shape.end(), std::size_t{1}, std::multiplies<>());
    if (n_rows == 0 || length == 0) return;  // nothing to scan, nothing launched

    std::vector<std::vector<std::ptrdiff_t>> row_strides;
    std::vector<std::ptrdiff_t> axis_strides, offsets;
    for (const auto& a : arrays) {
        const CArgument& d = spec.arguments[a.argument];
        const auto strides = element_strides(a.array->layout(), a.array->dtype().itemsize(), shape, d.name);
        if (!d.is_const && strides[axis_index] == 0 && length > 1)
            throw ArgumentError(d.name, fmt::format("{}: a written array is broadcast along the scanned axis", spec.what));
        std::vector<std::ptrdiff_t> rs;
        for (std::size_t k = 0; k < shape.size(); ++k)
            if (k != axis_index) rs.push_back(strides[k]);
        row_strides.push_back(std::move(rs));
        axis_strides.push_back(strides[axis_index]);
        offsets.push_back(element_offset(*a.array, d.name));
    }
    IterationSpace rows = make_iteration_space(row_shape, row_strides);
    check_axis_count(rows, spec.what);
    if (run_cpu_scan(queue, spec, arguments, CpuScanSpace{rows, axis_strides, offsets, n_rows, length})) return;

    const std::size_t compute_units = std::max<std::size_t>(queue.device().params().compute_units, 1);
    const std::size_t group = std::min<std::size_t>(256, floor_pow2(queue.device().params().max_total_local_size));
    // Through CUDA a tile's reads are issued while the previous tile is scanned (H100, cumsum of 2^28:
    // int32 1.70 -> 1.81 TB/s, float32 1.67 -> 1.78); NVIDIA's OpenCL lost about 1% with it.
    const bool cuda = queue.device().context().api().id() == ApiId::cuda();
    // The single pass (items of 4, 8 or 16 bytes): 40 positions of 4 bytes per work item, a tile of
    // 10240 items (41 KiB staged, within the 48 KiB every CUDA device and NVIDIA's OpenCL give a
    // group); wider items take as many bytes. Measured on the H100 (cumsum of 2^28, GB/s, int32 /
    // float32): 32 positions 2264 / 2268 through NVIDIA's OpenCL, 40 positions 2251 / 2251 (small
    // tiles wait on the look-back; 48 would not fit 48 KiB); at 40, 2384 / 2382 through CUDA and
    // 2401 / 2392 through OpenCL in a later run, against the three kernels' 1849 / 1826 through
    // OpenCL and 1776 for float32 through CUDA. Items of 8 bytes (int32 into int64): 1810 through
    // CUDA and 1761 through OpenCL, the three kernels 1849 and 1537. The stage, the scratch of the group's totals and the look-back's slots must fit the group's local
    // memory. A tile waits for tiles whose groups have started, so the device must keep a started
    // group running while others wait: CUDA devices and OpenCL GPUs do (their multiprocessors
    // interleave every resident group), OpenCL CPU devices do (a group runs on one thread from its
    // start to its end); other OpenCL devices keep the three kernels.
    const DeviceType type = queue.device().params().type;
    // (a published item takes 1, 2 or 4 whole status words)
    const bool in_status_words = spec.item_size == 4 || spec.item_size == 8 || spec.item_size == 16;
    const bool lookback = single_pass_allowed.load(std::memory_order_relaxed) &&
                          (cuda || type == DeviceType::gpu || type == DeviceType::cpu) && in_status_words &&
                          !spec.uses_last_item && group >= 2 * lookback_fan_out &&
                          (padded_stage_items(group, lookback_items(spec.item_size)) + group + 2 * lookback_fan_out) *
                                      spec.item_size +
                                  64 <=
                              queue.device().params().local_mem_size;
    const std::size_t items = lookback ? lookback_items(spec.item_size) : items_per_thread(spec.item_size, group, cuda);
    const std::size_t tile = group * items;
    const std::size_t target_groups = compute_units * 8;
    const std::ptrdiff_t row_inner = rows.ndim() > 0 ? std::llabs(rows.strides[0].back()) : 0;
    const bool rows_contiguous = rows.ndim() > 0 && row_inner != 0 && row_inner < std::llabs(axis_strides[0]);
    const bool sequential = length <= 64 || (n_rows >= target_groups * group && rows_contiguous);
    std::size_t pieces = 1, chunk = length;
    const bool single_pass = lookback && !sequential;
    if (single_pass) {
        pieces = ceil_div(length, tile);  // a tile per work group
        chunk = tile;
    } else if (!sequential) {
        pieces = std::clamp<std::size_t>(ceil_div(target_groups, n_rows), 1, ceil_div(length, tile));
        chunk = ceil_div(ceil_div(length, pieces), tile) * tile;
        pieces = ceil_div(length, chunk);
    }

    pad_axes(rows);

    constexpr std::size_t limit = std::size_t{1} << 31;
    // (2 * n_rows * pieces slots of up to 4 words bound the single pass's status words)
    bool use_32 = 8 * n_rows * pieces < limit && length + tile < limit && n_rows < limit;
    for (std::size_t a = 0; a < arrays.size(); ++a) {
        std::size_t reach = static_cast<std::size_t>(std::llabs(offsets[a])) +
                            static_cast<std::size_t>(std::llabs(axis_strides[a])) * (length + tile);
        for (std::size_t d = 0; d < rows.ndim(); ++d)
            reach += static_cast<std::size_t>(std::llabs(rows.strides[a][d])) * (rows.shape[d] - 1);
        use_32 = use_32 && reach < limit;
    }

    // The single pass's state, zeroed: the ticket counter (16 bytes), then a status slot (8 bytes
    // for every 4 of the item) per tile, per block of tiles and per superblock (see lookback_code).
    const std::size_t blocks = ceil_div(pieces, lookback_fan_out);
    const std::size_t state_bytes =
        16 + 2 * spec.item_size * n_rows * (pieces + blocks + ceil_div(blocks, lookback_fan_out));
    const Buffer partial = sequential    ? temporary_buffer(queue, 16)
                           : single_pass ? temporary_buffer(queue, state_bytes)
                                         : temporary_buffer(queue, n_rows * pieces * spec.item_size);
    const Buffer totals = sequential || single_pass ? partial : temporary_buffer(queue, n_rows * spec.item_size);
    std::vector<std::vector<std::byte>> scalars;
    const bool table = layout_in_table(rows.ndim());
    std::optional<Buffer> table_buffer;  // the last launch's layout table, held until it is enqueued
    const auto common = [&](std::vector<KernelArg>& args) {
        args.push_back(detail::pack(partial, LaunchTarget{}));
        args.push_back(detail::pack(totals, LaunchTarget{}));
        push_index(args, static_cast<std::int64_t>(n_rows), use_32);
        push_index(args, static_cast<std::int64_t>(length), use_32);
        push_index(args, static_cast<std::int64_t>(pieces), use_32);
        push_index(args, static_cast<std::int64_t>(chunk), use_32);
    };
    const auto with_arrays = [&](std::vector<KernelArg>& args) {
        common(args);
        for (std::size_t k = 0; k < arguments.size(); ++k) {
            if (const Array* a = arguments[k].is_array() ? &arguments[k].array() : nullptr) {
                args.push_back(whole_allocation(*a));
            } else {
                scalars.push_back(convert_scalar(arguments[k], spec.arguments[k].dtype));
                args.push_back(scalar_arg(scalars.back().data(), scalars.back().size()));
            }
        }
        push_index_values(args, layout_values(rows, offsets), use_32, table, queue, table_buffer);
        for (const std::ptrdiff_t st : axis_strides) push_index(args, st, use_32);
    };
    const auto kernel = [&](Mode mode) {
        const ScanShape k{mode, items, spec.commutative, cuda && mode != Mode::lookback, rows.ndim(), use_32, group,
                          mode != Mode::carries && table};
        const GeneratedKernel g = generated_kernel(queue.device(), kernel_key(spec, k), "kjarni_scan",
                                                   [&] { return kernel_source(spec, k); });
        if (g.max_local_size < group && mode != Mode::sequential && mode != Mode::carries)
            throw UnsupportedError(fmt::format("{}: the device takes at most {} work items per group for this kernel, "
                                               "the scan needs {}",
                                               spec.what, g.max_local_size, group));
        return g;
    };
    const std::size_t local_1d[1] = {std::min<std::size_t>(group, 128)};
    if (sequential) {
        std::vector<KernelArg> args;
        with_arrays(args);
        const std::size_t global[1] = {ceil_div(n_rows, local_1d[0]) * local_1d[0]};
        launch(queue, kernel(Mode::sequential), global, local_1d, args);
        return;
    }
    const std::size_t global_chunks[1] = {n_rows * pieces * group};
    const std::size_t local_chunks[1] = {group};
    if (single_pass) {
        const std::byte zero[4] = {};
        partial.get_sub_region(0, state_bytes).fill(queue, zero, true);
        std::vector<KernelArg> args;
        with_arrays(args);
        launch(queue, kernel(Mode::lookback), global_chunks, local_chunks, args);
        return;
    }
    {
        std::vector<KernelArg> args;
        with_arrays(args);
        launch(queue, kernel(Mode::chunk_totals), global_chunks, local_chunks, args);
    }
    {
        std::vector<KernelArg> args;
        common(args);
        const std::size_t global[1] = {ceil_div(n_rows, local_1d[0]) * local_1d[0]};
        launch(queue, kernel(Mode::carries), global, local_1d, args);
    }
    {
        std::vector<KernelArg> args;
        with_arrays(args);
        launch(queue, kernel(Mode::chunk_scan), global_chunks, local_chunks, args);
    }
}

}  // namespace kjarni::detail
