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
    throw ArgumentTypeError(fmt::format("operation '{}'", numpy_op_name(op)),
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
FUNCTION INLINE {10} kj_magnitude_{0}({0} a) {{ return {11}; }}
FUNCTION INLINE {10} kj_gcd_wide_{0}({10} a, {10} b)
{{
    while (a != 0) {{
        const {10} r = b % a;
        b = a;
        a = r;
    }}
    return b;
}}
FUNCTION INLINE {0} kj_gcd_{0}({0} a, {0} b) {{ return ({0})kj_gcd_wide_{0}(kj_magnitude_{0}(a), kj_magnitude_{0}(b)); }}
FUNCTION INLINE {0} kj_lcm_{0}({0} a, {0} b)
{{
    const {10} x = kj_magnitude_{0}(a), y = kj_magnitude_{0}(b), g = kj_gcd_wide_{0}(x, y);
    return g == 0 ? ({0})0 : ({0})(x / g * y);
}}
FUNCTION INLINE uint8_t kj_popcount_{0}({0} a) {{ return (uint8_t)KJ_POPCOUNT{12}(kj_magnitude_{0}(a)); }}
)",
        t, ut, bits, zero_reciprocal,
        // MIN // -1 wraps to MIN, as numpy's does (C's division would trap).
        is_signed ? fmt::format("    if (b == -1) return {};\n", wrapping_negation(d, "a")) : "",
        is_signed ? fmt::format("    if (({0})(a - q * b) != 0 && ((a < 0) != (b < 0))) q = ({0})(q - 1);\n", t) : "",
        is_signed ? "    if (b == -1) return 0;\n" : "", is_signed ? "b < 0 || " : "",
        is_signed ? "a < 0 ? -1 : 0" : "0", is_signed ? fmt::format("a == -1 ? ({})-1 : ", t) : "",
        // gcd, lcm and bitwise_count work on |a| in unsigned arithmetic of 32 bits (64 for 64-bit
        // types), as numpy's npy_gcdu / npy_lcmu / npy_popcountu on C's promoted values: |INT8_MIN|
        // is 128 there, so gcd(-128, 0) converts back to -128 and lcm(100, 3) of int8 wraps to 44.
        bits == 64 ? "uint64_t" : "uint32_t",
        is_signed ? fmt::format("a < 0 ? ({0})0 - ({0})a : ({0})a", bits == 64 ? "uint64_t" : "uint32_t")
                  : fmt::format("({})a", bits == 64 ? "uint64_t" : "uint32_t"),
        bits == 64 ? "64" : "32");
}

std::string ufunc_float_functions(const char* t) {
    // tanh: past 9.1 (float) or 19.1 (double) the exact tanh rounds to +-1, which numpy gives; a
    // device's tanh may stop an ulp short (PoCL: 1 - 2^-24 at -31333), which a power of a negative
    // base then turns into NaN.
    const bool is_double = std::string_view(t) == "double";
    const char* saturated = is_double ? "19.1" : "9.1f";
    // logaddexp / logaddexp2: numpy's npy_logaddexp and npy_logaddexp2 (equal operands, infinities
    // of one sign among them, give x + ln 2 and x + 1; the larger plus log1p of exp of the
    // difference; NaN where the difference is NaN); heaviside: NaN, h0 at 0, else 0 or 1; spacing:
    // the step from x to the next float away from zero (the smallest positive one for +-0), NaN
    // for infinities, as numpy's (numpy 2.4: np.spacing(-0.0) is +5e-324).
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
FUNCTION INLINE {0} kj_logaddexp_{0}({0} x, {0} y)
{{
    if (x == y) return x + {2};
    const {0} d = x - y;
    if (d > 0) return x + log1p(exp(-d));
    if (d <= 0) return y + log1p(exp(d));
    return d;
}}
FUNCTION INLINE {0} kj_logaddexp2_{0}({0} x, {0} y)
{{
    if (x == y) return x + 1;
    const {0} d = x - y;
    if (d > 0) return x + {3} * log1p(exp2(-d));
    if (d <= 0) return y + {3} * log1p(exp2(d));
    return d;
}}
FUNCTION INLINE {0} kj_heaviside_{0}({0} x, {0} h0) {{ return isnan(x) ? x : x == 0 ? h0 : x < 0 ? ({0})0 : ({0})1; }}
FUNCTION INLINE {0} kj_spacing_{0}({0} x) {{ return isinf(x) ? x - x : nextafter(x, x < 0 ? -{4} : {4}) - x; }}
FUNCTION INLINE {0} kj_ldexp_{0}({0} x, {0} n) {{ return ldexp(x, (int)(n > 100000 ? 100000 : n < -100000 ? -100000 : n)); }}
FUNCTION INLINE {0} kj_frexp_mantissa_{0}({0} x)
{{
    int e = 0;
    return isfinite(x) && x != 0 ? frexp(x, &e) : x;
}}
FUNCTION INLINE int32_t kj_frexp_exponent_{0}({0} x)
{{
    int e = 0;
    if (isfinite(x) && x != 0) frexp(x, &e);
    return (int32_t)e;
}}
)",
                       t, saturated, is_double ? "0.693147180559945309417" : "0.693147180559945309417f",
                       is_double ? "1.442695040888963407360" : "1.442695040888963407360f",
                       is_double ? "KJARNI_INF_D" : "KJARNI_INF_F");
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
    case ExprOp::cbrt: return "cbrt";
    case ExprOp::deg2rad: return "deg2rad";
    case ExprOp::rad2deg: return "rad2deg";
    case ExprOp::signbit: return "signbit";
    case ExprOp::spacing: return "spacing";
    case ExprOp::conjugate: return "conjugate";
    case ExprOp::bitwise_count: return "bitwise_count";
    case ExprOp::logaddexp: return "logaddexp";
    case ExprOp::logaddexp2: return "logaddexp2";
    case ExprOp::heaviside: return "heaviside";
    case ExprOp::nextafter: return "nextafter";
    case ExprOp::float_power: return "float_power";
    case ExprOp::gcd: return "gcd";
    case ExprOp::lcm: return "lcm";
    case ExprOp::ldexp: return "ldexp";
    case ExprOp::frexp_mantissa:
    case ExprOp::frexp_exponent: return "frexp";
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
    case ExprOp::cbrt:
    case ExprOp::deg2rad:
    case ExprOp::rad2deg:
    case ExprOp::spacing:
        if (complex) refuse(op, common);
        result = float_type_for(common);
        break;
    case ExprOp::signbit:
        if (complex) refuse(op, common);
        node.compute = float_type_for(common);
        node.dtype = dtypes::bool_;
        return;
    case ExprOp::conjugate: result = bool_to_int8(common); break;
    case ExprOp::bitwise_count:
        if (complex || floating) refuse(op, common);
        node.compute = bool_to_int8(common);
        node.dtype = dtypes::uint8;
        return;
    case ExprOp::gcd:
    case ExprOp::lcm:
        if (complex || floating || boolean) refuse(op, common);  // (numpy has no bool loop here)
        break;
    case ExprOp::float_power: result = complex ? dtypes::complex128 : dtypes::float64; break;
    case ExprOp::ldexp: {
        // numpy's loops take x in a float type and n as int32 or int64 (uint32 fits int64, uint64
        // and floats do not: TypeError). A Python number x is weak: an int or bool meets the first
        // loop, float16's, beside an exponent array; a float, or two Python numbers, float64's.
        const ExprNode& x = *node.children[0];
        const ExprNode& n = *node.children[1];
        if (!(is_integer(n.dtype) || is_bool(n.dtype)) || n.dtype.kind() == K::uint64) refuse(op, n.dtype);
        if (is_complex(x.dtype)) refuse(op, x.dtype);
        const bool weak_integer = x.weak && (*x.weak == WeakKind::integer || *x.weak == WeakKind::boolean) && !n.weak;
        result = weak_integer ? dtypes::float16 : x.weak ? dtypes::float64 : float_type_for(x.dtype);
        break;
    }
    case ExprOp::frexp_mantissa:
        if (complex) refuse(op, common);
        result = float_type_for(common);
        break;
    case ExprOp::frexp_exponent:
        if (complex) refuse(op, common);
        node.compute = float_type_for(common);
        node.dtype = dtypes::int32;
        return;
    case ExprOp::logaddexp:
    case ExprOp::logaddexp2:
    case ExprOp::heaviside:
    case ExprOp::nextafter:
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
    case ExprOp::cbrt: return fmt::format("cbrt({})", a);
    // numpy multiplies by pi / 180 (180 / pi) as its C source writes it: a quotient of the type's
    // constants, so float32's factors are float divisions (rad2deg(1.0f) is 57.295776f, not the
    // nearest float to 180 / pi, 57.29578f); float16 computes in float32.
    case ExprOp::deg2rad:
    case ExprOp::rad2deg: {
        const bool to_radians = node.op == ExprOp::deg2rad;
        const double factor = t.kind() == K::float64
                                  ? (to_radians ? std::numbers::pi / 180.0 : 180.0 / std::numbers::pi)
                                  : static_cast<double>(to_radians ? static_cast<float>(std::numbers::pi) / 180.0f
                                                                   : 180.0f / static_cast<float>(std::numbers::pi));
        return typed(fmt::format("(({}) * {})", a, float_literal(factor, t)));
    }
    case ExprOp::signbit: return fmt::format("(signbit({}) != 0)", a);
    case ExprOp::spacing:
        return t.kind() == K::float16 ? fmt::format("kj_spacing_half({})", a)
                                      : fmt::format("kj_spacing_{}({})", sfx, a);
    case ExprOp::conjugate: return complex ? fmt::format("{0}(({1}).x, -({1}).y)", complex_ctr(t), a) : a;
    case ExprOp::bitwise_count: return fmt::format("kj_popcount_{}({})", sfx, a);
    case ExprOp::logaddexp: return fmt::format("kj_logaddexp_{}({}, {})", sfx, a, b);
    case ExprOp::logaddexp2: return fmt::format("kj_logaddexp2_{}({}, {})", sfx, a, b);
    case ExprOp::heaviside: return fmt::format("kj_heaviside_{}({}, {})", sfx, a, b);
    case ExprOp::nextafter:
        return t.kind() == K::float16 ? fmt::format("kj_nextafter_half({}, {})", a, b)
                                      : fmt::format("nextafter({}, {})", a, b);
    // numpy's float_power loops call the C library's pow, without power's shortcuts for exponents
    // met at stride 0 (float_power(-0.0, 0.5) is +0.0, power's -0.0).
    case ExprOp::float_power:
        return complex ? fmt::format("kj_cpow_{}({}, {})", sfx, a, b) : fmt::format("kj_pow_{}({}, {})", sfx, a, b);
    case ExprOp::gcd: return fmt::format("kj_gcd_{}({}, {})", sfx, a, b);
    case ExprOp::lcm: return fmt::format("kj_lcm_{}({}, {})", sfx, a, b);
    // (the exponent in x's float type: integers are exact there up to 2^11 in float16, 2^24 in
    // float32, and any larger one gives the same saturated result)
    case ExprOp::ldexp: return fmt::format("kj_ldexp_{}({}, {})", sfx, a, b);
    case ExprOp::frexp_mantissa: return fmt::format("kj_frexp_mantissa_{}({})", sfx, a);
    case ExprOp::frexp_exponent: return fmt::format("kj_frexp_exponent_{}({})", sfx, a);
    default: break;
    }
    throw Error(fmt::format("expression operation '{}' has no code", op_name(node.op)));
}

// numpy's float16 nextafter and spacing work on the bits (npy_half_nextafter, npy_half_spacing), with
// results of their own: nextafter of equal operands is the first (+0.0 for (+0.0, -0.0), C's
// nextafter the second); spacing is never negative, and at a negative power of two it is the
// step towards zero (spacing(-1.0) is 2^-11, float32's is -2^-23); at 65504 it is inf. Values are
// float16 numbers held in float (how expressions compute float16).
constexpr const char* half_functions = R"(FUNCTION INLINE float kj_nextafter_half(float x, float y)
{
    if (isnan(x) || isnan(y)) return x + y;
    if (x == y) return x;
    const uint16_t hx = kjarni_f2h(x), hy = kjarni_f2h(y);
    if (x == 0) return kjarni_h2f((uint16_t)((hy & 0x8000u) | 1u));
    // Away from zero is one bit pattern up, towards zero one down, for either sign.
    const bool away = (x < y) == (x > 0);
    return kjarni_h2f((uint16_t)(away ? hx + 1u : hx - 1u));
}
FUNCTION INLINE float kj_spacing_half(float x)
{
    const uint16_t h = kjarni_f2h(x);
    const uint16_t exponent = h & 0x7c00u;
    if (exponent == 0x7c00u) return x - x;
    if (h == 0x7bffu) return KJARNI_INF_F;
    // The step below |x| (a negative power of two) or above it, as float16 bits: exponent - 11
    // (or - 10) while that is normal, a single subnormal bit below, the smallest subnormal last.
    const bool below = (h & 0x8000u) != 0 && (h & 0x03ffu) == 0;
    const uint16_t drop = below ? 0x2c00u : 0x2800u;
    if (exponent > drop) return kjarni_h2f((uint16_t)(exponent - drop));
    if (exponent > 0x0400u) return kjarni_h2f((uint16_t)(1u << ((exponent >> 10) - (below ? 2 : 1))));
    return kjarni_h2f((uint16_t)1u);
}
#ifdef KJARNI_CUDA_API
#define KJ_POPCOUNT32(x) __popc(x)
#define KJ_POPCOUNT64(x) __popcll(x)
#else
#define KJ_POPCOUNT32(x) popcount(x)
#define KJ_POPCOUNT64(x) popcount(x)
#endif
)";

std::string numpy_ops_preamble() {
    std::string out = half_functions;
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
