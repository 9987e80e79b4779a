#include "algorithms/expression_codegen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "algorithms/c_arguments.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/expression_ops.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

using K = DType::Kind;

class Generator {
public:
    ExprCode code;

    /// Nodes that stand in the value as a variable of the caller's (parts[i] as names[i]), their
    /// own code put in codes[i] when first met.
    const std::vector<const ExprNode*>* parts = nullptr;
    const std::vector<std::string>* names = nullptr;
    std::vector<std::string>* codes = nullptr;

    // The value of `node` in its dtype's compute type; `context` is the type a weak scalar takes.
    // A float16 operation's result is rounded to float16 (kept in a float), as numpy's float16
    // loops round every result: an intermediate past 65504 is inf, as numpy's. Arrays, scalars,
    // conversions (convert_value rounds) and selections (where, of rounded values) are float16
    // values already.
    std::string emit(const ExprNode& node, const DType& context) {
        if (parts != nullptr) {
            const auto found = std::find(parts->begin(), parts->end(), &node);
            if (found != parts->end()) {
                const auto i = static_cast<std::size_t>(found - parts->begin());
                if ((*codes)[i].empty()) {
                    const auto* const saved = parts;
                    parts = nullptr;  // the parts do not nest
                    (*codes)[i] = emit(node, context);
                    parts = saved;
                }
                return (*names)[i];
            }
        }
        std::string value = emit_unrounded(node, context);
        if (node.dtype.kind() != K::float16) return value;
        switch (node.op) {
        case ExprOp::array:
        case ExprOp::scalar:
        case ExprOp::cast:
        case ExprOp::where: return value;
        default: return fmt::format("kjarni_h2f(kjarni_f2h({}))", value);
        }
    }

    std::string emit_unrounded(const ExprNode& node, const DType& context) {
        switch (node.op) {
        case ExprOp::array:
            if (!node.array) throw ArgumentError("expression", "holds a MultiArray: evaluate it on a MultiQueue");
            return array_value(*node.array);
        case ExprOp::scalar: return scalar_value(node, context);
        case ExprOp::reduction: return reduction_value(node);
        case ExprOp::cast: {
            const ExprNode& child = *node.children[0];
            if (!node.statement_value) return convert_value(emit(child, child.dtype), child.dtype, node.dtype);
            // A statement's value used again in this kernel: the same text, so that the compiler
            // computes it once per element (its own dtype is its context: no weak scalar).
            if (const auto found = statement_values_.find(&node); found != statement_values_.end())
                return found->second;
            const std::string value = convert_value(emit(child, child.dtype), child.dtype, node.dtype);
            return statement_values_.emplace(&node, statement_value(value, node.dtype)).first->second;
        }
        case ExprOp::where: {
            const ExprNode& c = *node.children[0];
            const std::string condition = convert_value(emit(c, c.dtype), c.dtype, dtypes::bool_);
            return fmt::format("({} ? {} : {})", condition, operand(node, 1), operand(node, 2));
        }
        case ExprOp::equal:
        case ExprOp::not_equal:
        case ExprOp::less:
        case ExprOp::less_equal:
        case ExprOp::greater:
        case ExprOp::greater_equal:
            if (auto exact = exact_integer_comparison(node)) return *exact;
            break;
        default: break;
        }
        const DType& t = node.compute;
        const std::string ct = compute_ctype(t);
        const bool complex = is_complex(t);
        const bool floating = is_real(t);
        const bool boolean = t.kind() == K::bool_;
        const std::string a = operand(node, 0);
        const std::string b = node.children.size() > 1 ? operand(node, 1) : std::string();
        const std::string suffix = c_type_name(t == DType(dtypes::float16) ? DType(dtypes::float32) : t);
        // Results are converted to their C type at once, so that narrow integers wrap where numpy's do;
        // integer + - * compute in unsigned types (wrapping_arithmetic: signed overflow is undefined).
        // (appended, not formatted, as the other small pieces here: codegen runs on every call)
        auto typed = [&](const std::string& e) { return "((" + ct + ")" + e + ")"; };
        switch (node.op) {
        case ExprOp::add:
            if (boolean) return fmt::format("({} || {})", a, b);
            return complex ? fmt::format("kj_cadd_{}({}, {})", suffix, a, b) : typed(wrapping_arithmetic(t, '+', a, b));
        case ExprOp::subtract:
            return complex ? fmt::format("kj_csub_{}({}, {})", suffix, a, b) : typed(wrapping_arithmetic(t, '-', a, b));
        case ExprOp::multiply:
            if (boolean) return fmt::format("({} && {})", a, b);
            return complex ? fmt::format("kj_cmul_{}({}, {})", suffix, a, b) : typed(wrapping_arithmetic(t, '*', a, b));
        case ExprOp::square:
            if (is_integer(t)) return wrapping_arithmetic(t, '*', a, a);  // the rest: numpy_op_code
            break;
        case ExprOp::divide:
            return complex ? fmt::format("kj_cdiv_{}({}, {})", suffix, a, b) : typed(fmt::format("({} / {})", a, b));
        case ExprOp::remainder: return fmt::format("kj_mod_{}({}, {})", suffix, a, b);
        case ExprOp::negate:
            if (complex) return fmt::format("{}(-({}).x, -({}).y)", complex_ctr(t), a, a);
            return is_integer(t) ? wrapping_negation(t, a) : typed(fmt::format("(-{})", a));
        case ExprOp::equal:
            return complex ? fmt::format("(({0}).x == ({1}).x && ({0}).y == ({1}).y)", a, b)
                           : fmt::format("({} == {})", a, b);
        case ExprOp::not_equal:
            return complex ? fmt::format("(({0}).x != ({1}).x || ({0}).y != ({1}).y)", a, b)
                           : fmt::format("({} != {})", a, b);
        // Complex values in numpy's order (expression_math.cpp's kj_clt...).
        case ExprOp::less:
            return complex ? fmt::format("(kj_clt_{}({}, {}) != 0)", suffix, a, b) : fmt::format("({} < {})", a, b);
        case ExprOp::less_equal:
            return complex ? fmt::format("(kj_cle_{}({}, {}) != 0)", suffix, a, b) : fmt::format("({} <= {})", a, b);
        case ExprOp::greater:
            return complex ? fmt::format("(kj_clt_{}({}, {}) != 0)", suffix, b, a) : fmt::format("({} > {})", a, b);
        case ExprOp::greater_equal:
            return complex ? fmt::format("(kj_cle_{}({}, {}) != 0)", suffix, b, a) : fmt::format("({} >= {})", a, b);
        case ExprOp::absolute:
            if (complex) return fmt::format("hypot(({0}).x, ({0}).y)", a);
            if (floating) return fmt::format("fabs({})", a);
            if (boolean || !is_signed(t)) return a;
            // abs(MIN) wraps to MIN, as numpy's.
            return fmt::format("({} < 0 ? {} : {})", a, wrapping_negation(t, a), a);
        case ExprOp::sqrt: return complex ? fmt::format("kj_csqrt_{}({})", suffix, a) : fmt::format("sqrt({})", a);
        case ExprOp::exp: return complex ? fmt::format("kj_cexp_{}({})", suffix, a) : fmt::format("exp({})", a);
        case ExprOp::log: return complex ? fmt::format("kj_clog_{}({})", suffix, a) : fmt::format("log({})", a);
        case ExprOp::sin: return complex ? fmt::format("kj_csin_{}({})", suffix, a) : fmt::format("sin({})", a);
        case ExprOp::cos: return complex ? fmt::format("kj_ccos_{}({})", suffix, a) : fmt::format("cos({})", a);
        case ExprOp::tanh: return fmt::format("kj_{}tanh_{}({})", complex ? "c" : "", suffix, a);
        case ExprOp::power:
            if (complex) return fmt::format("kj_cpow_{}({}, {})", suffix, a, b);
            if (floating && t != DType(dtypes::float16) && node.exponent_at_stride_zero)
                return fmt::format("kj_pow_scalar_{}({}, {})", suffix, a, b);
            return fmt::format("kj_pow_{}({}, {})", suffix, a, b);
        case ExprOp::minimum:
            if (complex) return fmt::format("kj_c{}min_{}({}, {})", node.clip_order ? "clip" : "", suffix, a, b);
            if (floating)
                return fmt::format("kj_min_{}{}({}, {})", ties_keep_first(node) ? "first_" : "", suffix, a, b);
            return fmt::format("({1} < {0} ? {1} : {0})", a, b);
        case ExprOp::maximum:
            if (complex) return fmt::format("kj_c{}max_{}({}, {})", node.clip_order ? "clip" : "", suffix, a, b);
            if (floating)
                return fmt::format("kj_max_{}{}({}, {})", ties_keep_first(node) ? "first_" : "", suffix, a, b);
            return fmt::format("({1} > {0} ? {1} : {0})", a, b);
        default: break;
        }
        return numpy_op_code(node, a, b);
    }

private:
    std::map<const ExprNode*, std::string> statement_values_;

    static bool integral(const DType& d) { return is_integer(d) || d.kind() == K::bool_; }

    // Which of two equal operands a float minimum / maximum returns (ExprNode::ties_keep_first).
    static bool ties_keep_first(const ExprNode& n) { return n.ties_keep_first || n.compute == DType(dtypes::float16); }

    // numpy's ufunc loops compare integers exactly even where the promoted type is float64 (int64
    // with uint64) or a weak Python integer does not fit the array's type (uint8 == 300 is false,
    // uint64 > -1 true): both sides as int64 or uint64, compared exactly. nullopt elsewhere.
    std::optional<std::string> exact_integer_comparison(const ExprNode& node) {
        const ExprNode& x = *node.children[0];
        const ExprNode& y = *node.children[1];
        const auto weak_integer = [](const ExprNode& n) { return n.weak == WeakKind::integer; };
        const bool strong_pair =
            !x.weak && !y.weak && integral(x.dtype) && integral(y.dtype) && !integral(node.compute);
        const bool weak_misfit =
            integral(node.compute) && ((weak_integer(x) && !y.weak && !fits(x.value, node.compute)) ||
                                       (weak_integer(y) && !x.weak && !fits(y.value, node.compute)));
        if (!strong_pair && !weak_misfit) return std::nullopt;
        // numpy compares a bool array with a Python integer in int64, its default integer (no exact
        // comparison as for the integer types): one past int64's range is its OverflowError.
        for (const auto& [weak, other] : {std::pair{&x, &y}, std::pair{&y, &x}}) {
            if (weak_integer(*weak) && !other->weak && other->dtype.kind() == K::bool_ &&
                !fits(weak->value, dtypes::int64))
                throw ScalarOverflowError("scalar",
                                          fmt::format("the integer {} is out of bounds for int64, in which a bool "
                                                      "array is compared with it (numpy raises OverflowError)",
                                                      weak->value.u));
        }
        // Each side as int64 (signed types and bool) or uint64, with the signedness it has.
        const auto side = [&](const ExprNode& n) -> std::pair<std::string, bool> {
            if (n.weak) {
                const bool is_unsigned =
                    n.value.kind == ScalarValue::Kind::unsigned_integer &&
                    n.value.u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
                const DType wide = is_unsigned ? DType(dtypes::uint64) : DType(dtypes::int64);
                code.scalars.push_back(ExprScalarParameter{n.value, wide, &n});
                return {fmt::format("s{}", code.scalars.size() - 1), !is_unsigned};
            }
            const bool is_signed_side = n.dtype.kind() == K::bool_ || is_signed(n.dtype);
            const DType wide = is_signed_side ? DType(dtypes::int64) : DType(dtypes::uint64);
            return {convert_value(emit(n, n.dtype), n.dtype, wide), is_signed_side};
        };
        const auto [a, a_signed] = side(x);
        const auto [b, b_signed] = side(y);
        const char* op = node.op == ExprOp::equal        ? "=="
                         : node.op == ExprOp::not_equal  ? "!="
                         : node.op == ExprOp::less       ? "<"
                         : node.op == ExprOp::less_equal ? "<="
                         : node.op == ExprOp::greater    ? ">"
                                                         : ">=";
        if (a_signed == b_signed) return fmt::format("({} {} {})", a, op, b);
        // a op b is order(a, b) op 0, and with the signed side second, 0 op order(b, a).
        if (a_signed) return fmt::format("(kj_order_i64_u64({}, {}) {} 0)", a, b, op);
        return fmt::format("(0 {} kj_order_i64_u64({}, {}))", op, b, a);
    }

    static bool fits(const ScalarValue& v, const DType& dtype) {
        if (v.kind == ScalarValue::Kind::floating) return true;
        const auto bytes = v.write(dtype);
        const ScalarValue back = ScalarValue::read(std::span<const std::byte>(bytes.data(), dtype.itemsize()), dtype);
        return back.kind == ScalarValue::Kind::signed_integer
                   ? (v.kind == ScalarValue::Kind::signed_integer
                          ? back.i == v.i
                          : back.i >= 0 && static_cast<std::uint64_t>(back.i) == v.u)
                   : (v.kind == ScalarValue::Kind::unsigned_integer
                          ? back.u == v.u
                          : v.i >= 0 && static_cast<std::uint64_t>(v.i) == back.u);
    }

    // Child k converted to the node's compute type.
    std::string operand(const ExprNode& node, std::size_t k) {
        const ExprNode& child = *node.children[k];
        const DType& target = node.compute;
        const DType from = child.weak ? target : child.dtype;
        return convert_value(emit(child, target), from, target);
    }

    std::string array_value(const Array& array) {
        for (std::size_t k = 0; k < code.arrays.size(); ++k)
            if (same_array_view(code.arrays[k], array)) return "v" + std::to_string(k);
        code.arrays.push_back(array);
        return "v" + std::to_string(code.arrays.size() - 1);
    }

    // A statement's value as its eager evaluation stores it: float16 rounded to 16 bits. No fused
    // multiply-add can join a multiplication inside the statement with an addition outside it:
    // kjarni's own kernels are compiled without contraction (program/kernel_cache.hpp).
    static std::string statement_value(const std::string& value, const DType& dtype) {
        if (dtype.kind() == K::float16) return fmt::format("kjarni_h2f(kjarni_f2h({}))", value);
        return value;
    }

    std::string reduction_value(const ExprNode& node) {
        for (std::size_t k = 0; k < code.reductions.size(); ++k)
            if (code.reductions[k] == &node) return fmt::format("r{}", k);
        code.reductions.push_back(&node);
        return fmt::format("r{}", code.reductions.size() - 1);
    }

    std::string scalar_value(const ExprNode& node, const DType& context) {
        const DType dtype = node.weak ? context : node.dtype;
        if (node.weak && node.value.kind != ScalarValue::Kind::floating && is_integer(dtype))
            check_fits(node.value, dtype);
        code.scalars.push_back(ExprScalarParameter{node.value, dtype, &node});
        const std::string name = "s" + std::to_string(code.scalars.size() - 1);
        // bool travels as uint8_t, float16 as float: both give the compute value directly.
        return dtype.kind() == K::bool_ ? fmt::format("({} != 0)", name) : name;
    }

    static void check_fits(const ScalarValue& v, const DType& dtype) {
        // NEP 50: a Python integer that the array's integer type cannot hold is an error.
        if (!fits(v, dtype))
            throw ScalarOverflowError("scalar",
                                      fmt::format("the integer {} is out of bounds for {}",
                                                  v.kind == ScalarValue::Kind::signed_integer ? std::to_string(v.i)
                                                                                              : std::to_string(v.u),
                                                  dtype.name()));
    }
};

// numpy's x86-64 results (device_code.cpp's kj_f2*): int8 to int32 through the 32-bit conversion,
// uint32 and int64 through the 64-bit one, uint64 through its own.
std::string float_to_integer(const std::string& value, const DType& from, const DType& to) {
    const char* suffix = from.kind() == K::float64 ? "d" : "f";  // float16 computes as float
    const std::string ct = compute_ctype(to);
    switch (to.kind()) {
    case K::int8:
    case K::uint8:
    case K::int16:
    case K::uint16: return fmt::format("(({})kj_f2i32_{}({}))", ct, suffix, value);
    case K::int32: return fmt::format("kj_f2i32_{}({})", suffix, value);
    case K::uint32: return fmt::format("(({})kj_f2i64_{}({}))", ct, suffix, value);
    case K::int64: return fmt::format("kj_f2i64_{}({})", suffix, value);
    default: return fmt::format("kj_f2u64_{}({})", suffix, value);
    }
}

}  // namespace

bool same_array_view(const Array& a, const Array& b) {
    return detail::backend_of(a.base()) == detail::backend_of(b.base()) &&
           a.base().offset() + a.offset() == b.base().offset() + b.offset() && a.dtype() == b.dtype() &&
           a.shape() == b.shape() && a.strides() == b.strides();
}

std::string convert_value(const std::string& value, const DType& from, const DType& to) {
    const bool from_complex = is_complex(from);
    // Before the same-type shortcut: bool's compute type is uint8's, but a uint8 value becomes bool
    // as != 0 (astype(uint8 4, bool) is 1, not 4).
    if (to.kind() == K::bool_ && from.kind() != K::bool_) {
        if (from_complex) return fmt::format("(({0}).x != 0 || ({0}).y != 0)", value);
        return fmt::format("({} != 0)", value);
    }
    // float16 computes as float: a float32 value becomes float16 by rounding, not as it is.
    if (std::strcmp(compute_ctype_name(from), compute_ctype_name(to)) == 0 &&
        (to.kind() != K::float16 || from.kind() == K::float16))
        return value;
    if (is_complex(to)) {
        const std::string real = compute_ctype(real_for(to));
        if (from_complex) return fmt::format("{}(({})({}).x, ({})({}).y)", complex_ctr(to), real, value, real, value);
        return fmt::format("{}(({})({}), ({})0)", complex_ctr(to), real, value, real);
    }
    const std::string real_value = from_complex ? fmt::format("({}).x", value) : value;
    if (is_integer(to) && (from_complex || is_real(from))) return float_to_integer(real_value, real_for(from), to);
    // To float16 rounded at once: a float16 value, whatever follows.
    if (to.kind() == K::float16 && from.kind() != K::float16) return rounded_to_float16(real_value, from);
    return fmt::format("(({})({}))", compute_ctype(to), real_value);
}

std::string load_value(const std::string& element, const DType& dtype) {
    if (dtype.kind() == K::float16) return fmt::format("kjarni_h2f({})", element);
    if (dtype.kind() == K::bool_) return fmt::format("({} != 0)", element);
    return element;
}

std::string store_value(const std::string& value, const DType& dtype) {
    if (dtype.kind() == K::float16) return fmt::format("kjarni_f2h({})", value);
    if (dtype.kind() == K::bool_) return fmt::format("(uint8_t)(({}) ? 1 : 0)", value);
    return value;
}

ExprCode generate_expression(const ExprNode& root) {
    Generator g;
    // (room for the usual few operands at once: growing one by one reallocates at each)
    g.code.arrays.reserve(4);
    g.code.value = g.emit(root, root.dtype);
    return std::move(g.code);
}

std::string generate_more(const ExprNode& root, ExprCode& code) {
    Generator g;
    g.code = std::move(code);
    std::string value = g.emit(root, root.dtype);
    code = std::move(g.code);
    return value;
}

std::string generate_more(const ExprNode& root, ExprCode& code, const std::vector<const ExprNode*>& parts,
                          const std::vector<std::string>& names, std::vector<std::string>& codes) {
    if (names.size() != parts.size()) throw Error("generate_more: a name for each part");
    codes.assign(parts.size(), std::string());
    Generator g;
    g.code = std::move(code);
    g.parts = &parts;
    g.names = &names;
    g.codes = &codes;
    std::string value = g.emit(root, root.dtype);
    code = std::move(g.code);
    return value;
}

}  // namespace kjarni::detail
