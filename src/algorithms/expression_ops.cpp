// numpy's ufuncs beyond the arithmetic core: their dtype rules (checked against numpy 2.x's
// type resolution: which dtypes each takes, what it gives) and their code, with numpy's values at
// the edges (numpy's loops on x86-64):
// - floor_divide: integers floor (-7 // 2 == -4), x // 0 == 0 and MIN // -1 == MIN (wraps);
//   floats follow numpy's npy_divmod (the quotient of a - fmod(a, b), snapped to an integer:
//   7.0 // 0.1 == 69), x // 0 is x / 0 (inf, -inf or nan by the signs), a zero quotient takes the
//   sign of a / b.
// - fmod: C's remainder (the dividend's sign); integer x fmod 0 == 0.
// - floor, ceil, trunc of integers and bool: the value itself, in its dtype (numpy 2); rint of
//   integers computes in float_type_for's type; round(decimals) computes x * 10^d (x / 10^-d for
//   negative d) in the float type, rints (ties to even) and scales back, as numpy does; integers
//   with d >= 0 are themselves, with d < 0 go through float64 (numpy's path) and back.
// - shifts: numpy's npy_lshift / npy_rshift, a count past the width (or negative) gives 0, or -1
//   for a negative value shifted right.
// - reciprocal of integers: numpy's (T)(1.0 / x) on x86-64: 1, -1 or 0, and 1 / 0 gives
//   INT_MIN for int32 and int64, 0 for the others.

#include "algorithms/expression_ops.hpp"

#include <cmath>
#include <numbers>
#include <string_view>

#include <fmt/format.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/device_code.hpp"
#include "algorithms/promotion.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

using K = DType::Kind;

bool is_bool(const DType& d) { return d.kind() == K::bool_; }

[[noreturn]] void refuse(ExprOp op, const DType& dtype) {
    throw ArgumentError(fmt::format("operation '{}'", numpy_op_name(op)),
                        fmt::format("is not defined for {} values (numpy raises TypeError)", dtype.name()));
}

// The C type suffix of the device functions: float16 computes in float.
std::string suffix_of(const DType& t) { return c_type_name(t.kind() == K::float16 ? DType(dtypes::float32) : t); }

// rint in the real compute type of `t` (float for float16 and complex64), through
// expression_math.cpp's kj_rint, which keeps infinities from the C library's rint.
std::string rint_of(const DType& t) {
    return t.kind() == K::float64 || t.kind() == K::complex128 ? "kj_rint_double" : "kj_rint_float";
}

// A literal of the compute type `t` (float or double) for the value v.
std::string float_literal(double v, const DType& t) {
    const bool single = t.kind() != K::float64;
    if (single && !std::isfinite(static_cast<float>(v))) return "KJARNI_INF_F";
    if (!single && !std::isfinite(v)) return "KJARNI_INF_D";
    return single ? fmt::format("{:.9e}f", static_cast<float>(v)) : fmt::format("{:.17e}", v);
}

// A literal of a complex type's parts (float for complex64, double for complex128) for the value v.
std::string part_literal(double v, const DType& complex_type) {
    return float_literal(v, complex_type.kind() == K::complex64 ? DType(dtypes::float32) : DType(dtypes::float64));
}

// `d` an integer dtype, `ut` the C name of its unsigned counterpart.
std::string ufunc_integer_functions(const DType& d, const char* ut) {
    const char* t = compute_ctype_name(d);
    const int bits = static_cast<int>(8 * d.itemsize());
    const bool is_signed = kjarni::is_signed(d);
    const char* zero_reciprocal = bits == 32 && is_signed   ? "(int32_t)(-2147483647 - 1)"
                                  : bits == 64 && is_signed ? "((int64_t)(-0x7fffffffffffffffL) - 1)"
                                                            : "0";
    return fmt::format(
        R"(FUNCTION INLINE {0} kj_floordiv_{0}({0} a, {0} b)
{{
    if (b == 0) return 0;
{4}    {0} q = ({0})(a / b);
{5}    return q;
}}
FUNCTION INLINE {0} kj_fmod_{0}({0} a, {0} b)
{{
    if (b == 0) return 0;
{6}    return ({0})(a % b);
}}
FUNCTION INLINE {0} kj_shl_{0}({0} a, {0} b) {{ return ({7}b >= {2}) ? ({0})0 : ({0})(({1})a << b); }}
FUNCTION INLINE {0} kj_shr_{0}({0} a, {0} b) {{ return ({7}b >= {2}) ? ({0})({8}) : ({0})(a >> b); }}
FUNCTION INLINE {0} kj_recip_{0}({0} a) {{ return a == 0 ? ({0}){3} : a == 1 ? ({0})1 : {9}({0})0; }}
)",
        t, ut, bits, zero_reciprocal,
        // MIN // -1 wraps to MIN, as numpy's does (C's division would trap).
        is_signed ? fmt::format("    if (b == -1) return {};\n", wrapping_negation(d, "a")) : "",
        is_signed ? fmt::format("    if (({0})(a - q * b) != 0 && ((a < 0) != (b < 0))) q = ({0})(q - 1);\n", t) : "",
        is_signed ? "    if (b == -1) return 0;\n" : "", is_signed ? "b < 0 || " : "",
        is_signed ? "a < 0 ? -1 : 0" : "0", is_signed ? fmt::format("a == -1 ? ({})-1 : ", t) : "");
}

std::string ufunc_float_functions(const char* t) {
    // tanh: past 9.1 (float) or 19.1 (double) the exact tanh rounds to +-1, which numpy gives; a
    // device's tanh may stop an ulp short (PoCL: 1 - 2^-24 at -31333), which a power of a negative
    // base then turns into NaN.
    const char* saturated = std::string_view(t) == "float" ? "9.1f" : "19.1";
    return fmt::format(R"(FUNCTION INLINE {0} kj_floordiv_{0}({0} a, {0} b)
{{
    if (b == 0) return a / b;
    const {0} mod = fmod(a, b);
    {0} div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div == 0) return copysign(({0})0, a / b);
    {0} whole = floor(div);
    if (div - whole > ({0})0.5) whole += 1;
    return whole;
}}
FUNCTION INLINE {0} kj_sign_{0}({0} a) {{ return isnan(a) ? a : ({0})((a > 0) - (a < 0)); }}
FUNCTION INLINE {0} kj_tanh_{0}({0} a) {{ return fabs(a) > {1} ? copysign(({0})1, a) : tanh(a); }}
FUNCTION INLINE {0} kj_fmin_{0}({0} a, {0} b) {{ return isnan(b) ? a : isnan(a) ? b : (b < a ? b : a); }}
FUNCTION INLINE {0} kj_fmax_{0}({0} a, {0} b) {{ return isnan(b) ? a : isnan(a) ? b : (b > a ? b : a); }}
)",
                       t, saturated);
}

std::string ufunc_complex_functions(const char* c, const char* r, const char* ctr) {
    // numpy 2's sign of a complex value: z / |z|, 0 for 0, NaN where |z| is NaN. Where |z| is
    // infinite (an infinite part, even beside NaN, or parts whose modulus overflows) numpy gives
    // the real part's sign where it is infinite (NaN where both are), else the imaginary part's
    // as i (numpy's table, data/make_numpy_complex_special.py: sign(3e38+2e38j) in complex64 is
    // 1j). fmin and fmax in numpy's order (kj_cle), ignoring an operand with a NaN part (the
    // first where both have one).
    return fmt::format(R"(FUNCTION INLINE {0} kj_csign_{0}({0} a)
{{
    const {1} m = hypot(a.x, a.y);
    if (m == 0) return {2}(0, 0);
    if (isinf(m)) {{
        if (isinf(a.x)) return isinf(a.y) ? {2}(a.x - a.x, a.x - a.x) : {2}(a.x > 0 ? 1 : -1, 0);
        return {2}(0, a.y > 0 ? 1 : -1);
    }}
    return {2}(a.x / m, a.y / m);
}}
FUNCTION INLINE {0} kj_cscale_{0}({0} a, {1} s) {{ return {2}(a.x * s, a.y * s); }}
FUNCTION INLINE {0} kj_cfmin_{0}({0} a, {0} b) {{ return (kj_cle_{0}(a, b) || kj_cnan_{0}(b)) ? a : b; }}
FUNCTION INLINE {0} kj_cfmax_{0}({0} a, {0} b) {{ return (kj_cle_{0}(b, a) || kj_cnan_{0}(b)) ? a : b; }}
)",
                       c, r, ctr);
}

DType bool_to_int8(const DType& d) { return is_bool(d) ? DType(dtypes::int8) : d; }

// The truth of a compute value (complex: either part non-zero; NaN is true).
std::string truth(const std::string& v, const DType& t) {
    if (is_complex(t)) return fmt::format("(({0}).x != 0 || ({0}).y != 0)", v);
    return fmt::format("(({}) != 0)", v);
}

}  // namespace

const char* numpy_op_name(ExprOp op) {
    switch (op) {
    case ExprOp::floor_divide: return "floor_divide";
    case ExprOp::fmod: return "fmod";
    case ExprOp::floor: return "floor";
    case ExprOp::ceil: return "ceil";
    case ExprOp::trunc: return "trunc";
    case ExprOp::rint: return "rint";
    case ExprOp::round: return "round";
    case ExprOp::isnan: return "isnan";
    case ExprOp::isinf: return "isinf";
    case ExprOp::isfinite: return "isfinite";
    case ExprOp::sign: return "sign";
    case ExprOp::square: return "square";
    case ExprOp::positive: return "positive";
    case ExprOp::reciprocal: return "reciprocal";
    case ExprOp::log2: return "log2";
    case ExprOp::log10: return "log10";
    case ExprOp::log1p: return "log1p";
    case ExprOp::expm1: return "expm1";
    case ExprOp::exp2: return "exp2";
    case ExprOp::tan: return "tan";
    case ExprOp::arcsin: return "arcsin";
    case ExprOp::arccos: return "arccos";
    case ExprOp::arctan: return "arctan";
    case ExprOp::sinh: return "sinh";
    case ExprOp::cosh: return "cosh";
    case ExprOp::arcsinh: return "arcsinh";
    case ExprOp::arccosh: return "arccosh";
    case ExprOp::arctanh: return "arctanh";
    case ExprOp::arctan2: return "arctan2";
    case ExprOp::hypot: return "hypot";
    case ExprOp::copysign: return "copysign";
    case ExprOp::fmin: return "fmin";
    case ExprOp::fmax: return "fmax";
    case ExprOp::bitwise_and: return "&";
    case ExprOp::bitwise_or: return "|";
    case ExprOp::bitwise_xor: return "^";
    case ExprOp::invert: return "~";
    case ExprOp::left_shift: return "<<";
    case ExprOp::right_shift: return ">>";
    case ExprOp::logical_and: return "logical_and";
    case ExprOp::logical_or: return "logical_or";
    case ExprOp::logical_xor: return "logical_xor";
    case ExprOp::logical_not: return "logical_not";
    default: return nullptr;
    }
}

void type_numpy_op(ExprNode& node, const DType& common) {
    const ExprOp op = node.op;
    const bool complex = is_complex(common);
    const bool floating = is_real(common);
    const bool boolean = is_bool(common);
    DType result = common;
    switch (op) {
    case ExprOp::floor_divide:
    case ExprOp::fmod:
        if (complex) refuse(op, common);
        result = bool_to_int8(common);
        break;
    case ExprOp::floor:
    case ExprOp::ceil:
    case ExprOp::trunc:
        if (complex) refuse(op, common);
        break;
    case ExprOp::rint: result = float_type_for(common); break;
    case ExprOp::round:
        // numpy: bool rounds through rint (float16) and refuses a scaling back into bool.
        if (boolean) {
            if (node.decimals != 0) refuse(op, common);
            result = dtypes::float16;
        }
        break;
    case ExprOp::isnan:
    case ExprOp::isinf:
    case ExprOp::isfinite:
    case ExprOp::logical_and:
    case ExprOp::logical_or:
    case ExprOp::logical_xor:
    case ExprOp::logical_not:
        node.compute = common;
        node.dtype = dtypes::bool_;
        return;
    case ExprOp::sign:
    case ExprOp::positive:
        if (boolean) refuse(op, common);
        break;
    case ExprOp::square:
    case ExprOp::reciprocal: result = bool_to_int8(common); break;
    case ExprOp::log2:
    case ExprOp::log10:
    case ExprOp::exp2: result = float_type_for(common); break;  // complex too (numpy_op_code)
    case ExprOp::tan:
    case ExprOp::sinh:
    case ExprOp::cosh:
    case ExprOp::log1p:
    case ExprOp::expm1:
    case ExprOp::arcsin:
    case ExprOp::arccos:
    case ExprOp::arctan:
    case ExprOp::arcsinh:
    case ExprOp::arccosh:
    case ExprOp::arctanh: result = float_type_for(common); break;  // complex too (numpy_op_code)
    case ExprOp::arctan2:
    case ExprOp::hypot:
    case ExprOp::copysign:
        if (complex) refuse(op, common);
        // numpy takes the first of its float loops both operands cast to safely: of two arrays,
        // each one's float type promoted (int16 with uint16 is float32, not int32's float64); a
        // weak scalar has taken the array's type in `common` already.
        result = node.children[0]->weak || node.children[1]->weak
                     ? float_type_for(common)
                     : promote_types(float_type_for(node.children[0]->dtype), float_type_for(node.children[1]->dtype));
        break;
    case ExprOp::fmin:
    case ExprOp::fmax: break;  // complex values too, in numpy's order (kj_cfmin / kj_cfmax)
    case ExprOp::bitwise_and:
    case ExprOp::bitwise_or:
    case ExprOp::bitwise_xor:
    case ExprOp::invert:
        if (complex || floating) refuse(op, common);
        break;
    case ExprOp::left_shift:
    case ExprOp::right_shift:
        if (complex || floating) refuse(op, common);
        result = bool_to_int8(common);
        break;
    default: throw Error(fmt::format("expression operation {} has no type rule", static_cast<int>(op)));
    }
    node.compute = node.dtype = result;
}

std::string numpy_op_code(const ExprNode& node, const std::string& a, const std::string& b) {
    const DType& t = node.compute;
    const std::string ct = compute_ctype(t);
    const std::string sfx = suffix_of(t);
    const bool complex = is_complex(t);
    const bool floating = is_real(t);
    const bool boolean = is_bool(t);
    const auto typed = [&](const std::string& e) { return fmt::format("(({}){})", ct, e); };
    const auto both_parts = [&](const std::string& f) {
        return fmt::format("{0}({1}(({2}).x), {1}(({2}).y))", complex_ctr(t), f, a);
    };
    // A function of the C library for real values, expression_math.cpp's kj_c* one (numpy's
    // formulas and special values) for complex ones.
    const auto real_or_complex = [&](const char* real_function, const char* complex_function) {
        return complex ? fmt::format("{}_{}({})", complex_function, sfx, a) : fmt::format("{}({})", real_function, a);
    };
    switch (node.op) {
    case ExprOp::floor_divide: return fmt::format("kj_floordiv_{}({}, {})", sfx, a, b);
    case ExprOp::fmod:
        return floating ? fmt::format("fmod({}, {})", a, b) : fmt::format("kj_fmod_{}({}, {})", sfx, a, b);
    case ExprOp::floor: return floating ? fmt::format("floor({})", a) : a;
    case ExprOp::ceil: return floating ? fmt::format("ceil({})", a) : a;
    case ExprOp::trunc: return floating ? fmt::format("trunc({})", a) : a;
    case ExprOp::rint: return complex ? both_parts(rint_of(t)) : fmt::format("{}({})", rint_of(t), a);
    case ExprOp::round: {
        const int d = node.decimals;
        if (is_integer(t) || boolean) {
            if (d >= 0) return a;
            // numpy's path for integers: float64 arithmetic, converted back (through int64).
            const std::string f = float_literal(std::pow(10.0, -d), dtypes::float64);
            const std::string through = t.kind() == K::uint64 ? "uint64_t" : "int64_t";
            return fmt::format("(({})({})(kj_rint_double((double)({}) / {}) * {}))", ct, through, a, f, f);
        }
        const DType real = complex ? real_for(t) : t;
        const std::string f = float_literal(std::pow(10.0, d >= 0 ? d : -d), real);
        const auto one = [&](const std::string& v) {
            // float: the division correctly rounded (OpenCL C lets it err by 2.5 ulp: NVIDIA's
            // OpenCL gave -31.929998f for round(-31.930613f, 2), numpy -31.93f).
            const bool single = real.kind() != K::float64;
            const auto div = [&](const std::string& x, const std::string& y) {
                return single ? fmt::format("kj_div_rn_f({}, {})", x, y) : fmt::format("({}) / {}", x, y);
            };
            return d >= 0 ? fmt::format("({})", div(fmt::format("{}(({}) * {})", rint_of(real), v, f), f))
                          : fmt::format("({}({}) * {})", rint_of(real), div(v, f), f);
        };
        if (complex)
            return fmt::format("{}({}, {})", complex_ctr(t), one(fmt::format("({}).x", a)),
                               one(fmt::format("({}).y", a)));
        return one(a);
    }
    case ExprOp::isnan:
        if (complex) return fmt::format("(isnan(({0}).x) || isnan(({0}).y))", a);
        return floating ? fmt::format("isnan({})", a) : fmt::format("(({0}) != ({0}))", a);
    case ExprOp::isinf:
        if (complex) return fmt::format("(isinf(({0}).x) || isinf(({0}).y))", a);
        return floating ? fmt::format("isinf({})", a) : fmt::format("(({0}) != ({0}))", a);
    case ExprOp::isfinite:
        if (complex) return fmt::format("(isfinite(({0}).x) && isfinite(({0}).y))", a);
        return floating ? fmt::format("isfinite({})", a) : fmt::format("(({0}) == ({0}))", a);
    case ExprOp::sign:
        if (complex) return fmt::format("kj_csign_{}({})", sfx, a);
        if (floating) return fmt::format("kj_sign_{}({})", sfx, a);
        return is_signed(t) ? typed(fmt::format("((({0}) > 0) - (({0}) < 0))", a))
                            : typed(fmt::format("(({}) > 0)", a));
    case ExprOp::square:
        return complex ? fmt::format("kj_cmul_{}({}, {})", sfx, a, a) : typed(fmt::format("(({0}) * ({0}))", a));
    case ExprOp::positive: return a;
    case ExprOp::reciprocal:
        if (complex) return fmt::format("kj_crecip_{}({})", sfx, a);
        if (floating) return typed(fmt::format("(1 / ({}))", a));
        return fmt::format("kj_recip_{}({})", sfx, a);
    // Complex log2, log10 and exp2 as numpy's: log(z) with both parts times log2(e) or log10(e),
    // exp of z with both parts times ln(2), each constant rounded to the part's type.
    case ExprOp::log2:
        if (complex)
            return fmt::format("kj_cscale_{0}(kj_clog_{0}({1}), {2})", sfx, a, part_literal(std::numbers::log2e, t));
        return fmt::format("log2({})", a);
    case ExprOp::log10:
        if (complex)
            return fmt::format("kj_cscale_{0}(kj_clog_{0}({1}), {2})", sfx, a, part_literal(std::numbers::log10e, t));
        return fmt::format("log10({})", a);
    case ExprOp::log1p: return real_or_complex("log1p", "kj_clog1p");
    case ExprOp::expm1: return real_or_complex("expm1", "kj_cexpm1");
    case ExprOp::exp2:
        if (complex)
            return fmt::format("kj_cexp_{0}(kj_cscale_{0}({1}, {2}))", sfx, a, part_literal(std::numbers::ln2, t));
        return fmt::format("exp2({})", a);
    case ExprOp::tan: return real_or_complex("tan", "kj_ctan");
    case ExprOp::arcsin: return real_or_complex("asin", "kj_casin");
    case ExprOp::arccos: return real_or_complex("acos", "kj_cacos");
    case ExprOp::arctan: return real_or_complex("atan", "kj_catan");
    case ExprOp::sinh: return real_or_complex("sinh", "kj_csinhz");
    case ExprOp::cosh: return real_or_complex("cosh", "kj_ccoshz");
    case ExprOp::arcsinh: return real_or_complex("asinh", "kj_casinh");
    case ExprOp::arccosh: return real_or_complex("acosh", "kj_cacosh");
    case ExprOp::arctanh: return real_or_complex("atanh", "kj_catanh");
    case ExprOp::arctan2: return fmt::format("atan2({}, {})", a, b);
    case ExprOp::hypot: return fmt::format("hypot({}, {})", a, b);
    case ExprOp::copysign: return fmt::format("copysign({}, {})", a, b);
    case ExprOp::fmin:
        if (floating || complex) return fmt::format("kj_{}fmin_{}({}, {})", complex ? "c" : "", sfx, a, b);
        return fmt::format("({1} < {0} ? {1} : {0})", a, b);
    case ExprOp::fmax:
        if (floating || complex) return fmt::format("kj_{}fmax_{}({}, {})", complex ? "c" : "", sfx, a, b);
        return fmt::format("({1} > {0} ? {1} : {0})", a, b);
    case ExprOp::bitwise_and: return boolean ? fmt::format("({} && {})", a, b) : typed(fmt::format("({} & {})", a, b));
    case ExprOp::bitwise_or: return boolean ? fmt::format("({} || {})", a, b) : typed(fmt::format("({} | {})", a, b));
    case ExprOp::bitwise_xor:
        return boolean ? fmt::format("(({}) != ({}))", a, b) : typed(fmt::format("({} ^ {})", a, b));
    case ExprOp::invert: return boolean ? fmt::format("(!({}))", a) : typed(fmt::format("(~({}))", a));
    case ExprOp::left_shift: return fmt::format("kj_shl_{}({}, {})", sfx, a, b);
    case ExprOp::right_shift: return fmt::format("kj_shr_{}({}, {})", sfx, a, b);
    case ExprOp::logical_and: return fmt::format("({} && {})", truth(a, t), truth(b, t));
    case ExprOp::logical_or: return fmt::format("({} || {})", truth(a, t), truth(b, t));
    case ExprOp::logical_xor: return fmt::format("({} != {})", truth(a, t), truth(b, t));
    case ExprOp::logical_not: return fmt::format("(!{})", truth(a, t));
    default: break;
    }
    throw Error(fmt::format("expression operation '{}' has no code", op_name(node.op)));
}

std::string numpy_ops_preamble() {
    std::string out;
    out += ufunc_integer_functions(dtypes::int8, "uint8_t");
    out += ufunc_integer_functions(dtypes::int16, "uint16_t");
    out += ufunc_integer_functions(dtypes::int32, "uint32_t");
    out += ufunc_integer_functions(dtypes::int64, "uint64_t");
    out += ufunc_integer_functions(dtypes::uint8, "uint8_t");
    out += ufunc_integer_functions(dtypes::uint16, "uint16_t");
    out += ufunc_integer_functions(dtypes::uint32, "uint32_t");
    out += ufunc_integer_functions(dtypes::uint64, "uint64_t");
    out += ufunc_float_functions("float");
    out += ufunc_complex_functions("complex64_t", "float", "COMPLEX64_CTR");
    out += "#if defined(KJARNI_CUDA_API) || defined(cl_khr_fp64)\n";
    out += ufunc_float_functions("double");
    out += ufunc_complex_functions("complex128_t", "double", "COMPLEX128_CTR");
    out += "#endif\n";
    return out;
}

}  // namespace kjarni::detail
