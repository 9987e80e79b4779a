"""numpy's statistics on kjarni arrays that kjarni composes from its reductions and sorts (ptp,
average, trace, median, percentile, quantile):
kjarni/_numpy_common.py says what they share."""

import builtins
import math

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError, DivisionByZeroError
from ._numpy_common import (Array, Expr, _queue, _evaluated, _refuse, _axes, _new_like, _all_true, _namespace_call,
                            _on_device)
from ._numpy_shapes import _diagonal


def _ptp(a, axis=None, out=None, keepdims=False):
    queue = _queue("ptp", a)
    from . import _algorithms
    if out is None:
        spread = Expr(_algorithms.max(queue, a, axis, keepdims)) - _algorithms.min(queue, a, axis, keepdims)
        return _evaluated(queue, spread)
    # numpy's with out=: the maximum written into out, then out less the minimum (in out's dtype
    # with the array's: int64 data into a float64 out subtract in float64, without wrapping)
    _algorithms.max(queue, a, axis, keepdims, out)
    _kjarni.assign(queue, out, Expr(out) - _algorithms.min(queue, a, axis, keepdims))
    return out


def _average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    queue = _queue("average", a)
    from . import _algorithms
    if weights is None:
        average = _algorithms.mean(queue, a, axis, None, keepdims)
        if average.size == 0:
            # (numpy's scale, a.size / average.size, divides by zero before it is asked for)
            raise DivisionByZeroError("numpy.average: no output elements", "axis")
        if not returned:
            return average
        # (numpy's scale: the count each output averages, in the average's dtype and shape)
        count = math.prod(a.shape) // builtins.max(math.prod(average.shape), 1)
        return average, _new_like("average", average, None, None, count)
    weights = _on_device(queue, weights)
    if tuple(weights.shape) != tuple(a.shape):
        # numpy's 1-d weights along one axis, broadcast over the others; its errors otherwise.
        if axis is None:
            raise ArgumentTypeError("numpy.average: Axis must be specified when shapes of a and weights differ.",
                                    "axis")
        if weights.ndim != 1:
            raise ArgumentTypeError("numpy.average: 1D weights expected when shapes of a and weights differ.",
                                    "weights")
        if isinstance(axis, tuple) or not weights.shape[0] == a.shape[_axes(axis, a.ndim, "average")[0]]:
            raise ArgumentError("numpy.average: Length of weights not compatible with specified axis.", "weights")
        along = _axes(axis, a.ndim, "average")[0]
        weights = numpy.broadcast_to(weights.reshape(tuple(-1 if k == along else 1 for k in range(a.ndim))),
                                     tuple(a.shape))
    # numpy: the weighted sum in result_type(a, weights) (float64 at least for integer and bool
    # arrays) over the sum of the weights in that type; a zero sum of weights is its ZeroDivisionError.
    kinds = numpy.dtype(a.dtype).kind in "biu"
    dtype = numpy.result_type(a.dtype, weights.dtype, "f8") if kinds else numpy.result_type(a.dtype, weights.dtype)
    scale = _algorithms.sum(queue, weights, axis, dtype, keepdims)
    if not _all_true(queue, Expr(scale) != 0):
        raise DivisionByZeroError("numpy.average: the weights sum to zero, can't be normalized",
                            "weights")
    # (the product in that type too: numpy's multiply(a, weights, dtype=...); int8 times float16 in
    # float16 loses what float64 keeps)
    product = Expr(a).astype(dtype) * Expr(weights).astype(dtype)
    total = _algorithms.sum(queue, _evaluated(queue, product), axis, dtype, keepdims)
    average = _evaluated(queue, Expr(total) / scale)
    average.queue = queue
    if returned:
        scale.queue = queue
        return average, scale
    return average


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    queue = _queue("trace", a)
    from . import _algorithms
    return _algorithms.sum(queue, _diagonal(a, offset, axis1, axis2), -1, dtype, False, out)


def _one_axis(what, axis):
    """The axis of a function that takes one (an int, a sequence of one, or None for all)."""
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            _refuse(what, "several axes")
        (axis,) = axis
    return axis


def _finished(queue, result, a, ax, keepdims, out):
    """`result` of a reduction of `a` over axis `ax` (None: all of them) with numpy's keepdims and
    out=: reshaped to keep the reduced axes, on `queue`, or written into `out`."""
    if keepdims:
        result = result.reshape(tuple(1 if ax is None or k == ax else m for k, m in enumerate(a.shape)))
    result.queue = queue
    if out is not None:
        _kjarni.assign(queue, out, result)
        return out
    return result


def _median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    # numpy's: the mean of the middle one or two of the sorted slice (integers in float64), NaN where
    # the slice holds one (sorted last).
    if a.ndim == 0:
        # (numpy's median of a 0-d array is its mean: the element in mean's dtype)
        from . import _algorithms
        return _algorithms.mean(_queue("median", a), a)
    axis = _one_axis("median", axis)
    if numpy.dtype(a.dtype).kind == "c":
        _refuse("median", "complex array")
    queue = _queue("median", a)
    data, ax = (a.reshape(-1), 0) if axis is None else (a, _axes(axis, a.ndim, "median")[0])
    ordered = _namespace_call("median", data, "sort", data, axis=ax)
    n = data.shape[ax]
    middle = slice(n // 2, n // 2 + 1) if n % 2 else slice(n // 2 - 1, n // 2 + 1)
    from . import _algorithms
    result = _algorithms.mean(queue, ordered[tuple(middle if k == ax else slice(None) for k in range(data.ndim))], ax)
    if numpy.dtype(a.dtype).kind == "f" and n > 0:
        last = ordered[tuple(-1 if k == ax else slice(None) for k in range(data.ndim))]
        nan = numpy.array(numpy.nan, dtype=result.dtype)[()]
        result = _evaluated(queue, _kjarni.where(_kjarni._array_api.unary("isnan", last), nan, result))
    return _finished(queue, result, a, ax if axis is not None else None, keepdims, out)


def _nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    # numpy's: the median of the elements that are not NaN (NaN for a slice of NaN only); integer
    # and bool arrays, which hold none, are median's. Each slice sorted (NaNs last), its count c of
    # the others, then the elements at (c - 1) // 2 and c // 2 gathered and averaged in the dtype.
    if numpy.dtype(a.dtype).kind != "f" or a.ndim == 0:
        return _median(a, axis, out, overwrite_input, keepdims)
    axis = _one_axis("nanmedian", axis)
    queue = _queue("nanmedian", a)
    ax = None if axis is None else _axes(axis, a.ndim, "nanmedian")[0]
    kept = () if axis is None else tuple(n for k, n in enumerate(a.shape) if k != ax)
    shape = tuple(1 if axis is None or k == ax else m for k, m in enumerate(a.shape)) if keepdims else kept
    n = a.size if axis is None else a.shape[ax]
    if n == 0 or math.prod(kept) == 0:
        result = _new_like("nanmedian", a, None, shape, numpy.nan)  # numpy's mean of nothing
    else:
        result = _nanmedian_rows(queue, a.reshape(1, n) if axis is None else
                                 a.transpose([k for k in range(a.ndim) if k != ax] + [ax]).copy(queue).reshape(-1, n))
        result = result.reshape(shape)
    return _finished(queue, result, a, ax, False, out)


def _nanmedian_rows(queue, rows):
    """nanmedian along axis 1 of a C-contiguous matrix with rows of at least one element."""
    from . import _algorithms
    n = rows.shape[1]
    ordered = _namespace_call("nanmedian", rows, "sort", rows, axis=1).reshape(-1)
    valid = _algorithms.sum(queue, _evaluated(queue, _kjarni._array_api.unary("logical_not",
                                                     _kjarni._array_api.unary("isnan", rows))), 1, numpy.int64)
    start = Array.from_host(queue, numpy.arange(rows.shape[0], dtype=numpy.int64) * n)
    low_at = Expr(start) + _kjarni.maximum(Expr(valid) - 1, 0) // 2
    high_at = Expr(start) + Expr(valid) // 2
    low = _algorithms.take(queue, ordered, _evaluated(queue, low_at))
    high = _algorithms.take(queue, ordered, _evaluated(queue, high_at))
    nan = numpy.array(numpy.nan, dtype=rows.dtype)[()]
    # (an odd count takes the middle element itself, an even one the two's sum halved in the dtype)
    middle = _kjarni.where(Expr(valid) % 2 == 1, high, (Expr(low) + high) / numpy.array(2, dtype=rows.dtype)[()])
    return _evaluated(queue, _kjarni.where(Expr(valid) == 0, nan, middle))


def _quantile_of(what, a, q, axis, out, keepdims, method):
    # numpy's "linear" method for a Python number q (weak: the result in a's dtype, integers in
    # float64), step by step: the virtual index (n - 1) q in the sorted slice, its floor and the
    # next (both the last at or past n - 1), gamma = index - floor, then numpy's _lerp
    # (a + (b - a) gamma, or b - (b - a)(1 - gamma) from gamma 0.5 on), NaN where the slice holds one.
    if method != "linear":
        _refuse(what, f"method={method!r}")
    if type(q) not in (int, float):
        _refuse(what, "q other than one Python number")
    if numpy.dtype(a.dtype).kind == "c":
        raise ArgumentTypeError(f"numpy.{what}: a must be an array of real numbers (numpy's TypeError)", "a")
    axis = _one_axis(what, axis)
    quantile = numpy.true_divide(q, 100) if what == "percentile" else q
    if not 0 <= quantile <= 1:
        raise ArgumentError(f"numpy.{what}: {q} is out of range (numpy's ValueError)", "q")
    queue = _queue(what, a)
    data, ax = (a.reshape(-1), 0) if axis is None else (a, _axes(axis, a.ndim, what)[0])
    n = data.shape[ax]
    if n == 0:
        _refuse(what, "empty slice")
    ordered = _namespace_call(what, data, "sort", data, axis=ax)
    at = lambda k: ordered[tuple(k if d == ax else slice(None) for d in range(data.ndim))]  # noqa: E731
    virtual = (n - 1) * quantile
    if isinstance(virtual, int):
        value = Expr(at(virtual))  # numpy takes the element itself (an integer array stays integer)
    else:
        previous = math.floor(virtual)
        following = previous + 1
        if virtual >= n - 1:
            previous = following = -1
        elif virtual < 0:
            previous = following = 0
        gamma = float(virtual - previous)
        low, high = at(previous), at(following)
        step = Expr(high) - low
        value = Expr(high) - step * (1 - gamma) if gamma >= 0.5 else Expr(low) + step * gamma
    if numpy.dtype(a.dtype).kind == "f":
        nan = numpy.array(numpy.nan, dtype=value.dtype)[()]
        value = _kjarni.where(_kjarni._array_api.unary("isnan", at(-1)), nan, value)
    result = _evaluated(queue, value)
    return _finished(queue, result, a, ax if axis is not None else None, keepdims, out)


def _percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None, interpolation=None):
    if weights is not None or interpolation is not None:
        _refuse("percentile", "weights" if weights is not None else "interpolation")
    return _quantile_of("percentile", a, q, axis, out, keepdims, method)


def _quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
              weights=None, interpolation=None):
    if weights is not None or interpolation is not None:
        _refuse("quantile", "weights" if weights is not None else "interpolation")
    return _quantile_of("quantile", a, q, axis, out, keepdims, method)


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {
        "ptp": _ptp, "average": _average, "median": _median,
        "percentile": _percentile, "quantile": _quantile, "nanmedian": _nanmedian, "trace": _trace,
    }
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
