"""The standard's searching, sorting and set functions on kjarni's argmin/argmax reductions, its
radix sort (sort, argsort: stable), unique, searchsorted, nonzero and where."""

import operator

import numpy

from .. import _kjarni
from ._array_object import Array, device_of_operands, empty_on, operand, wrap
from ._statistical import _reduce

_work = _kjarni._array_api


def _arg(name):
    def f(x, /, *, axis=None, keepdims=False):
        if x.dtype.kind not in "iuf":
            raise TypeError(f"{name} is not defined for {x.dtype}")
        if axis is not None:
            axis = operator.index(axis)
        run = getattr(_kjarni, name)
        return _reduce(x, axis, keepdims, lambda q, a, axes: run(q, a, axes, keepdims, None, None),
                       numpy.dtype("int64"), None)
    f.__name__ = name
    return f


argmax = _arg("argmax")
argmin = _arg("argmin")


def nonzero(x, /):
    if x.ndim == 0:
        raise ValueError("nonzero of a 0-d array")
    if x.size == 0:
        return tuple(empty_on((0,), numpy.dtype("int64"), x.device) for _ in range(x.ndim))
    parts = _work.nonzero(x.device.queue, x._data)
    return tuple(wrap(p, x.device) if p.size else empty_on((0,), numpy.dtype("int64"), x.device) for p in parts)


def where(condition, x1, x2, /):
    from ._dtypes import result_type
    if condition.dtype != numpy.dtype("bool"):
        raise TypeError("where's condition must be a bool array")
    shape = numpy.broadcast_shapes(condition.shape, *(x.shape for x in (x1, x2) if isinstance(x, Array)))
    device = device_of_operands(condition, x1, x2)
    dtype = result_type(*[x for x in (x1, x2)])
    if 0 in shape:
        return empty_on(shape, dtype, device)
    expr = _kjarni.where(condition._data, operand(x1, x2), operand(x2, x1))
    return wrap(_kjarni.evaluate(device.queue, expr, None), device)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    if side not in ("left", "right"):
        raise ValueError("searchsorted's side is 'left' or 'right'")
    if x1.ndim != 1:
        raise ValueError("searchsorted's x1 must be 1-d")
    if sorter is not None:
        from ._indexing import take
        x1 = take(x1, sorter)
    if x2.size == 0 or x1.size == 0:
        out = empty_on(x2.shape, numpy.dtype("int64"), x2.device)
        if x2.size:
            _kjarni.fill(x2.device.queue, out._data, numpy.int64(0))
        return out
    return wrap(_work.searchsorted(x2.device.queue, x1._data, x2._data, side == "right"), x2.device)


# ---- sorting -------------------------------------------------------------------------------------

def _flipped(x, axis):
    from ._manipulation import flip
    return flip(x, axis=axis)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    if x.dtype.kind not in "biuf":
        raise TypeError(f"argsort is not defined for {x.dtype}")
    if x.ndim == 0:
        raise ValueError("argsort needs an array of at least 1 dimension")
    axis = operator.index(axis) % x.ndim
    if x.size == 0:
        return empty_on(x.shape, numpy.dtype("int64"), x.device)
    queue = x.device.queue
    if not descending:
        return wrap(_work.argsort(queue, x._data, axis), x.device)
    # Stable descending: the ascending stable order of the reversed values, reversed, with the
    # positions mapped back (equal values keep their original order).
    reversed_order = wrap(_work.argsort(queue, _flipped(x, axis)._data, axis), x.device)
    n = x.shape[axis]
    expr = (n - 1) - _kjarni.Expr(_flipped(reversed_order, axis)._data)
    return wrap(_kjarni.evaluate(queue, expr, None), x.device)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    if x.dtype.kind not in "biuf":
        raise TypeError(f"sort is not defined for {x.dtype}")
    if x.ndim == 0:
        raise ValueError("sort needs an array of at least 1 dimension")
    axis = operator.index(axis) % x.ndim
    if x.size == 0:
        return empty_on(x.shape, x.dtype, x.device)
    out = wrap(_work.sort(x.device.queue, x._data, axis), x.device)
    if descending:
        flipped = _flipped(out, axis)
        out = wrap(flipped._data.copy(x.device.queue), x.device)
    return out
