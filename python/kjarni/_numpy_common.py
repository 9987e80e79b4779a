"""What the numpy functions kjarni composes from its own operations share (kjarni/_numpy_shapes.py,
_numpy_elementwise.py, _numpy_sorting.py, _numpy_statistics.py, dispatched by kjarni/_numpy.py's
``__array_function__``): each follows numpy 2.4's definition of its function, on the queue of its
arrays (``x.queue``), and raises ArgumentTypeError naming the options it leaves out. Elementwise
results are Exprs, as numpy's ufuncs give on kjarni arrays; reductions, sorts and views are
Arrays; allclose and array_equal read their one answer back (a bool)."""

import builtins

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError, AxisError

Array = _kjarni.Array
Expr = _kjarni.Expr


def _queue(what, *operands):
    from ._numpy import _required_queue
    return _required_queue(f"numpy.{what}", *operands)


def _evaluated(queue, value):
    """An Array of `value` (an Array stays itself, an Expr is evaluated on `queue`)."""
    if isinstance(value, Array):
        return value
    from . import _algorithms
    return _algorithms.evaluate(queue, value)


def _on_device(queue, value, dtype=None):
    """`value` as an Array on `queue` in `dtype` (when given): an Expr evaluated, a host array-like
    uploaded (numpy functions take lists and numbers for any operand)."""
    if isinstance(value, Expr):
        value = _evaluated(queue, value)
    elif not isinstance(value, Array):
        value = Array.from_host(queue, numpy.asarray(value, dtype=dtype))
    if dtype is not None and numpy.dtype(value.dtype) != numpy.dtype(dtype):
        value = _evaluated(queue, Expr(value).astype(dtype))
    value.queue = queue
    return value


def _refuse(what, option):
    raise ArgumentTypeError(f"numpy.{what} on kjarni arrays takes no {option} here (copy to the host first: x.get())",
                            option)


def _axes(axis, ndim, what):
    """numpy's normalize_axis_tuple: each axis in [-ndim, ndim), none twice."""
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    for a in axes:
        if not -ndim <= a < ndim:
            raise AxisError(f"numpy.{what}: axis {a} is out of bounds for {ndim} dimensions", "axis")
    normalized = tuple(int(a) % ndim for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ArgumentError(f"numpy.{what}: repeated axis", "axis")
    return normalized


def _new_like(what, a, dtype, shape, fill):
    queue = _queue(what, a)
    shape = a.shape if shape is None else ((shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape))
    # (kjarni's new arrays are C-contiguous whatever `order` asks: docs/numpy-differences.md.)
    out = Array.empty(a.device, shape, a.dtype if dtype is None else dtype)
    out.queue = queue
    if fill is not None:
        if not isinstance(fill, (Array, Expr)):
            # numpy's full_like: copyto(res, fill_value, casting="unsafe"), its conversion exactly (3.4e38
            # into uint8 as numpy's cast gives it; a Python int out of range its OverflowError)
            typed = numpy.empty((), numpy.dtype(out.dtype))
            numpy.copyto(typed, fill, casting="unsafe")
            fill = typed[()]
        out.fill(fill, queue)
    return out


def _all_true(queue, value):
    from . import _algorithms
    return builtins.bool(_algorithms.all(queue, _evaluated(queue, value)).get(queue))


def _namespace_call(what, a, name, *args, **kwargs):
    """kjarni.array_api's `name` on kjarni arrays (the namespace's checks and edge cases), the
    results back as kjarni arrays on a's queue."""
    queue = _queue(what, a)
    # kjarni.array_api has no float16 (not a dtype of the standard): float16 arrays go in as
    # float32 (exactly, in the same order) and float32 results come back as float16.
    half = numpy.dtype(numpy.float16)
    widened = builtins.any(isinstance(x, Array) and numpy.dtype(x.dtype) == half for x in args)
    if widened:
        args = tuple(_evaluated(queue, Expr(x).astype(numpy.float32))
                     if isinstance(x, Array) and numpy.dtype(x.dtype) == half else x for x in args)

    results = getattr(a.__array_namespace__(), name)(*args, **kwargs)

    def back(r):
        k = r.to_kjarni()
        if widened and numpy.dtype(k.dtype) == numpy.float32:
            k = _evaluated(queue, Expr(k).astype(half))
        k.queue = queue
        return k
    return tuple(back(r) for r in results) if isinstance(results, tuple) else back(results)
