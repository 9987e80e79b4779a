// The source of the row kernel (fused_rows.hpp): loads of every array's row into registers, the
// reductions level by level (pairwise within a work item, two stages over the group, var and std
// by two passes), the result written once. See fused_rows.cpp for the plan it follows.

#include "algorithms/fused_rows_source.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/indexing.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

using Kind = DType::Kind;

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

}  // namespace

bool names_variable(const std::string& code, const std::string& prefix, std::size_t k) {
    return names(code, prefix, k);
}

std::size_t row_resident_work_items(const RowPlan& plan) {
    // Rows that read several arrays ask for at least 1024 work items per multiprocessor (at most
    // 64 registers each): H200, (2^16, 4096) float32 layer norm through CUDA 2.32 -> 2.64 TB/s (79
    // -> 64 registers, no spills), where softmax's one array (40 registers) lost 3%.
    // KJARNI_FUSION_ROW_BOUNDS = 0 leaves it to the compiler, 1 asks for 1024 always, a number
    // from 256 to 2048 for that many work items.
    std::size_t resident = plan.code.arrays.size() > 1 ? 1024 : 0;
    if (const char* setting = std::getenv("KJARNI_FUSION_ROW_BOUNDS")) {
        const long value = std::strtol(setting, nullptr, 10);
        if (value != 0 && value != 1 && (value < 256 || value > 2048))
            throw ArgumentError("KJARNI_FUSION_ROW_BOUNDS",
                                fmt::format("is '{}': 0, 1 or work items from 256 to 2048", setting));
        resident = value == 1 ? 1024 : static_cast<std::size_t>(value);
    }
    return resident;
}

std::string row_kernel_source(const RowPlan& plan, const DType& out_dtype) {
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
            l += fmt::format("        kj_v{}_{} = {};\n", k, q * vec + c,
                             load_value(read_lane(fmt::format("kj_u.e[{}]", c), storage_ctype(d)), d));
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
    for (std::size_t i = 0; i < plan.row_values.size(); ++i)
        b += fmt::format("    const {} kj_h{} = {};\n", plan.row_values[i].first, i, plan.row_values[i].second);
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
    const std::size_t resident = row_resident_work_items(plan);
    std::string bounds;
    if (resident != 0)
        bounds = fmt::format("\n#ifdef KJARNI_CUDA_API\n__launch_bounds__({}, {})\n#endif\n", g,
                             std::max<std::size_t>(1, resident / g));
    return s + fmt::format("KERNEL void {}kjarni_fused_rows({})\n{{\n{}}}\n", bounds, params, b);
}

}  // namespace kjarni::detail
