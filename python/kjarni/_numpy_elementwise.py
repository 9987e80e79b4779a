"""numpy's elementwise functions on kjarni arrays that kjarni composes (isclose, allclose,
array_equal, nan_to_num, outer, inner, fabs, angle, diff): kjarni/_numpy_common.py says what they
share."""

import builtins

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError
from ._numpy_common import Expr, _queue, _evaluated, _refuse, _axes, _all_true
from ._numpy_shapes import real, imag


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    # numpy's: y in result_type(y, 1.0), then |x - y| <= atol + rtol |y| where y is finite, or x == y.
    if isinstance(b, (int, float, complex)) and not isinstance(a, (int, float, complex)):
        # A Python number stays one in numpy's (an int as a float): atol + rtol |y| and isfinite(y)
        # are Python's, weak beside x (float32 x against -1e300: |x - y| is inf, and so is the
        # tolerance 1e295 in float32: close).
        y = float(b) if isinstance(b, int) else b
        tolerance = atol + rtol * abs(y)
        result = _kjarni.absolute(Expr(a) - y) <= tolerance
        if not numpy.isfinite(y):
            result = result & False
        result = result | (Expr(a) == y)
        if equal_nan and numpy.isnan(y):
            result = result | _kjarni._array_api.unary("isnan", a)
        return result
    y = b
    dtype = getattr(b, "dtype", None)
    if dtype is not None:
        wanted = numpy.result_type(dtype, 1.0)
        if wanted != dtype:
            y = Expr(b).astype(wanted)
    elif isinstance(b, int):
        y = float(b)
    x = a
    result = ((_kjarni.absolute(Expr(x) - y) <= atol + rtol * _kjarni.absolute(Expr(y))) &
              _kjarni._array_api.unary("isfinite", y)) | (Expr(x) == y)
    if equal_nan:
        result = result | (_kjarni._array_api.unary("isnan", x) & _kjarni._array_api.unary("isnan", y))
    return result


def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _all_true(_queue("allclose", a, b), _isclose(a, b, rtol, atol, equal_nan))


def _array_equal(a1, a2, equal_nan=False):
    queue = _queue("array_equal", a1, a2)
    if tuple(numpy.shape(a1)) != tuple(numpy.shape(a2)):
        return False
    same = Expr(a1) == a2
    inexact = [numpy.dtype(getattr(v, "dtype", numpy.float64)).kind in "fc" for v in (a1, a2)]
    if equal_nan and builtins.all(inexact):
        same = same | (_kjarni._array_api.unary("isnan", a1) & _kjarni._array_api.unary("isnan", a2))
    return _all_true(queue, same)


def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    queue = _queue("nan_to_num", x)
    kind = numpy.dtype(x.dtype).kind
    if kind == "c":
        _refuse("nan_to_num", "complex array")
    if kind != "f":
        return x.copy(queue) if copy else x
    info = numpy.finfo(x.dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    typed = [numpy.asarray(v).astype(x.dtype)[()] for v in (nan, big, small)]  # numpy's copyto casts them
    isinf = _kjarni._array_api.unary("isinf", x)
    value = _kjarni.where(_kjarni._array_api.unary("isnan", x), typed[0],
                          _kjarni.where(isinf & (Expr(x) > 0), typed[1], _kjarni.where(isinf, typed[2], x)))
    if copy:
        return _evaluated(queue, value)
    _kjarni.assign(queue, x, value)
    return x


def _outer(a, b, out=None):
    if out is not None:
        _refuse("outer", "out")
    return Expr(a.ravel().reshape(-1, 1)) * b.ravel().reshape(1, -1)


def _inner(a, b):
    if getattr(a, "ndim", 0) != 1 or getattr(b, "ndim", 0) != 1:
        _refuse("inner", "arrays of other than 1 dimension")
    from ._numpy import _np_dot
    return _np_dot(a, b)


def fabs(x):
    """numpy's fabs ufunc (kjarni/_numpy.py's ufunc table): numpy has float loops only, so an
    integer or bool array is cast to the first float type that holds it safely (int8 -> float16,
    int32 -> float64); complex has none."""
    dtype = numpy.dtype(Expr(x).dtype)
    if dtype.kind == "c":
        raise ArgumentTypeError("numpy.fabs is not defined for complex values (numpy's UFuncTypeError)", "x")
    loop = next(t for t in (numpy.float16, numpy.float32, numpy.float64) if numpy.can_cast(dtype, t))
    return _kjarni.absolute(Expr(x) if dtype == loop else Expr(x).astype(loop))


def _angle(z, deg=False):
    # numpy's: arctan2(z.imag, z.real), in degrees on request.
    if numpy.dtype(z.dtype).kind == "c":
        result = _kjarni._array_api.binary("atan2", imag(z), real(z))
    else:
        result = _kjarni._array_api.binary("atan2", 0, z)
    return result * (180 / numpy.pi) if deg else result


def _diff(a, n=1, axis=-1, prepend=None, append=None):
    # numpy's: a[1:] - a[:-1] along `axis`, n times (booleans by not_equal).
    if n == 0:
        return a  # (numpy's: before it looks at the axis)
    if n < 0:
        raise ArgumentError(f"numpy.diff: order must be non-negative but got {n!r}", "n")
    if prepend is not None or append is not None:
        _refuse("diff", "prepend" if prepend is not None else "append")
    queue = _queue("diff", a)
    (axis,) = _axes(axis, a.ndim, "diff")
    for _ in range(n):
        upper = a[tuple(slice(1, None) if k == axis else slice(None) for k in range(a.ndim))]
        lower = a[tuple(slice(None, -1) if k == axis else slice(None) for k in range(a.ndim))]
        a = _evaluated(queue, Expr(upper) != lower if numpy.dtype(a.dtype) == numpy.bool_ else Expr(upper) - lower)
        a.queue = queue
    return a


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {
        "isclose": _isclose, "allclose": _allclose, "array_equal": _array_equal, "nan_to_num": _nan_to_num,
        "outer": _outer, "diff": _diff, "inner": _inner, "angle": _angle,
    }
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
