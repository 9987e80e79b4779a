"""The standard's statistical and utility functions on kjarni's reductions (sum, prod, mean, min,
max, var, std, any, all) and scans (cumulative_sum)."""

import builtins
import operator

import numpy

from .. import _kjarni
from ..dtypes import dtype as _kdtype
from ._array_object import empty_on, wrap

_work = _kjarni._array_api


def _axes(axis, ndim):
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise IndexError(f"axis {a} is out of range for {ndim} dimensions")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError("repeated axis")
    return out


def _result_shape(x, axes, keepdims):
    axes = range(x.ndim) if axes is None else axes
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(x.shape))
    return tuple(s for i, s in enumerate(x.shape) if i not in axes)


def _reduce(x, axis, keepdims, run, dtype, empty_value):
    """`run(queue, array, axes)` over the axes; over no elements the result is `empty_value`
    everywhere (0 for sum, 1 for prod...; None: a ValueError, as for max of nothing)."""
    axes = _axes(axis, x.ndim)
    shape = _result_shape(x, axes, keepdims)
    reduced = range(x.ndim) if axes is None else axes
    if builtins.any(x.shape[i] == 0 for i in reduced) or x.size == 0:
        if empty_value is None:
            raise ValueError("a reduction without an identity over no elements")
        out = empty_on(shape, dtype, x.device)
        if out.size:
            _kjarni.fill(x.device.queue, out._data, numpy.asarray(empty_value, dtype=dtype)[()])
        return out
    if x.ndim == 0 or (axes is not None and len(axes) == 0):
        # Nothing reduced: the values themselves in the result's dtype (truth values for all/any).
        if numpy.dtype(dtype) == numpy.bool_ and x.dtype.kind != "b":
            return wrap(_kjarni.evaluate(x.device.queue, _work.binary("not_equal", x._data, 0), None), x.device)
        from ._dtypes import astype
        return astype(x, dtype)
    return wrap(run(x.device.queue, x._data, axes), x.device)


def _sum_dtype(x, dtype):
    if dtype is not None:
        return numpy.dtype(dtype)
    if x.dtype.kind == "b" or x.dtype.kind == "i":
        return numpy.dtype("int64")
    if x.dtype.kind == "u":
        return numpy.dtype("uint64")
    return x.dtype


def _typed(name, empty_value):
    def f(x, /, *, axis=None, dtype=None, keepdims=False):
        if x.dtype.kind not in "iufc":
            raise TypeError(f"{name} is not defined for {x.dtype}")
        out_dtype = _sum_dtype(x, dtype)
        kd = _kdtype(out_dtype)
        run = getattr(_kjarni, name)
        return _reduce(x, axis, keepdims, lambda q, a, axes: run(q, a, axes, kd, keepdims, None, None),
                       out_dtype, empty_value)
    f.__name__ = name
    return f


sum = _typed("sum", 0)  # noqa: A001 (the standard's names)
prod = _typed("prod", 1)


def _extreme(name):
    def f(x, /, *, axis=None, keepdims=False):
        if x.dtype.kind not in "iuf":
            raise TypeError(f"{name} is not defined for {x.dtype}")
        run = getattr(_kjarni, name)
        return _reduce(x, axis, keepdims, lambda q, a, axes: run(q, a, axes, keepdims, None, None), x.dtype, None)
    f.__name__ = name
    return f


max = _extreme("max")  # noqa: A001
min = _extreme("min")  # noqa: A001


def mean(x, /, *, axis=None, keepdims=False):
    if x.dtype.kind not in "fc":
        raise TypeError(f"mean is not defined for {x.dtype}")
    return _reduce(x, axis, keepdims, lambda q, a, axes: _kjarni.mean(q, a, axes, None, keepdims, None, None),
                   x.dtype, numpy.nan)


def _spread(name):
    # _complex: numpy's moments of complex arrays too (real results), for kjarni.Array's var and std
    # methods; the standard defines them for real floating arrays only.
    def f(x, /, *, axis=None, correction=0.0, keepdims=False, _complex=False):
        if x.dtype.kind != "f" and not (_complex and x.dtype.kind == "c"):
            raise TypeError(f"{name} is not defined for {x.dtype}")
        run = getattr(_work, name)
        return _reduce(x, axis, keepdims, lambda q, a, axes: run(q, a, axes, keepdims, float(correction)),
                       numpy.empty(0, x.dtype).real.dtype, numpy.nan)
    f.__name__ = name
    return f


var = _spread("var")
std = _spread("std")


def _logical(name, empty_value):
    def f(x, /, *, axis=None, keepdims=False):
        run = getattr(_kjarni, name)
        return _reduce(x, axis, keepdims, lambda q, a, axes: run(q, a, axes, keepdims, None, None),
                       numpy.dtype("bool"), empty_value)
    f.__name__ = name
    return f


all = _logical("all", True)  # noqa: A001
any = _logical("any", False)  # noqa: A001


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    if x.dtype.kind not in "iufc":
        raise TypeError(f"cumulative_sum is not defined for {x.dtype}")
    if axis is None:
        if x.ndim > 1:
            raise ValueError("cumulative_sum needs an axis for an array of more than 1 dimension")
        axis = 0
    if x.ndim == 0:
        raise ValueError("cumulative_sum needs an array of at least 1 dimension")
    axis = _axes(axis, x.ndim)[0]
    out_dtype = _sum_dtype(x, dtype)
    shape = list(x.shape)
    if include_initial:
        shape[axis] += 1
    if x.size == 0:
        from ._creation import zeros
        return zeros(tuple(shape), dtype=out_dtype, device=x.device)
    summed = wrap(_kjarni._cumsum(x.device.queue, x._data, axis, _kdtype(out_dtype), None), x.device)
    if not include_initial:
        return summed
    from ._creation import zeros
    from ._manipulation import concat
    initial_shape = list(x.shape)
    initial_shape[axis] = 1
    return concat([zeros(tuple(initial_shape), dtype=out_dtype, device=x.device), summed], axis=axis)

