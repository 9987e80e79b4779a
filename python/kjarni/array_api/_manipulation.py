"""The standard's manipulation functions, on the device: views where numpy makes views (reshape,
permute_dims, expand_dims, squeeze, flip, broadcast_to: zero strides), kjarni's concatenate and
take for the rest (roll, repeat, tile)."""

import builtins
import operator

import numpy

from .. import _kjarni
from ._array_object import Array, empty_on, upload, wrap


def _axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise IndexError(f"axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def _view(x, karray):
    return wrap(karray, x.device)


def broadcast_to(x, /, shape):
    shape = tuple(operator.index(s) for s in shape)
    if len(shape) < x.ndim:
        raise ValueError(f"cannot broadcast {x.shape} to {shape}")
    numpy.broadcast_shapes(x.shape, shape)  # raises ValueError where they do not broadcast
    padded = (1,) * (len(shape) - x.ndim) + x.shape
    for have, want in zip(padded, shape):
        if have != want and have != 1:
            raise ValueError(f"cannot broadcast {x.shape} to {shape}")
    if 0 in shape:
        return empty_on(shape, x.dtype, x.device)
    if x.shape == shape:
        return x
    strides = (0,) * (len(shape) - x.ndim) + tuple(x._data.strides)
    strides = [0 if have == 1 and want != 1 else s for have, want, s in zip(padded, shape, strides)]
    view = _kjarni.Array.from_buffer(x._data.base, x._data._dtype, list(shape), strides, x._data.offset)
    return _view(x, view)


def broadcast_arrays(*arrays):
    shape = numpy.broadcast_shapes(*(a.shape for a in arrays))
    return [broadcast_to(a, shape) for a in arrays]


def _contiguous(x):
    if x._data.is_c_contiguous:
        return x
    return wrap(x._data.copy(x.device.queue), x.device)


def concat(arrays, /, *, axis=0):
    arrays = list(arrays)
    if not arrays:
        raise ValueError("concat needs at least one array")
    from ._dtypes import result_type, astype
    dtype = result_type(*arrays)
    arrays = [a if a.dtype == dtype else astype(a, dtype) for a in arrays]
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    ndim = arrays[0].ndim
    if builtins.any(a.ndim != ndim for a in arrays) or ndim == 0:
        raise ValueError("concat takes arrays of one number (>= 1) of dimensions")
    axis = _axis(axis, ndim)
    shape = list(arrays[0].shape)
    for a in arrays[1:]:
        if builtins.any(a.shape[i] != shape[i] for i in range(ndim) if i != axis):
            raise ValueError("concat's arrays must agree outside the axis")
    shape[axis] = builtins.sum(a.shape[axis] for a in arrays)
    nonempty = [a for a in arrays if a.size]
    if 0 in shape or not nonempty:
        return empty_on(tuple(shape), dtype, arrays[0].device)
    if len(nonempty) == 1:
        return wrap(nonempty[0]._data.copy(nonempty[0].device.queue), nonempty[0].device)
    queue = arrays[0].device.queue
    return wrap(_kjarni.concatenate(queue, [a._data for a in nonempty], axis), arrays[0].device)


def expand_dims(x, /, axis):
    axis = operator.index(axis)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"axis {axis} is out of range for expand_dims of {x.ndim} dimensions")
    axis = axis % (x.ndim + 1)
    shape = x.shape[:axis] + (1,) + x.shape[axis:]
    return reshape(x, shape)


def flip(x, /, *, axis=None):
    if x.ndim == 0:
        return x
    axes = range(x.ndim) if axis is None else ([axis] if isinstance(axis, int) else axis)
    axes = {_axis(a, x.ndim) for a in axes}
    key = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(x.ndim))
    from ._indexing import getitem
    return getitem(x, key)


def moveaxis(x, source, destination, /):
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    if len(source) != len(destination):
        raise ValueError("moveaxis needs as many destinations as sources")
    source = [_axis(a, x.ndim) for a in source]
    destination = [_axis(a, x.ndim) for a in destination]
    if len(set(source)) != len(source) or len(set(destination)) != len(destination):
        raise ValueError("moveaxis's axes must be unique")
    order = [n for n in range(x.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return permute_dims(x, tuple(order))


def permute_dims(x, /, axes):
    axes = tuple(operator.index(a) for a in axes)
    if sorted(a % x.ndim if x.ndim else a for a in axes) != list(range(x.ndim)) or len(axes) != x.ndim:
        raise ValueError(f"permute_dims needs a permutation of {x.ndim} axes, not {axes}")
    if x.ndim == 0:
        return x
    return _view(x, x._data.transpose([a % x.ndim for a in axes]))


def reshape(x, /, shape, *, copy=None):
    shape = tuple(operator.index(s) for s in shape)
    if builtins.sum(1 for s in shape if s == -1) > 1 or builtins.any(s < -1 for s in shape):
        raise ValueError(f"invalid shape {shape}")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or x.size % known:
            raise ValueError(f"cannot reshape {x.shape} to {shape}")
        shape = tuple(x.size // known if s == -1 else s for s in shape)
    elif known != x.size:
        raise ValueError(f"cannot reshape {x.shape} to {shape}")
    if x.size == 0:
        return empty_on(shape, x.dtype, x.device)
    if copy:
        x = wrap(x._data.copy(x.device.queue), x.device)
    queue = x.device.queue
    return wrap(_kjarni._reshape(queue, x._data, list(shape), "C", False if copy is False else None), x.device)


def roll(x, /, shift, *, axis=None):
    if axis is None:
        flat = reshape(x, (-1,))
        return reshape(roll(flat, shift, axis=0), x.shape)
    shifts = [shift] if isinstance(shift, int) else list(shift)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        else:
            raise ValueError("roll needs one shift per axis")
    out = x
    from ._indexing import getitem
    for s, a in zip(shifts, axes):
        a = _axis(a, x.ndim)
        n = x.shape[a]
        if n == 0:
            continue
        s %= n
        if s == 0:
            continue
        head = tuple(slice(n - s, None) if i == a else slice(None) for i in range(x.ndim))
        tail = tuple(slice(0, n - s) if i == a else slice(None) for i in range(x.ndim))
        out = concat([getitem(out, head), getitem(out, tail)], axis=a)
    if out is x:
        out = wrap(x._data.copy(x.device.queue), x.device) if x.size else empty_on(x.shape, x.dtype, x.device)
    return out


def squeeze(x, /, axis):
    axes = [axis] if isinstance(axis, int) else list(axis)
    axes = [_axis(a, x.ndim) for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError("squeeze's axes must be unique")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"cannot squeeze axis {a} of length {x.shape[a]}")
    return reshape(x, tuple(s for i, s in enumerate(x.shape) if i not in axes))


def stack(arrays, /, *, axis=0):
    arrays = list(arrays)
    if not arrays:
        raise ValueError("stack needs at least one array")
    shape = arrays[0].shape
    if builtins.any(a.shape != shape for a in arrays):
        raise ValueError("stack takes arrays of one shape")
    axis = operator.index(axis)
    if not -len(shape) - 1 <= axis <= len(shape):
        raise IndexError(f"axis {axis} is out of range for stack")
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


def _take_along(x, host_indices, axis):
    from ._indexing import take
    return take(x, upload(numpy.asarray(host_indices, dtype=numpy.int64), x.device), axis=axis)


def repeat(x, repeats, /, *, axis=None):
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    axis = _axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(repeats, Array):
        counts = repeats._host().astype(numpy.int64)  # the result's shape depends on them
    else:
        counts = numpy.int64(operator.index(repeats))
    if numpy.any(counts < 0):
        raise ValueError("repeat's counts must not be negative")
    indices = numpy.repeat(numpy.arange(n, dtype=numpy.int64), numpy.broadcast_to(counts, (n,)))
    if indices.size == 0 or x.size == 0:
        shape = list(x.shape)
        shape[axis] = indices.size
        return empty_on(tuple(shape), x.dtype, x.device)
    return _take_along(x, indices, axis)


def tile(x, repetitions, /):
    repetitions = tuple(operator.index(r) for r in repetitions)
    ndim = builtins.max(x.ndim, len(repetitions))
    x = reshape(x, (1,) * (ndim - x.ndim) + x.shape)
    repetitions = (1,) * (ndim - len(repetitions)) + repetitions
    shape = tuple(s * r for s, r in zip(x.shape, repetitions))
    if 0 in shape:
        return empty_on(shape, x.dtype, x.device)
    out = x
    for axis, r in enumerate(repetitions):
        if r != 1:
            n = out.shape[axis]
            out = _take_along(out, numpy.tile(numpy.arange(n, dtype=numpy.int64), r), axis)
    if out is x:
        out = wrap(x._data.copy(x.device.queue), x.device)
    return out


def unstack(x, /, *, axis=0):
    if x.ndim == 0:
        raise ValueError("unstack needs an array of at least 1 dimension")
    axis = _axis(axis, x.ndim)
    from ._indexing import getitem
    return tuple(getitem(x, (slice(None),) * axis + (i,)) for i in range(x.shape[axis]))
