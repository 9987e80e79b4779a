"""numpy's indexing and array-editing functions on kjarni arrays: gathers and scatters along an axis
(take_along_axis, put_along_axis), writes into the array given (put, putmask, place, copyto,
fill_diagonal), selections (compress, extract, choose, select), edits that make a new array
(insert, delete, append, column_stack, block, resize, trim_zeros, diagflat), views (unstack,
broadcast_arrays, rollaxis), index arithmetic (ix_, unravel_index, ravel_multi_index, the
*_indices_from functions), array_equiv, shares_memory, numpy.astype and the dtype queries
(result_type, can_cast, common_type, min_scalar_type). kjarni/_numpy_common.py says what they
share.

They are composed from kjarni's advanced indexing (kjarni/_advanced_index.py: a key of index
arrays gathers, an assignment through one scatters), integer_index_assign, take (its modes),
nonzero, cumsum, argsort, where expressions, concatenate and views. Index arrays that follow only
from shapes (the aranges of take_along_axis, a diagonal's positions, tril_indices_from's) are made
on the host; data stays on the device. Where numpy's result shape depends on the data (compress,
extract, delete, trim_zeros, repeat's counts) a count is read back, and where numpy checks indices
(put's mode='raise', choose, unravel_index, ravel_multi_index, insert) their bounds are reduced on
the device and the answer read back: each says so where it happens."""

import builtins
import math
import operator

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError, AxisError, IndexOutOfBoundsError
from ._numpy_common import Array, Expr, _queue, _evaluated, _refuse, _axes, _new_like, _all_true, _on_device

_work = _kjarni._array_api
_INTP = numpy.dtype(numpy.intp)


def _broadcasts_into(shape, target, ndim):
    """Whether values of `shape` broadcast into `target` (numpy's assignment rule: at most `ndim` axes)."""
    try:
        return len(shape) <= ndim and numpy.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _alg():
    from . import _algorithms
    return _algorithms


def _dtype_of(x):
    return numpy.dtype(x.dtype) if isinstance(x, (Array, Expr, numpy.ndarray, numpy.generic)) \
        else numpy.asarray(x).dtype


def _shape_of(x):
    return tuple(x.shape) if isinstance(x, (Array, Expr, numpy.ndarray)) else numpy.shape(x)


def _ndim_of(x):
    return len(_shape_of(x))


def _flat(queue, a):
    """a's elements in C order, 1-d (a view where the layout allows)."""
    return _alg().reshape(queue, _on_device(queue, a), (-1,))


def _empty(queue, shape, dtype):
    out = Array.empty(queue.device, tuple(shape), numpy.dtype(dtype))
    out.queue = queue
    return out


def _arange(queue, n):
    from ._advanced_index import _arange as device_arange
    return device_arange(queue, n)


def _cycled(queue, values, n):
    """The first n of `values` (1-d) repeated cyclically (numpy's put, putmask, flat assignment)."""
    if values.shape[0] == n:
        return values
    return _alg().take(queue, values, _arange(queue, n), 0, "wrap")


def _nonzero_1d(queue, condition):
    """The positions of the true (non-zero) elements of a 1-d array, int64 on the device: their
    count is read back (the result's length depends on the data)."""
    if isinstance(condition, numpy.ndarray):
        return Array.from_host(queue, numpy.nonzero(condition)[0].astype(numpy.int64))
    if condition.size == 0:
        return _empty(queue, (0,), numpy.int64)
    (positions,) = _work.nonzero(queue, condition)
    positions.queue = queue
    return positions


def _write_flat(queue, a, write):
    """write(flat) on a's elements in C order: in place where a is C-contiguous, else through a
    contiguous copy written back."""
    contiguous = a.is_c_contiguous
    target = a if contiguous else _alg().ascontiguousarray(queue, a)
    write(_alg().reshape(queue, target, (target.size,)))
    if not contiguous:
        _kjarni.assign(queue, a, target)


def _check_mode(mode):
    if mode not in ("raise", "wrap", "clip"):
        raise ArgumentError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})", "mode")


def _require_array(what, a, argument="a"):
    """The array a function writes into: a kjarni Array (numpy's TypeError for anything else; a host
    array with device values is refused too: kjarni writes device memory only)."""
    if not isinstance(a, Array):
        raise ArgumentTypeError(f"numpy.{what}: the array written into must be a kjarni Array, not "
                                f"{type(a).__name__} (copy the values to the host first: x.get())", argument)


def _safe_values(what, a, values, queue):
    """putmask's and place's values: an array must cast to a's dtype by the 'safe' rule (numpy's
    TypeError); anything else (numbers, numpy scalars, lists) is converted to a's dtype as
    numpy.asarray converts it (its OverflowError for a Python int out of range). A flat Array."""
    dtype = numpy.dtype(a.dtype)
    if isinstance(values, (Array, Expr, numpy.ndarray)):
        if not numpy.can_cast(values.dtype, dtype, "safe"):
            raise ArgumentTypeError(f"numpy.{what}: Cannot cast array data from dtype('{values.dtype}') to "
                                    f"dtype('{dtype}') according to the rule 'safe'", "values")
        return _flat(queue, _on_device(queue, values, dtype))
    return _flat(queue, Array.from_host(queue, numpy.asarray(values, dtype=dtype)))


def _mask_of(queue, mask):
    """A mask as numpy's putmask / place take it: any dtype, its truth values (a device bool Array)."""
    if isinstance(mask, (Array, Expr)):
        return _on_device(queue, mask, numpy.bool_)
    return Array.from_host(queue, numpy.asarray(mask).astype(numpy.bool_))


def _separate(queue, target, value):
    """`value` (an Array, Expr or host value) that an elementwise write into `target` may read:
    an Expr evaluated and an Array that may share target's memory copied first (numpy copies an
    overlapping source)."""
    if isinstance(value, Expr):
        return _evaluated(queue, value)
    if isinstance(value, Array) and _kjarni.may_share_memory(value, target):
        return value.copy(queue)
    return value


# ---- along an axis ----------------------------------------------------------------------------------

def _along_axis_key(what, queue, arr, indices, axis):
    """numpy's _make_along_axis_idx: the fancy key (host aranges of arr's other axes, the indices
    along `axis`) and the array it indexes (arr flattened for axis None)."""
    if not isinstance(indices, (Array, Expr)):
        indices = numpy.asarray(indices)
    elif isinstance(indices, Expr):
        indices = _evaluated(queue, indices)
    if axis is None:
        if indices.ndim != 1:
            raise ArgumentError(f"numpy.{what}: when axis=None, `indices` must have a single dimension.", "indices")
        # numpy's np.array(arr.flat): a view of a C-contiguous array (put_along_axis writes into
        # it), a read-only copy of another (put_along_axis' ValueError)
        if what == "put_along_axis" and not arr.is_c_contiguous:
            raise ArgumentError("numpy.put_along_axis: assignment destination is read-only (axis=None of an array "
                                "that is not C-contiguous)", "arr")
        arr, axis = _flat(queue, arr), 0
    else:
        axis = _axes(axis, arr.ndim, what)[0]
    if numpy.dtype(indices.dtype).kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if arr.ndim != indices.ndim:
        raise ArgumentError(f"numpy.{what}: `indices` and `arr` must have the same number of dimensions", "indices")
    key = []
    for dim, n in enumerate(arr.shape):
        if dim == axis:
            key.append(indices)
        else:
            key.append(numpy.arange(n, dtype=numpy.int64).reshape((1,) * dim + (-1,) + (1,) * (arr.ndim - dim - 1)))
    return arr, tuple(key)


def _take_along_axis(arr, indices, axis=-1):
    queue = _queue("take_along_axis", arr, indices)
    arr, key = _along_axis_key("take_along_axis", queue, _on_device(queue, arr), indices, axis)
    return arr[key]


def _put_along_axis(arr, indices, values, axis):
    queue = _queue("put_along_axis", arr, indices, values)
    _require_array("put_along_axis", arr, "arr")
    target, key = _along_axis_key("put_along_axis", queue, arr, indices, axis)
    target[key] = _separate(queue, target, values)


# ---- writing into the array given -------------------------------------------------------------------

def _put(a, ind, v, mode="raise"):
    # numpy's: a.flat[ind[k]] = v[k % len(v)] in order (the last of repeated indices wins), v
    # converted to a's dtype as numpy.asarray converts it; 'raise' checks the indices (their
    # bounds reduced on the device and read back: numpy's IndexError), 'wrap' takes them modulo
    # the size, 'clip' clamps them (negative ones to 0).
    queue = _queue("put", a, ind, v)
    _require_array("put", a)
    _check_mode(mode)
    if isinstance(v, (Array, Expr)):
        values = _flat(queue, _separate(queue, a, _on_device(queue, v, a.dtype)))
    else:
        values = _flat(queue, Array.from_host(queue, numpy.asarray(v, dtype=a.dtype)))
    if isinstance(ind, (Array, Expr)):
        indices = _flat(queue, _on_device(queue, ind, numpy.int64))
    else:
        indices = _flat(queue, Array.from_host(queue, numpy.asarray(ind).astype(numpy.int64)))
    count, n = indices.size, a.size
    if count and n == 0:
        raise IndexOutOfBoundsError("numpy.put: cannot replace elements of an empty array", "a")
    if count == 0 or values.size == 0:
        return None
    if mode == "wrap":
        indices = _evaluated(queue, Expr(indices) % n)
    elif mode == "clip":
        indices = _evaluated(queue, _kjarni.clip(indices, 0, n - 1))
    values = _cycled(queue, values, count)
    _write_flat(queue, a, lambda flat: _work.integer_index_assign(queue, flat, indices, values, 0))
    return None


def _putmask(a, /, mask, values):
    # numpy's: a.flat[i] = values.flat[i % len(values)] where mask.flat[i] (mask of a's size, any
    # shape and dtype: its truth values).
    queue = _queue("putmask", a, mask, values)
    _require_array("putmask", a)
    mask = _mask_of(queue, mask)
    if mask.size != a.size:
        raise ArgumentError("numpy.putmask: mask and data must be the same size", "mask")
    values = _safe_values("putmask", a, _separate(queue, a, values), queue)
    if values.size == 0 or a.size == 0:
        return None
    spread = _alg().reshape(queue, _cycled(queue, values, a.size), tuple(a.shape))
    keep = _alg().reshape(queue, _separate(queue, a, mask), tuple(a.shape))
    _kjarni.assign(queue, a, _kjarni.where(keep, spread, a))
    return None


def _place(arr, mask, vals):
    # numpy's: the k-th true element of mask (of arr's size) takes vals.flat[k % len(vals)]: k is
    # the mask's inclusive running count less one (a cumsum on the device).
    queue = _queue("place", arr, mask, vals)
    _require_array("place", arr, "arr")
    mask = _mask_of(queue, mask)
    if mask.size != arr.size:
        raise ArgumentError("numpy.place: mask and data must be the same size", "mask")
    values = _safe_values("place", arr, _separate(queue, arr, vals), queue)
    if arr.size == 0:
        return None
    flat_mask = _flat(queue, mask)
    if values.size == 0:
        # (an error path: whether anything would be placed, read back)
        if _all_true(queue, _work.unary("logical_not", flat_mask)):
            return None
        raise ArgumentError("numpy.place: Cannot insert from an empty array!", "vals")
    rank = Expr(_alg().cumsum(queue, flat_mask, None, numpy.int64)) - 1
    picked = _alg().take(queue, values, _evaluated(queue, rank), 0, "wrap")
    shape = tuple(arr.shape)
    keep = _alg().reshape(queue, _separate(queue, arr, flat_mask), shape)
    _kjarni.assign(queue, arr, _kjarni.where(keep, _alg().reshape(queue, picked, shape), arr))
    return None


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _leading_ones_dropped(shape, ndim):
    shape = tuple(shape)
    while len(shape) > ndim and shape[0] == 1:
        shape = shape[1:]
    return shape


def _broadcast_into(what, shape, target, argument, drop=True):
    """numpy's assignment rule: `shape` (leading 1s beyond target's dimensions dropped) broadcasts
    to `target`; the shape kept."""
    kept = _leading_ones_dropped(shape, len(target)) if drop else tuple(shape)
    try:
        fits = len(kept) <= len(target) and numpy.broadcast_shapes(kept, target) == tuple(target)
    except ValueError:
        fits = False
    if not fits:
        raise ArgumentError(f"numpy.copyto: could not broadcast {what} from shape {tuple(shape)} into shape "
                            f"{tuple(target)}", argument)
    return kept


def _copyto(dst, src, casting="same_kind", where=True):
    # numpy's: src cast to dst's dtype when `casting` allows it (a Python number by numpy's rule
    # for weak scalars: converted by numpy itself, with its TypeError or OverflowError), broadcast
    # to dst's shape, written where `where` holds.
    queue = _queue("copyto", dst, src, where)
    _require_array("copyto", dst, "dst")
    if casting not in _CASTINGS:
        raise ArgumentError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got {casting!r})",
                            "casting")
    dtype = numpy.dtype(dst.dtype)
    shape = tuple(dst.shape)
    if type(src) in (bool, int, float, complex):
        converted = numpy.empty((), dtype)
        numpy.copyto(converted, src, casting=casting)
        source, source_shape = converted[()], ()
    else:
        if not isinstance(src, (Array, Expr)):
            src = numpy.asarray(src)
        if not numpy.can_cast(src.dtype, dtype, casting):
            raise ArgumentTypeError(f"numpy.copyto: Cannot cast array data from dtype('{src.dtype}') to "
                                    f"dtype('{dtype}') according to the rule '{casting}'", "src")
        source_shape = _shape_of(src)
        source = _separate(queue, dst, src)
    kept = _broadcast_into("input array", source_shape, shape, "src")
    if isinstance(source, (Array, numpy.ndarray)) and kept != tuple(source.shape):
        source = source.reshape(kept)
    if isinstance(source, numpy.ndarray):
        source = Array.from_host(queue, source.astype(dtype))
    elif isinstance(source, Array) and numpy.dtype(source.dtype) != dtype:
        source = Expr(source).astype(dtype)
    if not (type(where) is bool and where):
        if isinstance(where, (Array, Expr)):
            mask = _separate(queue, dst, _on_device(queue, where, numpy.bool_))
        else:
            mask = numpy.asarray(where).astype(numpy.bool_)
        # (numpy drops the source's leading axes of 1 beyond dst's, not the mask's)
        _broadcast_into("where mask", mask.shape, shape, "where", drop=False)
        if isinstance(mask, numpy.ndarray):
            mask = Array.from_host(queue, mask)
        source = _kjarni.where(mask, source, dst)
    if dst.size:
        _kjarni.assign(queue, dst, source)
    return None


def _fill_diagonal(a, val, wrap=False):
    # numpy's a.flat[:end:step] = val: the positions follow from a's shape alone (host index
    # arrays), val flattened and repeated cyclically, converted as numpy's assignment converts it.
    queue = _queue("fill_diagonal", a, val)
    _require_array("fill_diagonal", a)
    if a.ndim < 2:
        raise ArgumentError("numpy.fill_diagonal: array must be at least 2-d", "a")
    if a.ndim == 2:
        columns = a.shape[1]
        end = a.size if wrap else min(a.size, columns * columns)
        positions = numpy.arange(0, end, columns + 1, dtype=numpy.int64)
        key = (positions // columns, positions % columns) if columns else (positions, positions)
    else:
        if len(set(a.shape)) != 1:
            raise ArgumentError("numpy.fill_diagonal: All dimensions of input must be of equal length", "a")
        key = (numpy.arange(a.shape[0], dtype=numpy.int64),) * a.ndim
    if isinstance(val, (Array, Expr)):
        values = _flat(queue, _separate(queue, a, _on_device(queue, val, a.dtype)))
    else:
        values = _flat(queue, Array.from_host(queue, numpy.asarray(val, dtype=a.dtype)))
    count = key[0].size
    if count == 0 or values.size == 0:
        return None
    a[key] = _cycled(queue, values, count)
    return None


# ---- selections -------------------------------------------------------------------------------------

def _check_out(what, out, dtype, shape):
    # numpy's take-based out= (compress, choose): out's dtype must cast safely to the result's,
    # its shape be the result's.
    if not isinstance(out, Array):
        raise ArgumentTypeError(f"numpy.{what}: out must be a kjarni Array", "out")
    if not numpy.can_cast(out.dtype, dtype, "safe"):
        raise ArgumentTypeError(f"numpy.{what}: Cannot cast array data from dtype('{out.dtype}') to dtype('{dtype}') "
                                "according to the rule 'safe'", "out")
    if tuple(out.shape) != tuple(shape):
        raise ArgumentError(f"numpy.{what}: output array does not match result of ndarray.take", "out")


def _into_out(queue, out, result):
    if numpy.dtype(out.dtype) != numpy.dtype(result.dtype):
        result = Expr(result).astype(out.dtype)
    if out.size:
        _kjarni.assign(queue, out, result)
    return out


def _compress(condition, a, axis=None, out=None):
    # numpy's: take(a, nonzero(condition)[0], axis) ('raise': a true element past the axis is an
    # IndexError); the count of true elements is read back.
    queue = _queue("compress", condition, a)
    a = _on_device(queue, a)
    condition = _evaluated(queue, condition) if isinstance(condition, Expr) else condition
    if not isinstance(condition, Array):
        condition = numpy.asarray(condition)
    if condition.ndim != 1:
        raise ArgumentError("numpy.compress: condition must be a 1-d array", "condition")
    data, ax = (_flat(queue, a), 0) if axis is None else (a, _axes(axis, a.ndim, "compress")[0])
    result = _alg().take(queue, data, _nonzero_1d(queue, condition), ax, "raise")
    if out is None:
        return result
    _check_out("compress", out, a.dtype, result.shape)
    return _into_out(queue, out, result)


def _extract(condition, arr):
    queue = _queue("extract", condition, arr)
    condition = _on_device(queue, condition) if isinstance(condition, (Array, Expr)) else numpy.asarray(condition)
    flat = condition.reshape(-1) if isinstance(condition, numpy.ndarray) else _flat(queue, condition)
    return _alg().take(queue, _flat(queue, arr), _nonzero_1d(queue, flat), 0, "raise")


def _weak(x):
    return type(x) in (int, float, complex)


def _converted(queue, x, dtype):
    """A choice of choose / select in `dtype`: a device array by astype, a host value as numpy
    converts its array (numpy.asarray(x).astype: a Python int wraps, as numpy's choose and select
    give it)."""
    if isinstance(x, (Array, Expr)):
        return x if numpy.dtype(x.dtype) == dtype else Expr(x).astype(dtype)
    host = numpy.asarray(x).astype(dtype)
    return host[()] if host.ndim == 0 else Array.from_host(queue, host)


def _choose(a, choices, out=None, mode="raise"):
    # numpy's: choices[a[i]][i], everything broadcast together, in the choices' common dtype: one
    # where() per choice. 'raise' checks a's range (reduced on the device, the answer read back).
    queue = _queue("choose", a, choices, out)
    _check_mode(mode)
    if isinstance(choices, (Array, Expr, numpy.ndarray)):
        choices = [choices[k] for k in range(choices.shape[0])] if _ndim_of(choices) else [choices]
    choices = list(choices)
    if not choices:
        raise ArgumentError("numpy.choose: 0-length sequence.", "choices")
    index = _on_device(queue, a) if isinstance(a, (Array, Expr)) else numpy.asarray(a)
    if not numpy.can_cast(index.dtype, _INTP, "safe"):
        raise ArgumentTypeError(f"numpy.choose: Cannot cast array data from dtype('{index.dtype}') to "
                                f"dtype('{_INTP}') according to the rule 'safe'", "a")
    dtype = numpy.result_type(*(x if _weak(x) else _dtype_of(x) for x in choices))
    shapes = [_shape_of(index)] + [_shape_of(x) for x in choices]
    try:
        shape = numpy.broadcast_shapes(*shapes)
    except ValueError:
        raise ArgumentError("numpy.choose: shape mismatch: objects cannot be broadcast to a single shape", "choices") \
            from None
    if isinstance(index, numpy.ndarray):
        index = Array.from_host(queue, index)
    n = len(choices)
    k = Expr(index).astype(numpy.int64)
    if mode == "raise":
        if index.size and not _all_true(queue, _work.binary("logical_and", k >= 0, k < n)):
            raise ArgumentError("numpy.choose: invalid entry in choice array", "a")
    elif mode == "wrap":
        k = k % n
    else:
        k = _kjarni.clip(k, 0, n - 1)
    k = _evaluated(queue, k)
    picked = _converted(queue, choices[-1], dtype)
    for j in range(n - 2, -1, -1):
        picked = _kjarni.where(Expr(k) == j, _converted(queue, choices[j], dtype), picked)
    result = _empty(queue, shape, dtype)
    if result.size:
        _kjarni.assign(queue, result, picked)
    if out is None:
        return result
    _check_out("choose", out, dtype, shape)
    return _into_out(queue, out, result)


def _select(condlist, choicelist, default=0):
    # numpy's: the first true condition's choice, default where none holds, in result_type of the
    # choices and the default (Python numbers weak), conditions of bool only.
    queue = _queue("select", condlist, choicelist, default)
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise ArgumentError("numpy.select: list of cases must be same length as list of conditions", "choicelist")
    if not condlist:
        raise ArgumentError("numpy.select: select with an empty condition list is not possible", "condlist")
    choices = choicelist + [default]
    try:
        dtype = numpy.result_type(*(x if _weak(x) else _dtype_of(x) for x in choices))
    except TypeError as e:
        raise ArgumentTypeError(f"numpy.select: Choicelist and default value do not have a common dtype: {e}",
                                "choicelist") from None
    conditions = [c if isinstance(c, (Array, Expr)) else numpy.asarray(c) for c in condlist]
    try:
        cond_shape = numpy.broadcast_shapes(*(_shape_of(c) for c in conditions))
        choice_shape = numpy.broadcast_shapes(*(_shape_of(c) for c in choices))
    except ValueError:
        raise ArgumentError("numpy.select: shape mismatch: objects cannot be broadcast to a single shape",
                            "condlist") from None
    for i, c in enumerate(conditions):
        if numpy.dtype(c.dtype) != numpy.bool_:
            raise ArgumentTypeError(f"numpy.select: invalid entry {i} in condlist: should be boolean ndarray",
                                    "condlist")
    shape = cond_shape if len(choice_shape) == 0 else numpy.broadcast_shapes(cond_shape, choice_shape)
    for s in (cond_shape, choice_shape):
        if numpy.broadcast_shapes(s, shape) != shape:
            raise ArgumentError(f"numpy.select: could not broadcast input array from shape {s} into shape {shape}",
                                "choicelist")
    for choice in choicelist:
        # (numpy's copyto of each choice, a Python number made an array of its default dtype first:
        # same_kind casting, which refuses an int into an unsigned result)
        if _weak(choice) and not numpy.can_cast(numpy.asarray(choice).dtype, dtype, "same_kind"):
            raise ArgumentTypeError(f"numpy.select: Cannot cast array data from dtype('{numpy.asarray(choice).dtype}') "
                                    f"to dtype('{dtype}') according to the rule 'same_kind'", "choicelist")
    picked = _converted(queue, default, dtype)
    for cond, choice in zip(reversed(conditions), reversed(choicelist)):
        if isinstance(cond, numpy.ndarray):
            cond = Array.from_host(queue, cond)
        picked = _kjarni.where(cond, _converted(queue, choice, dtype), picked)
    result = _empty(queue, shape, dtype)
    if result.size:
        _kjarni.assign(queue, result, picked)
    return result


# ---- new arrays from edits --------------------------------------------------------------------------

def _joined(queue, arrays, axis):
    """numpy.concatenate of device arrays, each first cast to their result_type (kjarni's
    concatenate joins one dtype)."""
    dtype = numpy.result_type(*(numpy.dtype(x.dtype) for x in arrays))
    arrays = [_on_device(queue, x, dtype) for x in arrays]
    if builtins.any(x.ndim != arrays[0].ndim for x in arrays):
        raise ArgumentError("numpy.concatenate: all the input array dimensions must be the same", "arrays")
    if arrays[0].ndim == 0:
        raise ArgumentError("numpy.concatenate: zero-dimensional arrays cannot be concatenated", "arrays")
    axis = _axes(axis, arrays[0].ndim, "concatenate")[0]
    return _alg().concatenate(queue, arrays, axis)


def _axis_of(what, queue, arr, axis):
    """numpy's insert / delete: arr flattened for axis None, else the axis normalized."""
    if axis is None:
        arr = _flat(queue, arr) if arr.ndim != 1 else arr
        return arr, arr.ndim - 1
    return arr, _axes(axis, arr.ndim, what)[0]


def _along(axis, ndim, item):
    return tuple(item if d == axis else slice(None) for d in range(ndim))


def _insert_values(queue, values, dtype):
    if isinstance(values, (Array, Expr)):
        return _on_device(queue, values, dtype)
    return Array.from_host(queue, numpy.asarray(values, dtype=dtype))


def _insert(arr, obj, values, axis=None):
    # numpy's: one index (a number, or a sequence of one) inserts `values` (numpy.array(values,
    # ndmin=arr.ndim) in arr's dtype, its first axis moved to `axis` for a number) before it;
    # several insert values[k] before obj[k]: numpy's algorithm on the device (a stable argsort of
    # the indices, each moved on by its rank, scattered into the new array; the others' places a
    # mask), the scatter checking the indices' bounds (numpy's IndexError).
    queue = _queue("insert", arr, obj, values)
    arr = _on_device(queue, arr)
    arr, axis = _axis_of("insert", queue, arr, axis)
    ndim, n, dtype = arr.ndim, arr.shape[axis] if arr.ndim else 0, numpy.dtype(arr.dtype)
    if isinstance(obj, slice):
        indices = numpy.arange(*obj.indices(n), dtype=numpy.intp)
    elif isinstance(obj, (Array, Expr)):
        indices = _on_device(queue, obj)
    else:
        indices = numpy.array(obj)
    if numpy.dtype(indices.dtype) == numpy.bool_:
        if indices.ndim != 1:
            raise ArgumentError("numpy.insert: boolean array argument obj to insert must be one dimensional", "obj")
        indices = _nonzero_1d(queue, indices)
    elif indices.ndim > 1:
        raise ArgumentError("numpy.insert: index array argument obj to insert must be one dimensional or scalar", "obj")
    if ndim == 0:
        raise AxisError("numpy.insert: axis -1 is out of bounds for array of dimension 0", "axis")
    if indices.size == 1:
        if numpy.dtype(indices.dtype).kind not in "iu":
            raise ArgumentTypeError("numpy.insert: slice indices must be integers or None or have an __index__ method",
                                    "obj")
        # (a device index of one element is read back: where the values go)
        index = int(indices.get(queue).reshape(-1)[0] if isinstance(indices, Array) else indices.item())
        if index < -n or index > n:
            raise IndexOutOfBoundsError(f"numpy.insert: index {index} is out of bounds for axis {axis} with size {n}",
                                        "obj")
        index += n if index < 0 else 0
        new = _insert_values(queue, values, dtype)
        if new.ndim < ndim:
            new = new.reshape((1,) * (ndim - new.ndim) + tuple(new.shape))
        if indices.ndim == 0:
            order = list(range(1, axis + 1)) + [0] + list(range(axis + 1, new.ndim))
            new = new.transpose(order)
        shape = list(arr.shape)
        shape[axis] = new.shape[axis]
        # (numpy's assignment into the slice: leading axes of 1 beyond arr's dropped)
        kept = _leading_ones_dropped(new.shape, ndim)
        if not _broadcasts_into(kept, tuple(shape), ndim):
            raise ArgumentError(f"numpy.insert: could not broadcast input array from shape {tuple(new.shape)} into "
                                f"shape {tuple(shape)}", "values")
        new = new.reshape(kept)
        parts = [arr[_along(axis, ndim, slice(None, index))], _broadcast_view(new, shape),
                 arr[_along(axis, ndim, slice(index, None))]]
        return _alg().concatenate(queue, parts, axis)
    if isinstance(indices, numpy.ndarray):
        if indices.size == 0 and not isinstance(obj, numpy.ndarray):
            indices = indices.astype(numpy.intp)
        if indices.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        indices = Array.from_host(queue, indices.astype(numpy.int64).reshape(-1))
    elif numpy.dtype(indices.dtype).kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    count = indices.size
    shape = list(arr.shape)
    shape[axis] += count
    new = _empty(queue, shape, dtype)
    source = _insert_values(queue, values, dtype)
    selection = list(arr.shape)
    selection[axis] = count
    kept = _leading_ones_dropped(source.shape, ndim)
    if source.size == 0 and len(kept) > ndim:
        kept = kept[len(kept) - ndim:]  # (numpy's advanced assignment takes an empty value array's extra axes)
    if not _broadcasts_into(kept, tuple(selection), ndim):
        raise ArgumentError(f"numpy.insert: shape mismatch: value array of shape {tuple(source.shape)} could not be "
                            f"broadcast to indexing result of shape {tuple(selection)}", "values")
    if count == 0:
        positions = _empty(queue, (0,), numpy.int64)
    else:
        wrapped = _evaluated(queue, _kjarni.where(Expr(indices) < 0, Expr(indices).astype(numpy.int64) + n,
                                                  Expr(indices).astype(numpy.int64)))
        order = _work.argsort(queue, wrapped, 0)  # (stable, as numpy's mergesort)
        positions = wrapped.copy(queue)
        moved = _evaluated(queue, Expr(_alg().take(queue, wrapped, order)) + _arange(queue, count))
        _work.integer_index_assign(queue, positions, order, moved, 0)
    old = _empty(queue, (shape[axis],), numpy.bool_)
    old.fill(True, queue)
    if count:
        # (the scatters check the indices' bounds: numpy's IndexError)
        _work.integer_index_assign(queue, old, positions, _false(queue), 0)
        _work.integer_index_assign(queue, new, positions, _broadcast_view(source.reshape(kept), selection), axis)
    # (indices below -n can meet others: fewer places are left than arr has, and arr is broadcast
    # into them as numpy's assignment broadcasts it, or refused with its ValueError)
    keep = _nonzero_1d(queue, old)
    _work.integer_index_assign(queue, new, keep, arr, axis)
    return new


def _false(queue):
    return Array.from_host(queue, numpy.zeros((), numpy.bool_))


def _broadcast_view(x, shape):
    from ._numpy_shapes import _broadcast_to
    x = _on_device(x.queue, x) if isinstance(x, Expr) else x
    return x if tuple(x.shape) == tuple(shape) else _broadcast_to(x, tuple(shape))


def _delete(arr, obj, axis=None):
    # numpy's: the elements of `arr` along `axis` other than those obj names (a number, a slice, a
    # sequence of indices: repeated ones once, out of range numpy's IndexError; a boolean mask of
    # the axis' length): a gather of the kept positions (their count read back where obj is on
    # the device).
    queue = _queue("delete", arr, obj)
    arr = _on_device(queue, arr)
    arr, axis = _axis_of("delete", queue, arr, axis)
    if arr.ndim == 0:
        raise AxisError("numpy.delete: axis -1 is out of bounds for array of dimension 0", "axis")
    n = arr.shape[axis]
    if isinstance(obj, slice):
        keep = numpy.ones(n, dtype=bool)
        keep[obj] = False
        return _alg().take(queue, arr, Array.from_host(queue, numpy.flatnonzero(keep).astype(numpy.int64)), axis)
    if isinstance(obj, (int, numpy.integer)) and not isinstance(obj, (bool, numpy.bool_)):
        single = int(obj)
    elif isinstance(obj, (Array, Expr)):
        obj = _on_device(queue, obj)
        single = None
        if numpy.dtype(obj.dtype).kind not in "biu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if obj.size == 1 and numpy.dtype(obj.dtype).kind in "iu":
            single = int(obj.get(queue).reshape(-1)[0])  # (one index, read back: numpy takes it as a number)
    else:
        given = obj
        obj = numpy.asarray(obj)
        single = None
        if obj.size == 0 and not isinstance(given, numpy.ndarray):
            obj = obj.astype(numpy.intp)
        elif obj.size == 1 and obj.dtype.kind in "ui":
            single = int(obj.item())
    if single is not None:
        if single < -n or single >= n:
            raise IndexOutOfBoundsError(f"numpy.delete: index {single} is out of bounds for axis {axis} with size {n}",
                                        "obj")
        single += n if single < 0 else 0
        parts = [arr[_along(axis, arr.ndim, slice(None, single))], arr[_along(axis, arr.ndim, slice(single + 1, None))]]
        return _alg().concatenate(queue, parts, axis)
    if numpy.dtype(obj.dtype) == numpy.bool_:
        if tuple(obj.shape) != (n,):
            raise ArgumentError("numpy.delete: boolean array argument obj to delete must be one dimensional and match "
                                f"the axis length of {n}", "obj")
        keep = ~obj if isinstance(obj, numpy.ndarray) else _on_device(queue, _work.unary("logical_not", obj))
    elif isinstance(obj, numpy.ndarray):
        if obj.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if obj.size:
            bad = (obj < -n) | (obj >= n)
            if bad.any():
                first = obj[bad].reshape(-1)[0]
                raise IndexOutOfBoundsError(f"index {first} is out of bounds for axis {axis} with size {n}", "obj")
        keep = numpy.ones(n, dtype=bool)
        keep[obj.reshape(-1) if obj.ndim else obj[()]] = False
    else:
        keep = _empty(queue, (n,), numpy.bool_)
        keep.fill(True, queue)
        if obj.size:
            _work.integer_index_assign(queue, keep, _flat(queue, obj), _false(queue), 0)
    return _alg().take(queue, arr, _nonzero_1d(queue, keep), axis)


def _append(arr, values, axis=None):
    queue = _queue("append", arr, values)
    arr, values = _on_device(queue, arr), _on_device(queue, values)
    if axis is None:
        arr, values = _flat(queue, arr), _flat(queue, values)
        axis = 0
    return _joined(queue, [arr, values], axis)


def _column_stack(tup):
    queue = _queue("column_stack", *tup)
    arrays = []
    for v in tup:
        a = _on_device(queue, v)
        if a.ndim < 2:
            a = a.reshape((a.size, 1) if a.ndim == 1 else (1, 1))
        arrays.append(a)
    return _joined(queue, arrays, 1)


def _block_format_index(index):
    return "arrays" + "".join(f"[{i}]" for i in index)


def _block_depths(arrays, parent=()):
    """numpy's _block_check_depths_match: (the index of a bottom element, max ndim)."""
    if isinstance(arrays, tuple):
        raise ArgumentTypeError(f"numpy.block: {_block_format_index(parent)} is a tuple. Only lists can be used to "
                                "arrange blocks, and np.block does not allow implicit conversion from tuple to "
                                "ndarray.", "arrays")
    if isinstance(arrays, list) and arrays:
        results = [_block_depths(x, parent + (i,)) for i, x in enumerate(arrays)]
        first, ndim = results[0]
        for index, nd in results[1:]:
            ndim = max(ndim, nd)
            if len(index) != len(first):
                raise ArgumentError("numpy.block: List depths are mismatched. First element was at depth "
                                    f"{len(first)}, but there is an element at depth {len(index)} "
                                    f"({_block_format_index(index)})", "arrays")
            if index[-1] is None:
                first = index
        return first, ndim
    if isinstance(arrays, list):
        return parent + (None,), 0
    return parent, _ndim_of(arrays)


def _block(arrays):
    # numpy's: nested lists joined innermost along the last axis, the next along the one before...,
    # every array first given leading axes of 1 up to the result's dimensions.
    queue = _queue("block", arrays)
    bottom, ndim = _block_depths(arrays)
    depth = len(bottom)
    if bottom and bottom[-1] is None:
        raise ArgumentError(f"numpy.block: List at {_block_format_index(bottom[:-1])} cannot be empty", "arrays")
    result_ndim = max(ndim, depth)

    def build(x, level):
        if level < depth:
            return _joined(queue, [build(y, level + 1) for y in x], -(depth - level))
        a = _on_device(queue, x)
        return a.reshape((1,) * (result_ndim - a.ndim) + tuple(a.shape))
    result = build(arrays, 0)
    return result.copy(queue) if depth == 0 else result


def _resize(a, new_shape):
    # numpy's: a's elements in C order repeated cyclically to the new size (zeros when either is empty).
    queue = _queue("resize", a)
    a = _on_device(queue, a)
    new_shape = (new_shape,) if isinstance(new_shape, (int, numpy.integer)) else tuple(new_shape)
    size = 1
    for n in new_shape:
        size *= n
        if n < 0:
            raise ArgumentError("numpy.resize: all elements of `new_shape` must be non-negative", "new_shape")
    if a.size == 0 or size == 0:
        return _new_like("resize", a, None, new_shape, 0)
    taken = _alg().take(queue, _flat(queue, a), _arange(queue, size), 0, "wrap")
    return _alg().reshape(queue, taken, new_shape)


def _trim_zeros(filt, trim="fb", axis=None):
    # numpy's: the smallest slice (along `axis`, all axes when None) holding every non-zero
    # element: for each axis, the first and last places where any element is non-zero, reduced on
    # the device and read back (the view's bounds depend on the data). A view, as numpy's.
    queue = _queue("trim_zeros", filt)
    trim = trim.lower()
    if trim not in ("fb", "bf", "f", "b"):
        raise ArgumentError(f"numpy.trim_zeros: unexpected character(s) in `trim`: {trim!r}", "trim")
    if isinstance(filt, Expr):
        filt = _evaluated(queue, filt)
    ndim = filt.ndim
    axes = tuple(range(ndim)) if axis is None else _axes(axis, ndim, "trim_zeros")
    if not axes:
        return filt
    start = stop = [0] * ndim  # (no non-zero element: numpy's empty slices from 0)
    if filt.size:
        mask = _evaluated(queue, Expr(filt) != 0)
        found = [_alg().any(queue, mask)]
        for d in range(ndim):
            others = tuple(k for k in range(ndim) if k != d)
            line = _alg().any(queue, mask, others) if others else mask
            found += [_alg().argmax(queue, line), _alg().argmax(queue, line[::-1])]
        values = _alg().concatenate(queue, [_on_device(queue, f.reshape(1), numpy.int64) for f in found])
        values = values.get(queue).tolist()
        if values[0]:
            start = values[1::2] if "f" in trim else [None] * ndim
            stop = [filt.shape[d] - values[2 + 2 * d] for d in range(ndim)] if "b" in trim else [None] * ndim
    key = tuple(slice(start[d], stop[d]) if d in axes else slice(None) for d in range(ndim))
    return filt[key[0]] if len(key) == 1 else filt[key]


def _diagflat(v, k=0):
    from ._numpy_shapes import _diag
    queue = _queue("diagflat", v)
    return _diag(_flat(queue, v), k)


# ---- views ------------------------------------------------------------------------------------------

def _unstack(x, /, *, axis=0):
    if isinstance(x, Expr):
        x = _evaluated(_queue("unstack", x), x)
    if x.ndim == 0:
        raise ArgumentError("numpy.unstack: Input array must be at least 1-d.", "x")
    from ._numpy_shapes import _moveaxis
    moved = _moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


def _broadcast_arrays(*args, subok=False):
    queue = _queue("broadcast_arrays", *args)
    arrays = [_on_device(queue, a) for a in args]
    try:
        shape = numpy.broadcast_shapes(*(tuple(a.shape) for a in arrays))
    except ValueError as e:
        raise ArgumentError(f"numpy.broadcast_arrays: {e}", "args") from None
    return tuple(_broadcast_view(a, shape) for a in arrays)


def _rollaxis(a, axis, start=0):
    if isinstance(a, Expr):
        a = _evaluated(_queue("rollaxis", a), a)
    n = a.ndim
    axis = _axes(axis, n, "rollaxis")[0]
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise AxisError(f"numpy.rollaxis: 'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in",
                        "start")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return a.transpose(axes)


# ---- index arithmetic -------------------------------------------------------------------------------

def _ix_(*args):
    queue = _queue("ix_", *args)
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if isinstance(new, (Array, Expr)):
            new = _on_device(queue, new)
        else:
            given = new
            new = numpy.asarray(new)
            if new.size == 0 and not isinstance(given, numpy.ndarray):
                new = new.astype(numpy.intp)
        if new.ndim != 1:
            raise ArgumentError("numpy.ix_: Cross index must be 1 dimensional", "args")
        if numpy.dtype(new.dtype) == numpy.bool_:
            new = _nonzero_1d(queue, new)
        elif isinstance(new, numpy.ndarray):
            new = Array.from_host(queue, new)
        new = new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1))
        new.queue = queue
        out.append(new)
    return tuple(out)


def _dims(what, shape):
    shape = (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
    return tuple(operator.index(n) for n in shape)


def _int_indices(what, queue, x):
    x = _on_device(queue, x) if isinstance(x, (Array, Expr)) else Array.from_host(queue, numpy.asarray(x))
    if not numpy.can_cast(x.dtype, _INTP, "same_kind"):
        raise ArgumentTypeError(f"numpy.{what}: only int indices permitted", "indices")
    return x


def _extremes(queue, x):
    """x's minimum and maximum as Python ints (reduced on the device and read back: a bounds check)."""
    low, high = _alg().min(queue, x), _alg().max(queue, x)
    if numpy.dtype(x.dtype) == numpy.uint64:
        return int(low.get(queue)), int(high.get(queue))
    both = _alg().concatenate(queue, [_on_device(queue, e.reshape(1), numpy.int64) for e in (low, high)])
    return tuple(int(v) for v in both.get(queue))


def _unravel_index(indices, shape, order="C"):
    # numpy's: the coordinates of each flat index in an array of `shape`, (i // stride) % extent
    # per axis; indices outside [0, size) are numpy's ValueError (their bounds reduced on the
    # device and read back).
    queue = _queue("unravel_index", indices)
    dims = _dims("unravel_index", shape)
    if order not in ("C", "F"):
        raise ArgumentError("numpy.unravel_index: only 'C' or 'F' order is permitted", "order")
    x = _int_indices("unravel_index", queue, indices)
    size = math.prod(dims)
    if x.size:
        low, high = _extremes(queue, x)
        for value in (low, high):
            if not 0 <= value < size or builtins.any(n < 0 for n in dims):
                raise ArgumentError(f"numpy.unravel_index: index {value} is out of bounds for array with size {size}",
                                    "indices")
    elif builtins.any(n < 0 for n in dims):
        raise ArgumentError("numpy.unravel_index: dimensions must be non-negative", "shape")
    axes = range(len(dims)) if order == "F" else range(len(dims) - 1, -1, -1)
    stride = 1
    strides = [0] * len(dims)
    for d in axes:
        strides[d] = stride
        stride *= dims[d]
    flat = Expr(x).astype(numpy.int64)
    results = []
    for d, n in enumerate(dims):
        results.append(_evaluated(queue, (flat // max(strides[d], 1)) % max(n, 1)) if x.size
                       else _empty(queue, tuple(x.shape), numpy.int64))
    for r in results:
        r.queue = queue
    return tuple(results)


def _ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    # numpy's: sum of index * stride over the axes, each index first checked ('raise': numpy's
    # ValueError, its bounds reduced on the device and read back), wrapped or clipped by its mode.
    queue = _queue("ravel_multi_index", multi_index)
    dims = _dims("ravel_multi_index", dims)
    multi_index = list(multi_index)
    if len(multi_index) != len(dims):
        raise ArgumentError(f"numpy.ravel_multi_index: parameter multi_index must be a sequence of length {len(dims)}",
                            "multi_index")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims):
        raise ArgumentError("numpy.ravel_multi_index: mode must be one string or one per dimension", "mode")
    for m in modes:
        _check_mode(m)
    if order not in ("C", "F"):
        raise ArgumentError("numpy.ravel_multi_index: only 'C' or 'F' order is permitted", "order")
    if builtins.any(n < 0 for n in dims):
        raise ArgumentError("numpy.ravel_multi_index: dimensions must be non-negative", "dims")
    if math.prod(dims) > numpy.iinfo(numpy.int64).max:
        raise ArgumentError("numpy.ravel_multi_index: invalid dims: array size defined by dims is larger than the "
                            "maximum possible size.", "dims")
    coordinates = [_int_indices("ravel_multi_index", queue, x) for x in multi_index]
    try:
        shape = numpy.broadcast_shapes(*(tuple(c.shape) for c in coordinates))
    except ValueError:
        raise ArgumentError("numpy.ravel_multi_index: shape mismatch: objects cannot be broadcast to a single shape",
                            "multi_index") from None
    for n, m in zip(dims, modes):
        if n == 0 and m != "raise" and math.prod(shape):
            raise ArgumentError("numpy.ravel_multi_index: cannot unravel if shape has zero entries (is empty).", "dims")
    axes = range(len(dims)) if order == "F" else range(len(dims) - 1, -1, -1)
    stride = 1
    strides = [0] * len(dims)
    for d in axes:
        strides[d] = stride
        stride *= dims[d]
    total = None
    for c, n, m, s in zip(coordinates, dims, modes, strides):
        if m == "raise" and math.prod(shape):  # (numpy checks the broadcast elements: none, none checked)
            low, high = _extremes(queue, c)
            if low < 0 or high >= n:
                raise ArgumentError("numpy.ravel_multi_index: invalid entry in coordinates array", "multi_index")
        i = Expr(c).astype(numpy.int64)
        if m == "wrap":
            i = i % n
        elif m == "clip":
            i = _kjarni.clip(i, 0, n - 1)
        term = i * s
        total = term if total is None else total + term
    result = _empty(queue, shape, numpy.int64)
    if result.size:
        _kjarni.assign(queue, result, total)
    return result


def _on_host_indices(queue, indices):
    """Index arrays that follow from a shape alone (numpy's tril_indices...), as device arrays."""
    out = []
    for x in indices:
        a = Array.from_host(queue, numpy.ascontiguousarray(x, dtype=numpy.int64))
        a.queue = queue
        out.append(a)
    return tuple(out)


def _triangle_indices(name):
    def indices(arr, k=0):
        queue = _queue(f"{name}_from", arr)
        if len(tuple(arr.shape)) != 2:
            raise ArgumentError(f"numpy.{name}_from: input array must be 2-d", "arr")
        return _on_host_indices(queue, getattr(numpy, name)(tuple(arr.shape)[-2], k=k, m=tuple(arr.shape)[-1]))
    return indices


def _diag_indices_from(arr):
    queue = _queue("diag_indices_from", arr)
    shape = tuple(arr.shape)
    if len(shape) < 2:
        raise ArgumentError("numpy.diag_indices_from: input array must be at least 2-d", "arr")
    if len(set(shape)) != 1:
        raise ArgumentError("numpy.diag_indices_from: All dimensions of input must be of equal length", "arr")
    return _on_host_indices(queue, numpy.diag_indices(shape[0], len(shape)))


# ---- comparisons, memory and dtypes -----------------------------------------------------------------

def _array_equiv(a1, a2):
    # numpy's: False where the shapes do not broadcast, else whether every pair is equal (one
    # answer read back).
    queue = _queue("array_equiv", a1, a2)
    try:
        a1 = a1 if isinstance(a1, (Array, Expr)) else numpy.asarray(a1)
        a2 = a2 if isinstance(a2, (Array, Expr)) else numpy.asarray(a2)
        numpy.broadcast_shapes(_shape_of(a1), _shape_of(a2))
    except Exception:  # noqa: BLE001 (numpy's answer for anything it cannot compare)
        return False
    a1, a2 = (Array.from_host(queue, x) if isinstance(x, numpy.ndarray) else x for x in (a1, a2))
    equal = Expr(a1) == a2
    if math.prod(tuple(equal.shape)) == 0:
        return True
    return _all_true(queue, equal)


class _Layout:
    """A stand-in numpy array at the address an Array's elements have in their allocation (offset
    from a fixed base), for numpy's exact overlap problem: never read."""
    _BASE = 1 << 44

    def __init__(self, a):
        self.__array_interface__ = {
            "version": 3, "shape": tuple(a.shape), "typestr": numpy.dtype(a.dtype).str, "strides": tuple(a.strides),
            "data": (self._BASE + a.base.offset + a.offset, True)}


def _shares_memory(a, b, /, max_work=None):
    # numpy's: whether some element of a and one of b overlap (numpy's exact solver, or its bounds
    # check for max_work=0), over the arrays' byte layouts in one allocation; arrays of different
    # allocations (or a host and a device array) share nothing.
    if not (isinstance(a, Array) and isinstance(b, Array)):
        return False
    if not _kjarni.may_share_memory(a, b):
        return False
    return builtins.bool(numpy.shares_memory(numpy.asarray(_Layout(a)), numpy.asarray(_Layout(b)),
                                             max_work=max_work))


def _astype(x, dtype, /, *, copy=True, device=None):
    if not isinstance(x, Array):
        raise ArgumentTypeError(f"numpy.astype: Input should be an array. It is a {type(x)} instead.", "x")
    if device is not None:
        _refuse("astype", "device")
    return x.astype(dtype, copy=copy)


def _dtype_stand_in(x):
    return numpy.dtype(x.dtype) if isinstance(x, (Array, Expr)) else x


def _result_type(*arrays_and_dtypes):
    # (an array takes part by its dtype alone in numpy 2, 0-d ones too: only Python numbers are weak)
    return numpy.result_type(*(_dtype_stand_in(x) for x in arrays_and_dtypes))


def _can_cast(from_, to, casting="safe"):
    return numpy.can_cast(_dtype_stand_in(from_), to, casting)


def _common_type(*arrays):
    return numpy.common_type(*(numpy.empty(0, x.dtype) if isinstance(x, (Array, Expr)) else x for x in arrays))


def _min_scalar_type(a, /):
    # numpy's rule for arrays: an array of dimensions keeps its dtype; a 0-d one is its value's
    # smallest type (that one element read back).
    if isinstance(a, (Array, Expr)):
        if len(tuple(a.shape)) == 0:
            queue = _queue("min_scalar_type", a)
            return numpy.min_scalar_type(_on_device(queue, a).get(queue))
        return numpy.min_scalar_type(numpy.empty(1, numpy.dtype(a.dtype)))
    return numpy.min_scalar_type(a)


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {
        "take_along_axis": _take_along_axis, "put_along_axis": _put_along_axis, "put": _put, "putmask": _putmask,
        "place": _place, "copyto": _copyto, "compress": _compress, "extract": _extract, "choose": _choose,
        "select": _select, "insert": _insert, "delete": _delete, "append": _append, "column_stack": _column_stack,
        "block": _block, "unstack": _unstack, "broadcast_arrays": _broadcast_arrays, "rollaxis": _rollaxis,
        "resize": _resize, "trim_zeros": _trim_zeros, "diagflat": _diagflat, "fill_diagonal": _fill_diagonal,
        "ix_": _ix_, "unravel_index": _unravel_index, "ravel_multi_index": _ravel_multi_index,
        "tril_indices_from": _triangle_indices("tril_indices"), "triu_indices_from": _triangle_indices("triu_indices"),
        "diag_indices_from": _diag_indices_from, "array_equiv": _array_equiv, "shares_memory": _shares_memory,
        "astype": _astype, "result_type": _result_type, "can_cast": _can_cast, "common_type": _common_type,
        "min_scalar_type": _min_scalar_type,
    }
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
