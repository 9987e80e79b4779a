// ElementwiseKernel: the user's operation inside a generated grid-stride loop. Each array is passed
// as its whole allocation plus an element offset; inside the loop a pointer to it is shifted so
// that `x[i]` is the element of x at broadcast position i, whatever x's layout.

#include <algorithm>
#include <ranges>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/indexing.hpp"
#include "algorithms/iteration_space.hpp"
#include "algorithms/operand_checks.hpp"
#include "kjarni/elementwise.hpp"
#include "kjarni/error.hpp"
#include "kjarni/template/module.hpp"

namespace kjarni {

namespace detail {

struct ElementwiseState {
    bool typed = true;
    std::vector<CArgument> arguments;  // untyped: names only
    std::string name;
    // Rendered once (modules at the top of `preamble`).
    std::string preamble;
    std::string operation;
    std::string loop_prep;
    std::string after_loop;
};

}  // namespace detail

namespace {

using detail::CArgument;

constexpr const char* separator = "\n/*KJARNI-ELEMENTWISE-PART*/\n";

std::shared_ptr<detail::ElementwiseState> make_state(std::vector<CArgument> arguments, bool typed,
                                                     std::string operation, ElementwiseOptions options) {
    if (operation.find_first_not_of(" \t\n") == std::string::npos)
        throw ArgumentError("operation", "is empty");
    auto state = std::make_shared<detail::ElementwiseState>();
    state->typed = typed;
    state->arguments = std::move(arguments);
    state->name = options.name;
    // One rendering of all parts: the modules they use land once, at the top of the preamble.
    const std::string all = options.preamble + separator + operation + separator + options.loop_prep + separator +
                            options.after_loop;
    const std::string rendered = render_with_modules(TemplateSource{all}, {}, options.globals);
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t found; (found = rendered.find(separator, start)) != std::string::npos;) {
        parts.push_back(rendered.substr(start, found - start));
        start = found + std::char_traits<char>::length(separator);
    }
    parts.push_back(rendered.substr(start));
    if (parts.size() != 4) throw ArgumentError("operation", "rendering lost a part of the kernel (a template comment?)");
    state->preamble = parts[0];
    state->operation = parts[1];
    state->loop_prep = parts[2];
    state->after_loop = parts[3];
    return state;
}

std::string declaration_of(const CArgument& a) {
    if (a.pointer) return fmt::format("{}{} *{}", a.is_const ? "const " : "", detail::storage_type(a.dtype), a.name);
    return fmt::format("{} {}", detail::scalar_parameter_type(a.dtype), a.name);
}

struct Plan {
    std::vector<CArgument> arguments;  // with the call's types
    std::vector<std::size_t> arrays;   // indices of the array arguments
    detail::IterationSpace space;
    std::vector<std::ptrdiff_t> offsets;  // per array, in elements
    bool use_32_bits = true;
    bool flat = true;  // one axis (or none) on which every array steps by 1 or 0
};

std::string generate(const detail::ElementwiseState& state, const Plan& plan) {
    const char* idx = detail::index_type(plan.use_32_bits);
    std::vector<std::string> names;
    for (const std::size_t k : plan.arrays) names.push_back(plan.arguments[k].name);
    std::string params;
    for (const auto& a : plan.arguments) {
        if (!params.empty()) params += ", ";
        if (a.pointer)
            params += fmt::format("GLOBAL_MEM {}{} *{}_base", a.is_const ? "const " : "", detail::storage_type(a.dtype), a.name);
        else
            params += declaration_of(a);
    }
    params += fmt::format(", {} n", idx);
    std::string body;
    std::string prologue;  // the layout table's values, when it has one
    if (plan.flat) {
        for (const auto& name : names) params += fmt::format(", {} {}_off, {} {}_step", idx, name, idx, name);
        for (std::size_t j = 0; j < names.size(); ++j) {
            const CArgument& a = plan.arguments[plan.arrays[j]];
            // step is 1 (walks the array) or 0 (a broadcast element: the pointer moves back with i).
            body += fmt::format("        GLOBAL_MEM {}{}* {} = {}_base + ({}_off + ({}_step - 1) * i);\n",
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
    return fmt::format(R"({preamble_api}
{preamble}
KERNEL void {name}({params})
{{
{prologue}{loop_prep}
    for ({idx} i = ({idx})get_global_id(0); i < n; i += ({idx})get_global_size(0)) {{
{body}
        {operation};
    }}
{after_loop}
}}
)",
                       fmt::arg("preamble_api", detail::algorithm_preamble()), fmt::arg("preamble", state.preamble),
                       fmt::arg("name", state.name), fmt::arg("params", params), fmt::arg("prologue", prologue),
                       fmt::arg("loop_prep", state.loop_prep),
                       fmt::arg("idx", idx), fmt::arg("body", body), fmt::arg("operation", state.operation),
                       fmt::arg("after_loop", state.after_loop));
}

std::string argument_label(const CArgument& a, std::size_t index) {
    return fmt::format("argument {} ('{}')", index, a.name);
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
    if (args.size() != state.arguments.size())
        throw ArgumentError("args", fmt::format("kernel '{}' takes {} arguments ({}), {} given", state.name,
                                                state.arguments.size(),
                                                fmt::join(state.arguments | std::views::transform(&CArgument::name), ", "),
                                                args.size()));
    Plan plan;
    plan.arguments = state.arguments;
    std::vector<std::vector<std::size_t>> shapes;
    for (std::size_t k = 0; k < args.size(); ++k) {
        CArgument& a = plan.arguments[k];
        const Operand& given = args[k];
        if (!state.typed) {
            a.pointer = given.is_array();
            a.dtype = given.dtype();
            a.ctype = detail::c_type_name(a.dtype);
        }
        if (a.pointer) {
            if (!given.is_array())
                throw ArgumentError(argument_label(a, k), fmt::format("is declared as an array ({}), a scalar was given",
                                                                      declaration_of(a)));
            if (!(given.dtype() == a.dtype))
                throw ArgumentError(argument_label(a, k), fmt::format("is declared {}, an array of {} was given",
                                                                      declaration_of(a), given.dtype().name()));
            detail::check_on_queue_device(given.array(), queue, argument_label(a, k));
            plan.arrays.push_back(k);
            shapes.push_back(given.array().shape());
        } else if (given.is_array()) {
            throw ArgumentError(argument_label(a, k), fmt::format("is declared as a scalar ({}), an array was given",
                                                                  declaration_of(a)));
        }
    }
    const std::vector<std::size_t> shape = detail::broadcast_shapes(shapes, fmt::format("kernel '{}'", state.name));
    // Outputs (every array of an untyped kernel) have the whole shape and share no memory with
    // another argument through a different view.
    for (const std::size_t k : plan.arrays) {
        const CArgument& a = plan.arguments[k];
        if (a.is_const) continue;
        const Array& out = args[k].array();
        detail::check_output_shape(out, shape, argument_label(a, k));
        for (const std::size_t j : plan.arrays) {
            if (j != k) detail::check_no_partial_overlap(out, argument_label(a, k), args[j].array(),
                                                         argument_label(plan.arguments[j], j));
        }
    }
    std::size_t n = 1;
    for (const auto e : shape) n *= e;
    if (n == 0) return;

    std::vector<std::vector<std::ptrdiff_t>> strides;
    for (const std::size_t k : plan.arrays) {
        const Array& array = args[k].array();
        strides.push_back(detail::element_strides(array.layout(), array.dtype().itemsize(), shape,
                                                  argument_label(plan.arguments[k], k)));
        plan.offsets.push_back(detail::element_offset(array, argument_label(plan.arguments[k], k)));
    }
    // The order of the axes is kept: `i` is the C-order index the operation may use as a value.
    plan.space = detail::make_iteration_space(shape, std::move(strides), {}, true);
    detail::check_axis_count(plan.space, fmt::format("kernel '{}'", state.name));
    detail::pad_table_axes(plan.space);
    plan.use_32_bits = detail::fits_32_bits(plan.space, plan.offsets);
    plan.flat = plan.space.ndim() == 0 ||
                (plan.space.ndim() == 1 && std::all_of(plan.space.strides.begin(), plan.space.strides.end(),
                                                       [](const auto& s) { return s[0] == 0 || s[0] == 1; }));

    // The layout class: merged axes (or, when flat, which arrays step), index width, and types.
    std::string key = fmt::format("{}|{}|", plan.use_32_bits ? 32 : 64, plan.flat ? "flat" : std::to_string(plan.space.ndim()));
    for (const auto& a : plan.arguments) key += declaration_of(a) + ";";
    key += state.preamble + separator + state.operation + separator + state.loop_prep + separator + state.after_loop;
    const detail::GeneratedKernel kernel =
        detail::generated_kernel(queue.device(), key, state.name, [&] { return generate(state, plan); });

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
        for (std::size_t j = 0; j < plan.arrays.size(); ++j) {
            detail::push_index(kernel_args, plan.offsets[j], plan.use_32_bits);
            detail::push_index(kernel_args, plan.space.ndim() == 0 ? 1 : plan.space.strides[j][0], plan.use_32_bits);
        }
    } else {
        detail::push_index_values(kernel_args, detail::layout_values(plan.space, plan.offsets), plan.use_32_bits,
                                  detail::layout_in_table(plan.space.ndim()), queue, table);
    }
    const detail::Grid grid = detail::grid_for(kernel, n);
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
