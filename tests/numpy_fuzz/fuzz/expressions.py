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
        la = np.abs(np.log(np.where(ma > 0, ma, 1.0)))
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
    return prop + rounding(r, dt, "power")


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
]}
