// Evaluating an expression: one generated kernel that loads each array once per element, computes
// the value and stores it. Three layout classes: a flat vectorised loop (every array contiguous
// and aligned: 16-byte loads and stores), a flat loop (arrays contiguous or broadcast single
// elements), and a strided loop decoding coordinates over the merged axes.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "algorithms/assignment.hpp"
#include "algorithms/c_arguments.hpp"
#include "algorithms/compaction.hpp"
#include "algorithms/cpu_code.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/expression_key.hpp"
#include "algorithms/expression_math.hpp"
#include "algorithms/expression_node.hpp"
#include "algorithms/expression_plan.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/indexing.hpp"
#include "algorithms/iteration_space.hpp"
#include "algorithms/kernel_key_text.hpp"
#include "algorithms/kernel_templates.hpp"
#include "algorithms/operand_checks.hpp"
#include "array/overlap.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/template.hpp"

namespace kjarni {

namespace {

enum class LayoutClass { vector, flat, strided };

struct ExpressionPlan {
    detail::BoundExpression expr;  // the arrays and scalars its code names, and the tree's key
    std::string value;             // the code of the value, where the tree has no key or to render it
    const Array& out;              // the caller's, alive through the plan (a copy would allocate its layout)
    detail::IterationSpace space;  // operand 0 is out, then expr.arrays
    std::vector<std::ptrdiff_t> offsets;
    bool use_32_bits = true;
    LayoutClass layout = LayoutClass::strided;
    std::size_t vector_width = 1;  // elements per vector in the vector class
    bool cpu = false;              // the CPU form (cpu_code.hpp): a contiguous run per work item
    std::size_t stream_line = 0;   // the CPU flat form: output elements per 64-byte streaming store, or 0
    // A GPU flat or vector form whose offsets and steps are the kernel's constants, not its
    // parameters (detail::plain_flat_layout: six parameters fewer for a + b).
    bool plain = false;
};

// The kernel itself, without the shared preambles: data/kernels/expression.mako, given the pieces
// of this expression (the value's store, each array's load, the layout's parameters).
std::string generate(const ExpressionPlan& plan) {
    const detail::BoundExpression& code = plan.expr;
    const char* idx = detail::index_type(plan.use_32_bits);
    const DType& out_dtype = plan.out.dtype();
    std::vector<std::string> names{"out"};
    std::vector<Value> arrays, scalars;
    for (std::size_t k = 0; k < code.arrays.size(); ++k) {
        names.push_back(fmt::format("in{}", k));
        const DType& d = code.arrays[k]->dtype();
        arrays.push_back(Value::list({Value(detail::storage_ctype(d)), Value(detail::compute_ctype(d))}));
    }
    for (const auto& s : code.scalars) scalars.push_back(Value(detail::scalar_parameter_type(s.dtype)));
    const std::size_t ndim = plan.space.ndim();
    const bool strided = plan.layout == LayoutClass::strided;
    const bool table = detail::layout_in_table(ndim);
    const std::vector<std::string> layout = detail::layout_names(ndim, names);
    std::string layout_params, prologue;
    if (strided) {
        layout_params = detail::index_parameters(layout, idx, table);
        prologue = detail::index_prologue(layout, idx, table);
    } else if (plan.plain) {
        prologue = detail::flat_layout_constants(names, idx);
    } else {
        layout_params = detail::flat_layout_parameters(names, idx);
    }
    std::vector<Value> steps;  // (the CPU form's flat loop: operands broadcast from one element stay put)
    for (std::size_t k = 0; k < names.size(); ++k) steps.push_back(Value(ndim == 0 || plan.space.strides[k][0] != 0));
    // The vector form: array k loads V * itemsize bytes as one unsigned vector; arrays that are one
    // broadcast element (step 0) are read from memory where used.
    std::vector<detail::VectorArray> vectors;
    if (plan.layout == LayoutClass::vector) {
        vectors.push_back(detail::VectorArray{"out_base", "out_off", "out_step", detail::storage_ctype(out_dtype),
                                              out_dtype.itemsize(), false, true});
        for (std::size_t k = 0; k < code.arrays.size(); ++k) {
            const DType& d = code.arrays[k]->dtype();
            vectors.push_back(detail::VectorArray{fmt::format("in{}_base", k), fmt::format("in{}_off", k),
                                                  fmt::format("in{}_step", k), detail::storage_ctype(d), d.itemsize(),
                                                  true, false});
        }
    }
    std::vector<Value> vector_elements;
    for (std::size_t k = 0; k < vectors.size(); ++k)
        vector_elements.push_back(Value(detail::vector_element(vectors[k], k)));
    const char* form = plan.cpu                           ? (strided ? "cpu_strided" : "cpu_flat")
                       : strided                          ? "strided"
                       : plan.layout == LayoutClass::flat ? "flat"
                                                          : "vector";
    const Function load = [&code](const Args& args) {
        return Value(
            detail::load_value(args[1].as_string(), code.arrays[static_cast<std::size_t>(args[0].as_int())]->dtype()));
    };
    const Function decode = [&](const Args& args) {
        return Value(detail::decode_offsets(ndim, names, idx, args[0].as_string()));
    };
    std::vector<Value> name_values(names.begin(), names.end());
    return detail::render_kernel_template("expression.mako",
                                          {{"form", form},
                                           {"idx", idx},
                                           {"out_ctype", detail::storage_ctype(out_dtype)},
                                           {"arrays", Value::list(std::move(arrays))},
                                           {"scalars", Value::list(std::move(scalars))},
                                           {"names", Value::list(std::move(name_values))},
                                           {"store", detail::store_value(plan.value, out_dtype)},
                                           {"load", load},
                                           {"decode", decode},
                                           {"layout_params", layout_params},
                                           {"prologue", prologue},
                                           {"cpu_bounds", plan.cpu ? detail::cpu_run_bounds(idx, "n") : std::string()},
                                           {"steps", Value::list(std::move(steps))},
                                           {"stream_line", plan.stream_line},
                                           {"unroll", detail::scalar_unroll},
                                           {"width", plan.vector_width},
                                           {"vector_unroll", detail::vector_unroll},
                                           {"vectors", detail::vector_loop_arrays(vectors, plan.vector_width)},
                                           {"vector_elements", Value::list(std::move(vector_elements))}});
}

// Everything generate() reads from the plan, compactly: the kernel is rendered only when its key
// is new. The tree's structural key stands for its value (or the value's C expression itself,
// where the tree has none).
std::string kernel_key(const ExpressionPlan& plan) {
    const detail::BoundExpression& code = plan.expr;
    const bool tree = !code.key.empty();
    detail::KeyText key("expression layout=", tree ? code.key.size() : plan.value.size());
    key.number("", static_cast<std::size_t>(plan.layout))
        .number(" vector=", plan.vector_width)
        .flag(" idx32=", plan.use_32_bits)
        .number(" ndim=", plan.space.ndim())
        .flag(" cpu=", plan.cpu)
        .flag(" plain=", plan.plain)
        .dtype(" out=", plan.out.dtype())
        .text(" in=", "");
    for (const Array* a : code.arrays) key.dtype("", a->dtype());
    key.text(" scalars=", "");
    for (const auto& s : code.scalars) key.dtype("", s.dtype);
    if (plan.cpu && plan.layout != LayoutClass::strided) {
        // the CPU form's flat loop fixes which operands step (those broadcast from one element do not)
        key.number(" stream=", plan.stream_line).text(" steps=", "");
        for (std::size_t k = 0; k < code.arrays.size() + 1; ++k)
            key.text("", plan.space.ndim() == 0 || plan.space.strides[k][0] != 0 ? "1" : "0");
    }
    key.flag(" tree=", tree);
    return key.finish(tree ? code.key : plan.value);
}

// same_kind casting (numpy): within a kind or towards a "higher" one in the order bool, unsigned,
// signed, float, complex. Unsigned goes into signed (np.can_cast(uint64, int8, "same_kind") is
// true), signed never into unsigned (int32 into uint32 is false).
bool same_kind_castable(const DType& from, const DType& to) {
    auto rank = [](const DType& d) {
        if (d.kind() == DType::Kind::bool_) return 0;
        if (is_integer(d)) return is_signed(d) ? 2 : 1;
        if (is_real(d)) return 3;
        return 4;
    };
    const int f = rank(from);
    const int t = rank(to);
    return f <= t;
}

// out's device, shape and dtype, the first checks of every evaluation.
void check_out(const Queue& queue, const Array& out, const Expr& expression) {
    if (!detail::on_queue_device(out, queue)) detail::check_on_queue_device(out, queue, "out");
    // numpy broadcasts the operands to the output's shape; the output itself never stretches (an
    // expression of the output's own shape, the usual case, needs no broadcast to say so).
    if (expression.shape() == out.shape()) {
        detail::check_output_shape(out, out.shape(), "out");  // (which also refuses a read-only out)
    } else {
        const std::vector<std::vector<std::size_t>> shapes{out.shape(), expression.shape()};
        detail::check_output_shape(out, detail::broadcast_shapes(shapes, "out"), "out");
    }
    if (out.dtype().is_struct()) throw ArgumentError("out", fmt::format("has struct dtype {}", out.dtype().name()));
}

// The CPU flat form's streaming stores: whole 64-byte lines of the output stored past the cache
// (non-temporal stores), where the operation touches more bytes than half the device's cache (its
// output would not stay there for the next operation anyway), so that the store is no read of the
// line first. PoCL 3.1, 2 cores (32 MiB of cache), a raw y = a + b with the cache cleared before
// each call: 64 MiB of float32 5.0 ms against 6.3 with plain stores, 4 MiB 0.34 against 0.40; with
// y read again at once by the next kernel, 4 MiB took 24% longer (it left the cache): below the
// threshold stores stay plain. Outputs of 4- and 8-byte real or integer elements.
std::size_t cpu_stream_line(const Queue& queue, const ExpressionPlan& plan) {
    const DType& out_dtype = plan.out.dtype();
    const std::size_t itemsize = out_dtype.itemsize();
    if ((itemsize != 4 && itemsize != 8) || is_complex(out_dtype) || plan.space.ndim() != 1) return 0;
    const auto& cache = queue.device().device().properties().l2_cache_size;
    if (!cache || *cache == 0) return 0;
    std::size_t touched = itemsize;
    for (std::size_t k = 0; k < plan.expr.arrays.size(); ++k) {
        if (plan.space.strides[k + 1][0] != 0) touched += plan.expr.arrays[k]->dtype().itemsize();
    }
    return touched * plan.space.size() > *cache / 2 ? 64 / itemsize : 0;
}

// Whether out and every operand are C-contiguous arrays of out's shape.
bool all_c_contiguous(const Array& out, const std::vector<const Array*>& arrays) {
    if (!out.layout().is_c_contiguous(out.dtype().itemsize())) return false;
    return std::all_of(arrays.begin(), arrays.end(), [&](const Array* a) {
        return a->shape() == out.shape() && a->layout().is_c_contiguous(a->dtype().itemsize());
    });
}

void run(const Queue& queue, const Array& out, const Expr& expression) {
    check_out(queue, out, expression);
    // Reductions inside the expression: planned into the fewest kernels (expression_plan.cpp).
    if (detail::holds_reduction(*expression.node())) return detail::evaluate_with_reductions(queue, out, expression);
    // The arrays and scalars the code names, found without generating it where the tree's key
    // allows (expression_key.hpp): the code is generated only for a kernel not compiled yet. Where
    // the tree has no key, its code is generated here and kept through the call (the plan points
    // at its arrays).
    std::optional<detail::BoundExpression> bound = detail::bind_expression(*expression.node());
    detail::ExprCode generated;
    if (!bound) {
        generated = detail::generate_expression(*expression.node());
        bound = detail::bind_generated(generated);
    }
    ExpressionPlan plan{std::move(*bound),
                        std::move(generated.value),
                        out,
                        {},
                        {},
                        true,
                        LayoutClass::strided,
                        1,
                        detail::cpu_code(queue.device())};
    bool overlapping = false;
    for (std::size_t k = 0; k < plan.expr.arrays.size(); ++k) {
        const Array& a = *plan.expr.arrays[k];
        if (!detail::on_queue_device(a, queue)) {
            detail::check_on_queue_device(a, queue,
                                          fmt::format("operand {} of the expression (shape ({}), {})", k,
                                                      fmt::join(a.shape(), ", "), a.dtype().name()));
        }
        overlapping = overlapping || detail::memory_overlap(out, a) == detail::Overlap::partial;
    }
    if (out.size() == 0) return;
    if (overlapping) {
        // `out` shares bytes with an operand through another view (`a[1:] = a[:-1] + 1`): numpy's
        // result is as if every operand were read before anything is written, which one kernel
        // whose work items run in no fixed order cannot promise; the value goes through a
        // temporary (the same view of an operand is fine: each element is read, then written, by
        // one work item).
        // (A block of the temporary pool: a fresh allocation of a large array costs more than the copy.)
        const Array staged =
            Array::empty(queue.device(), out.shape(), out.dtype(), std::nullopt, 0, detail::temporary_allocator(queue));
        run(queue, staged, expression);
        out.set(queue, staged);
        queue.synchronize();  // `staged` goes now
        return;
    }

    const std::vector<std::size_t>& shape = out.shape();
    plan.offsets.reserve(1 + plan.expr.arrays.size());
    plan.offsets.push_back(detail::element_offset(out, "out"));
    for (const Array* a : plan.expr.arrays) plan.offsets.push_back(detail::element_offset(*a, "operand"));
    if (const std::size_t n = out.size(); n > 1 && all_c_contiguous(out, plan.expr.arrays)) {
        // The usual case, one axis walked by every operand (as make_iteration_space would merge it).
        plan.space = detail::contiguous_space(n, 1 + plan.expr.arrays.size());
    } else {
        std::vector<std::vector<std::ptrdiff_t>> strides;
        strides.reserve(1 + plan.expr.arrays.size());
        strides.push_back(detail::element_strides(out.layout(), out.dtype().itemsize(), shape, "out"));
        for (const Array* a : plan.expr.arrays)
            strides.push_back(detail::element_strides(a->layout(), a->dtype().itemsize(), shape, "operand"));
        plan.space = detail::make_iteration_space(shape, std::move(strides));
    }
    detail::check_axis_count(plan.space, "expression");
    detail::pad_table_axes(plan.space);
    plan.use_32_bits = detail::fits_32_bits(plan.space, plan.offsets);
    const bool flat = plan.space.ndim() == 0 || (plan.space.ndim() == 1 && plan.space.strides[0][0] == 1 &&
                                                 std::all_of(plan.space.strides.begin(), plan.space.strides.end(),
                                                             [](const auto& s) { return s[0] == 0 || s[0] == 1; }));
    if (flat) {
        plan.layout = LayoutClass::flat;
        // Vectors of 16 bytes of the widest element, when every walking array starts aligned to
        // its vector.
        std::size_t widest = out.dtype().itemsize();
        for (const Array* a : plan.expr.arrays) widest = std::max(widest, a->dtype().itemsize());
        const std::size_t v = 16 / widest;
        bool aligned = v > 1 && plan.space.ndim() == 1 && !plan.cpu;
        for (std::size_t k = 0; aligned && k < plan.offsets.size(); ++k) {
            const Array& array = k == 0 ? out : *plan.expr.arrays[k - 1];
            if (plan.space.strides[k][0] != 0 &&
                !detail::lies_aligned(array, plan.offsets[k], v * array.dtype().itemsize()))
                aligned = false;
        }
        if (aligned) {
            plan.layout = LayoutClass::vector;
            plan.vector_width = v;
        }
        if (plan.cpu) plan.stream_line = cpu_stream_line(queue, plan);
        plan.plain = !plan.cpu && detail::plain_flat_layout(plan.space, plan.offsets);
    }

    const detail::GeneratedKernel kernel =
        detail::generated_kernel(queue.device(), kernel_key(plan), "kjarni_expression", [&] {
            if (plan.value.empty()) plan.value = detail::generate_expression(*expression.node()).value;
            return detail::algorithm_preamble() + detail::expression_math_preamble() + "\n" + generate(plan);
        });

    std::vector<detail::KernelArg> args;
    // (out, the arrays, the scalars, the count, and an offset and step per array, or the layout)
    args.reserve(4 + 3 * plan.expr.arrays.size() + plan.expr.scalars.size());
    args.push_back(detail::whole_allocation(out));
    for (const Array* a : plan.expr.arrays) args.push_back(detail::whole_allocation(*a));
    for (const auto& s : plan.expr.scalars) {
        const DType passed = detail::scalar_parameter_dtype(s.dtype);
        const auto bytes = s.value.write_parameter(s.dtype, passed);
        args.push_back(detail::scalar_arg(bytes.data(), passed.itemsize()));
    }
    const std::size_t n = plan.space.size();
    detail::push_index(args, static_cast<std::int64_t>(n), plan.use_32_bits);
    std::optional<Buffer> table;  // held until the launch is enqueued
    if (plan.layout == LayoutClass::strided) {
        detail::push_index_values(args, detail::layout_values(plan.space, plan.offsets), plan.use_32_bits,
                                  detail::layout_in_table(plan.space.ndim()), queue, table);
    } else if (!plan.plain) {
        for (std::size_t k = 0; k < plan.offsets.size(); ++k) {
            detail::push_index(args, plan.offsets[k], plan.use_32_bits);
            detail::push_index(args, plan.space.ndim() == 0 ? 1 : plan.space.strides[k][0], plan.use_32_bits);
        }
    }
    const std::size_t items = plan.layout == LayoutClass::vector
                                  ? std::max<std::size_t>(1, n / (plan.vector_width * detail::vector_unroll))
                                  : n;
    const detail::Grid grid =
        plan.cpu ? detail::Grid{detail::cpu_grid(queue.device(), n, detail::cpu_min_run).global, 1}
        : plan.layout == LayoutClass::vector ? detail::grid_for(kernel, items)
                                             : detail::blocked_grid(kernel, n, detail::scalar_unroll);
    const std::size_t global[1] = {grid.global};
    const std::size_t local[1] = {grid.local};
    detail::launch(queue, kernel, global, local, args);
}

void check_weak_fill(const detail::ExprNode& node, const DType& dtype);
Expr typed_fill_value(const Expr& value, const DType& dtype);

// A non-finite float filled into an integer array: Python's int(x) raises ValueError for NaN and
// OverflowError for the infinities, as numpy's setitem does through it.
[[noreturn]] void refuse_non_finite_fill(double x, const DType& dtype) {
    const std::string reason = fmt::format("fill: {} does not convert to {}", x, dtype.name());
    if (std::isnan(x)) throw ArgumentError("value", reason + " (numpy raises ValueError)");
    throw ScalarOverflowError("value", reason + " (numpy raises OverflowError)");
}

// numpy 2's `a[...] = x` for a Python scalar x (kjarni's weak scalars) into an array of another
// kind: a complex into a real or integer array is a TypeError; into an integer array, a float
// goes through int(x) (NaN a ValueError, infinities an OverflowError), and the integer must fit
// the dtype (OverflowError: "Python integer 300 out of bounds for int8"), not wrap. An integer
// array's value is then converted on the host, exactly (a weak integer above int64's range reaches
// uint64 intact, where the device conversion would go through int64), and so is an integer's
// into any type.
Expr fill_value(const Expr& value, const DType& dtype) {
    const detail::ExprNode& node = *value.node();
    if (node.op != detail::ExprOp::scalar) return astype(value, dtype);
    if (!node.weak) return typed_fill_value(value, dtype);
    check_weak_fill(node, dtype);
    // A float into a float type: one rounding from the double on the device (float16 too). The rest
    // converts on the host, from the exact value (2**64 - 1 into float32 or bool, past int64's range).
    if (!is_integer(dtype) && node.value.kind == detail::ScalarValue::Kind::floating) return astype(value, dtype);
    auto typed = std::make_shared<detail::ExprNode>(node);
    typed->weak.reset();
    typed->dtype = typed->compute = dtype;
    // The value in the target's type (a bool travels as uint8_t: -2**63 must arrive as true).
    const auto bytes = node.value.write(dtype);
    typed->value = detail::ScalarValue::read(std::span<const std::byte>(bytes.data(), dtype.itemsize()), dtype);
    return Expr(std::shared_ptr<const detail::ExprNode>(std::move(typed)));
}

// numpy 2's `a[...] = x` for a numpy scalar x (kjarni::scalar) into a signed integer array goes
// through Python's int(x) (a float's integer part, a complex's real part's), which must fit
// (OverflowError: np.int64(300) into int8; NaN a ValueError, infinities an OverflowError); into
// the other types it is the C conversion, astype's (np.int64(300) into uint8 is 44,
// np.float64(1e10) into uint16 0, numpy's x86-64 results). The integer that fits is made on the host.
Expr typed_fill_value(const Expr& value, const DType& dtype) {
    const detail::ExprNode& node = *value.node();
    using Kind = detail::ScalarValue::Kind;
    if (!is_integer(dtype) || !is_signed(dtype) || node.dtype.kind() == DType::Kind::bool_) return astype(value, dtype);
    // The scalar's value in its own dtype (scalar_integer(-1, uint64) is np.uint64(2**64 - 1)).
    const auto own = node.value.write(node.dtype);
    const detail::ScalarValue v =
        detail::ScalarValue::read(std::span<const std::byte>(own.data(), node.dtype.itemsize()), node.dtype);
    const std::uint64_t limit = std::uint64_t{1} << (dtype.itemsize() * 8 - 1);  // |least value|; greatest + 1
    bool fits = false;
    std::string shown;
    detail::ScalarValue converted;
    converted.kind = Kind::signed_integer;
    if (v.kind == Kind::floating) {
        const double x = v.c.real();
        if (!std::isfinite(x)) refuse_non_finite_fill(x, dtype);
        const double whole = std::trunc(x);  // the bounds are powers of two: exact
        const double bound = static_cast<double>(limit);
        fits = whole >= -bound && whole < bound;
        if (fits) converted.i = static_cast<std::int64_t>(whole);
        shown = fmt::format("{} (the integer part of {})", whole, x);
    } else if (v.kind == Kind::signed_integer) {
        fits = v.i < 0 ? 0 - static_cast<std::uint64_t>(v.i) <= limit : static_cast<std::uint64_t>(v.i) < limit;
        converted.i = v.i;
        shown = std::to_string(v.i);
    } else {
        fits = v.u < limit;
        converted.i = static_cast<std::int64_t>(v.u);
        shown = std::to_string(v.u);
    }
    if (!fits)
        throw ScalarOverflowError(
            "value", fmt::format("fill: the integer {} is out of bounds for {} (numpy 2 raises OverflowError for "
                                 "a numpy scalar too)",
                                 shown, dtype.name()));
    auto node_out = std::make_shared<detail::ExprNode>(node);
    node_out->value = converted;
    node_out->dtype = node_out->compute = dtype;
    return Expr(std::shared_ptr<const detail::ExprNode>(std::move(node_out)));
}

void check_weak_fill(const detail::ExprNode& node, const DType& dtype) {
    if (dtype.kind() == DType::Kind::bool_) return;
    const detail::ScalarValue& v = node.value;
    if (*node.weak == detail::WeakKind::complex && !is_complex(dtype))
        throw ArgumentTypeError(
            "value", fmt::format("fill: the complex value ({}, {}) does not convert to {} (numpy raises TypeError "
                                 "for a Python complex): take its real part first",
                                 v.c.real(), v.c.imag(), dtype.name()));
    if (!is_integer(dtype)) return;
    const int bits = static_cast<int>(dtype.itemsize() * 8);
    const bool is_signed_type = is_signed(dtype);
    const int value_bits = is_signed_type ? bits - 1 : bits;
    const std::uint64_t max = value_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << value_bits) - 1;
    bool fits = true;
    std::string shown;
    if (v.kind == detail::ScalarValue::Kind::floating) {
        const double x = v.c.real();
        if (!std::isfinite(x)) refuse_non_finite_fill(x, dtype);
        const double whole = std::trunc(x);  // Python's int(x); the bounds are powers of two, exact
        fits = whole >= (is_signed_type ? -std::ldexp(1.0, value_bits) : 0.0) && whole < std::ldexp(1.0, value_bits);
        shown = fmt::format("{} (the integer part of {})", whole, x);
    } else if (v.kind == detail::ScalarValue::Kind::signed_integer) {
        fits = v.i >= 0 ? static_cast<std::uint64_t>(v.i) <= max
                        : is_signed_type && (bits == 64 || v.i >= -(std::int64_t{1} << value_bits));
        shown = std::to_string(v.i);
    } else {
        fits = v.u <= max;
        shown = std::to_string(v.u);
    }
    if (!fits)
        throw ScalarOverflowError(
            "value", fmt::format("fill: the integer {} is out of bounds for {} (numpy 2 raises OverflowError)", shown,
                                 dtype.name()));
}

}  // namespace

Array evaluate(const Queue& queue, const Expr& expression, const Allocator& allocator) {
    Array out = Array::empty(queue.device(), expression.shape(), expression.dtype(), Order::C, allocator);
    run(queue, out, expression);
    return out;
}

namespace detail {

Expr checked_assignment(const Queue& queue, const Array& out, const Expr& expression) {
    const ExprNode& node = *expression.node();
    Expr converted = expression;
    if (node.op == ExprOp::scalar && node.weak) {
        // A bare weak scalar (np.copyto(out, 300, casting="same_kind")): same_kind by its kind (a
        // Python int goes into unsigned types too, bool only into bool), then the value checked
        // against out's dtype as fill() checks it (NEP 50's OverflowError), before anything runs,
        // so that an empty out refuses it too.
        const DType kind_dtype = *node.weak == WeakKind::integer ? DType(dtypes::uint8) : node.dtype;
        if (!::kjarni::same_kind_castable(kind_dtype, out.dtype()))
            throw ArgumentTypeError("out",
                                    fmt::format("has dtype {}; a weak {} scalar does not cast to it within its kind "
                                                "(numpy's same_kind): use astype()",
                                                out.dtype().name(), node.dtype.name()));
        converted = ::kjarni::fill_value(expression, out.dtype());
    } else {
        if (!::kjarni::same_kind_castable(expression.dtype(), out.dtype()))
            throw ArgumentTypeError("out",
                                    fmt::format("has dtype {}; the expression's {} does not cast to it within its kind "
                                                "(numpy's same_kind): use astype()",
                                                out.dtype().name(), expression.dtype().name()));
        if (!(expression.dtype() == out.dtype())) converted = ::kjarni::astype(expression, out.dtype());
    }
    ::kjarni::check_out(queue, out, converted);
    return converted;
}

void run_assignment(const Queue& queue, const Array& out, const Expr& expression) {
    ::kjarni::run(queue, out, expression);
}

}  // namespace detail

void assign(const Queue& queue, const Array& out, const Expr& expression) {
    detail::run_assignment(queue, out, detail::checked_assignment(queue, out, expression));
}

void fill(const Queue& queue, const Array& out, const Expr& value) {
    // The value is broadcast to out's shape and converted to its dtype, whatever its kind (a weak
    // scalar: as numpy converts a Python scalar).
    run(queue, out, fill_value(value, out.dtype()));
}

}  // namespace kjarni
