"""The functions of kjarni's expressions (include/kjarni/expression.hpp), one entry each: its
numpy counterpart, which operand dtypes the generator gives it, and how it carries error bounds
(bounds.py). The C++ runner has the same names (runner/json_decoding.cpp)."""

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import bounds, dtypes
from .bounds import INF, magnitude, mul, rounding


@dataclass
class Function:
    name: str
    arity: int
    numpy: Callable
    # bound(values, errors, result, dtype) -> the result's error before bounds.finish.
    bound: Callable
    # Operand kinds the generator mostly gives it ("b", "i", "u", "f", "c"); others now and then,
    # so that errors are tested too.
    kinds: str = "biufc"
    weight: float = 1.0
    render: str = ""  # how the numpy-like rendering spells it ("{0} + {1}"); default name(args)


def _e(errors, k):
    return np.asarray(errors[k], dtype=np.float64)


def _add_bound(v, e, r, dt):
    return _e(e, 0) + _e(e, 1) + rounding(r, dt, "basic")


def _multiply_bound(v, e, r, dt):
    a, b = magnitude(v[0]), magnitude(v[1])
    prop = mul(b, _e(e, 0)) + mul(a, _e(e, 1)) + mul(_e(e, 0), _e(e, 1))
    if dtypes.kind(dt) == "c":  # a complex product's parts cancel: bounded by |a||b|
        return prop + 2 * rounding(r, dt, "basic", scale=mul(a, b))
    return prop + rounding(r, dt, "basic")


def _divide_bound(v, e, r, dt):
    a, b, rr = magnitude(v[0]), magnitude(v[1]), magnitude(r)
    ea, eb = _e(e, 0), _e(e, 1)
    with np.errstate(all="ignore"):
        prop = np.where(eb > 0, (ea + mul(rr, eb)) / (b - eb), ea / b)
        prop = np.where((ea == 0) & (eb == 0), 0.0, prop)
        prop = np.where((eb > 0) & (b <= eb), INF, prop)
        scale = a / b if dtypes.kind(dt) == "c" else None
    factor = 4 if dtypes.kind(dt) == "c" else 1
    return prop + factor * rounding(r, dt, "divide", scale=scale)


def _remainder_bound(v, e, r, dt):
    # The remainder jumps where a / b crosses an integer: any input doubt is undecidable.
    ea, eb = _e(e, 0), _e(e, 1)
    return np.where(ea + eb > 0, INF, rounding(r, dt, "basic", scale=magnitude(v[1])))


def _same_bound(v, e, r, dt):
    return _e(e, 0) + 0.0 * magnitude(r)


def _abs_bound(v, e, r, dt):
    if np.asarray(v[0]).dtype.kind == "c":  # |z| through hypot: a rounding of its own
        return _e(e, 0) + rounding(r, dt, "hypot")
    return _same_bound(v, e, r, dt)


def _comparison_bound(v, e, r, dt):
    ea, eb = _e(e, 0), _e(e, 1)
    with np.errstate(all="ignore"):
        a = np.asarray(v[0])
        b = np.asarray(v[1])
        wide = np.complex128 if (a.dtype.kind == "c" or b.dtype.kind == "c") else np.float64
        gap = np.abs(a.astype(wide) - b.astype(wide))
    doubt = ea + eb
    return np.where((doubt > 0) & ~(gap > doubt), INF, 0.0)


def _sqrt_bound(v, e, r, dt):
    a, ea = np.asarray(v[0]), _e(e, 0)
    m = magnitude(a)
    with np.errstate(all="ignore"):
        prop = np.minimum(np.where(m > 0, ea / (2 * np.sqrt(m)), INF), np.sqrt(ea))
    prop = np.where(ea == 0, 0.0, prop)
    if a.dtype.kind == "c":
        cut = (a.real < 0) & (np.abs(a.imag) <= ea) & (ea > 0)
        return np.where(cut, INF, prop + 2 * rounding(r, dt, "sqrt"))
    return np.where((ea > 0) & (m <= ea), INF, prop + rounding(r, dt, "sqrt"))


def _exp_bound(v, e, r, dt):
    with np.errstate(all="ignore"):
        prop = mul(magnitude(r), np.expm1(_e(e, 0)))
    factor = 2 if dtypes.kind(dt) == "c" else 1
    return prop + factor * rounding(r, dt, "exp")


def _log_bound(v, e, r, dt):
    a, ea = np.asarray(v[0]), _e(e, 0)
    m = magnitude(a)
    with np.errstate(all="ignore"):
        prop = np.where(ea > 0, ea / (m - ea), 0.0)
    doubt = (ea > 0) & (m <= ea)
    if a.dtype.kind == "c":
        doubt |= (a.real < 0) & (np.abs(a.imag) <= ea) & (ea > 0)
        # log|a| through hypot loses absolute, not relative, accuracy near |a| = 1.
        return np.where(doubt, INF, prop + 2 * rounding(r, dt, "log", scale=magnitude(r) + 1))
    return np.where(doubt, INF, prop + rounding(r, dt, "log"))


def _trig_bound(key):
    def bound(v, e, r, dt):
        a = np.asarray(v[0])
        ea = _e(e, 0)
        if a.dtype.kind == "c":
            with np.errstate(all="ignore"):
                c = np.cosh(np.abs(a.imag).astype(np.float64))
                # Where one part overflowed, the other (a product of two factors) is bounded by its
                # own size, as rounding() bounds such results; |r| + c would be infinite there and
                # its bound 0, which a device's 2-ulp exp (CUDA's expf) already misses.
                one_part_infinite = ~np.isfinite(magnitude(r))
                scaled = rounding(r, dt, key, scale=np.where(one_part_infinite, 0.0, magnitude(r) + c))
                return mul(c, ea) + 2 * np.where(one_part_infinite, rounding(r, dt, key), scaled)
        return ea + rounding(r, dt, key)
    return bound


def _tanh_bound(v, e, r, dt):
    a, ea = np.asarray(v[0]), _e(e, 0)
    if a.dtype.kind == "c":
        rr = magnitude(r)
        with np.errstate(all="ignore"):
            d = np.abs(1 - np.asarray(r).astype(np.complex128) ** 2)
        return mul(d, ea) + 2 * rounding(r, dt, "tanh", scale=rr * (1 + rr) + 1)
    return ea + rounding(r, dt, "tanh")


def _power_bound(v, e, r, dt):
    if not dtypes.is_inexact(dt):
        return np.where(np.maximum(_e(e, 0), _e(e, 1)) > 0, INF, 0.0)  # integer powers are exact
    a, b = np.asarray(v[0]), np.asarray(v[1])
    ea, eb = _e(e, 0), _e(e, 1)
    ma, mb, rr = magnitude(a), magnitude(b), magnitude(r)
    with np.errstate(all="ignore"):
        # |log a|: a complex base's phase counts too (a^b's change with b is a^b log a; a base of
        # modulus 1 has log|a| = 0 but |log a| its phase).
        la = np.abs(np.log(np.where(ma > 0, a.astype(np.complex128) if a.dtype.kind == "c" else ma, 1.0)))
        prop = mul(rr, np.where(ea > 0, mb * ea / ma, 0.0) + mul(la, eb))
        prop = np.where((ea > 0) & (ma <= ea), INF, prop)
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        bound = prop + 2 * rounding(r, dt, "power", scale=mul(rr, mb + la + 2))
        # The result's phase, b arg(a), is known to (k + n) eps (|b| + |log|a|| + 2) radians (the
        # scale above, relative); where a part overflowed, its sign is that of the phase's cosine or
        # sine: past half a radian of doubt (np.power(complex64, 2**31)), the sign is undecided on
        # either side.
        k, n = bounds.ULPS["power"]
        with np.errstate(all="ignore"):
            rc = np.asarray(r).astype(np.complex128)
            overflowed = np.isinf(rc.real) | np.isinf(rc.imag)
            phase_doubt = (k + n) * dtypes.eps(dt) * (mb + la + 2)
        return np.where(overflowed & (phase_doubt >= 0.5), INF, bound)
    # A negative base's power is a number only at whole exponents: any doubt about the exponent
    # decides between a number and NaN (np.power(-31333, tanh(-31333)): numpy's tanh is -1 exactly,
    # a device's 1 - 2^-24 is within its ulps, and the power NaN).
    return np.where((a < 0) & (eb > 0), INF, prop + rounding(r, dt, "power"))


def _select_bound(v, e, r, dt):
    return np.maximum(_e(e, 0), _e(e, 1))


def _where_bound(v, e, r, dt):
    c = np.asarray(v[0]).astype(bool)
    return np.where(np.isinf(_e(e, 0)), INF, np.where(c, _e(e, 1), _e(e, 2)))


def _clip_bound(v, e, r, dt):
    return np.maximum(np.maximum(_e(e, 0), _e(e, 1)), _e(e, 2))


def astype_bound(value, err, result, target):
    """A conversion: exact where its input is (both sides round to nearest); a float near an
    integer step (to integers) or near zero (to bool) with doubt is undecided."""
    a = np.asarray(value)
    err = np.asarray(err, dtype=np.float64)
    with np.errstate(all="ignore"):
        real = a.real.astype(np.float64) if a.dtype.kind == "c" else a.astype(np.float64)
        tk = dtypes.kind(target)
        if tk == "b":
            return np.where((err > 0) & (np.abs(real) <= err) & ~((a.dtype.kind == "c") & (a.imag != 0)), INF, 0.0)
        if tk in "iu":
            doubt = (err > 0) & (np.trunc(real - err) != np.trunc(real + err))
            return np.where(doubt, INF, 0.0)
        return np.where(err > 0, err + rounding(result, target, "basic"), 0.0)


def _power(a, b):
    return np.power(a, b)


# ---- the rest of kjarni's functions (include/kjarni/expression.hpp) ----------------------------


def _real(x):
    """x as float64 (bounds only; complex operands are refused by these functions)."""
    a = np.asarray(x)
    return (a.real if a.dtype.kind == "c" else a).astype(np.float64)


def _exact_unless_doubt(v, e, r, dt):
    """Results that are exact where the inputs are (bitwise, shifts): undecided wherever an input
    has doubt (a float converted to an integer near a step)."""
    doubt = np.zeros(np.shape(r), dtype=bool)
    for k in range(len(v)):
        doubt = doubt | (_e(e, k) > 0)
    return np.where(doubt, INF, 0.0)


def _step_bound(fn):
    """floor, ceil, trunc, rint: exact where the input's doubt interval holds one answer."""
    def bound(v, e, r, dt):
        x, ex = _real(v[0]), _e(e, 0)
        with np.errstate(all="ignore"):
            undecided = (ex > 0) & (fn(x - ex) != fn(x + ex))
        return np.where(undecided, INF, 0.0)
    return bound


def _truth_doubt(v, e, r, dt):
    """logical_*: a value whose doubt reaches zero has no certain truth."""
    doubt = np.zeros(np.shape(r), dtype=bool)
    for k in range(len(v)):
        ek = _e(e, k)
        doubt = doubt | ((ek > 0) & (magnitude(v[k]) <= ek))
    return np.where(doubt, INF, 0.0)


def _isnan_bound(v, e, r, dt):
    return np.zeros(np.shape(r))  # a NaN input with doubt is undecided already (bounds.finish)


def _isinf_bound(v, e, r, dt):
    """isinf, isfinite: undecided where the value may have overflowed on one side only."""
    a, ea = np.asarray(v[0]), _e(e, 0)
    if a.dtype.kind not in "fc":
        return np.zeros(np.shape(r))
    with np.errstate(all="ignore"):
        near_top = (ea > 0) & (magnitude(a) + ea >= dtypes.largest(a.dtype) * (1 - 64 * dtypes.eps(a.dtype)))
    return np.where(near_top, INF, 0.0)


def _sign_bound(v, e, r, dt):
    ea = _e(e, 0)
    m = magnitude(v[0])
    bound = 0.0  # a real sign is exact: -1, 0 or 1
    if np.asarray(v[0]).dtype.kind == "c":
        # z / |z|: the modulus's rounding (hypot) and the division's, and a doubt e about z moves
        # the direction by at most 2 e / |z|.
        with np.errstate(all="ignore"):
            carried = np.where(ea > 0, 2 * ea / np.where(m > 0, m, 1.0), 0.0)
        bound = rounding(r, dt, "hypot") + rounding(r, dt, "divide") + carried
    return np.where((ea > 0) & (m <= ea), INF, bound)


def _square_bound(v, e, r, dt):
    return _multiply_bound([v[0], v[0]], [e[0], e[0]], r, dt)


def _reciprocal_bound(v, e, r, dt):
    return _divide_bound([np.ones_like(np.asarray(v[0])), v[0]], [0.0, e[0]], r, dt)


def _floor_divide_bound(v, e, r, dt):
    # A jump wherever a / b crosses an integer: any input doubt is undecidable; numpy's quotient
    # (a - fmod(a, b)) / b is rounded once, kjarni's division may be off by its ulps.
    ea, eb = _e(e, 0), _e(e, 1)
    return np.where(ea + eb > 0, INF, rounding(r, dt, "divide"))


def _log_family_bound(key, factor):
    """log2 (factor 1 / ln 2), log10 (1 / ln 10): log's bound, scaled."""
    def bound(v, e, r, dt):
        if np.asarray(v[0]).dtype.kind == "c":  # log(z) with both parts scaled (numpy's and kjarni's)
            return max(factor, 1.0) * _log_bound(v, e, r, dt)
        a, ea = _real(v[0]), _e(e, 0)
        m = np.abs(a)
        with np.errstate(all="ignore"):
            prop = np.where(ea > 0, factor * ea / (m - ea), 0.0)
        doubt = (ea > 0) & (m <= ea)
        return np.where(doubt, INF, prop + rounding(r, dt, key))
    return bound


def _log1p_bound(v, e, r, dt):
    if np.asarray(v[0]).dtype.kind == "c":
        # log|1 + z| + i arg(1 + z), numpy's and kjarni's, with 1 + z rounded first: accurate to
        # the type's epsilon times (1 + |z|) / |1 + z|, not relative to a small result; the cut
        # along x < -1 and the pole at z = -1 undecided within the doubt.
        a, ea = np.asarray(v[0]), _e(e, 0)
        with np.errstate(all="ignore"):
            w = 1.0 + a.astype(np.complex128)
            m = np.abs(w)
            prop = np.where(ea > 0, ea / (m - ea), 0.0)
            doubt = ((ea > 0) & (m <= ea)) | ((w.real < 0) & (np.abs(w.imag) <= ea) & (ea > 0))
            scale = magnitude(r) + (1.0 + magnitude(a)) / m
        # (z = -1 exactly: an infinite result, compared exactly)
        return np.where(doubt, INF, np.where(np.isfinite(scale), prop + 2 * rounding(r, dt, "log1p", scale=scale),
                                             0.0))
    a, ea = _real(v[0]), _e(e, 0)
    m = np.abs(1.0 + a)
    with np.errstate(all="ignore"):
        prop = np.where(ea > 0, ea / (m - ea), 0.0)
    return np.where((ea > 0) & (m <= ea), INF, prop + rounding(r, dt, "log1p"))


def _exp_family_bound(key, rate, offset):
    """expm1 (rate 1, offset 1: d/dx = |r| + 1 at most), exp2 (rate ln 2, offset 0)."""
    def bound(v, e, r, dt):
        if np.asarray(v[0]).dtype.kind == "c" and key == "exp2":  # exp of z with both parts times ln 2
            return _exp_bound(v, [rate * _e(e, 0)], r, dt)
        if np.asarray(v[0]).dtype.kind == "c":
            # expm1(x) cos y - 2 sin^2(y / 2) + i e^x sin y: the real part's two terms may cancel,
            # so its roundings scale with their sizes; its change with |e^z| = e^x.
            with np.errstate(all="ignore"):
                z = np.asarray(v[0]).astype(np.complex128)
                terms = np.abs(np.expm1(z.real)) + 2 * np.sin(z.imag / 2) ** 2
                prop = mul(np.exp(z.real), np.expm1(_e(e, 0)))
            return prop + 2 * rounding(r, dt, key, scale=magnitude(r) + terms)
        with np.errstate(all="ignore"):
            prop = mul(magnitude(r) + offset, np.expm1(rate * _e(e, 0)))
        return prop + rounding(r, dt, key)
    return bound


def _tan_bound(v, e, r, dt):
    if np.asarray(v[0]).dtype.kind == "c":  # -i tanh(iz): tanh's bound, 1 + tan^2 for 1 - tanh^2
        a, ea = np.asarray(v[0]), _e(e, 0)
        rr = magnitude(r)
        with np.errstate(all="ignore"):
            d = np.abs(1 + np.asarray(r).astype(np.complex128) ** 2)
            c = np.abs(np.cos(a.astype(np.complex128)))  # a pole where cos z = 0 (on the real axis)
        bound = mul(d, ea) + 2 * rounding(r, dt, "tan", scale=rr * (1 + rr) + 1)
        return np.where((ea > 0) & (c <= 2 * ea), INF, bound)
    a, ea = _real(v[0]), _e(e, 0)
    with np.errstate(all="ignore"):
        rr = magnitude(r)
        prop = mul(1.0 + rr * rr, ea)
        pole = (ea > 0) & (np.abs(np.cos(a)) <= 2 * ea)
    return np.where(pole, INF, prop + rounding(r, dt, "tan"))


# The inverse functions of complex values: |f'(z)| at the value and the branch cut each crosses
# (C99's, numpy's: the real axis past +-1 for arcsin, arccos and arctanh, below 1 for arccosh; the
# imaginary axis past +-i for arcsinh and arctan). A value whose doubt reaches the cut, or where the
# slope changes too fast for a first-order bound (a branch point or a pole within the doubt), is
# undecided; else the slope times the doubt, and two roundings relative to |f(z)|.
_INVERSE_SLOPES = {
    "arcsin": (lambda z: 1 / np.abs(np.sqrt(1 - z * z)), "real"),
    "arccos": (lambda z: 1 / np.abs(np.sqrt(1 - z * z)), "real"),
    "arctanh": (lambda z: 1 / np.abs(1 - z * z), "real"),
    "arccosh": (lambda z: 1 / np.abs(np.sqrt(z - 1) * np.sqrt(z + 1)), "below1"),
    "arcsinh": (lambda z: 1 / np.abs(np.sqrt(1 + z * z)), "imag"),
    "arctan": (lambda z: 1 / np.abs(1 + z * z), "imag"),
}


def _complex_inverse_bound(key, v, e, r, dt):
    z = np.asarray(v[0]).astype(np.complex128)
    ez = _e(e, 0)
    slope_of, cut = _INVERSE_SLOPES[key]
    with np.errstate(all="ignore"):
        slope = slope_of(z)
        prop = np.where(ez > 0, mul(slope, ez), 0.0)
        x, y = z.real, z.imag
        if cut == "real":
            crosses = (np.abs(y) <= ez) & (np.abs(x) + ez > 1)
        elif cut == "imag":
            crosses = (np.abs(x) <= ez) & (np.abs(y) + ez > 1)
        else:
            crosses = (np.abs(y) <= ez) & (x - ez < 1)
        undecided = (ez > 0) & (crosses | ~(prop < 0.25) | ~np.isfinite(slope))
    return np.where(undecided, INF, prop + 2 * rounding(r, dt, key))


def _arcsin_bound(key):
    def bound(v, e, r, dt):
        if np.asarray(v[0]).dtype.kind == "c":
            return _complex_inverse_bound(key, v, e, r, dt)
        a, ea = _real(v[0]), _e(e, 0)
        with np.errstate(all="ignore"):
            room = 1.0 - np.minimum(np.abs(a) + ea, 1.0) ** 2
            prop = np.where(ea > 0, ea / np.sqrt(room), 0.0)
            edge = (ea > 0) & (np.abs(a) + ea >= 1.0) & (np.abs(a) - ea <= 1.0)
        return np.where(edge, INF, prop + rounding(r, dt, key))
    return bound


def _flat_bound(key):
    """arctan, arcsinh: derivatives at most 1 (of real values)."""
    def bound(v, e, r, dt):
        if np.asarray(v[0]).dtype.kind == "c":
            return _complex_inverse_bound(key, v, e, r, dt)
        return _e(e, 0) + rounding(r, dt, key)
    return bound


def _hyperbolic_bound(key):
    """sinh, cosh: derivatives at most |r| + 1; of complex values sin's bound with the parts'
    roles exchanged (sinh z = -i sin(iz), cosh z = cos(iz))."""
    def bound(v, e, r, dt):
        a = np.asarray(v[0])
        if a.dtype.kind == "c":
            return _trig_bound(key)([1j * a.astype(np.complex128)], e, r, dt)
        with np.errstate(all="ignore"):
            prop = mul(magnitude(r) + 1.0, np.expm1(_e(e, 0)))
        return prop + rounding(r, dt, key)
    return bound


def _arccosh_bound(v, e, r, dt):
    if np.asarray(v[0]).dtype.kind == "c":
        return _complex_inverse_bound("arccosh", v, e, r, dt)
    a, ea = _real(v[0]), _e(e, 0)
    with np.errstate(all="ignore"):
        low = a - ea
        prop = np.where(ea > 0, ea / np.sqrt(np.maximum(low * low - 1.0, 0.0)), 0.0)
        edge = (ea > 0) & (low <= 1.0) & (a + ea >= 1.0)
    return np.where(edge, INF, prop + rounding(r, dt, "arccosh"))


def _arctanh_bound(v, e, r, dt):
    if np.asarray(v[0]).dtype.kind == "c":
        return _complex_inverse_bound("arctanh", v, e, r, dt)
    a, ea = _real(v[0]), _e(e, 0)
    with np.errstate(all="ignore"):
        top = np.abs(a) + ea
        prop = np.where(ea > 0, ea / (1.0 - np.minimum(top, 1.0) ** 2), 0.0)
        edge = (ea > 0) & (top >= 1.0) & (np.abs(a) - ea <= 1.0)
    return np.where(edge, INF, prop + rounding(r, dt, "arctanh"))


def _arctan2_bound(v, e, r, dt):
    y, x = _real(v[0]), _real(v[1])
    ey, ex = _e(e, 0), _e(e, 1)
    with np.errstate(all="ignore"):
        h = np.hypot(x, y)
        doubt = ex + ey
        prop = np.where(doubt > 0, doubt / (h - doubt), 0.0)
        # The cut along negative x (+pi against -pi) and the origin: no certain angle.
        undecided = (doubt > 0) & ((h <= doubt) | ((x < ex) & (np.abs(y) <= ey)))
    return np.where(undecided, INF, prop + rounding(r, dt, "arctan2"))


def _hypot_bound(v, e, r, dt):
    return _e(e, 0) + _e(e, 1) + rounding(r, dt, "hypot")


def _copysign_bound(v, e, r, dt):
    # A NaN's sign bit is the platform's (x86's 0 / 0 is -NaN, a GPU's +NaN): undecided wherever
    # the sign comes from a NaN, or from a value whose doubt reaches zero.
    b, eb = _real(v[1]), _e(e, 1)
    undecided = np.isnan(b) | ((eb > 0) & (np.abs(b) <= eb))
    return np.where(undecided, INF, _e(e, 0) + 0.0 * magnitude(r))


def _fminmax_bound(v, e, r, dt):
    # Of +0.0 and -0.0 numpy's fmin and fmax return either, by the length and the SIMD path
    # (docs/numpy-differences.md): the sign of such a zero is undecided.
    a, b = _real(v[0]), _real(v[1])
    signed_zeros = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
    return np.where(signed_zeros, INF, _select_bound(v, e, r, dt))


def _cbrt_bound(v, e, r, dt):
    # d cbrt(x) = cbrt(x) / (3 x) dx; near zero cbrt is not Lipschitz: at most 2 cbrt(e).
    x, ex = _real(v[0]), _e(e, 0)
    m = np.abs(x)
    with np.errstate(all="ignore"):
        prop = np.minimum(np.where(m > 0, magnitude(r) * ex / (3 * m), INF), 2 * np.cbrt(ex))
    return np.where(ex == 0, 0.0, prop) + rounding(r, dt, "cbrt")


def _scaling_bound(factor):
    """deg2rad (factor pi / 180), rad2deg: one product by numpy's own constant, both sides."""
    def bound(v, e, r, dt):
        return factor * _e(e, 0) + rounding(r, dt, "basic")
    return bound


def _signbit_bound(v, e, r, dt):
    # A NaN's sign bit is the platform's (copysign's bound says why); a value whose doubt reaches
    # zero has no certain sign.
    x, ex = _real(v[0]), _e(e, 0)
    return np.where(np.isnan(x) | ((ex > 0) & (np.abs(x) <= ex)), INF, 0.0)


def _spacing_bound(v, e, r, dt):
    # Exact, and constant within a binade: undecided where the doubt reaches another binade.
    x, ex = _real(v[0]), _e(e, 0)
    with np.errstate(all="ignore"):
        t = np.dtype(np.asarray(r).dtype)
        same = np.spacing((x - ex).astype(t)) == np.spacing((x + ex).astype(t))
    return np.where((ex > 0) & ~same, INF, 0.0)


def _logaddexp_bound(v, e, r, dt):
    # Its change with either operand is at most 1 (e^x / (e^x + e^y)).
    return _e(e, 0) + _e(e, 1) + rounding(r, dt, "logaddexp", scale=magnitude(r) + 1)


def _heaviside_bound(v, e, r, dt):
    x, ex = _real(v[0]), _e(e, 0)
    undecided = (ex > 0) & (np.abs(x) <= ex)
    return np.where(undecided, INF, np.where(x == 0, _e(e, 1), 0.0))


def _ldexp_bound(v, e, r, dt):
    # x 2^n, correctly rounded on both sides: exact where x and n are; a doubt about n (a float
    # converted near a step) is undecided, one about x scales by 2^n.
    n = np.asarray(v[1]).astype(np.float64)
    with np.errstate(all="ignore"):
        carried = mul(_e(e, 0), np.exp2(np.clip(n, -2000, 2000)))
    return np.where(_e(e, 1) > 0, INF, carried + np.where(_e(e, 0) > 0, rounding(r, dt, "basic"), 0.0))


FUNCTIONS = {f.name: f for f in [
    Function("add", 2, np.add, _add_bound, render="({0} + {1})", weight=3),
    Function("subtract", 2, np.subtract, _add_bound, kinds="iufc", render="({0} - {1})", weight=2),
    Function("multiply", 2, np.multiply, _multiply_bound, render="({0} * {1})", weight=3),
    Function("divide", 2, np.divide, _divide_bound, render="({0} / {1})", weight=2),
    Function("remainder", 2, np.remainder, _remainder_bound, kinds="iuf", render="({0} % {1})"),
    Function("negative", 1, np.negative, _same_bound, kinds="iufc", render="(-{0})"),
    Function("equal", 2, np.equal, _comparison_bound, render="({0} == {1})"),
    Function("not_equal", 2, np.not_equal, _comparison_bound, render="({0} != {1})"),
    Function("less", 2, np.less, _comparison_bound, kinds="biuf", render="({0} < {1})"),
    Function("less_equal", 2, np.less_equal, _comparison_bound, kinds="biuf", render="({0} <= {1})"),
    Function("greater", 2, np.greater, _comparison_bound, kinds="biuf", render="({0} > {1})"),
    Function("greater_equal", 2, np.greater_equal, _comparison_bound, kinds="biuf", render="({0} >= {1})"),
    Function("abs", 1, np.abs, _abs_bound, render="np.abs({0})"),
    Function("sqrt", 1, np.sqrt, _sqrt_bound, render="np.sqrt({0})"),
    Function("exp", 1, np.exp, _exp_bound, render="np.exp({0})"),
    Function("log", 1, np.log, _log_bound, render="np.log({0})"),
    Function("sin", 1, np.sin, _trig_bound("sin"), render="np.sin({0})"),
    Function("cos", 1, np.cos, _trig_bound("cos"), render="np.cos({0})"),
    Function("tanh", 1, np.tanh, _tanh_bound, render="np.tanh({0})"),
    Function("power", 2, _power, _power_bound, render="np.power({0}, {1})"),
    Function("minimum", 2, np.minimum, _select_bound, kinds="biuf", render="np.minimum({0}, {1})"),
    Function("maximum", 2, np.maximum, _select_bound, kinds="biuf", render="np.maximum({0}, {1})"),
    Function("where", 3, np.where, _where_bound, render="np.where({0}, {1}, {2})"),
    Function("clip", 3, np.clip, _clip_bound, kinds="biuf", render="np.clip({0}, {1}, {2})"),
    # The rest of kjarni's functions, less often each (together about as often as the above).
    Function("floor_divide", 2, np.floor_divide, _floor_divide_bound, kinds="iuf", weight=0.4,
             render="({0} // {1})"),
    Function("fmod", 2, np.fmod, _remainder_bound, kinds="iuf", weight=0.4),
    Function("floor", 1, np.floor, _step_bound(np.floor), kinds="biuf", weight=0.3),
    Function("ceil", 1, np.ceil, _step_bound(np.ceil), kinds="biuf", weight=0.3),
    Function("trunc", 1, np.trunc, _step_bound(np.trunc), kinds="biuf", weight=0.3),
    Function("rint", 1, np.rint, _step_bound(np.rint), kinds="iuf", weight=0.3),
    Function("isnan", 1, np.isnan, _isnan_bound, weight=0.3),
    Function("isinf", 1, np.isinf, _isinf_bound, weight=0.3),
    Function("isfinite", 1, np.isfinite, _isinf_bound, weight=0.3),
    Function("sign", 1, np.sign, _sign_bound, kinds="iuf", weight=0.3),
    Function("square", 1, np.square, _square_bound, kinds="iufc", weight=0.3),
    Function("positive", 1, np.positive, _same_bound, kinds="iufc", weight=0.2),
    Function("reciprocal", 1, np.reciprocal, _reciprocal_bound, kinds="f", weight=0.2),
    Function("log2", 1, np.log2, _log_family_bound("log2", 1 / math.log(2)), kinds="iufc", weight=0.2),
    Function("log10", 1, np.log10, _log_family_bound("log10", 1 / math.log(10)), kinds="iufc", weight=0.2),
    Function("log1p", 1, np.log1p, _log1p_bound, kinds="iufc", weight=0.2),
    Function("expm1", 1, np.expm1, _exp_family_bound("expm1", 1.0, 1.0), kinds="iufc", weight=0.2),
    Function("exp2", 1, np.exp2, _exp_family_bound("exp2", math.log(2), 0.0), kinds="iufc", weight=0.2),
    Function("tan", 1, np.tan, _tan_bound, kinds="iufc", weight=0.2),
    Function("arcsin", 1, np.arcsin, _arcsin_bound("arcsin"), kinds="iufc", weight=0.2),
    Function("arccos", 1, np.arccos, _arcsin_bound("arccos"), kinds="iufc", weight=0.2),
    Function("arctan", 1, np.arctan, _flat_bound("arctan"), kinds="iufc", weight=0.2),
    Function("sinh", 1, np.sinh, _hyperbolic_bound("sinh"), kinds="iufc", weight=0.2),
    Function("cosh", 1, np.cosh, _hyperbolic_bound("cosh"), kinds="iufc", weight=0.2),
    Function("arcsinh", 1, np.arcsinh, _flat_bound("arcsinh"), kinds="iufc", weight=0.2),
    Function("arccosh", 1, np.arccosh, _arccosh_bound, kinds="iufc", weight=0.2),
    Function("arctanh", 1, np.arctanh, _arctanh_bound, kinds="iufc", weight=0.2),
    Function("arctan2", 2, np.arctan2, _arctan2_bound, kinds="iuf", weight=0.2),
    Function("hypot", 2, np.hypot, _hypot_bound, kinds="iuf", weight=0.2),
    Function("copysign", 2, np.copysign, _copysign_bound, kinds="iuf", weight=0.2),
    Function("fmin", 2, np.fmin, _fminmax_bound, kinds="biuf", weight=0.3),
    Function("fmax", 2, np.fmax, _fminmax_bound, kinds="biuf", weight=0.3),
    Function("bitwise_and", 2, np.bitwise_and, _exact_unless_doubt, kinds="biu", weight=0.3, render="({0} & {1})"),
    Function("bitwise_or", 2, np.bitwise_or, _exact_unless_doubt, kinds="biu", weight=0.3, render="({0} | {1})"),
    Function("bitwise_xor", 2, np.bitwise_xor, _exact_unless_doubt, kinds="biu", weight=0.3, render="({0} ^ {1})"),
    Function("invert", 1, np.invert, _exact_unless_doubt, kinds="biu", weight=0.3, render="(~{0})"),
    Function("left_shift", 2, np.left_shift, _exact_unless_doubt, kinds="iu", weight=0.3, render="({0} << {1})"),
    Function("right_shift", 2, np.right_shift, _exact_unless_doubt, kinds="iu", weight=0.3, render="({0} >> {1})"),
    Function("logical_and", 2, np.logical_and, _truth_doubt, weight=0.2),
    Function("logical_or", 2, np.logical_or, _truth_doubt, weight=0.2),
    Function("logical_xor", 2, np.logical_xor, _truth_doubt, weight=0.2),
    Function("logical_not", 1, np.logical_not, _truth_doubt, weight=0.2),
    Function("cbrt", 1, np.cbrt, _cbrt_bound, kinds="iuf", weight=0.2),
    Function("deg2rad", 1, np.deg2rad, _scaling_bound(math.pi / 180), kinds="iuf", weight=0.2),
    Function("rad2deg", 1, np.rad2deg, _scaling_bound(180 / math.pi), kinds="iuf", weight=0.2),
    Function("signbit", 1, np.signbit, _signbit_bound, kinds="iuf", weight=0.2),
    Function("spacing", 1, np.spacing, _spacing_bound, kinds="iuf", weight=0.2),
    Function("conjugate", 1, np.conjugate, _same_bound, kinds="biufc", weight=0.2),
    Function("bitwise_count", 1, np.bitwise_count, _exact_unless_doubt, kinds="biu", weight=0.2),
    Function("logaddexp", 2, np.logaddexp, _logaddexp_bound, kinds="iuf", weight=0.2),
    Function("logaddexp2", 2, np.logaddexp2, _logaddexp_bound, kinds="iuf", weight=0.2),
    Function("heaviside", 2, np.heaviside, _heaviside_bound, kinds="iuf", weight=0.2),
    Function("nextafter", 2, np.nextafter, _exact_unless_doubt, kinds="iuf", weight=0.2),
    Function("float_power", 2, np.float_power, _power_bound, kinds="iufc", weight=0.2),
    Function("gcd", 2, np.gcd, _exact_unless_doubt, kinds="iu", weight=0.2),
    Function("lcm", 2, np.lcm, _exact_unless_doubt, kinds="iu", weight=0.2),
    Function("ldexp", 2, np.ldexp, _ldexp_bound, kinds="iuf", weight=0.2),
]}
