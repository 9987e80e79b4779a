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

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <map>
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

// The accumulation type of a float dtype (float16 accumulates in float32).
DType accumulation(const DType& d) { return d.kind() == Kind::float16 ? DType(Kind::float32) : d; }

// A compute value of `acc` rounded to `result` as a stored array's would be (float16: through its bits).
std::string rounded(const std::string& value, const DType& acc, const DType& result) {
    if (result.kind() == Kind::float16) return fmt::format("kjarni_h2f(kjarni_f2h({}))", value);
    return convert_value(value, acc, result);
}

std::string literal(double v, const DType& real) {
    return real.kind() == Kind::float64 ? fmt::format("{:.17e}", v) : fmt::format("{:.9e}f", v);
}

// How reduction k accumulates: its accumulator type, neutral, combination, the map of one value
// (`x`, in the accumulator's value type) and the finish (of `a`, with `count` elements) giving
// the value in the result's compute type.
struct Accumulation {
    std::string type;
    std::string neutral;
    std::string reduce;          // of `a` and `b`
    std::string map;             // of the value, a format string: {} is the value
    std::string finish;          // of `a` and `count`
    DType value;                 // the type `x` is converted to
    bool moments = false;        // var / std: `finish` gives the mean, a second round the result
    std::string squares_finish;  // var / std: of `a` (the squared deviations' sum) and `count`
};

Accumulation accumulation_of(const ExprNode& node) {
    const ReductionNode& r = *node.reduction;
    const DType acc = accumulation(node.dtype);
    const std::string t = compute_ctype(acc);
    const std::string suffix = acc.kind() == Kind::float64 ? "d" : "f";
    Accumulation a;
    a.type = t;
    a.value = acc;
    a.map = "{}";
    a.finish = rounded("a", acc, node.dtype);
    switch (r.kind) {
    case ReductionKind::sum:
    case ReductionKind::mean:
        a.neutral = fmt::format("({})0", t);
        a.reduce = "a + b";
        if (r.kind == ReductionKind::mean)
            a.finish =
                rounded(acc.kind() == Kind::float32 ? "kj_div_count_f(a, count)" : fmt::format("a / ({})count", t), acc,
                        node.dtype);
        break;
    case ReductionKind::prod:
        a.neutral = fmt::format("({})1", t);
        a.reduce = "a * b";
        break;
    case ReductionKind::min:
    case ReductionKind::max: {
        // NaN propagates (the left one when both are), as the eager min and max.
        const bool maximum = r.kind == ReductionKind::max;
        a.neutral = fmt::format("{}KJARNI_INF_{}", maximum ? "-" : "", acc.kind() == Kind::float64 ? "D" : "F");
        a.reduce = fmt::format("(a != a) ? a : ((b != b) ? b : ({} ? b : a))", maximum ? "a < b" : "b < a");
        break;
    }
    case ReductionKind::var:
    case ReductionKind::std: {
        // Two rounds over the row held in registers: the sum (the mean), then the sum of the
        // squared deviations from that mean (`squares`, finished with `count` and ddof). No
        // division per element (as updating moments one value at a time needs), and the
        // textbook two-pass accuracy.
        a.moments = true;
        a.neutral = fmt::format("({})0", t);
        a.reduce = "a + b";
        a.finish = acc.kind() == Kind::float32 ? "kj_div_count_f(a, count)" : fmt::format("a / ({})count", t);
        std::string v = fmt::format("a / fmax(({0})count - {1}, ({0})0)", t, literal(r.ddof, acc));
        if (r.kind == ReductionKind::std) v = fmt::format("sqrt({})", v);
        a.squares_finish = rounded(v, acc, node.dtype);
        break;
    }
    default: throw ArgumentError("reduction", "not computed by the row kernel");
    }
    return a;
}

// Whether `c` may be part of a name in C.
bool part_of_name(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether `code` names the variable `<prefix><k>` (not a longer name that starts so).
bool names(const std::string& code, const std::string& prefix, std::size_t k) {
    const std::string name = fmt::format("{}{}", prefix, k);
    for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + 1)) {
        const bool starts = at == 0 || !part_of_name(code[at - 1]);
        const bool ends = at + name.size() == code.size() || !part_of_name(code[at + name.size()]);
        if (starts && ends) return true;
    }
    return false;
}

// `code` with every occurrence of the C expression `sub` that stands as an expression of its own
// (not the argument list of a call: no name just before it) replaced by `name`. The same text is
// the same value: the code of a value is pure and reads the same variables everywhere.
std::string reuse(std::string code, const std::string& sub, const std::string& name) {
    for (std::size_t at = code.find(sub); at != std::string::npos; at = code.find(sub, at)) {
        const bool starts = at == 0 || !part_of_name(code[at - 1]);
        const bool ends = at + sub.size() == code.size() || !part_of_name(code[at + sub.size()]);
        if (starts && ends) {
            code.replace(at, sub.size(), name);
            at += name.size();
        } else {
            ++at;
        }
    }
    return code;
}

std::size_t reach(const std::vector<std::size_t>& shape, const std::vector<std::ptrdiff_t>& strides) {
    std::size_t r = 0;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (shape[d] > 0) r += static_cast<std::size_t>(std::llabs(strides[d])) * (shape[d] - 1);
    return r;
}

// Code combining `count` values in one fixed pairwise order: the values are taken in order and two
// partial results that each combine the same number of values are merged at once (a binary counter),
// so no partial combines more than twice its neighbour's and at most log2(count) + 1 of them are
// live. `value(i)` is the code of value i, `reduce` that of the merge of `a` (the earlier values)
// and `b`; returns the variable that holds the result.
std::string pairwise(std::string& b, const std::string& indent, const std::string& type, const std::string& prefix,
                     std::size_t count, const std::function<std::string(std::size_t)>& value,
                     const std::string& reduce) {
    std::vector<std::pair<std::size_t, std::string>> partials;  // (values combined, variable)
    std::size_t fresh = 0;
    const auto merge = [&](const std::string& first, const std::string& second) {
        std::string merged = fmt::format("{}{}", prefix, fresh++);
        b += fmt::format("{0}{1} {2}; {{ const {1} a = {3}; const {1} b = {4}; {2} = {5}; }}\n", indent, type, merged,
                         first, second, reduce);
        return merged;
    };
    for (std::size_t i = 0; i < count; ++i) {
        std::string name = fmt::format("{}{}", prefix, fresh++);
        b += fmt::format("{}const {} {} = {};\n", indent, type, name, value(i));
        std::size_t size = 1;
        while (!partials.empty() && partials.back().first == size) {
            name = merge(partials.back().second, name);
            size *= 2;
            partials.pop_back();
        }
        partials.emplace_back(size, name);
    }
    while (partials.size() > 1) {
        const auto last = partials.back();
        partials.pop_back();
        partials.back() = {partials.back().first + last.first, merge(partials.back().second, last.second)};
    }
    return partials.back().second;
}

std::string kernel_text(const RowPlan& plan, const DType& out_dtype) {
    const ExprCode& code = plan.code;
    const char* idx = index_type(plan.use_32_bits);
    const std::size_t arrays = code.arrays.size();
    std::vector<std::string> operands{"out"};
    for (std::size_t k = 0; k < arrays; ++k) operands.push_back(fmt::format("in{}", k));

    std::string s;
    std::vector<Accumulation> accs;
    for (const ExprNode* node : code.reductions) accs.push_back(accumulation_of(*node));

    std::string params = fmt::format("GLOBAL_MEM {} *out_base", storage_ctype(out_dtype));
    for (std::size_t k = 0; k < arrays; ++k)
        params += fmt::format(", GLOBAL_MEM const {} *in{}_base", storage_ctype(code.arrays[k].dtype()), k);
    for (std::size_t j = 0; j < code.scalars.size(); ++j)
        params += fmt::format(", {} s{}", scalar_parameter_type(code.scalars[j].dtype), j);
    params += fmt::format(", {0} n_rows, {0} n_red", idx);
    params += index_parameters(layout_names(plan.kept.ndim(), operands), idx, false);
    for (std::size_t d = 0; d < plan.reduced.ndim(); ++d) params += fmt::format(", {} rn{}", idx, d);
    for (const auto& name : operands)
        for (std::size_t d = 0; d < plan.reduced.ndim(); ++d) params += fmt::format(", {} {}_rs{}", idx, name, d);

    const std::size_t g = plan.group;
    const std::size_t vec = plan.vector;
    // Work items per stage of the combination over the group: the first `lanes` work items each
    // combine group / lanes partials, then every work item combines those `lanes` (two barriers a
    // level, where a tree over local memory takes log2(group) + 1).
    const std::size_t lanes = std::min<std::size_t>(32, g);
    const std::size_t per_lane = g / lanes;
    std::string b;
    b += fmt::format("    const {0} lid = ({0})get_local_id(0);\n", idx);
    b += "    const int64_t count = (int64_t)n_red;\n";
    for (std::size_t k = 0; k < accs.size(); ++k) {
        b += fmt::format("    LOCAL_MEM_DECL {} kj_scratch{}[{}];\n", accs[k].type, k, g);
        if (accs[k].moments) b += fmt::format("    LOCAL_MEM_DECL {} kj_squares{}[{}];\n", accs[k].type, k, g);
    }
    // Combines every work item's partial `<partial><k>` of the reductions `ks` over the group
    // through `<scratch><k>`: the first `lanes` work items each combine group / lanes of them
    // pairwise, then every work item combines those `lanes` pairwise into `<total><k>`. Two
    // barriers for any number of reductions.
    const auto combine_group = [&](std::string& c, const std::vector<std::size_t>& ks, const std::string& partial,
                                   const std::string& scratch, const std::string& total) {
        for (const std::size_t k : ks) c += fmt::format("    {1}{0}[lid] = {2}{0};\n", k, scratch, partial);
        c += "    LOCAL_BARRIER;\n";
        if (per_lane > 1) {
            c += fmt::format("    if (lid < {}) {{\n", lanes);
            for (const std::size_t k : ks) {
                c += "        {\n";
                const std::string lane_total = pairwise(
                    c, "        ", accs[k].type, fmt::format("kj_l{}_", k), per_lane,
                    [&](std::size_t m) { return fmt::format("{}{}[lid + {}]", scratch, k, m * lanes); },
                    accs[k].reduce);
                c += fmt::format("        {}{}[lid] = {};\n        }}\n", scratch, k, lane_total);
            }
            c += "    }\n    LOCAL_BARRIER;\n";
        }
        for (const std::size_t k : ks) {
            c += fmt::format("    {} {}{};\n    {{\n", accs[k].type, total, k);
            const std::string all = pairwise(
                c, "    ", accs[k].type, fmt::format("kj_w{}_", k), lanes,
                [&](std::size_t w) { return fmt::format("{}{}[{}]", scratch, k, w); }, accs[k].reduce);
            c += fmt::format("    {}{} = {};\n    }}\n", total, k, all);
        }
    };
    b += fmt::format("    for ({0} row = ({0})get_group_id(0); row < n_rows; row += ({0})get_num_groups(0)) {{\n", idx);
    b += decode_offsets(plan.kept.ndim(), operands, idx, "row");
    // Vector reads of array k's elements q * vec ... q * vec + vec - 1 of this work item.
    const auto vector_load = [&](std::size_t q, std::size_t k) {
        const DType& d = code.arrays[k].dtype();
        std::string l;
        for (std::size_t c = 0; c < vec; ++c)
            l += fmt::format("    {} kj_v{}_{} = 0;\n", compute_ctype(d), k, q * vec + c);
        l += fmt::format("    if (kj_ok{0}) {{\n        union {{ {1} v; {2} e[{3}]; }} kj_u;\n"
                         "        kj_u.v = *(GLOBAL_MEM const {1}*)(in{4}_base + in{4}_o + kj_q{5});\n",
                         q * vec, vector_type(vec * d.itemsize()), storage_ctype(d), vec, k, q);
        for (std::size_t c = 0; c < vec; ++c)
            l += fmt::format("        kj_v{}_{} = {};\n", k, q * vec + c, load_value(fmt::format("kj_u.e[{}]", c), d));
        return l + "    }\n";
    };
    // Arrays only the result reads (layer normalisation's scale and shift) are read where the
    // result is computed, not held in registers through the reductions (fewer registers, more
    // work groups per compute unit).
    std::vector<bool> late(arrays, vec > 1);
    for (std::size_t k = 0; k < arrays; ++k)
        for (const std::string& value : plan.reduced_values) late[k] = late[k] && !names(value, "v", k);
    if (vec > 1) {
        // Every array's element j = q * vec + c of this work item: element (q * G + lid) * vec + c
        // of the row, read vec at a time (the rows are contiguous and aligned: plan_rows checked).
        for (std::size_t q = 0; q < plan.per_item / vec; ++q) {
            b += fmt::format("    const {0} kj_q{1} = (({0}){1} * {2} + lid) * {3};\n", idx, q, g, vec);
            for (std::size_t c = 0; c < vec; ++c)
                b += fmt::format("    const bool kj_ok{} = kj_q{} < n_red;\n", q * vec + c, q);
            for (std::size_t k = 0; k < arrays; ++k)
                if (!late[k]) b += vector_load(q, k);
        }
    } else {
        // Every array's element j of this work item (element j * G + lid of the row), and the
        // result's offset.
        for (std::size_t j = 0; j < plan.per_item; ++j) {
            b += fmt::format(
                "    const {0} kj_e{1} = ({0}){1} * {2} + lid;\n    const bool kj_ok{1} = kj_e{1} < n_red;\n", idx, j,
                g);
            b += fmt::format("    {} kj_out{} = 0;\n", idx, j);
            for (std::size_t k = 0; k < arrays; ++k)
                b += fmt::format("    {} kj_v{}_{} = 0;\n", compute_ctype(code.arrays[k].dtype()), k, j);
            b += fmt::format("    if (kj_ok{}) {{\n", j);
            for (const auto& name : operands) b += fmt::format("        {} {}_r = 0;\n", idx, name);
            b += fmt::format("        {} rest = kj_e{};\n", idx, j);
            for (std::size_t d = plan.reduced.ndim(); d-- > 0;) {
                if (d == 0) {
                    for (const auto& name : operands) b += fmt::format("        {0}_r += rest * {0}_rs0;\n", name);
                } else {
                    b += fmt::format("        {{ const {} c = rest % rn{}; rest /= rn{};\n", idx, d, d);
                    for (const auto& name : operands) b += fmt::format("          {0}_r += c * {0}_rs{1};\n", name, d);
                    b += "        }\n";
                }
            }
            b += fmt::format("        kj_out{} = out_o + out_r;\n", j);
            for (std::size_t k = 0; k < arrays; ++k)
                b += fmt::format("        kj_v{0}_{1} = {2};\n", k, j,
                                 load_value(fmt::format("in{0}_base[in{0}_o + in{0}_r]", k), code.arrays[k].dtype()));
            b += "    }\n";
        }
    }
    // A reduction's per-element value used again later (softmax's exp(x - max) in the sum and in
    // the result) is kept from its level as kj_c<k>_<j> (its child's compute type) rather than
    // computed twice.
    std::vector<std::pair<std::string, std::string>> kept;  // the value's code, the variable
    const auto with_kept = [&](std::string code_text) {
        for (const auto& [sub, name] : kept) code_text = reuse(std::move(code_text), sub, name);
        return code_text;
    };
    // A value at element j: the arrays it reads as v<k>, the kept values as kj_c<k>.
    const auto at_element = [&](std::size_t j, const std::string& value, const std::string& use) {
        std::string out = fmt::format("    if (kj_ok{}) {{\n", j);
        for (std::size_t k = 0; k < arrays; ++k)
            if (names(value, "v", k))
                out +=
                    fmt::format("        const {0} v{1} = kj_v{1}_{2};\n", compute_ctype(code.arrays[k].dtype()), k, j);
        for (std::size_t k = 0; k < code.reductions.size(); ++k)
            if (names(value, "kj_c", k))
                out += fmt::format("        const {0} kj_c{1} = kj_c{1}_{2};\n",
                                   compute_ctype(code.reductions[k]->children[0]->dtype), k, j);
        return out + "        " + use + "\n    }\n";
    };
    // Whether the code of reduction k's value appears in a later level's values or the result's.
    const auto used_later = [&](std::size_t level_index, std::size_t k) {
        const std::string& sub = plan.reduced_values[k];
        if (sub.find('(') == std::string::npos) return false;  // a plain variable: nothing to keep
        if (code.value.find(sub) != std::string::npos) return true;
        for (std::size_t l = level_index + 1; l < plan.levels.size(); ++l)
            for (const std::size_t m : plan.levels[l])
                if (plan.reduced_values[m].find(sub) != std::string::npos) return true;
        return false;
    };
    // Level by level (a level's reductions use only earlier levels' values): each work item
    // combines its elements pairwise, then the group's partials are combined in two stages that
    // share the level's barriers (var and std: a second round for the squared deviations). One
    // fixed order for every row and run: deterministic, with the depth of a pairwise sum.
    for (std::size_t level_index = 0; level_index < plan.levels.size(); ++level_index) {
        const std::vector<std::size_t>& level = plan.levels[level_index];
        std::vector<std::string> values, raw;
        std::vector<bool> keep;
        for (const std::size_t k : level) {
            const ExprNode& child = *code.reductions[k]->children[0];
            raw.push_back(with_kept(plan.reduced_values[k]));
            keep.push_back(used_later(level_index, k));
            values.push_back(
                convert_value(keep.back() ? fmt::format("kj_c{}_j", k) : raw.back(), child.dtype, accs[k].value));
            if (keep.back())
                for (std::size_t j = 0; j < plan.per_item; ++j)
                    b += fmt::format("    {} kj_c{}_{} = 0;\n", compute_ctype(child.dtype), k, j);
        }
        const auto value_at = [&](std::size_t q, std::size_t j) {
            return keep[q] ? reuse(values[q], fmt::format("kj_c{}_j", level[q]), fmt::format("kj_c{}_{}", level[q], j))
                           : values[q];
        };
        std::string used;  // every value of the level, to find the arrays they read
        for (const std::string& x : raw) used += x + " ";
        // Sums of the same values (layer normalisation's mean and the mean inside its var) are
        // computed once: source[q] is the first reduction of the level with reduction q's sum.
        std::vector<std::size_t> source(level.size());
        for (std::size_t q = 0; q < level.size(); ++q) {
            source[q] = q;
            const auto plain_sum = [&](std::size_t i) {
                return accs[level[i]].reduce == "a + b" && accs[level[i]].map == "{}";
            };
            for (std::size_t p = 0; p < q && plain_sum(q); ++p)
                if (plain_sum(p) && source[p] == p && raw[p] == raw[q] && accs[level[p]].type == accs[level[q]].type) {
                    source[q] = p;
                    break;
                }
        }
        std::vector<std::size_t> computed;  // the reductions whose sums are computed
        for (std::size_t q = 0; q < level.size(); ++q)
            if (source[q] == q) computed.push_back(level[q]);
        // Each element's value mapped into its accumulator type (the neutral where the element
        // lies past the row's end): kj_t<k>_<j>.
        for (std::size_t j = 0; j < plan.per_item; ++j) {
            std::string steps;
            for (std::size_t q = 0; q < level.size(); ++q) {
                const Accumulation& a = accs[level[q]];
                if (source[q] == q) b += fmt::format("    {} kj_t{}_{} = {};\n", a.type, level[q], j, a.neutral);
                if (keep[q]) steps += fmt::format("kj_c{}_{} = {}; ", level[q], j, raw[q]);
            }
            for (std::size_t q = 0; q < level.size(); ++q) {
                if (source[q] != q) continue;
                const Accumulation& a = accs[level[q]];
                const std::string value = "(" + value_at(q, j) + ")";
                steps += fmt::format("kj_t{}_{} = {}; ", level[q], j, fmt::format(fmt::runtime(a.map), value));
            }
            b += at_element(j, used, steps);
        }
        for (const std::size_t k : computed) {
            b += fmt::format("    {} kj_acc{};\n    {{\n", accs[k].type, k);
            const std::string total = pairwise(
                b, "    ", accs[k].type, fmt::format("kj_p{}_", k), plan.per_item,
                [&](std::size_t j) { return fmt::format("kj_t{}_{}", k, j); }, accs[k].reduce);
            b += fmt::format("    kj_acc{} = {};\n    }}\n", k, total);
        }
        combine_group(b, computed, "kj_acc", "kj_scratch", "kj_total");
        std::vector<std::size_t> moments;
        std::map<std::size_t, std::size_t> values_of;  // a var or std reduction: whose kj_t values it takes
        for (std::size_t q = 0; q < level.size(); ++q) {
            const std::size_t k = level[q];
            b += fmt::format("    {} {}{};\n",
                             compute_ctype(accs[k].moments ? accs[k].value : code.reductions[k]->dtype),
                             accs[k].moments ? "kj_mean" : "r", k);
            b += fmt::format("    {{ const {} a = kj_total{}; {}{} = {}; }}\n", accs[k].type, level[source[q]],
                             accs[k].moments ? "kj_mean" : "r", k, accs[k].finish);
            if (accs[k].moments) {
                moments.push_back(k);
                values_of[k] = level[source[q]];
            }
        }
        if (!moments.empty()) {
            // var and std: the squared deviations from the row's mean, a second round.
            for (const std::size_t k : moments) {
                const std::string& t = accs[k].type;
                b += fmt::format("    {} kj_sq{};\n    {{\n", t, k);
                for (std::size_t j = 0; j < plan.per_item; ++j)
                    b += fmt::format("    {0} kj_d{1} = ({0})0;\n    if (kj_ok{1}) {{ const {0} d = kj_t{3}_{1} - "
                                     "kj_mean{2}; kj_d{1} = d * d; }}\n",
                                     t, j, k, values_of[k]);
                const std::string total = pairwise(
                    b, "    ", t, fmt::format("kj_s{}_", k), plan.per_item,
                    [&](std::size_t j) { return fmt::format("kj_d{}", j); }, "a + b");
                b += fmt::format("    kj_sq{} = {};\n    }}\n", k, total);
            }
            combine_group(b, moments, "kj_sq", "kj_squares", "kj_squares_total");
            for (const std::size_t k : moments)
                b += fmt::format("    {} r{};\n    {{ const {} a = kj_squares_total{}; r{} = {}; }}\n",
                                 compute_ctype(code.reductions[k]->dtype), k, accs[k].type, k, k,
                                 accs[k].squares_finish);
        }
        for (std::size_t q = 0; q < level.size(); ++q)
            if (keep[q]) kept.emplace_back(raw[q], fmt::format("kj_c{}", level[q]));
    }
    const std::string result = with_kept(code.value);
    if (vec > 1) {
        // Every late read before the first store: the compiler may not move a read past a store
        // to another array it cannot prove distinct, and reads issued together wait once.
        for (std::size_t q = 0; q < plan.per_item / vec; ++q)
            for (std::size_t k = 0; k < arrays; ++k)
                if (late[k]) b += vector_load(q, k);
        for (std::size_t q = 0; q < plan.per_item / vec; ++q) {
            b += fmt::format("    {{\n    union {{ {} v; {} e[{}]; }} kj_w;\n", vector_type(vec * out_dtype.itemsize()),
                             storage_ctype(out_dtype), vec);
            for (std::size_t c = 0; c < vec; ++c)
                b +=
                    at_element(q * vec + c, result, fmt::format("kj_w.e[{}] = {};", c, store_value(result, out_dtype)));
            b += fmt::format("    if (kj_ok{}) *(GLOBAL_MEM {}*)(out_base + out_o + kj_q{}) = kj_w.v;\n    }}\n",
                             q * vec, vector_type(vec * out_dtype.itemsize()), q);
        }
    } else {
        for (std::size_t j = 0; j < plan.per_item; ++j)
            b += at_element(j, result, fmt::format("out_base[kj_out{}] = {};", j, store_value(result, out_dtype)));
    }
    b += "    LOCAL_BARRIER;  /* the scratch is written again for the next row */\n    }\n";
    // Through CUDA, rows that read several arrays ask for at least 1024 work items per
    // multiprocessor (at most 64 registers each): H200, (2^16, 4096) float32 layer norm 2.32 ->
    // 2.64 TB/s (79 -> 64 registers, no spills), where softmax's one array (40 registers) lost 3%.
    // KJARNI_FUSION_ROW_BOUNDS = 0 leaves it to the compiler, 1 asks for 1024 always, a number
    // from 256 to 2048 for that many work items.
    std::size_t resident = arrays > 1 ? 1024 : 0;
    if (const char* setting = std::getenv("KJARNI_FUSION_ROW_BOUNDS")) {
        const long value = std::strtol(setting, nullptr, 10);
        if (value != 0 && value != 1 && (value < 256 || value > 2048))
            throw ArgumentError("KJARNI_FUSION_ROW_BOUNDS",
                                fmt::format("is '{}': 0, 1 or work items from 256 to 2048", setting));
        resident = value == 1 ? 1024 : static_cast<std::size_t>(value);
    }
    std::string bounds;
    if (resident != 0)
        bounds = fmt::format("\n#ifdef KJARNI_CUDA_API\n__launch_bounds__({}, {})\n#endif\n", g,
                             std::max<std::size_t>(1, resident / g));
    return s + fmt::format("KERNEL void {}kjarni_fused_rows({})\n{{\n{}}}\n", bounds, params, b);
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

}  // namespace

RowPlan plan_rows(const Queue& queue, const Array* out, const Expr& expression) {
    RowPlan plan;
    const ExprNode& root = *expression.node();
    const std::vector<std::size_t>& shape = root.shape;
    if (out != nullptr && out->shape() != shape) {
        plan.refused = "the expression is broadcast into a larger `out`";
        return plan;
    }
    plan.code.value = generate_more(root, plan.code);
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
                if (m != k && names(plan.reduced_values[k], "r", m)) l = std::max(l, level_of(m) + 1);
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
        const bool wide = accumulation(node->dtype).kind() == Kind::float64;
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
        const std::string text = kernel_text(plan, out_dtype);
        plan.kernel = generated_kernel(queue.device(), text, "kjarni_fused_rows",
                                       [&] { return algorithm_preamble() + expression_math_preamble() + "\n" + text; });
        if (plan.kernel.max_local_size >= group) return plan;
        if (group == 1) break;
        group /= 2;  // the kernel takes fewer work items per group than the device
    }
    plan.refused = "the device takes too few work items per group for the row kernel";
    return plan;
}

void run_rows(const Queue& queue, const Array& out, const RowPlan& plan) {
    std::vector<KernelArg> args;
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
