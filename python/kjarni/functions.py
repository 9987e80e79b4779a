"""Function modules (grunnur.functions): each returns a Module rendering one C function named by
its prefix, for arithmetic C cannot spell for complex numbers. Pass it as a render global and call
``${mul}(a, b)`` in the kernel. Dtypes are numpy's."""

from . import _kjarni
from .dtypes import dtype as _d, to_numpy as _to_numpy
from .errors import ArgumentError

_f = _kjarni._functions


def _opt(d):
    return None if d is None else _d(d)


def add(*in_dtypes, out_dtype=None):
    """``out ${prefix}(in0 a0, in1 a1, ...)``: the sum."""
    return _f.add([_d(d) for d in in_dtypes], _opt(out_dtype))


def mul(*in_dtypes, out_dtype=None):
    """``out ${prefix}(in0 a0, in1 a1, ...)``: the product."""
    return _f.mul([_d(d) for d in in_dtypes], _opt(out_dtype))


def div(dividend_dtype, divisor_dtype, out_dtype=None):
    return _f.div(_d(dividend_dtype), _d(divisor_dtype), _opt(out_dtype))


def cast(in_dtype, out_dtype):
    """``out ${prefix}(in x)``: ``x`` converted to ``out_dtype`` (grunnur's order: the input type
    first). A complex input with a real output is refused (ArgumentError, a ValueError), as grunnur
    refuses it: the imaginary part would be lost silently."""
    in_np, out_np = _to_numpy(in_dtype), _to_numpy(out_dtype)
    if in_np.kind == "c" and out_np.kind != "c":
        raise ArgumentError(f"a cast from {in_np} to {out_np} would drop the imaginary part", "out_dtype")
    return _f.cast(_d(in_dtype), _d(out_dtype))


def conj(dtype):
    return _f.conj(_d(dtype))


def exp(dtype):
    return _f.exp(_d(dtype))


def norm(dtype):
    return _f.norm(_d(dtype))


def polar(dtype):
    return _f.polar(_d(dtype))


def polar_unit(dtype):
    return _f.polar_unit(_d(dtype))


def pow(base_dtype, exponent_dtype=None, out_dtype=None):  # noqa: A001 (grunnur's name)
    return _f.pow(_d(base_dtype), _opt(exponent_dtype), _opt(out_dtype))
