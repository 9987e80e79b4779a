"""The standard's elementwise functions of complex arrays that kjarni's expressions have no complex
form of (acos acosh asin asinh atan atanh cosh sinh tan expm1 log1p log2 log10), on the device:
each is written as two real expressions of the argument's real and imaginary parts (x, y), the
result's real and imaginary parts, which _elementwise evaluates into the two halves of a complex
array. Real arithmetic keeps the infinities of the parts apart (a complex product with a real
scalar would turn inf * 0 into NaN) and lets each formula take the form that does not cancel.

The values are numpy's principal values and branch cuts (C99's). The inverse sine and cosine
follow Hull, Fairgrieve and Tang (ACM TOMS 23(3), 1997); expm1, log2 and log10 are numpy's own
formulas, log1p numpy's away from 0 and log1p(2x + x^2 + y^2) / 2 for its real part near 0 (numpy
keeps only an absolute eps there). Measured against numpy over magnitudes 1e-6..1e6, the unit
circle and the branch points: within 3 ulp of |f(z)| (python/tests/test_array_api.py allows 16).
The zeros, infinities and NaNs of C99's Annex G come out as numpy gives them for every
combination of 0, +-0.5, +-1, +-2, +-1e30, 1e-30, +-inf and NaN in either part (but log1p(1e-30),
which numpy rounds to 0)."""

import math

import numpy

from .. import _kjarni

_work = _kjarni._array_api
_LN2 = math.log(2.0)
_HALF_PI = math.pi / 2
# Below this B = |x| / A (x = Re z, y = Im z, A = (|z + 1| + |z - 1|) / 2), asin's real part is
# asin(B) directly; above, the arctangent forms of Hull et al., which do not lose the digits asin
# loses near 1.
_B_CROSS = 0.6417


def _u(name, a):
    return _work.unary(name, a)


def _b(name, a, b):
    return _work.binary(name, a, b)


def _where(condition, a, b):
    return _kjarni.where(condition, a, b)


def _and(a, b):
    return _b("logical_and", a, b)


def _or(a, b):
    return _b("logical_or", a, b)


def _not_finite(a):
    return _u("logical_not", _u("isfinite", a))


def _limits(dtype):
    """eps, and the |z| past which asin(z) = -i log(2iz) to within eps (its error is O(1/|z|^2))."""
    eps = float(numpy.finfo(dtype).eps)
    return eps, 4.0 / math.sqrt(eps)


def _asin_parts(x, y, dtype):
    """For x, y >= 0: (Re asin z, Re acos z, Im asin z), each >= 0 (Im acos z = -Im asin z)."""
    eps, big = _limits(dtype)
    r = _b("hypot", x + 1.0, y)
    s = _b("hypot", x - 1.0, y)
    a = (r + s) * 0.5
    b = x / a
    y2 = y * y
    apx = a + x
    # 1 - B and the like without cancellation (Hull et al.'s forms for x <= 1 and x > 1).
    d = _u("sqrt", apx * 0.5 * (y2 / (r + (x + 1.0)) + (s + (1.0 - x))))
    e = y * _u("sqrt", (apx / (r + (x + 1.0)) + apx / (s + (x - 1.0))) * 0.5)
    small_b = b <= _B_CROSS
    near = x <= 1.0
    re_asin = _where(small_b, _u("asin", b), _where(near, _u("atan", x / d), _u("atan", x / e)))
    re_acos = _where(small_b, _u("acos", b), _where(near, _u("atan", d / x), _u("atan", e / x)))
    # A - 1 without cancellation where A is near 1; log(A + sqrt(A^2 - 1)) beyond.
    am1 = _where(x < 1.0, (y2 / (r + (x + 1.0)) + y2 / (s + (1.0 - x))) * 0.5,
                 (y2 / (r + (x + 1.0)) + (s + (x - 1.0))) * 0.5)
    im = _where(a <= 1.5, _u("log1p", am1 + _u("sqrt", am1 * (a + 1.0))), _u("log", a + _u("sqrt", a * a - 1.0)))
    # y so small beside 1 - x that y^2 is lost: Im asin z = y / sqrt(1 - x^2) to first order.
    tiny_y = _and(x < 1.0, y < eps * (1.0 - x))
    im = _where(tiny_y, y / _u("sqrt", (1.0 - x) * (1.0 + x)), im)
    # |z| large: asin z = pi/2 - arg z + i log(2|z|) (halved before hypot: no overflow).
    large = _or(x > big, y > big)
    re_asin = _where(large, _b("atan2", x, y), re_asin)
    re_acos = _where(large, _b("atan2", y, x), re_acos)
    im = _where(large, _u("log", _b("hypot", x * 0.5, y * 0.5)) + 2.0 * _LN2, im)
    # x = 0 keeps its real parts whatever y is (C99: asin(0 + i NaN) = 0 + i NaN).
    return _where(x == 0.0, x, re_asin), _where(x == 0.0, _HALF_PI, re_acos), im


def _acos_real(x, re_acos_abs):
    """Re acos z from Re acos(|x| + i|y|): acos(-conj z) = pi - conj(acos z)."""
    return _where(x < 0.0, math.pi - re_acos_abs, re_acos_abs)


def asin(x, y, dtype):
    re, _, im = _asin_parts(_u("abs", x), _u("abs", y), dtype)
    return _b("copysign", re, x), _b("copysign", im, y)


def acos(x, y, dtype):
    _, re, im = _asin_parts(_u("abs", x), _u("abs", y), dtype)
    return _acos_real(x, re), -_b("copysign", im, y)


def asinh(x, y, dtype):
    # asinh z = -i asin(iz), iz = -y + ix.
    re, _, im = _asin_parts(_u("abs", y), _u("abs", x), dtype)
    return _b("copysign", im, x), _b("copysign", re, y)


def acosh(x, y, dtype):
    # acosh z = (Im acos z taken >= 0) + i sign(y) Re acos z (C99: a non-negative real part).
    _, re, im = _asin_parts(_u("abs", x), _u("abs", y), dtype)
    return im, _b("copysign", _acos_real(x, re), y)


def atanh(x, y, dtype):
    ax = _u("abs", x)
    # Re atanh z = log(|1 + z|^2 / |1 - z|^2) / 4 = log1p(4|x| / |1 - |x| + iy|^2) / 4 with x's sign
    # (atanh is odd): the argument of log1p is never near -1. Im = arg((1 + z)(1 - conj z)) / 2.
    re = _u("log1p", 4.0 * ax / ((1.0 - ax) * (1.0 - ax) + y * y)) * 0.25
    # Within 1/2 of 1 (of |x| + iy) the same as (log|1 + z| - log|1 - z|) / 2, whose hypot keeps a
    # |1 - z| that the square above would underflow.
    gap = _b("hypot", 1.0 - ax, y)
    re = _b("copysign", _where(gap < 0.5, (_u("log", _b("hypot", 1.0 + ax, y)) - _u("log", gap)) * 0.5, re), x)
    im = _b("atan2", 2.0 * y, (1.0 - x) * (1.0 + x) - y * y) * 0.5
    # Where the squares above would overflow: atanh z = i pi/2 sign(y) + 1/z + O(1/z^3).
    h = _b("hypot", x, y)
    large = h > math.sqrt(float(numpy.finfo(dtype).max)) * 0.25
    infinite = _u("isinf", h)
    re = _where(large, _where(infinite, _b("copysign", 0.0, x), x / h / h), re)
    im = _where(large, _where(_u("isnan", y), y, _b("copysign", _HALF_PI, y) - _where(infinite, 0.0, y / h / h)), im)
    # x = 0 stays (C99: atanh(0 + i NaN) = 0 + i NaN).
    return _where(x == 0.0, x, re), im


def atan(x, y, dtype):
    # atan z = -i atanh(iz), iz = -y + ix.
    re, im = atanh(-y, x, dtype)
    return im, -re


def _hyperbolic_products(x, c, s):
    """(cosh(x) * c, sinh(x) * s) without the overflow of cosh(x) where the product is finite:
    past |x| = 20, cosh x = |sinh x| = e^|x| / 2 to within every type's precision, computed as
    (h/2 * c) * h with h = e^(|x|/2) (float32's cosh overflows past 89.4, its products up to 178)."""
    h = _u("exp", _u("abs", x) * 0.5)
    big = _u("abs", x) > 20.0
    cosh_c = _where(big, (h * 0.5 * c) * h, _u("cosh", x) * c)
    sinh_s = _where(big, _b("copysign", 1.0, x) * ((h * 0.5 * s) * h), _u("sinh", x) * s)
    return cosh_c, sinh_s


def sinh(x, y, dtype):
    # A zero part stays where the product would be inf * 0 or 0 * NaN: Im is y where y = 0, Re is x
    # where x = 0 and y is not finite (C99: sinh(inf + 0i) = inf + 0i, sinh(0 + i inf) = 0 + i NaN).
    im, re = _hyperbolic_products(x, _u("sin", y), _u("cos", y))
    re = _where(_and(x == 0.0, _not_finite(y)), x, re)
    # An infinite x with a y not finite: inf + i NaN (C99 leaves the sign; numpy's is +), where
    # cos(y) would make the inf NaN.
    re = _where(_and(_u("isinf", x), _not_finite(y)), _u("abs", x), re)
    return re, _where(y == 0.0, y, im)


def cosh(x, y, dtype):
    # Where y = 0 the imaginary part is the zero sinh(x) * y has, also for infinite x; where x = 0
    # and y is not finite, a zero too (C99: cosh(0 + i inf) = NaN + 0i).
    re, im = _hyperbolic_products(x, _u("cos", y), _u("sin", y))
    zero = _b("copysign", 0.0, x) * y
    im = _where(_and(x == 0.0, _not_finite(y)), x, im)
    re = _where(_and(_u("isinf", x), _not_finite(y)), _u("abs", x), re)
    return re, _where(y == 0.0, zero, im)


def tan(x, y, dtype):
    # tan z = (sin x cos x + i sinh y cosh y) / (cos^2 x + sinh^2 y): no cancellation near the
    # poles (cos 2x + cosh 2y would). Past |y| = 20 sinh^2 y dwarfs cos^2 x beyond every type's
    # precision (and would overflow float32 past 44): Re = 4 sin x cos x e^(-2|y|), Im = sign(y).
    sc = _u("sin", x) * _u("cos", x)
    cx, sy = _u("cos", x), _u("sinh", y)
    den = cx * cx + sy * sy
    far = _u("abs", y) > 20.0
    re = _where(far, _where(_u("isinf", y), 0.0, 4.0 * sc * _u("exp", -2.0 * _u("abs", y))), sc / den)
    # (x - x: NaN for an x not finite, where y is, as C99's tan(inf + iy) = NaN + i NaN.)
    im = _where(far, _where(_or(_u("isfinite", x), _u("isinf", y)), _b("copysign", 1.0, y), x - x),
                sy * _u("cosh", y) / den)
    # A zero part stays (C99: tan(0 + i NaN) = 0 + i NaN, tan(inf + 0i) = NaN + 0i), and
    # tan(x + i inf) = 0 + i for every x.
    return _where(x == 0.0, x, re), _where(y == 0.0, y, im)


def expm1(x, y, dtype):
    # numpy's formula: exp(z) - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i exp(x) sin y.
    half = _u("sin", y * 0.5)
    return _u("expm1", x) * _u("cos", y) - 2.0 * half * half, _u("exp", x) * _u("sin", y)


def log1p(x, y, dtype):
    # log|1 + z| is log1p(2x + x^2 + y^2) / 2 near z = 0, where log(hypot(1 + x, y)) (numpy's
    # formula) keeps only an absolute eps; away from 0 the latter (which cannot overflow).
    near_zero = _b("hypot", x, y) < 0.5
    re = _where(near_zero, _u("log1p", x * (2.0 + x) + y * y) * 0.5, _u("log", _b("hypot", x + 1.0, y)))
    return re, _b("atan2", y, x + 1.0)


def _scaled_log(scale):
    def f(x, y, dtype):
        # numpy's: log z with both parts multiplied by 1/log(base).
        return _u("log", _b("hypot", x, y)) * scale, _b("atan2", y, x) * scale
    return f


log2 = _scaled_log(1.0 / _LN2)
log10 = _scaled_log(1.0 / math.log(10.0))

FORMULAS = {
    "acos": acos, "acosh": acosh, "asin": asin, "asinh": asinh, "atan": atan, "atanh": atanh, "cosh": cosh,
    "expm1": expm1, "log1p": log1p, "log2": log2, "log10": log10, "sinh": sinh, "tan": tan,
}
