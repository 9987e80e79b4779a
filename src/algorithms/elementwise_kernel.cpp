// ElementwiseKernel: the user's operation inside a generated grid-stride loop. Each array is passed
// as its whole allocation plus an element offset; inside the loop a pointer to it is shifted so
// that `x[i]` is the element of x at broadcast position i, whatever x's layout.

#include <algorithm>
#include <cctype>
#include <functional>
#include <mutex>
#include <span>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/cpu_code.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/indexing.hpp"
#include "algorithms/iteration_space.hpp"
#include "algorithms/kernel_key_text.hpp"
#include "algorithms/operand_checks.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "kjarni/elementwise.hpp"
#include "kjarni/error.hpp"
#include "kjarni/template/module.hpp"

namespace kjarni {

// ---- Which arrays the operation touches only as x[i], and how ------------------------------------

namespace detail {

/// How the operation uses one argument: every use `name[i]` (`indexed`), read, written by a plain
/// `name[i] = ...`, or read and written (`+=`, `++`...).
struct ElementwiseUse {
    bool indexed = true;
    bool read = false;
    bool assigned = false;
    bool updated = false;
};

struct ElementwiseRewrite {
    std::vector<ElementwiseUse> uses;  // per name
    bool conditional = false;  // if, ?:, loops, && or ||: a plain write may not happen for every element
    bool escapes = false;      // return, break, continue, goto: leaves an element's code early
    std::string text;          // the operation with `name[i]` replaced by element(name index)
};

}  // namespace detail

namespace {

using detail::CArgument;
using Use = detail::ElementwiseUse;
using Rewrite = detail::ElementwiseRewrite;

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// Scans the operation (skipping comments and literals) for the uses of `names`, and rewrites each
/// `name[i]` with `element(k)` when given.
Rewrite rewrite_uses(const std::string& op, const std::vector<std::string>& names,
                     const std::vector<std::string>& macros, const std::function<std::string(std::size_t)>& element) {
    Rewrite r;
    r.uses.resize(names.size());
    const std::size_t size = op.size();
    const auto skip_spaces = [&](std::size_t p) {
        while (p < size && std::isspace(static_cast<unsigned char>(op[p])) != 0) ++p;
        return p;
    };
    const auto previous = [&](std::size_t p) -> std::pair<char, char> {  // the two non-space chars before p
        char a = 0, b = 0;
        while (p > 0 && std::isspace(static_cast<unsigned char>(op[p - 1])) != 0) --p;
        if (p > 0) a = op[--p];
        if (p > 0) b = op[p - 1];
        return {a, b};
    };
    std::size_t p = 0;
    while (p < size) {
        const char c = op[p];
        if (c == '/' && p + 1 < size && (op[p + 1] == '/' || op[p + 1] == '*')) {
            const std::size_t end = op[p + 1] == '/' ? op.find('\n', p) : op.find("*/", p + 2);
            const std::size_t stop = end == std::string::npos ? size : end + (op[p + 1] == '/' ? 0 : 2);
            r.text.append(op, p, stop - p);
            p = stop;
            continue;
        }
        if (c == '"' || c == '\'') {
            std::size_t q = p + 1;
            while (q < size && op[q] != c) q += op[q] == '\\' ? std::size_t{2} : std::size_t{1};
            q = std::min(q + 1, size);
            r.text.append(op, p, q - p);
            p = q;
            continue;
        }
        if (c == '?') r.conditional = true;
        if ((c == '&' || c == '|') && p + 1 < size && op[p + 1] == c) r.conditional = true;
        if (!identifier_char(c) || std::isdigit(static_cast<unsigned char>(c)) != 0 ||
            (p > 0 && identifier_char(op[p - 1]))) {
            r.text += c;
            ++p;
            continue;
        }
        std::size_t e = p;
        while (e < size && identifier_char(op[e])) ++e;
        const std::string word = op.substr(p, e - p);
        if (word == "if" || word == "for" || word == "while" || word == "do" || word == "switch") r.conditional = true;
        if (word == "return" || word == "break" || word == "continue" || word == "goto") r.escapes = true;
        if (std::find(macros.begin(), macros.end(), word) != macros.end()) r.escapes = true;  // may write anything
        const auto found = std::find(names.begin(), names.end(), word);
        if (found == names.end()) {
            r.text += word;
            p = e;
            continue;
        }
        const auto [before, before2] = previous(p);
        if (before == '.' || (before == '>' && before2 == '-')) {  // a member of that name, not the array
            r.text += word;
            p = e;
            continue;
        }
        Use& use = r.uses[static_cast<std::size_t>(found - names.begin())];
        std::size_t q = skip_spaces(e);
        // Not an address taken (&x[i]; && is a logical and).
        const bool address = before == '&' && before2 != '&';
        bool indexed = !address && q < size && op[q] == '[';
        if (indexed) {
            q = skip_spaces(q + 1);
            indexed = q < size && op[q] == 'i' && (q + 1 >= size || !identifier_char(op[q + 1]));
            if (indexed) q = skip_spaces(q + 1);
            indexed = indexed && q < size && op[q] == ']';
        }
        if (!indexed) {
            use.indexed = false;
            r.text += word;
            p = e;
            continue;
        }
        const std::size_t after = skip_spaces(q + 1);
        const std::string next = op.substr(after, 3);
        const bool pre_step = (before == '+' && before2 == '+') || (before == '-' && before2 == '-');
        // A member or part of the element (x[i].y = ...) may be written: read and written back.
        const bool part = !next.empty() && (next[0] == '.' || next[0] == '[' || next.rfind("->", 0) == 0);
        if (part || pre_step || next.rfind("++", 0) == 0 || next.rfind("--", 0) == 0 || next == "<<=" ||
            next == ">>=" ||
            (next.size() >= 2 && next[1] == '=' && std::string("+-*/%&|^").find(next[0]) != std::string::npos)) {
            use.updated = true;
        } else if (!next.empty() && next[0] == '=' && next.rfind("==", 0) != 0) {
            use.assigned = true;
        } else {
            use.read = true;
        }
        const auto k = static_cast<std::size_t>(found - names.begin());
        r.text += element ? element(k) : op.substr(p, q + 1 - p);
        p = q + 1;
    }
    return r;
}

/// The names of function-like macros the preamble defines: a call may do anything with its
/// arguments (write an element passed as `x[i]`), so an operation calling one is not vectorised.
std::vector<std::string> function_macros(const std::string& preamble) {
    std::vector<std::string> out{"LOAD_HALF", "STORE_HALF"};
    for (std::size_t p = preamble.find("#define"); p != std::string::npos; p = preamble.find("#define", p + 7)) {
        std::size_t b = p + 7;
        while (b < preamble.size() && (preamble[b] == ' ' || preamble[b] == '\t')) ++b;
        std::size_t e = b;
        while (e < preamble.size() && identifier_char(preamble[e])) ++e;
        if (e > b && e < preamble.size() && preamble[e] == '(') out.push_back(preamble.substr(b, e - b));
    }
    return out;
}

}  // namespace

namespace detail {

/// What a call reads of its kernel: the rendered parts, and what follows from them alone, made
/// once (a call's host work is what a small array's launch costs).
struct ElementwiseState {
    bool typed = true;
    std::vector<CArgument> arguments;  // untyped: names only
    std::string name;
    // Rendered once (modules at the top of `preamble`).
    std::string preamble;
    std::string operation;
    std::string loop_prep;
    std::string after_loop;
    // Whether the operation may run in vectors (see ElementwiseOptions::vector_loads).
    bool vector_loads = true;
    std::string what;                 // "kernel 'name'", for errors
    std::vector<std::string> labels;  // per argument, for errors: argument_label
    std::vector<std::string> macros;  // the preamble's function-like macros (function_macros)
    std::string parts_key;            // the four parts as the kernel key ends with them
    // The uses of the arrays in the operation, per list of which arguments are arrays (typed
    // kernels: one).
    mutable std::mutex uses_lock;
    mutable std::vector<std::pair<std::vector<std::size_t>, std::shared_ptr<const Rewrite>>> uses;
};

}  // namespace detail

namespace {

/// rewrite_uses(operation, names of the array arguments, macros) without the text, made once per
/// list of which arguments are arrays (`arrays`, indices into state.arguments, whose names are the
/// kernel's).
std::shared_ptr<const Rewrite> uses_of(const detail::ElementwiseState& state, const std::vector<std::size_t>& arrays) {
    const std::scoped_lock lock(state.uses_lock);
    for (const auto& [known, rewrite] : state.uses)
        if (known == arrays) return rewrite;
    std::vector<std::string> names;
    names.reserve(arrays.size());
    for (const std::size_t k : arrays) names.push_back(state.arguments[k].name);
    Rewrite r = rewrite_uses(state.operation, names, state.macros, {});
    r.text.clear();
    state.uses.emplace_back(arrays, std::make_shared<const Rewrite>(std::move(r)));
    return state.uses.back().second;
}

std::string declaration_of(const CArgument& a) {
    if (a.pointer) return fmt::format("{}{} *{}", a.is_const ? "const " : "", detail::storage_type(a.dtype), a.name);
    return fmt::format("{} {}", detail::scalar_parameter_type(a.dtype), a.name);
}

struct ElementwisePlan {
    std::span<const CArgument> arguments;  // with the call's types: the kernel's, or `untyped`
    std::vector<CArgument> untyped;        // an untyped kernel's arguments typed by the call
    std::vector<std::size_t> arrays;   // indices of the array arguments
    detail::IterationSpace space;
    std::vector<std::ptrdiff_t> offsets;  // per array, in elements
    bool use_32_bits = true;
    bool flat = true;  // one axis (or none) on which every array steps by 1 or 0
    // Vector loads (flat, aligned, every array used as x[i]): elements per vector, else 0.
    std::size_t vector_width = 0;
    std::vector<Use> uses;     // per array (in `arrays` order), when vector_width > 0
    bool conditional = false;  // the operation's plain writes may be skipped for some elements
    bool cpu = false;          // the CPU form (cpu_code.hpp): a contiguous run per work item
    // GPU, flat, detail::plain_flat_layout: the offsets and steps are the kernel's constants.
    bool plain = false;
};

/// Per array: loaded as vectors (read, updated, or assigned only under a condition), stored as
/// vectors (written).
bool loads(const Use& u, bool conditional) { return u.read || u.updated || (u.assigned && conditional); }
bool stores(const Use& u) { return u.assigned || u.updated; }

std::string generate(const detail::ElementwiseState& state, const ElementwisePlan& plan) {
    const char* idx = detail::index_type(plan.use_32_bits);
    std::vector<std::string> names;
    for (const std::size_t k : plan.arrays) names.push_back(plan.arguments[k].name);
    std::string params;
    for (const auto& a : plan.arguments) {
        if (!params.empty()) params += ", ";
        if (a.pointer)
            params += fmt::format("GLOBAL_MEM {}{} *{}_base", a.is_const ? "const " : "", detail::storage_type(a.dtype),
                                  a.name);
        else params += declaration_of(a);
    }
    params += fmt::format(", {} n", idx);
    std::string body;
    std::string prologue;     // the layout table's values, or the plain form's offsets and steps
    std::string vector_body;  // the vector loop, before the scalar loop that takes the leftovers
    if (plan.vector_width > 0) {
        // The leftovers run the flat loop below (the same parameters).
        std::vector<detail::VectorArray> vectors;
        for (std::size_t j = 0; j < names.size(); ++j) {
            const CArgument& a = plan.arguments[plan.arrays[j]];
            vectors.push_back(detail::VectorArray{names[j] + "_base", names[j] + "_off", names[j] + "_step",
                                                  detail::storage_type(a.dtype), a.dtype.itemsize(),
                                                  loads(plan.uses[j], plan.conditional),
                                                  stores(plan.uses[j]) && !a.is_const});
        }
        const Rewrite r = rewrite_uses(state.operation, names, {},
                                       [&](std::size_t j) { return detail::vector_element(vectors[j], j); });
        const std::string element =
            fmt::format("                const {0} i = kj_j * {1} + kj_q;\n                {2};\n", idx,
                        plan.vector_width, r.text);
        vector_body = detail::vector_loop(vectors, plan.vector_width, idx, element, "");
    }
    if (plan.flat) {
        if (plan.plain) prologue = detail::flat_layout_constants(names, idx);
        else params += detail::flat_layout_parameters(names, idx);
        for (std::size_t j = 0; j < names.size(); ++j) {
            const CArgument& a = plan.arguments[plan.arrays[j]];
            if (plan.cpu) {
                // The step is in the key: a pointer the compiler sees walk with i (vectorised), or
                // one element.
                const bool steps = plan.space.ndim() == 0 || plan.space.strides[j][0] != 0;
                body += fmt::format("        GLOBAL_MEM {}{}* {} = {}_base + {}_off{};\n", a.is_const ? "const " : "",
                                    detail::storage_type(a.dtype), a.name, a.name, a.name, steps ? "" : " - i");
                continue;
            }
            // step is 1 (walks the array) or 0 (a broadcast element: the pointer moves back with i).
            body +=
                fmt::format("        GLOBAL_MEM {}{}* {} = {}_base + ({}_off + ({}_step - 1) * i);\n",
                            a.is_const ? "const " : "", detail::storage_type(a.dtype), a.name, a.name, a.name, a.name);
        }
    } else {
        const bool table = detail::layout_in_table(plan.space.ndim());
        const std::vector<std::string> layout = detail::layout_names(plan.space.ndim(), names);
        params += detail::index_parameters(layout, idx, table);
        prologue = detail::index_prologue(layout, idx, table);
        body += detail::decode_offsets(plan.space.ndim(), names, idx, "i");
        for (std::size_t j = 0; j < names.size(); ++j) {
            const CArgument& a = plan.arguments[plan.arrays[j]];
            body += fmt::format("        GLOBAL_MEM {}{}* {} = {}_base + ({}_o - i);\n", a.is_const ? "const " : "",
                                detail::storage_type(a.dtype), a.name, a.name, a.name);
        }
    }
    // The CPU form: this work item's contiguous run, in order. The GPU form's grid-stride loop stays
    // rolled, as vector_loop.mako's (which says why).
    const std::string loop =
        plan.cpu ? detail::cpu_run_bounds(idx, "n") + fmt::format("    for ({} i = kj_begin; i < kj_end; ++i) {{", idx)
                 : fmt::format("#pragma unroll 1\n    for ({0} i = {1}; i < n; i += ({0})get_global_size(0)) {{", idx,
                               plan.vector_width > 0 ? std::string("start") : fmt::format("({})get_global_id(0)", idx));
    return fmt::format(R"({preamble_api}
{preamble}
KERNEL void {name}({params})
{{
{prologue}{loop_prep}
{vector_body}{loop}
{body}
        {operation};
    }}
{after_loop}
}}
)",
                       fmt::arg("preamble_api", detail::algorithm_preamble()), fmt::arg("preamble", state.preamble),
                       fmt::arg("name", state.name), fmt::arg("params", params), fmt::arg("prologue", prologue),
                       fmt::arg("vector_body", vector_body), fmt::arg("loop", loop),
                       fmt::arg("loop_prep", state.loop_prep), fmt::arg("body", body),
                       fmt::arg("operation", state.operation), fmt::arg("after_loop", state.after_loop));
}

std::string argument_label(const CArgument& a, std::size_t index) {
    return fmt::format("argument {} ('{}')", index, a.name);
}

std::shared_ptr<detail::ElementwiseState> make_state(std::vector<CArgument> arguments, bool typed,
                                                     const std::string& operation, const ElementwiseOptions& options) {
    if (operation.find_first_not_of(" \t\n") == std::string::npos) throw ArgumentError("operation", "is empty");
    auto state = std::make_shared<detail::ElementwiseState>();
    state->typed = typed;
    state->arguments = std::move(arguments);
    state->name = options.name;
    // The parts render separately, as one template: defs and <%! %> blocks of any part serve all,
    // and the modules they use land once, at the top of the preamble.
    RenderedParts rendered =
        render_parts_with_modules({options.preamble, operation, options.loop_prep, options.after_loop}, options.globals,
                                  options.name);
    // The layout a single render_with_modules() of the parts between a def's newlines gave (kept so
    // that the kernels' sources, and so their cache entries, stay as they were).
    state->preamble = rendered.modules + "\n\n" + rendered.parts[0];
    state->operation = std::move(rendered.parts[1]);
    state->loop_prep = std::move(rendered.parts[2]);
    state->after_loop = std::move(rendered.parts[3]) + "\n";
    state->vector_loads = options.vector_loads;
    state->what = fmt::format("kernel '{}'", state->name);
    for (std::size_t k = 0; k < state->arguments.size(); ++k)
        state->labels.push_back(argument_label(state->arguments[k], k));
    state->macros = function_macros(state->preamble);
    // Each part with its length first: no text of one can pass for a boundary between two.
    for (const std::string* part : {&state->preamble, &state->operation, &state->loop_prep, &state->after_loop})
        state->parts_key += fmt::format("{}:{}", part->size(), *part);
    return state;
}

}  // namespace

ElementwiseKernel::ElementwiseKernel(const std::string& arguments, std::string operation, ElementwiseOptions options)
    : state_(make_state(detail::parse_c_arguments(arguments, "arguments"), true, std::move(operation),
                        std::move(options))) {
    if (state_->arguments.empty()) throw ArgumentError("arguments", "declares no argument");
}

ElementwiseKernel ElementwiseKernel::from_names(const std::vector<std::string>& names, std::string operation,
                                                ElementwiseOptions options) {
    if (names.empty()) throw ArgumentError("names", "no argument named");
    std::vector<CArgument> arguments;
    for (const auto& name : names) {
        // The declaration parser checks the name (identifier, not repeated).
        arguments.push_back(detail::parse_c_arguments("int " + name, "names").front());
        for (std::size_t k = 0; k + 1 < arguments.size(); ++k)
            if (arguments[k].name == name) throw ArgumentError("names", fmt::format("'{}' is named twice", name));
    }
    return ElementwiseKernel(make_state(std::move(arguments), false, std::move(operation), std::move(options)));
}

void ElementwiseKernel::operator()(const Queue& queue, std::span<const Operand> args) const {
    const detail::ElementwiseState& state = *state_;
    if (args.size() != state.arguments.size()) {
        std::vector<std::string> names;
        for (const CArgument& a : state.arguments) names.push_back(a.name);
        throw ArgumentError("args", fmt::format("kernel '{}' takes {} arguments ({}), {} given", state.name,
                                                state.arguments.size(), fmt::join(names, ", "), args.size()));
    }
    ElementwisePlan plan;
    plan.arguments = state.arguments;  // (a typed kernel's are not copied)
    if (!state.typed) {
        plan.untyped = state.arguments;
        for (std::size_t k = 0; k < args.size(); ++k) {
            CArgument& a = plan.untyped[k];
            a.pointer = args[k].is_array();
            a.dtype = args[k].dtype();
            a.ctype = detail::c_type_name(a.dtype);
        }
        plan.arguments = plan.untyped;
    }
    // The broadcast shape: the arrays' own where they all have one (the usual call), else numpy's.
    const std::vector<std::size_t>* common_shape = nullptr;
    bool same_shapes = true;
    for (std::size_t k = 0; k < args.size(); ++k) {
        const CArgument& a = plan.arguments[k];
        const Operand& given = args[k];
        if (a.pointer) {
            if (!given.is_array())
                throw ArgumentError(state.labels[k],
                                    fmt::format("is declared as an array ({}), a scalar was given", declaration_of(a)));
            if (!(given.dtype() == a.dtype))
                throw ArgumentError(state.labels[k], fmt::format("is declared {}, an array of {} was given",
                                                                 declaration_of(a), given.dtype().name()));
            detail::check_on_queue_device(given.array(), queue, state.labels[k]);
            plan.arrays.push_back(k);
            const std::vector<std::size_t>& array_shape = given.array().shape();
            if (common_shape == nullptr) common_shape = &array_shape;
            same_shapes = same_shapes && array_shape == *common_shape;
        } else if (given.is_array()) {
            throw ArgumentError(state.labels[k],
                                fmt::format("is declared as a scalar ({}), an array was given", declaration_of(a)));
        }
    }
    std::vector<std::size_t> broadcast;
    if (common_shape == nullptr || !same_shapes) {
        std::vector<std::vector<std::size_t>> shapes;
        for (const std::size_t k : plan.arrays) shapes.push_back(args[k].array().shape());
        broadcast = detail::broadcast_shapes(shapes, state.what);
    }
    const std::vector<std::size_t>& shape = common_shape != nullptr && same_shapes ? *common_shape : broadcast;
    // Outputs (every array of an untyped kernel) have the whole shape and share no memory with
    // another argument through a different view.
    for (const std::size_t k : plan.arrays) {
        const CArgument& a = plan.arguments[k];
        if (a.is_const) continue;
        const Array& out = args[k].array();
        detail::check_output_shape(out, shape, state.labels[k]);
        for (const std::size_t j : plan.arrays) {
            if (j != k) detail::check_no_partial_overlap(out, state.labels[k], args[j].array(), state.labels[j]);
        }
    }
    std::size_t n = 1;
    for (const auto e : shape) n *= e;
    if (n == 0) return;

    plan.offsets.reserve(plan.arrays.size());
    bool all_c_contiguous = n > 1;
    for (const std::size_t k : plan.arrays) {
        const Array& array = args[k].array();
        plan.offsets.push_back(detail::element_offset(array, state.labels[k]));
        all_c_contiguous =
            all_c_contiguous && array.shape() == shape && array.layout().is_c_contiguous(array.dtype().itemsize());
    }
    if (all_c_contiguous) {
        // The usual call, one axis every array walks (as make_iteration_space would merge it).
        plan.space = detail::contiguous_space(n, plan.arrays.size());
    } else {
        std::vector<std::vector<std::ptrdiff_t>> strides;
        strides.reserve(plan.arrays.size());
        for (const std::size_t k : plan.arrays) {
            const Array& array = args[k].array();
            strides.push_back(
                detail::element_strides(array.layout(), array.dtype().itemsize(), shape, state.labels[k]));
        }
        // The order of the axes is kept: `i` is the C-order index the operation may use as a value.
        plan.space = detail::make_iteration_space(shape, std::move(strides), {}, true);
    }
    detail::check_axis_count(plan.space, state.what);
    detail::pad_table_axes(plan.space);
    plan.use_32_bits = detail::fits_32_bits(plan.space, plan.offsets);
    plan.flat = plan.space.ndim() == 0 ||
                (plan.space.ndim() == 1 && std::all_of(plan.space.strides.begin(), plan.space.strides.end(),
                                                       [](const auto& s) { return s[0] == 0 || s[0] == 1; }));

    plan.cpu = detail::cpu_code(queue.device());
    plan.plain = plan.flat && !plan.cpu && detail::plain_flat_layout(plan.space, plan.offsets);
    if (plan.flat && plan.space.ndim() == 1 && state.vector_loads && !plan.cpu) {
        // Vectors of 16 bytes of the widest element, when the operation uses every array as x[i]
        // only (and calls no macro that could write one), and every array that steps starts
        // aligned to its vector.
        std::size_t widest = 1;
        bool possible = true;
        for (const std::size_t k : plan.arrays) {
            widest = std::max(widest, plan.arguments[k].dtype.itemsize());
            possible = possible && plan.arguments[k].dtype.kind() != DType::Kind::float16;
        }
        const std::size_t v = 16 / widest;
        const std::shared_ptr<const Rewrite> analysed = uses_of(state, plan.arrays);
        const Rewrite& r = *analysed;
        possible = possible && v > 1 && !r.escapes;
        for (std::size_t j = 0; possible && j < plan.arrays.size(); ++j) {
            const Use& u = r.uses[j];
            const std::size_t itemsize = plan.arguments[plan.arrays[j]].dtype.itemsize();
            possible =
                u.indexed && (plan.space.strides[j][0] == 0
                                  ? !stores(u)
                                  : detail::lies_aligned(args[plan.arrays[j]].array(), plan.offsets[j], v * itemsize));
        }
        // A written array that is also another argument (the same view: other overlaps are refused
        // above) would be read before the other's write lands, and written back over it.
        for (std::size_t j = 0; possible && j < plan.arrays.size(); ++j) {
            if (!stores(r.uses[j]) || plan.arguments[plan.arrays[j]].is_const) continue;
            const Array& written = args[plan.arrays[j]].array();
            for (std::size_t k = 0; possible && k < plan.arrays.size(); ++k)
                possible = k == j || detail::backend_of(args[plan.arrays[k]].array().base()) !=
                                         detail::backend_of(written.base());
        }
        if (possible) {
            plan.vector_width = v;
            plan.uses = r.uses;
            plan.conditional = r.conditional;
        }
    }

    // The layout class: merged axes (or, when flat, which arrays step, or the vectors and how each
    // array is used in them), index width, and types.
    detail::KeyText key("elementwise idx32=", state.parts_key.size());
    key.flag("", plan.use_32_bits)
        .flag(" flat=", plan.flat)
        .flag(" plain=", plan.plain)
        .number(" ndim=", plan.space.ndim());
    if (plan.vector_width > 0) {
        key.text(" vector=", detail::vector_loop_version)
            .number(" width=", plan.vector_width)
            .flag(" conditional=", plan.conditional)
            .text(" uses=", "");
        for (const Use& u : plan.uses) {
            const char use[3] = {u.read ? 'r' : '-', u.assigned ? 'a' : '-', u.updated ? 'u' : '-'};
            key.text("", std::string_view(use, 3));
        }
    }
    if (plan.cpu) {
        key.text(" cpu=", "");
        if (plan.flat && plan.space.ndim() == 1)
            for (const auto& st : plan.space.strides) key.text("", st[0] != 0 ? "1" : "0");
    }
    key.arguments(" args=", plan.arguments, true);
    const std::string kernel_key = key.finish(state.parts_key);
    const detail::GeneratedKernel kernel = detail::generated_kernel(
        queue.device(), kernel_key, state.name, [&] { return generate(state, plan); },
        /*allow_contraction=*/true);  // users' code compiles as a Program's

    std::vector<detail::KernelArg> kernel_args;
    kernel_args.reserve(args.size() + 2 + plan.arrays.size() * (2 + plan.space.ndim()) + plan.space.ndim());
    for (std::size_t k = 0; k < args.size(); ++k) {
        const CArgument& a = plan.arguments[k];
        if (a.pointer) {
            kernel_args.push_back(detail::whole_allocation(args[k].array()));
        } else {
            const DType passed = detail::scalar_parameter_dtype(a.dtype);
            const auto bytes = args[k].converted(passed);
            kernel_args.push_back(detail::scalar_arg(bytes.data(), passed.itemsize()));
        }
    }
    detail::push_index(kernel_args, static_cast<std::int64_t>(n), plan.use_32_bits);
    std::optional<Buffer> table;  // held until the launch is enqueued
    if (plan.flat) {
        for (std::size_t j = 0; !plan.plain && j < plan.arrays.size(); ++j) {
            detail::push_index(kernel_args, plan.offsets[j], plan.use_32_bits);
            detail::push_index(kernel_args, plan.space.ndim() == 0 ? 1 : plan.space.strides[j][0], plan.use_32_bits);
        }
    } else {
        detail::push_index_values(kernel_args, detail::layout_values(plan.space, plan.offsets), plan.use_32_bits,
                                  detail::layout_in_table(plan.space.ndim()), queue, table);
    }
    const std::size_t items =
        plan.vector_width > 0 ? std::max<std::size_t>(1, n / (plan.vector_width * detail::vector_unroll)) : n;
    const detail::Grid grid = plan.cpu
                                  ? detail::Grid{detail::cpu_grid(queue.device(), n, detail::cpu_min_run).global, 1}
                                  : detail::grid_for(kernel, items);
    const std::size_t global[1] = {grid.global};
    const std::size_t local[1] = {grid.local};
    detail::launch(queue, kernel, global, local, kernel_args);
}

void ElementwiseKernel::operator()(const MultiQueue& queue, std::span<const MultiOperand> args) const {
    for (const Queue& q : queue.queues()) {
        std::vector<Operand> parts;
        parts.reserve(args.size());
        for (const auto& a : args) parts.push_back(a.on(q.device()));
        (*this)(q, std::span<const Operand>(parts));
    }
}

}  // namespace kjarni
