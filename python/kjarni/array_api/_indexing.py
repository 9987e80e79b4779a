"""Indexing: basic indexing gives kjarni views; a boolean array index runs kjarni's boolean_index
(its result's size is read back: the shape depends on the data); take runs kjarni's take."""

import builtins
import operator

import numpy

from .. import _kjarni
from ..dtypes import dtype as _kdtype
from ._array_object import Array, empty_on, operand, wrap

_work = _kjarni._array_api


def _normalized(key, ndim):
    """The key as a tuple, checked as the standard checks it: integers in range, one ellipsis."""
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, (slice, Array)) or
                (isinstance(k, int) and not isinstance(k, builtins.bool))):
            raise IndexError(f"kjarni.array_api supports basic and boolean array indexing, not {type(k).__name__}")
    if builtins.sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can have at most one ellipsis")
    # A boolean array index takes as many axes as it has dimensions (a 0-d one: none).
    axes = builtins.sum(k.ndim if isinstance(k, Array) else 1 for k in key if k is not None and k is not Ellipsis)
    if axes > ndim:
        raise IndexError(f"too many indices ({axes}) for an array of {ndim} dimensions")
    return key


def _check_integers(key, shape):
    """Out-of-range integers are IndexErrors (the standard leaves them undefined; kjarni checks)."""
    expanded = []
    for k in key:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (len(shape) - builtins.sum(
                1 for j in key if j is not None and j is not Ellipsis)))
        elif k is not None:
            expanded.append(k)
    for k, n in zip(expanded, shape):
        if isinstance(k, int) and not -n <= k < n:
            raise IndexError(f"index {k} is out of bounds for an axis of size {n}")


def _basic_shape(key, shape):
    """The shape numpy's basic indexing gives (for keys over empty arrays, where no view is made)."""
    return numpy.empty(shape, dtype=numpy.bool_)[key].shape


def getitem(x, key):
    key = _normalized(key, x.ndim)
    masks = [k for k in key if isinstance(k, Array)]
    if masks:
        return _boolean_getitem(x, key)
    _check_integers(key, x.shape)
    if x.size == 0:
        return empty_on(_basic_shape(key, x.shape), x.dtype, x.device)
    view = x._data[key]
    if view.size == 0:
        return empty_on(tuple(view.shape), x.dtype, x.device)
    return wrap(view, x.device)


def _check_mask_shape(mask_shape, shape):
    """A boolean index covers the array's leading axes, each of the same length or, as numpy
    allows, of length 0 (an empty mask: nothing is selected); anything else is an IndexError."""
    if len(mask_shape) > len(shape):
        raise IndexError(f"a boolean index of {len(mask_shape)} dimensions for an array of {len(shape)}")
    for axis, (m, n) in enumerate(zip(mask_shape, shape)):
        if m not in (n, 0):
            raise IndexError(f"a boolean index of shape {mask_shape} does not match the array's {shape}"
                             f" (axis {axis}: {m} for {n})")


def _boolean_getitem(x, key):
    if len(key) != 1 or key[0].dtype != numpy.dtype("bool"):
        raise IndexError("kjarni.array_api takes a boolean array only as the whole index (x[mask])")
    mask = key[0]
    _check_mask_shape(mask.shape, x.shape)
    if mask.ndim == 0:
        from ._manipulation import expand_dims
        expanded = expand_dims(x, axis=0)
        return expanded if builtins.bool(mask) else empty_on((0,) + x.shape, x.dtype, x.device)
    if x.size == 0 or mask.size == 0:
        return empty_on((0,) + x.shape[mask.ndim:], x.dtype, x.device)
    out = _work.boolean_index(x.device.queue, x._data, mask._data)
    if out.size == 0:
        return empty_on(tuple(out.shape), x.dtype, x.device)
    return wrap(out, x.device)


def setitem(x, key, value):
    key = _normalized(key, x.ndim)
    if not isinstance(value, Array):
        operand(value, x)
    queue = x.device.queue
    if builtins.any(isinstance(k, Array) for k in key):
        if len(key) != 1 or key[0].dtype != numpy.dtype("bool"):
            raise IndexError("kjarni.array_api assigns through a boolean array only as the whole index")
        mask = key[0]
        _check_mask_shape(mask.shape, x.shape)
        if mask.ndim == 0 and builtins.bool(mask):
            setitem(x, Ellipsis, value)
            return
        if mask.shape != tuple(x.shape[:mask.ndim]):
            # An axis of length 0 against a longer one (numpy allows it): nothing is selected, and
            # the value is still checked against that empty selection.
            if isinstance(value, Array):
                _check_assignable((0,) + tuple(x.shape[mask.ndim:]), value.shape)
            return
        # Empty selections included: numpy checks the value against them too (the library does).
        source = value._data if isinstance(value, Array) else _scalar_array(value, x)
        _work.boolean_index_assign(queue, x._data, mask._data, source)
        return
    _check_integers(key, x.shape)
    if x.size == 0:
        # numpy checks the value against an empty selection too.
        if isinstance(value, Array):
            _check_assignable(numpy.empty(x.shape, dtype=bool)[key].shape, value.shape)
        return
    view = x._data[key]
    if isinstance(value, Array):
        _check_assignable(tuple(view.shape), value.shape)
    if view.size == 0:
        return
    if isinstance(value, Array):
        if value.dtype != x.dtype:
            value_expr = _kjarni._expr_astype(value._data, _kdtype(x.dtype))
        else:
            value_expr = value._data
        _kjarni.assign(queue, view, value_expr)
    else:
        _kjarni.fill(queue, view, numpy.asarray(value, dtype=x.dtype)[()])


def _check_assignable(selection, shape):
    """numpy's rule for values of `shape` assigned to a selection: axes aligned at the end, extent-1
    axes stretch, leading extent-1 axes beyond the selection's are dropped; ValueError otherwise."""
    extra = len(shape) - len(selection)
    fits = builtins.all(s == 1 for s in shape[:builtins.max(extra, 0)]) and builtins.all(
        v in (1, s) for v, s in zip(reversed(shape), reversed(selection)))
    if not fits:
        raise ValueError(f"values of shape {tuple(shape)} do not broadcast to the selection's {tuple(selection)}")


def _scalar_array(value, x):
    from ._array_object import upload
    return upload(numpy.asarray(value, dtype=x.dtype), x.device)._data


def take(x, indices, /, *, axis=None):
    if not isinstance(indices, Array) or indices.dtype.kind not in "iu" or indices.ndim != 1:
        raise TypeError("take's indices must be a 1-d integer array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take needs an axis for an array of more than 1 dimension")
        axis = 0
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"axis {axis} is out of range")
    axis %= x.ndim
    shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
    if 0 in shape:
        return empty_on(shape, x.dtype, x.device)
    return wrap(_kjarni._take(x.device.queue, x._data, indices._data, axis, "raise"), x.device)
