"""The algorithms as Python sees them: numpy dtypes in, and every new Array remembers the queue its
contents were computed on (``array.queue``), which ``get()``, ``__array__`` and ``__dlpack__`` then
order after."""

import functools

import numpy

from . import _kjarni, _signatures
from .dtypes import dtype as _d


def _remember(array, queue):
    if isinstance(array, (_kjarni.Array, _kjarni.MultiArray)):
        array.queue = queue
    elif isinstance(array, list):
        for a in array:
            _remember(a, queue)
    return array


def _on_queue(f):
    """`f(queue, ...)` whose result arrays remember `queue`. It calls the binding under f's message
    wrapper itself (kjarni/_signatures.py): one Python call frame fewer on every call."""
    raw, qualname = _signatures.unwrap(f)

    @functools.wraps(f)
    def wrapped(queue, *args, **kwargs):
        try:
            result = raw(queue, *args, **kwargs)
        except TypeError as e:
            explained = _signatures.mismatch(e, qualname, (queue, *args), kwargs)
            if explained is None:
                raise
            raise explained from None
        return _remember(result, queue)
    return wrapped


def _typed(name):
    raw, qualname = _signatures.unwrap(getattr(_kjarni, name))

    def reduction(queue, array, axis=None, dtype=None, keepdims=False, out=None, allocator=None):
        args = (queue, array, axis, None if dtype is None else _d(dtype), keepdims, out, allocator)
        try:
            result = raw(*args)
        except TypeError as e:
            explained = _signatures.mismatch(e, qualname, args, {})
            if explained is None:
                raise
            raise explained from None
        return _remember(result, queue)
    reduction.__name__ = name
    reduction.__doc__ = (f"numpy's {name} over `axis` (all axes when None), in `dtype` when given, "
                         "enqueued on `queue`: a new Array (or `out`), made by `allocator` when given "
                         "(a MemoryPool, a VirtualAllocator or a callable (device, size) -> Buffer).")
    return reduction


evaluate = _on_queue(_kjarni.evaluate)
sum = _typed("sum")  # noqa: A001 (numpy's names)
prod = _typed("prod")
mean = _typed("mean")
min = _on_queue(_kjarni.min)  # noqa: A001
max = _on_queue(_kjarni.max)  # noqa: A001
argmin = _on_queue(_kjarni.argmin)
argmax = _on_queue(_kjarni.argmax)
any = _on_queue(_kjarni.any)  # noqa: A001
all = _on_queue(_kjarni.all)  # noqa: A001
nansum = _typed("nansum")
nanprod = _typed("nanprod")
nanmean = _typed("nanmean")
nanmin = _on_queue(_kjarni.nanmin)
nanmax = _on_queue(_kjarni.nanmax)
nanargmin = _on_queue(_kjarni.nanargmin)
nanargmax = _on_queue(_kjarni.nanargmax)


def _moment(name):
    raw = _on_queue(getattr(_kjarni, name))

    def reduction(queue, array, axis=None, dtype=None, ddof=0, keepdims=False, out=None, allocator=None):
        return raw(queue, array, axis, None if dtype is None else _d(dtype), float(ddof), keepdims, out, allocator)
    reduction.__name__ = name
    reduction.__doc__ = (f"numpy's {name} over `axis` (all axes when None) with `ddof`, computed in `dtype` when "
                         "given (a float or complex type), enqueued on `queue`: a new Array (or `out`).")
    return reduction


var = _moment("var")
std = _moment("std")
nanvar = _moment("nanvar")
nanstd = _moment("nanstd")
stack = _on_queue(_kjarni.stack)

_copy = _kjarni.Array.copy
_kjarni.Array.copy = lambda self, queue, order="C": _remember(_copy(self, queue, order), queue)


# ---- Custom reductions and scans, cumulative sums, the rest of numpy's array operations ----------

def _opt_d(dtype):
    return None if dtype is None else _d(dtype)


class ReductionKernel:
    """PyOpenCL's ReductionKernel (without its context: compiled for each device on first use).

    ``ReductionKernel(numpy.float32, "0", "a+b", "x[i]*y[i]", "const float *x, const float *y")``;
    call it as ``kernel(queue, x, y, axis=None, keepdims=False, out=None)``: arrays broadcast
    together and reduced over ``axis`` (all axes when None), scalars as numpy scalars. Returns a new
    Array (or ``out``)."""

    def __init__(self, dtype_out, neutral, reduce_expr, map_expr, arguments, preamble="", render_globals=None,
                 name="reduction"):
        self._kernel = _kjarni._ReductionKernel(_d(dtype_out), neutral, reduce_expr, map_expr, arguments, preamble,
                                                render_globals, name)

    def __call__(self, queue, *args, axis=None, keepdims=False, out=None):
        return _remember(self._kernel._call(queue, axis, keepdims, out, *args), queue)


class ScanKernel:
    """PyOpenCL's GenericScanKernel along one axis: ``ScanKernel(numpy.int32, "0", "a+b", "x[i]",
    "y[i] = item;", "const int *x, int *y")``, called as ``kernel(queue, x, y, axis=-1)``."""

    def __init__(self, dtype, neutral, scan_expr, input_expr, output_statement, arguments, preamble="",
                 render_globals=None, name="scan"):
        self._kernel = _kjarni._ScanKernel(_d(dtype), neutral, scan_expr, input_expr, output_statement, arguments,
                                           preamble, render_globals, name)

    def __call__(self, queue, *args, axis=-1):
        self._kernel._call(queue, axis, *args)


def cumsum(queue, array, axis=None, dtype=None, out=None):
    """numpy's cumsum along ``axis`` (the flattened array when None), enqueued on ``queue``."""
    return _remember(_kjarni._cumsum(queue, array, axis, _opt_d(dtype), out), queue)


def cumprod(queue, array, axis=None, dtype=None, out=None):
    return _remember(_kjarni._cumprod(queue, array, axis, _opt_d(dtype), out), queue)


def cumsum_parts(mqueue, array, axis, dtype=None):
    """The cumsum of a MultiArray along ``axis``, across its parts (a MultiArray of its splay)."""
    return _remember(_kjarni._cumsum_parts(mqueue, array, axis, _opt_d(dtype)), mqueue)


def cumprod_parts(mqueue, array, axis, dtype=None):
    """The cumprod of a MultiArray along ``axis``, across its parts (a MultiArray of its splay)."""
    return _remember(_kjarni._cumprod_parts(mqueue, array, axis, _opt_d(dtype)), mqueue)


def dot(queue, a, b, out=None):
    """numpy's dot of two 1-d arrays (no conjugation): a 0-d array of numpy's dtype for them (int8 . int8 is
    int8, wrapped; bool . bool is bool; float16 . float16 is float16, summed in float32)."""
    return _remember(_kjarni._dot(queue, a, b, out), queue)


def reduce_whole(mqueue, array, reduction, axis=None, keepdims=False, out=None, dtype=None):
    """A reduction ("sum", "prod", "min", "max", "argmin", "argmax", "any", "all", "mean") of a
    whole MultiArray over ``axis`` (which must include the axis its parts split): one Array on the
    array's first device."""
    result = _kjarni._reduce_whole(mqueue, array, reduction, axis, keepdims, out, _opt_d(dtype))
    return _remember(result, mqueue[array.devices[0]])


def reduce_parts(mqueue, array, reduction, axis=None, keepdims=False, dtype=None):
    """A reduction ("sum", ..., as reduce_whole's) of each part of a MultiArray on its own device,
    over axes that leave the split axis alone: a MultiArray of the same splay (UnsupportedError for
    a reduction across the parts: see reduce_whole)."""
    return _remember(_kjarni._reduce_parts(mqueue, array, reduction, axis, keepdims, _opt_d(dtype)), mqueue)


def concatenate(queue, arrays, axis=0, out=None):
    """numpy.concatenate: a new array, or into ``out``."""
    if out is not None:
        _kjarni._concatenate_into(queue, list(arrays), out, axis)
        return out
    return _remember(_kjarni.concatenate(queue, list(arrays), axis), queue)


hstack = _on_queue(_kjarni._hstack)
vstack = _on_queue(_kjarni._vstack)
dstack = _on_queue(_kjarni._dstack)
split = _kjarni._split


def take(queue, array, indices, axis=None, mode="raise"):
    """numpy.take along ``axis`` (the flattened array when None); ``mode`` "raise", "wrap" or "clip"."""
    return _remember(_kjarni._take(queue, array, indices, axis, mode), queue)


def reshape(queue, array, shape, order="C", copy=None):
    """numpy.reshape: a view where one exists, else a copy; ``copy=False`` refuses to copy."""
    shape = [shape] if isinstance(shape, int) else list(shape)
    return _remember(_kjarni._reshape(queue, array, shape, order, copy), queue)


def _is_already(array, dtype, order):
    """Whether `array` already has `dtype` and `order` (None: any), so that numpy's as*array
    functions return the very object (the C++ call returns the same array in a new wrapper)."""
    if not isinstance(array, _kjarni.Array):
        return False
    if dtype is not None and numpy.dtype(dtype) != array.dtype:
        return False
    return order is None or (array.is_c_contiguous if order == "C" else array.is_f_contiguous)


def ascontiguousarray(queue, array, dtype=None):
    """numpy.ascontiguousarray: the array itself when C-contiguous (and of ``dtype``), else a copy."""
    if _is_already(array, dtype, "C"):
        return array
    return _remember(_kjarni._ascontiguousarray(queue, array, _opt_d(dtype)), queue)


def asfortranarray(queue, array, dtype=None):
    if _is_already(array, dtype, "F"):
        return array
    return _remember(_kjarni._asfortranarray(queue, array, _opt_d(dtype)), queue)


def asarray(queue, array, dtype=None, order=None):
    """numpy.asarray on the device: an Array itself when it already has ``dtype`` and ``order``,
    else a converted copy; a numpy array (or anything numpy takes) is copied to the device."""
    if not isinstance(array, _kjarni.Array):
        host = numpy.asarray(array, dtype=dtype, order=order or "C")
        return _kjarni.Array.from_host(queue, host)
    if _is_already(array, dtype, order):
        return array
    return _remember(_kjarni._asarray(queue, array, _opt_d(dtype), order), queue)


def transfer(array, queue):
    """pygpu's transfer: a C-contiguous copy on ``queue``'s device (any context or API)."""
    return _remember(_kjarni.transfer(array, queue), queue)
