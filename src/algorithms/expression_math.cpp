#include "algorithms/expression_math.hpp"

#include <fmt/format.h>

#include <string_view>

#include "algorithms/expression_ops.hpp"

namespace kjarni::detail {

namespace {

constexpr const char* double_guard_begin = "#if defined(KJARNI_CUDA_API) || defined(cl_khr_fp64)\n";
constexpr const char* double_guard_end = "#endif\n";

std::string integer_functions(const char* t, bool is_signed) {
    // numpy: x % 0 == 0; the remainder takes the divisor's sign. Negative exponents give
    // 1 / x^-e truncated (0 unless |x| == 1); numpy refuses them, a kernel cannot. Powers wrap, as
    // numpy's: the products are computed in an unsigned type of at least 32 bits (signed overflow
    // is undefined, and narrow types promote to a signed int).
    const char* wide = std::string_view(t).find("64") != std::string_view::npos ? "uint64_t" : "uint32_t";
    std::string sign_fix = is_signed ? "    if (r != 0 && ((r < 0) != (b < 0))) r += b;\n" : "";
    std::string negative =
        is_signed
            ? fmt::format("    if (e < 0) return a == 1 ? ({0})1 : a == -1 ? ((e & 1) ? ({0})-1 : ({0})1) : ({0})0;\n",
                          t)
            : "";
    return fmt::format(R"(FUNCTION INLINE {0} kj_mod_{0}({0} a, {0} b)
{{
    if (b == 0) return 0;
{1}    {0} r = a % b;
{2}    return r;
}}
FUNCTION INLINE {0} kj_pow_{0}({0} a, {0} e)
{{
{3}    {0} result = 1;
    while (e != 0) {{
        if (e & 1) result = ({0})(({4})result * ({4})a);
        e = ({0})(e >> 1);
        a = ({0})(({4})a * ({4})a);
    }}
    return result;
}}
)",
                       t, is_signed ? "    if (b == -1) return 0;\n" : "", sign_fix, negative, wide);
}

// minimum and maximum propagate a NaN of either operand and differ only in which of two equal
// operands they return, which shows for +0.0 and -0.0: numpy's float32 and float64 loops return the
// second (np.minimum(0.0, -0.0) is -0.0), its float16 loops and np.clip's loop for two scalar
// bounds the first (kj_min_first).
//
// kj_rint: rint for values below 2^23 (2^52) in magnitude, the value itself above, where every
// float (double) is an integer already, and for infinities and NaN. PoCL's rint, met with an
// infinity its compiler can see (rint(log(x < x)): log of a comparison folded to false), gave 0
// or garbage (a hand-written rint(-INFINITY) gives 0 there too; a runtime infinity is right); the
// numpy fuzzer found it on float16, where numpy gives -inf. Here rint never sees such a value.
std::string float_functions(const char* t, const char* integral) {
    return fmt::format(R"(FUNCTION INLINE {0} kj_rint_{0}({0} x) {{ return fabs(x) < {1} ? rint(x) : x; }}
FUNCTION INLINE {0} kj_mod_{0}({0} a, {0} b)
{{
    {0} r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    // numpy: a zero remainder takes the divisor's sign (-4.0 % 2.0 is +0.0).
    if (r == 0) r = copysign(({0})0, b);
    return r;
}}
FUNCTION INLINE {0} kj_pow_{0}({0} a, {0} b)
{{
    const {0} r = pow(a, b);
    // A negative base to an odd integer power that underflows is -0.0 (IEEE 754, numpy); PoCL's pow
    // gives +0.0 (np.float32(-1e-30) ** 3).
    return r == 0 && a < 0 && fabs(fmod(b, ({0})2)) == 1 ? -({0})0 : r;
}}
// numpy's float32 and float64 power loops, given one exponent for the whole call (stride 0:
// ExprNode::exponent_at_stride_zero), take -1, 0, 0.5, 1 and 2 as 1 / a, 1, sqrt(a), a and a * a,
// each correctly rounded (np.power(-0.0, 0.5) is -0.0 and np.power(-inf, 0.5) NaN, where C's pow
// gives +0.0 and inf; a device's pow may miss a * a or 1 / a by an ulp); float16's loop does not.
FUNCTION INLINE {0} kj_pow_scalar_{0}({0} a, {0} b)
{{
    if (b == ({0})0.5) return sqrt(a);
    if (b == ({0})2) return a * a;
    if (b == ({0})-1) return ({0})1 / a;
    if (b == ({0})1) return a;
    if (b == ({0})0) return ({0})1;
    return kj_pow_{0}(a, b);
}}
FUNCTION INLINE {0} kj_min_{0}({0} a, {0} b) {{ return isnan(a) ? a : (a < b ? a : b); }}
FUNCTION INLINE {0} kj_max_{0}({0} a, {0} b) {{ return isnan(a) ? a : (a > b ? a : b); }}
FUNCTION INLINE {0} kj_min_first_{0}({0} a, {0} b) {{ return isnan(a) ? a : isnan(b) ? b : (b < a ? b : a); }}
FUNCTION INLINE {0} kj_max_first_{0}({0} a, {0} b) {{ return isnan(a) ? a : isnan(b) ? b : (b > a ? b : a); }}
)",
                       t, integral);
}

// The multiplications complex functions need (as device macros, one text for both APIs): fused
// multiply-add (float: CUDA's fmaf), and a product that no compiler fuses into a neighbouring
// addition (CUDA: __fmul_rn / __dmul_rn; OpenCL C: a plain product in a function that turns
// FP_CONTRACT off), for formulas whose special values depend on each product being rounded alone.
constexpr const char* complex_macros = R"(#ifndef KJ_COMPLEX_MACROS
#define KJ_COMPLEX_MACROS
#ifdef KJARNI_CUDA_API
#define KJ_CFMA_F(a, b, c) fmaf(a, b, c)
#define KJ_CMUL_RN_F(a, b) __fmul_rn(a, b)
#define KJ_CMUL_RN_D(a, b) __dmul_rn(a, b)
#else
#define KJ_CFMA_F(a, b, c) fma(a, b, c)
#define KJ_CMUL_RN_F(a, b) ((a) * (b))
#define KJ_CMUL_RN_D(a, b) ((a) * (b))
#endif
#endif
)";

// c, r, ctr: the complex type, its real type and constructor; then, as literals of r, where sinh and
// cosh are exp / 2 to r's precision, a quarter of r's largest number, and log 2; fma and mul_rn:
// r's macros above; log_max: a literal of r below the log of r's largest number.
//
// multiply, divide, exp and power give numpy 2.4.6's values (measured on x86-64 with AVX-512, over a
// grid of zeros of both signs, infinities, NaN, huge and moderate parts: data/numpy_complex_special.txt):
// - multiply: numpy's loops (AVX2 / AVX-512) compute each part as one fused multiply-add of one
//   product and the other product rounded: (x1 x2 - y1 y2) is fma(x1, x2, -(y1 y2)). Written so, every
//   value is numpy's, NaN, infinities and overflowing products included (no branch).
// - divide: numpy's Smith's algorithm through the reciprocal of the scaled denominator; a zero
//   divisor gives each part divided by zero (infinities or NaN), a branch taken only there.
// - exp: C99 Annex G's values (glibc's cexp, which numpy calls); past log of the largest number
//   exp(x) overflows where its products with cos y and sin y need not: exp(x / 2) twice then.
// - power: numpy's npy_cpow: 1 for a zero exponent, 0 or NaN for a zero base (by the sign of the
//   exponent's real part), integer exponents below 100 in magnitude by repeated products (each
//   rounded alone, and numpy's division for negative ones), the others as glibc's cpow,
//   exp(b log a) with C99's product (Annex G's recovery of infinities from NaN parts).
std::string complex_functions(const char* c, const char* r, const char* ctr, const char* exp_half,
                              const char* quarter_max, const char* ln2, const char* fma, const char* mul_rn,
                              const char* log_max) {
    return fmt::format(R"(FUNCTION INLINE {0} kj_cadd_{0}({0} a, {0} b) {{ return {2}(a.x + b.x, a.y + b.y); }}
FUNCTION INLINE {0} kj_csub_{0}({0} a, {0} b) {{ return {2}(a.x - b.x, a.y - b.y); }}
FUNCTION INLINE {0} kj_cmul_{0}({0} a, {0} b) {{ return {2}({6}(a.x, b.x, -(a.y * b.y)), {6}(a.x, b.y, a.y * b.x)); }}
FUNCTION INLINE {0} kj_cmul_plain_{0}({0} a, {0} b)
{{
#ifndef KJARNI_CUDA_API
#pragma OPENCL FP_CONTRACT OFF
#endif
    return {2}({7}(a.x, b.x) - {7}(a.y, b.y), {7}(a.x, b.y) + {7}(a.y, b.x));
}}
FUNCTION INLINE {0} kj_cmul_annex_g_{0}({0} z, {0} w)
{{
#ifndef KJARNI_CUDA_API
#pragma OPENCL FP_CONTRACT OFF
#endif
    const {0} p = kj_cmul_plain_{0}(z, w);
    if (!isnan(p.x) || !isnan(p.y)) return p;
    {1} a = z.x, b = z.y, c = w.x, d = w.y;
    bool again = false;
    if (isinf(a) || isinf(b)) {{
        a = copysign(isinf(a) ? ({1})1 : ({1})0, a);
        b = copysign(isinf(b) ? ({1})1 : ({1})0, b);
        if (isnan(c)) c = copysign(({1})0, c);
        if (isnan(d)) d = copysign(({1})0, d);
        again = true;
    }}
    if (isinf(c) || isinf(d)) {{
        c = copysign(isinf(c) ? ({1})1 : ({1})0, c);
        d = copysign(isinf(d) ? ({1})1 : ({1})0, d);
        if (isnan(a)) a = copysign(({1})0, a);
        if (isnan(b)) b = copysign(({1})0, b);
        again = true;
    }}
    if (!again && (isinf({7}(a, c)) || isinf({7}(b, d)) || isinf({7}(a, d)) || isinf({7}(b, c)))) {{
        if (isnan(a)) a = copysign(({1})0, a);
        if (isnan(b)) b = copysign(({1})0, b);
        if (isnan(c)) c = copysign(({1})0, c);
        if (isnan(d)) d = copysign(({1})0, d);
        again = true;
    }}
    if (!again) return p;
    const {1} inf = ({1})KJARNI_INF_F;
    return {2}(inf * ({7}(a, c) - {7}(b, d)), inf * ({7}(a, d) + {7}(b, c)));
}}
FUNCTION INLINE {0} kj_cdiv_{0}({0} a, {0} b)
{{
    const {1} abs_x = fabs(b.x), abs_y = fabs(b.y);
    if (abs_x >= abs_y) {{
        if (abs_x == 0 && abs_y == 0) return {2}(a.x / abs_x, a.y / abs_y);
        const {1} rat = b.y / b.x, scl = ({1})1 / (b.x + b.y * rat);
        return {2}((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
    }}
    const {1} rat = b.x / b.y, scl = ({1})1 / (b.y + b.x * rat);
    return {2}((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
}}
// numpy's reciprocal loop (its own, not 1 / a): reciprocal(0) is NaN + iNaN.
FUNCTION INLINE {0} kj_crecip_{0}({0} a)
{{
    if (fabs(a.y) <= fabs(a.x)) {{
        const {1} r = a.y / a.x, d = a.x + a.y * r;
        return {2}(({1})1 / d, -r / d);
    }}
    const {1} r = a.x / a.y, d = a.x * r + a.y;
    return {2}(r / d, ({1})-1 / d);
}}
FUNCTION INLINE {0} kj_cexp_{0}({0} a)
{{
    if (isfinite(a.x) && isfinite(a.y)) {{
        if (a.y == 0) return {2}(exp(a.x), a.y);
        if (a.x <= {8}) {{
            const {1} m = exp(a.x);
            return {2}(m * cos(a.y), m * sin(a.y));
        }}
        const {1} h = exp(a.x * ({1})0.5);
        return {2}((h * cos(a.y)) * h, (h * sin(a.y)) * h);
    }}
    if (isnan(a.x)) return {2}(a.x, a.y == 0 ? a.y : a.x);  // NaN + i0 keeps its zero
    if (isinf(a.x) && a.x < 0)  // +0 cis(y); an infinite or NaN y: +0 + i0 with y's sign bit
        return isfinite(a.y) ? {2}(copysign(({1})0, cos(a.y)), copysign(({1})0, sin(a.y)))
                             : {2}(0, copysign(({1})0, a.y));
    if (isinf(a.x)) {{
        if (a.y == 0) return {2}(a.x, a.y);
        if (isfinite(a.y)) return {2}(a.x * cos(a.y), a.x * sin(a.y));
        return {2}(a.x, a.y - a.y);  // +inf + iNaN
    }}
    return {2}(a.y - a.y, a.y - a.y);  // a finite x with an infinite or NaN y: NaN + iNaN
}}
// The principal values, with C99's (and numpy's) branch cuts along the negative real axis for sqrt
// and log: the sign of a zero imaginary part picks the side.
FUNCTION INLINE {0} kj_csqrt_core_{0}({0} a)
{{
    // t = sqrt((|a| + |a.x|) / 2) never cancels; the other part is a.y / (2 t).
    const {1} t = sqrt((hypot(a.x, a.y) + fabs(a.x)) * ({1})0.5);
    if (a.x >= 0) return {2}(t, a.y / (2 * t));
    return {2}(fabs(a.y) / (2 * t), copysign(t, a.y));
}}
FUNCTION INLINE {0} kj_csqrt_{0}({0} a)
{{
    // C99 Annex G's values (numpy's) for infinite and NaN parts.
    if (isinf(a.y)) return {2}(KJARNI_INF_F, a.y);
    if (isnan(a.x)) return {2}(a.x, a.x);
    if (isinf(a.x)) {{
        if (a.x > 0) return {2}(a.x, isnan(a.y) ? a.y : copysign(({1})0, a.y));
        return {2}(isnan(a.y) ? a.y : ({1})0, copysign(({1})KJARNI_INF_F, a.y));
    }}
    if (isnan(a.y)) return {2}(a.y, a.y);
    if (a.x == 0 && a.y == 0) return {2}(0, a.y);
    // Parts past a quarter of the largest number: sqrt(a) = 2 sqrt(a / 4), so that |a| + |a.x| stays finite.
    if (fabs(a.x) > {4} || fabs(a.y) > {4}) {{
        const {0} r = kj_csqrt_core_{0}({2}(a.x * ({1})0.25, a.y * ({1})0.25));
        return {2}(2 * r.x, 2 * r.y);
    }}
    return kj_csqrt_core_{0}(a);
}}
FUNCTION INLINE {0} kj_clog_{0}({0} a)
{{
    // |a| of parts past a quarter of the largest number overflows: log |a| = log |a / 2| + log 2.
    if (isfinite(a.x) && isfinite(a.y) && (fabs(a.x) > {4} || fabs(a.y) > {4}))
        return {2}(log(hypot(a.x * ({1})0.5, a.y * ({1})0.5)) + ({1}){5}, atan2(a.y, a.x));
    return {2}(log(hypot(a.x, a.y)), atan2(a.y, a.x));
}}
FUNCTION INLINE {0} kj_cpow_{0}({0} a, {0} b)
{{
    if (b.x == 0 && b.y == 0) return {2}(1, 0);
    if (a.x == 0 && a.y == 0) {{
        const {1} not_a_number = ({1})KJARNI_INF_F - ({1})KJARNI_INF_F;
        return b.x > 0 ? {2}(0, 0) : {2}(not_a_number, not_a_number);
    }}
    if (b.y == 0 && b.x > -100 && b.x < 100 && b.x == ({1})(int)b.x) {{
        const int n = (int)b.x;
        if (n == 1) return a;
        if (n == 2) return kj_cmul_plain_{0}(a, a);
        if (n == 3) return kj_cmul_plain_{0}(a, kj_cmul_plain_{0}(a, a));
        const int m = n < 0 ? -n : n;
        {0} acc = {2}(1, 0), p = a;
        for (int mask = 1;; mask <<= 1) {{
            if (m & mask) acc = kj_cmul_plain_{0}(acc, p);
            if (m < (mask << 1)) break;
            p = kj_cmul_plain_{0}(p, p);
        }}
        return n < 0 ? kj_cdiv_{0}({2}(1, 0), acc) : acc;
    }}
    const {0} e = kj_cmul_annex_g_{0}(b, kj_clog_{0}(a));
    // exp(-inf + i NaN) is +0 with the NaN's sign on its zero part. numpy's NaN here comes from x86
    // arithmetic (0 inf, inf - inf), whose default NaN has the sign bit set, so numpy gives -0 (every
    // such case of the complex64 and complex128 grids); a GPU's default NaN is positive.
    if (isinf(e.x) && e.x < 0 && isnan(e.y)) return {2}(0, -({1})0);
    return kj_cexp_{0}(e);
}}
// sinh and cosh of x + iy (csin and ccos through them: sin z = -i sinh(iz), cos z = cosh(iz)), with
// C99 Annex G's values (numpy's) for infinite and NaN parts; past |x| = {3} cosh x and |sinh x|
// are exp|x| / 2 to the type's precision, computed as (exp(|x|/2) / 2 * cos y) * exp(|x|/2) so
// that it overflows only where the result does.
FUNCTION INLINE {0} kj_csinh_{0}({1} x, {1} y)
{{
    if (isfinite(x) && isfinite(y)) {{
        if (y == 0) return {2}(sinh(x), y);
        if (fabs(x) < {3}) return {2}(sinh(x) * cos(y), cosh(x) * sin(y));
        const {1} h = exp(fabs(x) * ({1})0.5), r = (({1})0.5 * h * cos(y)) * h;
        return {2}(x < 0 ? -r : r, (({1})0.5 * h * sin(y)) * h);
    }}
    if (x == 0) return {2}(x, y - y);
    if (isfinite(x)) return {2}(y - y, y - y);
    if (isinf(x)) {{
        if (y == 0) return {2}(x, y);
        if (isfinite(y)) return {2}(x * cos(y), KJARNI_INF_F * sin(y));
        return {2}(x * x, y - y);
    }}
    return {2}(x, y == 0 ? y : x + y);
}}
FUNCTION INLINE {0} kj_ccosh_{0}({1} x, {1} y)
{{
    if (isfinite(x) && isfinite(y)) {{
        if (y == 0) return {2}(cosh(x), x == 0 ? x * y : copysign(({1})0, x) * y);
        if (fabs(x) < {3}) return {2}(cosh(x) * cos(y), sinh(x) * sin(y));
        const {1} h = exp(fabs(x) * ({1})0.5), i = (({1})0.5 * h * sin(y)) * h;
        return {2}((({1})0.5 * h * cos(y)) * h, x < 0 ? -i : i);
    }}
    if (x == 0) return {2}(y - y, 0);  // NaN +- i0: numpy's +0
    if (isfinite(x)) return {2}(y - y, y - y);
    if (isinf(x)) {{
        if (y == 0) return {2}(KJARNI_INF_F, x * y == x * y ? x * y : copysign(({1})0, x) * y);
        if (isfinite(y)) return {2}(KJARNI_INF_F * cos(y), x * sin(y));
        return {2}(x * x, y - y);
    }}
    return {2}(x, y == 0 ? y : x + y);
}}
// numpy's order of complex values: by the real parts, then the imaginary parts; its comparison
// loops take the real parts' order only where neither imaginary part is NaN.
FUNCTION INLINE int kj_clt_{0}({0} a, {0} b) {{ return (a.x < b.x && !isnan(a.y) && !isnan(b.y)) || (a.x == b.x && a.y < b.y); }}
FUNCTION INLINE int kj_cle_{0}({0} a, {0} b) {{ return (a.x < b.x && !isnan(a.y) && !isnan(b.y)) || (a.x == b.x && a.y <= b.y); }}
FUNCTION INLINE int kj_cnan_{0}({0} a) {{ return isnan(a.x) || isnan(a.y); }}
// minimum and maximum propagate NaN (a if either part of it is NaN, else b if either of its is).
FUNCTION INLINE {0} kj_cmin_{0}({0} a, {0} b) {{ return (kj_cnan_{0}(a) || kj_cle_{0}(a, b)) ? a : b; }}
FUNCTION INLINE {0} kj_cmax_{0}({0} a, {0} b) {{ return (kj_cnan_{0}(a) || kj_cle_{0}(b, a)) ? a : b; }}
// np.clip's loop orders without the NaN rule (real parts unless equal, then imaginary parts) and
// keeps a NaN value: clip(x, lo, hi) = kj_cclipmin(kj_cclipmax(x, lo), hi).
FUNCTION INLINE {0} kj_cclipmax_{0}({0} a, {0} b) {{ return (kj_cnan_{0}(a) || (a.x == b.x ? a.y > b.y : a.x > b.x)) ? a : b; }}
FUNCTION INLINE {0} kj_cclipmin_{0}({0} a, {0} b) {{ return (kj_cnan_{0}(a) || (a.x == b.x ? a.y < b.y : a.x < b.x)) ? a : b; }}
FUNCTION INLINE {0} kj_csin_{0}({0} a)
{{
    // numpy's sin of an infinite or NaN real part with an infinite imaginary part: NaN + i inf
    // (Annex G leaves the sign of sinh's infinite real part open).
    if (isinf(a.y) && !isfinite(a.x)) return {2}(a.x - a.x, KJARNI_INF_F);
    const {0} s = kj_csinh_{0}(-a.y, a.x);
    return {2}(s.y, -s.x);
}}
FUNCTION INLINE {0} kj_ccos_{0}({0} a) {{ return kj_ccosh_{0}(-a.y, a.x); }}
FUNCTION INLINE {0} kj_ctanh_{0}({0} a)
{{
    // C99 Annex G's values (numpy's) for infinite and NaN parts; past |x| = {3} the real part is
    // +-1 to the type's precision. Else Kahan's form through t = tan y (no 2y, which overflows for
    // huge y): tanh(x + iy) = (beta rho s + i t) / (1 + beta s^2), s = sinh x, rho = sqrt(1 + s^2),
    // beta = 1 + t^2.
    const {1} x = a.x, y = a.y;
    if (isnan(x)) return {2}(x, y == 0 ? y : x + y);
    if (isinf(x)) return {2}(copysign(({1})1, x), copysign(({1})0, isinf(y) ? y : sin(y) * cos(y)));
    if (!isfinite(y)) return {2}(x == 0 ? x : y - y, y - y);
    if (fabs(x) >= {3}) {{
        const {1} e = exp(-fabs(x));
        return {2}(copysign(({1})1, x), 4 * sin(y) * cos(y) * e * e);
    }}
    const {1} t = tan(y), beta = 1 + t * t, s = sinh(x), rho = sqrt(1 + s * s), d = 1 + beta * s * s;
    return {2}(beta * rho * s / d, t / d);
}}
FUNCTION INLINE {0} kj_csinhz_{0}({0} a) {{ return kj_csinh_{0}(a.x, a.y); }}
FUNCTION INLINE {0} kj_ccoshz_{0}({0} a) {{ return kj_ccosh_{0}(a.x, a.y); }}
// tan z = -i tanh(iz), C99's definition (numpy's, through libm's ctan), special values included.
FUNCTION INLINE {0} kj_ctan_{0}({0} a)
{{
    const {0} t = kj_ctanh_{0}({2}(-a.y, a.x));
    return {2}(t.y, -t.x);
}}
// numpy's log1p and expm1 of complex values, its formulas: log|1 + z| + i arg(1 + z) with 1 + z
// rounded first (so, like numpy's, accurate to the type's epsilon, not relative to a tiny
// result), and expm1(x) cos y - 2 sin^2(y / 2) + i e^x sin y.
FUNCTION INLINE {0} kj_clog1p_{0}({0} a)
{{
    const {1} x = a.x + 1;
    return {2}(log(hypot(x, a.y)), atan2(a.y, x));
}}
FUNCTION INLINE {0} kj_cexpm1_{0}({0} a)
{{
    const {1} h = sin(a.y * ({1})0.5);
    return {2}(expm1(a.x) * cos(a.y) - 2 * h * h, exp(a.x) * sin(a.y));
}}
)",
                       c, r, ctr, exp_half, quarter_max, ln2, fma, mul_rn, log_max);
}

// The inverse trigonometric and hyperbolic functions of complex values, numpy's principal values
// and branch cuts (C99's), as kjarni.array_api computes them from the parts
// (python/kjarni/array_api/_complex_math.py, which says how they were measured against numpy):
// kj_casin_parts gives, for x, y >= 0, Re asin z, Re acos z and Im asin z (Hull, Fairgrieve and
// Tang, ACM TOMS 23(3), 1997: asin's real part directly below B = x / A = 0.6417, the arctangent
// forms above, which keep the digits asin loses near 1; A - 1 without cancellation; y / sqrt(1 -
// x^2) where y^2 is lost beside 1 - x; pi/2 - arg z + i log(2|z|) past `big` = 4 / sqrt(eps)); the
// others follow by symmetry (asinh z = -i asin(iz), acosh from acos, atan z = -i atanh(iz)).
// atanh: log1p(4|x| / |1 - |x| + iy|^2) / 4, within 1/2 of 1 as (log|1 + z| - log|1 - z|) / 2, and
// i pi/2 sign(y) + 1/z past `large` = sqrt(max) / 4, where the squares would overflow (1/z scaled,
// where kjarni.array_api's takes 0 for a |z| that overflows, numpy a subnormal). A zero real
// part stays (C99: asin(0 + i NaN) = 0 + i NaN).
std::string complex_inverse_functions(const char* c, const char* r, const char* ctr, const char* eps, const char* big,
                                      const char* large, const char* ln2, const char* pi, const char* half_pi) {
    return fmt::format(R"(FUNCTION INLINE void kj_casin_parts_{0}({1} x, {1} y, {1}* re_asin, {1}* re_acos, {1}* im)
{{
    const {1} r = hypot(x + 1, y), s = hypot(x - 1, y), a = (r + s) * ({1})0.5, b = x / a, y2 = y * y, apx = a + x;
    const {1} d = sqrt(apx * ({1})0.5 * (y2 / (r + (x + 1)) + (s + (1 - x))));
    const {1} e = y * sqrt((apx / (r + (x + 1)) + apx / (s + (x - 1))) * ({1})0.5);
    {1} ra, rc;
    if (b <= ({1})0.6417) {{
        ra = asin(b);
        rc = acos(b);
    }} else if (x <= 1) {{
        ra = atan(x / d);
        rc = atan(d / x);
    }} else {{
        ra = atan(x / e);
        rc = atan(e / x);
    }}
    const {1} am1 = x < 1 ? (y2 / (r + (x + 1)) + y2 / (s + (1 - x))) * ({1})0.5
                          : (y2 / (r + (x + 1)) + (s + (x - 1))) * ({1})0.5;
    {1} i = a <= ({1})1.5 ? log1p(am1 + sqrt(am1 * (a + 1))) : log(a + sqrt(a * a - 1));
    if (x < 1 && y < {3} * (1 - x)) i = y / sqrt((1 - x) * (1 + x));
    if (x > {4} || y > {4}) {{
        ra = atan2(x, y);
        rc = atan2(y, x);
        i = log(hypot(x * ({1})0.5, y * ({1})0.5)) + 2 * {6};
    }}
    *re_asin = x == 0 ? x : ra;
    *re_acos = x == 0 ? {8} : rc;
    *im = i;
}}
FUNCTION INLINE {0} kj_casin_{0}({0} z)
{{
    {1} ra, rc, i;
    kj_casin_parts_{0}(fabs(z.x), fabs(z.y), &ra, &rc, &i);
    return {2}(copysign(ra, z.x), copysign(i, z.y));
}}
FUNCTION INLINE {0} kj_cacos_{0}({0} z)
{{
    {1} ra, rc, i;
    kj_casin_parts_{0}(fabs(z.x), fabs(z.y), &ra, &rc, &i);
    return {2}(z.x < 0 ? {7} - rc : rc, -copysign(i, z.y));
}}
FUNCTION INLINE {0} kj_casinh_{0}({0} z)
{{
    {1} ra, rc, i;
    kj_casin_parts_{0}(fabs(z.y), fabs(z.x), &ra, &rc, &i);
    return {2}(copysign(i, z.x), copysign(ra, z.y));
}}
FUNCTION INLINE {0} kj_cacosh_{0}({0} z)
{{
    {1} ra, rc, i;
    kj_casin_parts_{0}(fabs(z.x), fabs(z.y), &ra, &rc, &i);
    return {2}(i, copysign(z.x < 0 ? {7} - rc : rc, z.y));
}}
FUNCTION INLINE {0} kj_catanh_{0}({0} z)
{{
    const {1} x = z.x, y = z.y, ax = fabs(x);
    const {1} gap = hypot(1 - ax, y);
    {1} re = gap < ({1})0.5 ? (log(hypot(1 + ax, y)) - log(gap)) * ({1})0.5
                          : log1p(4 * ax / ((1 - ax) * (1 - ax) + y * y)) * ({1})0.25;
    re = copysign(re, x);
    {1} im = atan2(2 * y, (1 - x) * (1 + x) - y * y) * ({1})0.5;
    if (hypot(x, y) > {5}) {{
        // 1 / z = conj(z) / |z|^2, scaled by the larger part (|z| itself may overflow: numpy's
        // atanh(3e38 + 3e38i) in complex64 has the real part 1.7e-39); 0 for an infinite part.
        const {1} m = fmax(fabs(x), fabs(y)), xs = x / m, ys = y / m, q = xs * xs + ys * ys;
        const int infinite = isinf(x) || isinf(y);
        re = infinite ? copysign(({1})0, x) : xs / q / m;
        im = isnan(y) ? y : copysign({8}, y) - (infinite ? ({1})0 : ys / q / m);
    }}
    return {2}(x == 0 ? x : re, im);
}}
FUNCTION INLINE {0} kj_catan_{0}({0} z)
{{
    const {0} t = kj_catanh_{0}({2}(-z.y, z.x));
    // A zero imaginary part takes its sign from z.y as numpy's does; -z.y of a NaN keeps its sign
    // bit flipped on PoCL but not on NVIDIA's GPUs (atan(inf + nan i) gave -0 there, numpy +0).
    return {2}(t.y, t.x == 0 && isnan(z.y) ? copysign(({1})0, z.y) : -t.x);
}}
)",
                       c, r, ctr, eps, big, large, ln2, pi, half_pi);
}

std::string make() {
    std::string out;
    for (const char* t : {"int8_t", "int16_t", "int32_t", "int64_t"}) out += integer_functions(t, true);
    for (const char* t : {"uint8_t", "uint16_t", "uint32_t", "uint64_t"}) out += integer_functions(t, false);
    out += float_functions("float", "8388608.0f");
    out += complex_macros;
    out += complex_functions("complex64_t", "float", "COMPLEX64_CTR", "9.0f", "8.5e37f", "0.693147180559945309f",
                             "KJ_CFMA_F", "KJ_CMUL_RN_F", "88.0f");
    out += complex_inverse_functions("complex64_t", "float", "COMPLEX64_CTR", "1.1920928955078125e-07f",
                                     "11585.237502960394f", "4.6116858809884324e18f", "0.693147180559945309f",
                                     "3.141592653589793f", "1.5707963267948966f");
    out += double_guard_begin;
    out += float_functions("double", "4503599627370496.0");
    out += complex_functions("complex128_t", "double", "COMPLEX128_CTR", "22.0", "4.49e307", "0.693147180559945309",
                             "fma", "KJ_CMUL_RN_D", "709.0");
    out += complex_inverse_functions("complex128_t", "double", "COMPLEX128_CTR", "2.220446049250313e-16", "268435456.0",
                                     "3.351951982485649e153", "0.693147180559945309", "3.141592653589793",
                                     "1.5707963267948966");
    out += double_guard_end;
    out += numpy_ops_preamble();
    return out;
}

}  // namespace

const std::string& expression_math_preamble() {
    static const std::string text = make();
    return text;
}

}  // namespace kjarni::detail
