"""numpy's advanced indexing on kjarni arrays: ``a[[0, 2]]``, ``a[idx]``, ``a[mask]``, ``a[:, idx]``,
``a[rows, cols]``, ``a[0, [1, 2]]``, ``a[True]``, and the same on the left of ``=``.

Keys of numpy's basic indexing only (integers, slices, None, Ellipsis) stay with the C++ view
(python/src/array.cpp); a key with anything else comes here and follows numpy's rules
(numpy.org/doc/stable/user/basics.indexing.html#advanced-indexing):

- Lists (nested too) are converted as ``numpy.asarray`` converts them (an empty list is an intp
  array); numpy arrays, kjarni Arrays and expressions (``a[a > 0]``) of an integer dtype are index
  arrays, of bool masks; any other dtype is an IndexError.
- A mask of k dimensions covers k axes, as its ``nonzero()`` arrays would; a 0-d True/False adds
  an axis of 1/0. Integers among advanced indices are 0-d index arrays.
- The index arrays broadcast together (IndexError otherwise) to a shape B. When the advanced
  indices are next to each other in the key, B replaces their axes in place; when a slice, None or
  an Ellipsis (even one standing for no axis) separates them, B goes first.
- Negative indices count from the end; out of range is IndexError (checked on the host for host
  indices, on the device for device ones: no extra synchronisation).
- Results are new arrays, never views.

The work: the basic part of the key makes a view; a single index array or a mask over the view's
leading axes runs kjarni's integer_index / boolean_index directly. Otherwise the advanced axes are
merged into one (a view where the layout allows, else a contiguous copy; moved to the front first
when B goes first), the flat index over them is one device expression (i0 * n1 + i1 ..., negatives
wrapped, out-of-range ones replaced by an index past the end so that integer_index raises), and one
integer_index gathers.

Assignment: a single mask over the view's leading axes runs boolean_index_assign. Otherwise the
selected positions are found by indexing a device ``arange`` of the array's size with the same key;
the values (converted to the array's dtype as numpy converts them: ``numpy.asarray(value,
dtype)`` for host values, OverflowError for a Python int out of range; astype for device values)
are broadcast to the selection and written by kjarni's integer_index_assign over the array's flat
elements (through a contiguous copy where the array is not C-contiguous): the last of equal
positions wins, as numpy's assignment."""

import builtins
import math
import operator

import numpy

from . import _kjarni
from .dtypes import dtype as _kdtype

Array = _kjarni.Array
Expr = _kjarni.Expr
_work = _kjarni._array_api
_ArgumentError = None  # kjarni.errors.ArgumentError, set by install()

_INT64 = None
_ARANGE = None

_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays "
          "are valid indices")


def _int64():
    global _INT64
    if _INT64 is None:
        _INT64 = _kdtype(numpy.int64)
    return _INT64


def _is_basic(k):
    return (k is None or k is Ellipsis or type(k) is slice or type(k) is int
            or (isinstance(k, (int, numpy.integer)) and not isinstance(k, (bool, numpy.bool_))))


def is_advanced(key):
    """Whether `key` has anything beyond numpy's basic indexing."""
    if type(key) is tuple:
        for k in key:
            if not _is_basic(k):
                return True
        return False
    return not _is_basic(key)


# ---- the key ---------------------------------------------------------------------------------------

class _Mask:
    """A boolean index: a host (numpy) or device (kjarni) array."""
    def __init__(self, array):
        self.array = array
        self.ndim = array.ndim
        self.shape = tuple(array.shape)


class _Ints:
    """An integer index array: host (numpy int64, negatives wrapped; `original` as given) or device
    (any integer dtype), indexing the array's axis `axis` (for messages)."""
    def __init__(self, array, host, original=None, axis=None):
        self.array = array
        self.host = host
        self.original = array if original is None else original
        self.axis = axis
        self.shape = tuple(array.shape)


def _as_index_item(k, queue):
    """One item of the key as numpy sees it: basic items, an int, a bool (0-d mask), _Mask or _Ints."""
    if k is None or k is Ellipsis or isinstance(k, slice):
        return k
    if isinstance(k, (bool, numpy.bool_)):
        return builtins.bool(k)
    if isinstance(k, (int, numpy.integer)):
        return operator.index(k)
    if isinstance(k, Expr):
        from . import _algorithms
        k = _algorithms.evaluate(queue, k)
    if isinstance(k, Array):
        kind = numpy.dtype(k.dtype).kind
        if kind == "b":
            if k.ndim == 0:
                return builtins.bool(k.get(queue))
            return _Mask(k)
        if kind in "iu":
            if k.ndim == 0:
                return builtins.int(k.get(queue))  # numpy: a 0-d integer array is an integer
            return _Ints(k, host=False)
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    if isinstance(k, (list, tuple)):
        try:
            host = numpy.asarray(k)
        except Exception:
            raise IndexError(_VALID) from None
        if host.size == 0 and host.dtype.kind == "f":
            host = host.astype(numpy.intp)  # numpy: an empty list is an integer index
        if host.dtype.kind not in "iub":
            raise IndexError(_VALID)
        k = host
    elif isinstance(k, numpy.ndarray):
        if k.dtype.kind not in "iub":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
    else:
        try:
            return operator.index(k)
        except TypeError:
            raise IndexError(_VALID) from None
    if k.ndim == 0:
        return builtins.bool(k) if k.dtype.kind == "b" else builtins.int(k)
    if k.dtype.kind == "b":
        return _Mask(k)
    return _Ints(k, host=True)


def _out_of_bounds(index, axis, size):
    return IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")


class _Plan:
    """The key taken apart: `basic` (the view's key), `adv` [(view axis, extent, index)] where an
    index is an int, an _Ints (host ones wrapped and checked) or a _Mask's (its first axis; the
    others follow as None entries until the nonzero arrays are made), `adjacent` (numpy's rule)."""
    def __init__(self):
        self.basic = []
        self.adv = []
        self.masks = []  # (view axis, array axis, _Mask)
        self.adjacent = True


def _plan(self, key, queue):
    items = key if isinstance(key, tuple) else (key,)
    items = [_as_index_item(k, queue) for k in items]
    ndim = self.ndim
    if builtins.sum(1 for k in items if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = 0
    for k in items:
        if isinstance(k, _Mask):
            consumed += k.ndim
        elif not (k is None or k is Ellipsis or isinstance(k, builtins.bool)):
            consumed += 1
    if consumed > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed")
    positions = [i for i, k in enumerate(items) if not (k is None or k is Ellipsis or isinstance(k, slice))]
    plan = _Plan()
    plan.items = items
    plan.adjacent = positions[-1] - positions[0] + 1 == len(positions) if positions else True
    shape = tuple(self.shape)
    v = 0  # the view's axis
    d = 0  # the array's axis
    for k in items:
        if k is None:
            plan.basic.append(None)
            v += 1
        elif k is Ellipsis:
            plan.basic.extend([slice(None)] * (ndim - consumed))
            v += ndim - consumed
            d += ndim - consumed
        elif isinstance(k, slice):
            plan.basic.append(k)
            v += 1
            d += 1
        elif isinstance(k, builtins.bool):
            # numpy's 0-d boolean index: a new axis of 1, indexed by [0] (True) or [] (False).
            plan.basic.append(None)
            plan.adv.append((v, 1, _Ints(numpy.zeros(1 if k else 0, numpy.int64), host=True)))
            v += 1
        elif isinstance(k, int):
            n = shape[d]
            if not -n <= k < n:
                raise _out_of_bounds(k, d, n)
            plan.basic.append(slice(None))
            plan.adv.append((v, n, k % n))
            v += 1
            d += 1
        elif isinstance(k, _Ints):
            n = shape[d]
            if k.host:
                # Checked once the broadcast shape is known (numpy checks none when it is empty).
                index = k.array
                if index.dtype == numpy.uint64 and index.size and index.max() > numpy.iinfo(numpy.int64).max:
                    wrapped = numpy.full(index.shape, n, numpy.int64)  # out of range
                else:
                    wrapped = index.astype(numpy.int64, copy=False)
                    wrapped = numpy.where(wrapped < 0, wrapped + n, wrapped)
                k = _Ints(wrapped, host=True, original=index, axis=d)
            else:
                k.axis = d
            plan.basic.append(slice(None))
            plan.adv.append((v, n, k))
            v += 1
            d += 1
        else:  # _Mask
            for axis, m in enumerate(k.shape):
                n = shape[d + axis]
                if m != n and m != 0:
                    raise IndexError(f"boolean index did not match indexed array along axis {d + axis}; size of axis "
                                     f"is {n} but size of corresponding boolean axis is {m}")
            plan.masks.append((v, d, k))
            for axis in range(k.ndim):
                plan.basic.append(slice(None))
                plan.adv.append((v + axis, shape[d + axis], k if axis == 0 else None))
            v += k.ndim
            d += k.ndim
    return plan


def _on_device(queue, host):
    return Array.from_host(queue, host)  # C-ordered by numpy.asarray (ascontiguousarray makes 0-d 1-d)


def _expanded(plan, queue):
    """plan.adv with every mask replaced by its nonzero() index arrays: [(view axis, extent, index)]."""
    out = []
    for v, n, index in plan.adv:
        if index is None:
            continue  # a mask's later axis: filled in with its first
        if isinstance(index, _Mask):
            if isinstance(index.array, numpy.ndarray):
                parts = [_Ints(p.astype(numpy.int64), host=True) for p in numpy.nonzero(index.array)]
            elif index.array.size == 0:
                parts = [_Ints(numpy.zeros(0, numpy.int64), host=True) for _ in range(index.ndim)]
            else:
                parts = [_Ints(p, host=False) for p in _work.nonzero(queue, index.array)]
            for axis, p in enumerate(parts):
                p.axis = axis
            extents = [n2 for v2, n2, _ in plan.adv if v <= v2 < v + index.ndim]
            out.extend((v + axis, extents[axis], p) for axis, p in enumerate(parts))
        else:
            out.append((v, n, index))
    return out


def _shape_of(index):
    return () if isinstance(index, int) else index.shape


def _empty(queue, shape, dtype):
    out = Array.empty(queue.device, tuple(shape), dtype)
    out.queue = queue
    return out


def _check_host_bounds(adv):
    """numpy's IndexError for the first out-of-range host index (wrapped: in [0, n))."""
    for v, n, index in adv:
        if isinstance(index, _Ints) and index.host and index.array.size:
            bad = (index.array < 0) | (index.array >= n)
            if bad.any():
                raise _out_of_bounds(index.original[bad][0], index.axis, n)


def _check_device_bounds(queue, adv):
    """numpy's IndexError for the first out-of-range device index (an error path: reads them back)."""
    for v, n, index in adv:
        if isinstance(index, _Ints) and not index.host and index.array.size:
            host = index.array.get(queue)
            bad = (host >= n) | (host < -n)
            if bad.any():
                raise _out_of_bounds(host[bad][0], index.axis, n)


def _gather(queue, array, indices, axis, adv=None):
    """integer_index, its out-of-range ArgumentError as numpy's IndexError."""
    try:
        out = _work.integer_index(queue, array, indices, axis)
    except _ArgumentError as e:
        if "out of range" not in str(e) and "out of bounds" not in str(e):
            raise
        if adv is not None:
            _check_device_bounds(queue, adv)
        raise IndexError(str(e)) from None
    out.queue = queue
    return out


def _mask_on_device(queue, mask):
    return mask.array if isinstance(mask.array, Array) else _on_device(queue, mask.array)


def getitem(self, key, queue, basic_getitem):
    """numpy's ``self[key]`` for a key with advanced indices: a new array."""
    from . import _algorithms
    plan = _plan(self, key, queue)
    view = basic_getitem(self, tuple(plan.basic))
    # Fast paths: one mask over the view's leading axes; one index array.
    if len(plan.masks) == 1 and len([a for a in plan.adv if a[2] is not None]) == 1:
        v, d, mask = plan.masks[0]
        if v == 0 and mask.shape == tuple(view.shape[:mask.ndim]):
            out = _work.boolean_index(queue, view, _mask_on_device(queue, mask))
            out.queue = queue
            return out
    adv = _expanded(plan, queue)
    if len(adv) == 1 and isinstance(adv[0][2], _Ints):
        v, n, index = adv[0]
        _check_host_bounds(adv)
        indices = index.array if not index.host else _on_device(queue, index.array)
        return _gather(queue, view, indices, v, adv)
    try:
        broadcast = numpy.broadcast_shapes(*(_shape_of(index) for _, _, index in adv))
    except ValueError:
        shapes = " ".join(str(_shape_of(index)) for _, _, index in adv if not isinstance(index, int))
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together with shapes {shapes}") \
            from None
    if math.prod(broadcast):
        _check_host_bounds(adv)
    axes = [v for v, _, _ in adv]
    extents = [n for _, n, _ in adv]
    view_shape = tuple(view.shape)
    rest = [a for a in range(view.ndim) if a not in axes]
    consecutive = axes == list(range(axes[0], axes[0] + len(axes)))
    if plan.adjacent and consecutive:
        axis = axes[0]
        merged_shape = view_shape[:axis] + (math.prod(extents),) + view_shape[axes[-1] + 1:]
        result_shape = view_shape[:axis] + broadcast + view_shape[axes[-1] + 1:]
        source = view
    else:
        axis = 0
        merged_shape = (math.prod(extents),) + tuple(view_shape[a] for a in rest)
        result_shape = broadcast + tuple(view_shape[a] for a in rest)
        source = view.transpose(axes + rest) if axes + rest != list(range(view.ndim)) else view
    if math.prod(result_shape) == 0 or math.prod(merged_shape) == 0:
        # Nothing to gather; device indices are still checked where numpy checks them (host ones
        # and integers were checked above).
        if math.prod(broadcast):
            _check_device_bounds(queue, adv)
        return _empty(queue, result_shape, self.dtype)
    merged = _algorithms.reshape(queue, source, merged_shape)
    flat = _flat_index(queue, adv, extents)
    return _gather(queue, merged, flat, axis, adv)


def _flat_index(queue, adv, extents):
    """The index over the merged advanced axes (C order), an int64 Array of the broadcast shape:
    host parts computed on the host, device parts in one expression (negatives wrapped, out of range
    replaced by the merged extent, which integer_index refuses)."""
    total = math.prod(extents)
    strides = [math.prod(extents[j + 1:]) for j in range(len(extents))]
    host_part = numpy.int64(0)
    device_part = None
    in_range = None
    for (v, n, index), stride in zip(adv, strides):
        if isinstance(index, int):
            host_part = host_part + numpy.int64(index * stride)
        elif index.host:
            host_part = host_part + index.array * numpy.int64(stride)
        else:
            i = Expr(index.array)
            if numpy.dtype(i.dtype) != numpy.int64:
                i = _kjarni._expr_astype(i, _int64())
            wrapped = _kjarni.where(i < 0, i + n, i)
            ok = _work.binary("logical_and", wrapped >= 0, wrapped < n)
            in_range = ok if in_range is None else _work.binary("logical_and", in_range, ok)
            term = wrapped * stride
            device_part = term if device_part is None else device_part + term
    if device_part is None:
        return _on_device(queue, numpy.asarray(host_part, dtype=numpy.int64))
    from . import _algorithms
    host_part = numpy.asarray(host_part)
    if host_part.ndim:
        device_part = device_part + _on_device(queue, host_part)
    elif host_part != 0:
        device_part = device_part + builtins.int(host_part)
    return _algorithms.evaluate(queue, _kjarni.where(in_range, device_part, total))


# ---- assignment ------------------------------------------------------------------------------------

def _arange(queue, n):
    global _ARANGE
    if _ARANGE is None:
        _ARANGE = _kjarni.ElementwiseKernel("long *out", "out[i] = i")
    out = Array.empty(queue.device, (n,), numpy.int64)
    if n:
        _ARANGE(queue, out)
    out.queue = queue
    return out


def _values(self, value, queue):
    """The value as numpy converts it for an assignment into `self`: a host array of self's dtype,
    or a device Array or Expr of self's dtype."""
    if isinstance(value, (Array, Expr)):
        expr = value
        if numpy.dtype(value.dtype) != self.dtype:
            expr = _kjarni._expr_astype(value, _kdtype(self.dtype))
        return expr
    return numpy.asarray(value, dtype=self.dtype)


def _drop_leading_ones(value, ndim):
    shape = tuple(value.shape)
    drop = 0
    while len(shape) - drop > ndim and shape[drop] == 1:
        drop += 1
    return shape[drop:]


def _check_broadcast(value_shape, selection_shape):
    try:
        fits = numpy.broadcast_shapes(value_shape, selection_shape) == tuple(selection_shape)
    except ValueError:
        fits = False
    if not fits or len(value_shape) > len(selection_shape):
        raise ValueError(f"shape mismatch: value array of shape {tuple(value_shape)} could not be broadcast to "
                         f"indexing result of shape {tuple(selection_shape)}")


def _materialized(queue, values, shape, dtype):
    """`values` (host array, Array or Expr, of `dtype`, broadcastable) as a new device array of `shape`."""
    from . import _algorithms
    if isinstance(values, numpy.ndarray):
        host = values.reshape(_drop_leading_ones(values, len(shape)))
        return _on_device(queue, numpy.broadcast_to(host, shape))
    reshaped = values
    if isinstance(values, Array) and values.ndim > len(shape):
        reshaped = _algorithms.reshape(queue, values, _drop_leading_ones(values, len(shape)))
    elif isinstance(values, Expr) and len(values.shape) > len(shape):
        reshaped = _algorithms.reshape(queue, _algorithms.evaluate(queue, values),
                                       _drop_leading_ones(values, len(shape)))
    out = _empty(queue, shape, dtype)
    _kjarni.assign(queue, out, reshaped)
    return out


def setitem(self, key, value, queue, basic_getitem, basic_setitem):
    """numpy's ``self[key] = value`` for a key with advanced indices."""
    from . import _algorithms
    plan = _plan(self, key, queue)
    if not any(isinstance(k, (_Ints, _Mask, builtins.bool)) for k in plan.items):
        # Integers (0-d integer arrays among them) and basic items: numpy's basic assignment.
        basic_setitem(self, tuple(plan.items), value)
        return
    values = _values(self, value, queue)
    (first,) = plan.items if len(plan.items) == 1 else (None,)
    if (isinstance(first, _Mask) and first.ndim == self.ndim) or (isinstance(first, builtins.bool) and self.ndim == 0):
        # numpy's assignment through one mask over every axis takes 0-d or 1-d values only.
        if len(values.shape) > 1:
            raise TypeError("NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input "
                            f"has {len(values.shape)} dimensions")
    if len(plan.masks) == 1 and len([a for a in plan.adv if a[2] is not None]) == 1:
        v, d, mask = plan.masks[0]
        view = basic_getitem(self, tuple(plan.basic))
        if v == 0 and mask.shape == tuple(view.shape[:mask.ndim]) and view.size:
            selection_ndim = 1 + view.ndim - mask.ndim
            if isinstance(values, numpy.ndarray):
                values = values.reshape(_drop_leading_ones(values, selection_ndim))
                source = _on_device(queue, values)
            elif isinstance(values, Expr):
                source = _algorithms.evaluate(queue, values)
            else:
                source = values
            if source.ndim > selection_ndim:
                source = _algorithms.reshape(queue, source, _drop_leading_ones(source, selection_ndim))
            _work.boolean_index_assign(queue, view, _mask_on_device(queue, mask), source)
            return
    # The positions the key selects, in selection order: the key applied to an arange.
    positions = getitem(_arange(queue, self.size).reshape(tuple(self.shape)), key, queue, basic_getitem)
    selection = tuple(positions.shape)
    _check_broadcast(_drop_leading_ones(values, len(selection)), selection)
    count = positions.size
    if count == 0:
        return
    flat_values = _materialized(queue, values, selection, self.dtype).reshape(count)
    flat_positions = _algorithms.reshape(queue, positions, (count,))
    # kjarni's integer_index_assign over the flat elements (the last of repeated positions wins, as
    # numpy's): in place where the array is C-contiguous, else through a contiguous copy.
    shape = tuple(self.shape)
    contiguous = tuple(self.strides) == _c_strides(shape, self.dtype.itemsize)
    target = self if contiguous else _algorithms.ascontiguousarray(queue, self)
    flat = _algorithms.reshape(queue, target, (self.size,))
    _work.integer_index_assign(queue, flat, flat_positions, flat_values, 0)
    if not contiguous:
        _kjarni.assign(queue, self, target)


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= builtins.max(extent, 1)
    return tuple(reversed(strides))


def install(required_queue):
    """Hooks advanced indexing into Array's __getitem__ / __setitem__ (kjarni/_numpy.py's attach)."""
    global _ArgumentError
    from .errors import ArgumentError
    _ArgumentError = ArgumentError
    basic_getitem = Array.__getitem__
    basic_setitem = Array.__setitem__

    def __getitem__(self, key):
        if key is None:
            key = (None,)  # the binding takes no bare None
        if not is_advanced(key):
            return basic_getitem(self, key)
        return getitem(self, key, required_queue("x[key]", self), basic_getitem)

    def __setitem__(self, key, value):
        if key is None:
            key = (None,)
        if not is_advanced(key):
            return basic_setitem(self, key, value)
        return setitem(self, key, value, required_queue("x[key] = value", self), basic_getitem, basic_setitem)

    __getitem__.__doc__ = ("numpy's indexing: a view for basic keys (integers, slices, None, Ellipsis), a new array for "
                           "advanced ones (integer and boolean arrays, lists, a scalar bool): kjarni/_advanced_index.py")
    __setitem__.__doc__ = basic_setitem.__doc__
    Array.__getitem__ = __getitem__
    Array.__setitem__ = __setitem__
