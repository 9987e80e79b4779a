"""The standard's creation functions. Values that come from the host (asarray of Python objects,
arange, linspace) are computed there by numpy and copied to the device once; the others are made
on the device (zeros, full, eye, tril, triu, meshgrid, the *_like functions)."""

import builtins
import math
import operator

import numpy

from .. import _kjarni
from ..dtypes import dtype as _kdtype
from . import _dtypes
from ._array_object import Array, device_of, empty_on, upload, wrap


def _shape(shape):
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(operator.index(s) for s in shape)
    if builtins.any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def _default_for(value):
    if isinstance(value, builtins.bool):
        return _dtypes.bool
    if isinstance(value, int):
        return _dtypes.int64
    if isinstance(value, float):
        return _dtypes.float64
    if isinstance(value, complex):
        return _dtypes.complex128
    raise TypeError(f"not a Python scalar: {type(value).__name__}")


def _flatten_nested(obj, out):
    if isinstance(obj, (list, tuple)):
        for item in obj:
            _flatten_nested(item, out)
    else:
        out.append(obj)


def _infer(obj):
    """The standard's default dtype for nested Python scalars: the widest kind present."""
    items = []
    _flatten_nested(obj, items)
    kinds = {type(i) if not isinstance(i, Array) else i.dtype for i in items}
    if not items:
        return _dtypes.float64
    if builtins.any(isinstance(i, Array) for i in items):
        return numpy.result_type(*[i.dtype if isinstance(i, Array) else i for i in items])
    for t, d in ((complex, _dtypes.complex128), (float, _dtypes.float64), (int, _dtypes.int64)):
        if t in kinds:
            return d
    return _dtypes.bool


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    if dtype is not None:
        _dtypes.check(dtype)
    if isinstance(obj, _kjarni.Array):  # kjarni's own array: the same memory, on its queue
        from ._kjarni_arrays import _array
        obj = _array(obj)
    if isinstance(obj, Array):
        if device is not None and device_of(device) is not obj.device:
            if copy is False:
                raise ValueError("asarray(copy=False) cannot move an array to another device")
            obj = obj.to_device(device)
        if dtype is not None and dtype != obj.dtype:
            if copy is False:
                raise ValueError("asarray(copy=False) cannot change the dtype")
            return _dtypes.astype(obj, dtype)
        if copy:
            return _copy(obj)
        return obj
    if copy is False:
        raise ValueError("asarray(copy=False) of host data: kjarni arrays live in device memory")
    device = device_of(device)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, numpy.ndarray):
        host = numpy.from_dlpack(obj)
    elif isinstance(obj, (builtins.bool, int, float, complex, list, tuple)):
        wanted = dtype if dtype is not None else _infer(obj)
        if isinstance(obj, (list, tuple)):
            items = []
            _flatten_nested(obj, items)
            if builtins.any(isinstance(i, Array) for i in items):
                obj = _nested_host(obj)
        if wanted.kind in "iu":
            _check_integers(obj, wanted)
        host = numpy.asarray(obj, dtype=wanted)
    else:
        host = numpy.asarray(obj)
    if dtype is not None:
        host = host.astype(dtype, copy=False)
    elif host.dtype not in _dtypes.ALL:
        raise TypeError(f"{host.dtype} is not a data type of the array API standard")
    return upload(host, device)


def _nested_host(obj):
    if isinstance(obj, (list, tuple)):
        return [_nested_host(o) for o in obj]
    if isinstance(obj, Array):
        return obj._host()[()]
    return obj


def _check_integers(obj, dtype):
    items = []
    _flatten_nested(obj, items)
    info = numpy.iinfo(dtype)
    for i in items:
        if isinstance(i, int) and not info.min <= i <= info.max:
            raise OverflowError(f"Python int {i} out of bounds for {dtype}")


def _copy(x):
    if x.size == 0:
        return empty_on(x.shape, x.dtype, x.device)
    return wrap(x._data.copy(x.device.queue), x.device)


def empty(shape, *, dtype=None, device=None):
    dtype = _dtypes.float64 if dtype is None else _dtypes.check(dtype)
    return empty_on(_shape(shape), dtype, device_of(device))


def zeros(shape, *, dtype=None, device=None):
    return full(shape, 0, dtype=_dtypes.float64 if dtype is None else dtype, device=device)


def ones(shape, *, dtype=None, device=None):
    return full(shape, 1, dtype=_dtypes.float64 if dtype is None else dtype, device=device)


def full(shape, fill_value, *, dtype=None, device=None):
    if isinstance(fill_value, Array):
        if fill_value.ndim != 0:
            raise ValueError("full's fill_value must be a scalar")
        fill_value = fill_value._host()[()].item()
    if dtype is None:
        dtype = _default_for(fill_value)
    _dtypes.check(dtype)
    if dtype.kind in "iu" and isinstance(fill_value, int) and not isinstance(fill_value, builtins.bool):
        info = numpy.iinfo(dtype)
        if not info.min <= fill_value <= info.max:
            raise OverflowError(f"Python int {fill_value} out of bounds for {dtype}")
    out = empty_on(_shape(shape), dtype, device_of(device))
    if out.size:
        _kjarni.fill(out.device.queue, out._data, numpy.asarray(fill_value, dtype=dtype)[()])
    return out


def empty_like(x, /, *, dtype=None, device=None):
    return empty(x.shape, dtype=x.dtype if dtype is None else dtype, device=x.device if device is None else device)


def zeros_like(x, /, *, dtype=None, device=None):
    return zeros(x.shape, dtype=x.dtype if dtype is None else dtype, device=x.device if device is None else device)


def ones_like(x, /, *, dtype=None, device=None):
    return ones(x.shape, dtype=x.dtype if dtype is None else dtype, device=x.device if device is None else device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    return full(x.shape, fill_value, dtype=x.dtype if dtype is None else dtype,
                device=x.device if device is None else device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = _dtypes.float64 if builtins.any(isinstance(v, float) for v in (start, stop, step)) else _dtypes.int64
    _dtypes.check(dtype)
    if step == 0:
        raise ValueError("arange's step must not be 0")
    count = builtins.max(0, math.ceil((stop - start) / step))
    host = (numpy.arange(count, dtype=numpy.float64 if dtype.kind == "f" else numpy.int64) * step + start)
    return upload(host.astype(dtype), device_of(device))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    if dtype is None:
        dtype = _dtypes.complex128 if builtins.any(isinstance(v, complex) for v in (start, stop)) else _dtypes.float64
    _dtypes.check(dtype)
    host = numpy.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    return upload(host, device_of(device))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    n_cols = n_rows if n_cols is None else n_cols
    dtype = _dtypes.float64 if dtype is None else _dtypes.check(dtype)
    device = device_of(device)
    out = zeros((n_rows, n_cols), dtype=dtype, device=device)
    rows = builtins.max(0, builtins.min(n_rows, n_cols - k) - builtins.max(0, -k))
    if rows:
        # The diagonal as a strided view: one step down and one right at a time.
        first = builtins.max(0, -k) * n_cols + builtins.max(0, k)
        item = dtype.itemsize
        diagonal = _kjarni.Array.from_buffer(out._data.base, _kdtype(dtype), [rows], [(n_cols + 1) * item],
                                             out._data.offset + first * item)
        _kjarni.fill(device.queue, diagonal, numpy.asarray(1, dtype=dtype)[()])
    return out


def _triangle(x, k, lower):
    if x.ndim < 2:
        raise ValueError("tril and triu need an array of at least 2 dimensions")
    if x.size == 0:
        return empty_on(x.shape, x.dtype, x.device)
    rows, cols = x.shape[-2:]
    i = upload(numpy.arange(rows, dtype=numpy.int64).reshape(rows, 1), x.device)
    j = upload(numpy.arange(cols, dtype=numpy.int64).reshape(1, cols), x.device)
    keep = (_kjarni.Expr(i._data) + k >= j._data) if lower else (_kjarni.Expr(i._data) + k <= j._data)
    zero = numpy.zeros((), dtype=x.dtype)[()]
    expr = _kjarni.where(keep, x._data, zero)
    return wrap(_kjarni.evaluate(x.device.queue, expr, None), x.device)


def tril(x, /, *, k=0):
    return _triangle(x, k, lower=True)


def triu(x, /, *, k=0):
    return _triangle(x, k, lower=False)


def meshgrid(*arrays, indexing="xy"):
    from ._manipulation import broadcast_to, reshape
    if indexing not in ("xy", "ij"):
        raise ValueError("meshgrid's indexing is 'xy' or 'ij'")
    if not arrays:
        return []
    dtype = arrays[0].dtype
    for a in arrays:
        if a.ndim != 1 or a.dtype != dtype:
            raise ValueError("meshgrid takes 1-d arrays of one dtype")
    sizes = [a.size for a in arrays]
    if indexing == "xy" and len(arrays) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for n, a in enumerate(arrays):
        axis = n
        if indexing == "xy" and len(arrays) >= 2 and n < 2:
            axis = 1 - n
        shape = [1] * len(arrays)
        shape[axis] = a.size
        out.append(_copy(broadcast_to(reshape(a, tuple(shape)), tuple(sizes))))
    return out


def from_dlpack(x, /, *, device=None, copy=None):
    device = device_of(device)
    if copy is False:
        raise BufferError("kjarni imports DLPack data into device memory: a copy")
    host = numpy.from_dlpack(x)
    return upload(numpy.array(host), device)
