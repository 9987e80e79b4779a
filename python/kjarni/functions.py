"""Function modules (grunnur.functions): each returns a Module rendering one C function named by
its prefix, for arithmetic C cannot spell for complex numbers. Pass it as a render global and call
``${mul}(a, b)`` in the kernel. Dtypes are numpy's."""

from . import _kjarni
from .dtypes import dtype as _d

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


def cast(out_dtype, in_dtype):
    """grunnur's argument order: the output type first."""
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
