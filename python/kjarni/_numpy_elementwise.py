"""numpy's elementwise functions on kjarni arrays that kjarni composes (isclose, allclose,
array_equal, nan_to_num, outer, inner, fabs, angle, diff): kjarni/_numpy_common.py says what they
share. inner of arrays of more than one dimension is kjarni/_numpy_linalg.py's tensordot over the
last axes."""

import builtins

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError
from ._numpy_common import Array, Expr, _queue, _evaluated, _axes, _all_true
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
    # numpy's: NaN, +inf and -inf replaced (by default by 0 and the largest finite numbers) in a
    # float array, in each part of a complex one; other arrays as they are.
    queue = _queue("nan_to_num", x)
    kind = numpy.dtype(x.dtype).kind
    if kind not in "fc":
        return x.copy(queue) if copy else x
    if copy:
        x = x.copy(queue)
    parts = (real(x), imag(x)) if kind == "c" else (x,)
    info = numpy.finfo(parts[0].dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    typed = [numpy.asarray(v).astype(parts[0].dtype)[()] for v in (nan, big, small)]  # numpy's copyto casts them
    for part in parts:
        isinf = _kjarni._array_api.unary("isinf", part)
        value = _kjarni.where(_kjarni._array_api.unary("isnan", part), typed[0],
                              _kjarni.where(isinf & (Expr(part) > 0), typed[1], _kjarni.where(isinf, typed[2], part)))
        _kjarni.assign(queue, part, value)
    x.queue = queue
    return x


def _outer(a, b, out=None):
    # numpy's: multiply(a.ravel()[:, newaxis], b.ravel()[newaxis, :], out)
    queue = _queue("outer", a, b, out)
    from ._numpy_linalg import _on_device
    a, b = _on_device(queue, a), _on_device(queue, b)
    product = Expr(a.ravel().reshape(-1, 1)) * b.ravel().reshape(1, -1)
    if out is None:
        return product
    from ._numpy_polynomial import _with_out
    return _with_out(queue, "outer", product, out)


def _inner(a, b):
    # numpy's: a * b where either is 0-d, else the sums of products over the last axes of both (no
    # conjugate), shaped a.shape[:-1] + b.shape[:-1].
    queue = _queue("inner", a, b)
    from ._numpy_linalg import _on_device, _tensordot
    a, b = _on_device(queue, a), _on_device(queue, b)
    if a.ndim == 0 or b.ndim == 0:
        return Expr(a) * b
    if a.shape[-1] != b.shape[-1]:
        raise ArgumentError(f"numpy.inner: shapes {tuple(a.shape)} and {tuple(b.shape)} not aligned: "
                            f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[-1]} (dim {b.ndim - 1})", "b")
    return _tensordot(a, b, ([-1], [-1]))


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
    queue = _queue("diff", a, prepend, append)
    if a.ndim == 0:
        raise ArgumentError("numpy.diff requires input that is at least one dimensional", "a")
    (axis,) = _axes(axis, a.ndim, "diff")
    if prepend is not None or append is not None:
        # numpy's: each as an array (a Python number too), a 0-d one broadcast to one step along
        # `axis`, concatenated before (after) a.
        from ._numpy_linalg import _on_device
        from ._numpy_shapes import _broadcast_to
        from . import _algorithms

        def operand(value):
            value = _on_device(queue, value if isinstance(value, (Array, Expr)) else numpy.asanyarray(value))
            if value.ndim == 0:
                value = _broadcast_to(value, tuple(1 if k == axis else m for k, m in enumerate(a.shape)))
            return value
        combined = ([operand(prepend)] if prepend is not None else []) + [a] + \
            ([operand(append)] if append is not None else [])
        dtype = numpy.result_type(*(v.dtype for v in combined))
        a = _algorithms.concatenate(queue, [_on_device(queue, v, dtype) for v in combined], axis)
        a.queue = queue
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
