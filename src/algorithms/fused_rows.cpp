// The one-kernel plan: softmax, layer normalisation and the like, where every reduction reduces
// the same trailing axes (a "row") of the result's shape. Work group g takes rows g, g + groups,
// ...; its G work items load the row's elements of every array once into registers (work item l
// holds elements l, l + G, ..., per_item of them: consecutive work items read consecutive
// elements), then compute the reductions in dependency order (each: per work item in order, then
// a fixed tree over the group in local memory, its value seen by every work item), then write the
// row. One read of each array and one write of the result, no temporaries; the same order of
// combination on every run (deterministic). Only where a row fits: G * per_item >= the row's
// length with per_item <= 16 (16 values per array per work item stay in registers).

#include "algorithms/fused_rows.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <cctype>

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

bool is_float(const DType& d) { return d.kind() == Kind::float16 || d.kind() == Kind::float32 || d.kind() == Kind::float64; }

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
    std::string reduce;  // of `a` and `b`
    std::string map;     // of the value, a format string: {} is the value
    std::string finish;  // of `a` and `count`
    DType value;         // the type `x` is converted to
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
                a.finish = rounded(acc.kind() == Kind::float32 ? "kj_div_count_f(a, count)" : fmt::format("a / ({})count", t), acc,
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
            // (count, mean, squared deviations), merged by Chan, Golub and LeVeque's update as the
            // eager var (reduction_moments.cpp).
            a.type = "kj_rowmom_" + suffix;
            a.neutral = fmt::format("kj_rowmom_of_{}(({})0, 0)", suffix, t);
            a.reduce = fmt::format("kj_rowmom_merge_{}(a, b)", suffix);
            a.map = fmt::format("kj_rowmom_of_{}({{}}, 1)", suffix);
            std::string v = fmt::format("a.m2 / fmax(({0})a.n - {1}, ({0})0)", t, literal(r.ddof, acc));
            if (r.kind == ReductionKind::std) v = fmt::format("sqrt({})", v);
            a.finish = rounded(v, acc, node.dtype);
            break;
        }
        default: throw ArgumentError("reduction", "not computed by the row kernel");
    }
    return a;
}

std::string moments_code(const std::string& t, const std::string& suffix) {
    return fmt::format(R"(typedef struct {{ {0} mean; {0} m2; int64_t n; }} kj_rowmom_{1};
FUNCTION INLINE kj_rowmom_{1} kj_rowmom_of_{1}({0} mean, int64_t n) {{ kj_rowmom_{1} r; r.mean = mean; r.m2 = ({0})0; r.n = n; return r; }}
FUNCTION INLINE kj_rowmom_{1} kj_rowmom_merge_{1}(kj_rowmom_{1} a, kj_rowmom_{1} b)
{{
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    kj_rowmom_{1} r;
    r.n = a.n + b.n;
    const {0} fb = ({0})b.n / ({0})r.n;
    const {0} dm = b.mean - a.mean;
    r.mean = a.mean + dm * fb;
    r.m2 = a.m2 + b.m2 + dm * dm * (({0})a.n * fb);
    return r;
}}
)",
                       t, suffix);
}

// Whether `code` names the variable `<prefix><k>` (not a longer name that starts so).
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

std::string kernel_text(const RowPlan& plan, const DType& out_dtype) {
    const ExprCode& code = plan.code;
    const char* idx = index_type(plan.use_32_bits);
    const std::size_t arrays = code.arrays.size();
    std::vector<std::string> operands{"out"};
    for (std::size_t k = 0; k < arrays; ++k) operands.push_back(fmt::format("in{}", k));

    std::string s;
    bool moments_f = false, moments_d = false;
    std::vector<Accumulation> accs;
    for (const ExprNode* node : code.reductions) {
        accs.push_back(accumulation_of(*node));
        moments_f = moments_f || accs.back().type == "kj_rowmom_f";
        moments_d = moments_d || accs.back().type == "kj_rowmom_d";
    }
    if (moments_f) s += moments_code("float", "f");
    if (moments_d) s += moments_code("double", "d");

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
    std::string b;
    b += fmt::format("    const {0} lid = ({0})get_local_id(0);\n", idx);
    b += "    const int64_t count = (int64_t)n_red;\n";
    for (std::size_t k = 0; k < accs.size(); ++k) b += fmt::format("    LOCAL_MEM_DECL {} kj_scratch{}[{}];\n", accs[k].type, k, g);
    b += fmt::format("    for ({0} row = ({0})get_group_id(0); row < n_rows; row += ({0})get_num_groups(0)) {{\n", idx);
    b += decode_offsets(plan.kept.ndim(), operands, idx, "row");
    // Every array's element j of this work item, and the result's offset.
    for (std::size_t j = 0; j < plan.per_item; ++j) {
        b += fmt::format("    const {0} kj_e{1} = ({0}){1} * {2} + lid;\n    const bool kj_ok{1} = kj_e{1} < n_red;\n", idx, j, g);
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
                out += fmt::format("        const {0} v{1} = kj_v{1}_{2};\n", compute_ctype(code.arrays[k].dtype()), k, j);
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
    // accumulates its elements in order, then one tree over the group combines every reduction of
    // the level, sharing its barriers.
    for (std::size_t level_index = 0; level_index < plan.levels.size(); ++level_index) {
        const std::vector<std::size_t>& level = plan.levels[level_index];
        std::vector<std::string> values, raw;
        std::vector<bool> keep;
        for (const std::size_t k : level) {
            const ExprNode& child = *code.reductions[k]->children[0];
            raw.push_back(with_kept(plan.reduced_values[k]));
            keep.push_back(used_later(level_index, k));
            values.push_back(convert_value(keep.back() ? fmt::format("kj_c{}_j", k) : raw.back(), child.dtype, accs[k].value));
            b += fmt::format("    {} kj_acc{} = {};\n", accs[k].type, k, accs[k].neutral);
            if (keep.back())
                for (std::size_t j = 0; j < plan.per_item; ++j)
                    b += fmt::format("    {} kj_c{}_{} = 0;\n", compute_ctype(child.dtype), k, j);
        }
        std::string used;  // every value of the level, to find the arrays they read
        for (const std::string& x : raw) used += x + " ";
        for (std::size_t j = 0; j < plan.per_item; ++j) {
            std::string steps;
            for (std::size_t q = 0; q < level.size(); ++q)
                if (keep[q]) steps += fmt::format("kj_c{}_{} = {}; ", level[q], j, raw[q]);
            for (std::size_t q = 0; q < level.size(); ++q) {
                const Accumulation& a = accs[level[q]];
                std::string value = values[q];
                if (keep[q]) value = reuse(value, fmt::format("kj_c{}_j", level[q]), fmt::format("kj_c{}_{}", level[q], j));
                const std::string map = fmt::format(fmt::runtime(a.map), "(" + value + ")");
                steps += fmt::format("{{ const {0} a = kj_acc{1}; const {0} b = {2}; kj_acc{1} = {3}; }} ", a.type, level[q], map,
                                     a.reduce);
            }
            b += at_element(j, used, steps);
        }
        for (const std::size_t k : level) b += fmt::format("    kj_scratch{0}[lid] = kj_acc{0};\n", k);
        b += "    LOCAL_BARRIER;\n";
        b += fmt::format("    for ({} kj_half = {}; kj_half > 0; kj_half >>= 1) {{\n        if (lid < kj_half) {{\n", idx, g / 2);
        for (const std::size_t k : level)
            b += fmt::format("            {{ const {0} a = kj_scratch{1}[lid]; const {0} b = kj_scratch{1}[lid + kj_half]; "
                             "kj_scratch{1}[lid] = {2}; }}\n",
                             accs[k].type, k, accs[k].reduce);
        b += "        }\n        LOCAL_BARRIER;\n    }\n";
        for (const std::size_t k : level)
            b += fmt::format("    {} r{};\n    {{ const {} a = kj_scratch{}[0]; r{} = {}; }}\n", compute_ctype(code.reductions[k]->dtype),
                             k, accs[k].type, k, k, accs[k].finish);
        for (std::size_t q = 0; q < level.size(); ++q)
            if (keep[q]) kept.emplace_back(raw[q], fmt::format("kj_c{}", level[q]));
    }
    const std::string result = with_kept(code.value);
    for (std::size_t j = 0; j < plan.per_item; ++j)
        b += at_element(j, result, fmt::format("out_base[kj_out{}] = {};", j, store_value(result, out_dtype)));
    b += "    LOCAL_BARRIER;  /* the scratch is written again for the next row */\n    }\n";
    return s + fmt::format("KERNEL void kjarni_fused_rows({})\n{{\n{}}}\n", params, b);
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
            plan.refused = fmt::format("a reduction of {} values into {} (float16, float32 and float64 only)", child.dtype.name(),
                                       node->dtype.name());
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
            fits = fits && static_cast<std::size_t>(std::llabs(plan.offsets[k])) + reach(plan.kept.shape, plan.kept.strides[k]) +
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
            throw ArgumentError("KJARNI_FUSION_ROWS", fmt::format("is '{}': gpu (the default), always or never", where));
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
    const std::size_t device_group = std::min<std::size_t>(1024, floor_pow2(std::max<std::size_t>(queue.device().params().max_total_local_size, 1)));
    std::size_t group = 32;
    const std::size_t target_per_item =
        std::clamp<std::size_t>(held_values / std::max<std::size_t>(plan.code.arrays.size(), 1), 2, most_per_item);
    while (group < device_group && group * target_per_item < plan.row_length) group *= 2;
    group = std::min(group, device_group);
    while (true) {
        plan.group = group;
        plan.per_item = (plan.row_length + group - 1) / group;
        if (plan.per_item > most_per_item) {
            plan.refused = fmt::format("a row of {} elements is longer than {} work items x {} elements", plan.row_length, group,
                                       most_per_item);
            return plan;
        }
        const std::string text = kernel_text(plan, out_dtype);
        plan.kernel = generated_kernel(queue.device(), text, "kjarni_fused_rows", [&] {
            return algorithm_preamble() + expression_math_preamble() + "\n" + text;
        });
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
